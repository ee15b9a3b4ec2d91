package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

import static dev.tracegate.matchers.predicate.Session.F;
import static dev.tracegate.matchers.predicate.Session.T;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * sum(T, f) adds decimal amounts exactly (trial36 repro 08: 1.10 + 2.20 was 3.3000000000000003, so a budget of 3.30
 * reached exactly refused the payment, and 0.70 + 0.10 fell short of 0.80). Oracle: BigDecimal over the text as written.
 */
class SumExactTest {

    record Amount(String text, boolean json) {}

    @Provide Arbitrary<Amount> amounts() {
        Arbitrary<String> text = Combinators.combine(
                Arbitraries.longs().between(-99_999_999L, 99_999_999L), Arbitraries.integers().between(0, 6),
                Arbitraries.integers().between(0, 999_999))
            .as((whole, places, frac) -> places == 0 ? Long.toString(whole)
                : (whole == 0 && frac % 2 == 1 ? "-" : "") + whole + "." + String.format("%06d", frac).substring(0, places));
        return Combinators.combine(text, Arbitraries.of(true, false)).as(Amount::new);
    }

    @Provide Arbitrary<List<Amount>> sessions() { return amounts().list().ofMinSize(1).ofMaxSize(12); }

    /** Every prefix's total against a bound equal to it, one millionth below and one above, with each operator. */
    @Property(tries = 400)
    void runningSumsCompareExactlyAsDecimals(@ForAll("sessions") List<Amount> pays, @ForAll("amounts") Amount bound) {
        BigDecimal total = BigDecimal.ZERO;
        for (int i = 0; i < pays.size(); i++) {
            Amount a = pays.get(i);
            total = total.add(new BigDecimal(a.text()));
            BigDecimal[] bounds = {total, total.subtract(new BigDecimal("0.000001")), total.add(new BigDecimal("0.000001")),
                new BigDecimal(bound.text())};
            String[] ops = {"<=", "<", ">=", ">", "==", "!="};
            String[] atoms = new String[bounds.length * ops.length];
            int[] want = new int[atoms.length];
            for (int b = 0; b < bounds.length; b++) {
                for (int o = 0; o < ops.length; o++) {
                    atoms[b * ops.length + o] = "sum(pay, amount) " + ops[o] + " " + bounds[b].toPlainString();
                    int c = total.compareTo(bounds[b]);
                    boolean holds = switch (o) {
                        case 0 -> c <= 0; case 1 -> c < 0; case 2 -> c >= 0; case 3 -> c > 0; case 4 -> c == 0; default -> c != 0;
                    };
                    want[b * ops.length + o] = holds ? T : F;
                }
            }
            // a fresh session fed the prefix: the call being judged (its amount included) and then a user message (the
            // state words alone, the other grounding path)
            Session s = new Session(Policy.EMPTY, atoms);
            for (int j = 0; j < i; j++) s.step(pay(pays.get(j)));
            assertThat(s.step(pay(a))).as("at the call, total %s of %s", total, pays.subList(0, i + 1)).containsExactly(want);
            assertThat(s.at(Event.user("s", 0, "hi"))).as("after the call, total %s", total).containsExactly(want);
        }
    }

    @Test
    void theTrialsBoundaryTotalsAreExact() {
        Session s = new Session(Policy.EMPTY, "sum(pay, amount) <= 3.30", "sum(pay, amount) >= 0.80", "sum(pay, amount) == 0.30");
        assertThat(s.step(pay(new Amount("1.10", true)))).containsExactly(T, T, F);
        assertThat(s.step(pay(new Amount("2.20", true)))).as("1.10 + 2.20 <= 3.30").containsExactly(T, T, F);
        Session t = new Session(Policy.EMPTY, "sum(pay, amount) <= 0.30", "sum(pay, amount) == 0.30", "sum(pay, amount) >= 0.80");
        t.step(pay(new Amount("0.10", false)));
        assertThat(t.step(pay(new Amount("0.20", false)))).as("\"0.10\" + \"0.20\"").containsExactly(T, T, F);
        Session u = new Session(Policy.EMPTY, "sum(pay, amount) >= 0.80");
        u.step(pay(new Amount("0.70", true)));
        assertThat(u.step(pay(new Amount("0.10", true)))).as("0.70 + 0.10 >= 0.80").containsExactly(T);
    }

    @Test
    void moreThanSixDecimalsRoundToTheNearestMillionth() {
        Session s = new Session(Policy.EMPTY, "sum(pay, amount) == 0.000002", "sum(pay, amount) == 0.000001");
        assertThat(s.step(pay(new Amount("0.0000014", true)))).containsExactly(F, T);
        assertThat(s.step(pay(new Amount("0.0000006", false)))).as("0.000001 + 0.000001").containsExactly(T, F);
    }

    private static Event pay(Amount a) {
        String v = a.json() ? a.text() : "\"" + a.text() + "\"";
        return Event.call("s", 0, "pay", "{\"amount\":" + v + "}");
    }
}
