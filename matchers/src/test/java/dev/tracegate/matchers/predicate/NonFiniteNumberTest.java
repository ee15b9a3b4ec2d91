package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Random;

import static dev.tracegate.matchers.predicate.Session.F;
import static dev.tracegate.matchers.predicate.Session.T;
import static dev.tracegate.matchers.predicate.Session.U;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A number outside the double range is not a number (trial7 repro 7: a JSON -1e400 read as -Infinity made
 * sum(pay, amount) -Infinity for good, so a budget never fired again): every numeric reading finds it unevaluable,
 * like the text "-Infinity", and a sum of finite amounts that leaves the range is unevaluable too.
 */
class NonFiniteNumberTest {

    private static Event pay(String amount) { return Event.call("s", 1, "pay", "{\"amount\":" + amount + "}"); }

    @Test
    void aNumberOutsideTheDoubleRangeIsUnevaluableInArgumentsSumsSetsAndContext() {
        Policy p = Policy.builder().latch(Latch.on(dev.tracegate.matchers.event.EventKind.RETURN, "limit").set("limit").fromResult()).build();
        Session s = new Session(p, "arg(pay, amount) <= 1000", "sum(pay, amount) <= 1000", "arg(amount) > -5",
                "arg_in(pay, amount, [1, 2])", "count(pay) <= ctx(limit)");
        for (String v : new String[] {"-1e400", "1e400", "\"1e400\"", "\"-Infinity\"", "-" + "9".repeat(400)}) {
            int[] at = s.at(pay(v));
            assertThat(at[0]).as(v).isEqualTo(U);
            assertThat(at[1]).as(v).isEqualTo(U);
            assertThat(at[2]).as(v).isEqualTo(U);
            assertThat(at[3]).as("a value that is no number is not among the numbers: %s", v).isEqualTo(F);
        }
        s.step(Event.returned("s", 2, "limit", "1e400", false));
        assertThat(s.at(pay("1"))[4]).as("a context bound outside the range").isEqualTo(U);
    }

    @Test
    void aSumIsNotMovedByAnUnreadableAmountAndASumThatLeavesTheRangeIsUnevaluable() {
        Session s = new Session(Policy.EMPTY, "sum(pay, amount) <= 1000");
        assertThat(s.step(pay("-1e400"))[0]).isEqualTo(U);   // applied (shadow mode, or unevaluable: allow): adds nothing
        assertThat(s.step(pay("900"))[0]).isEqualTo(T);
        assertThat(s.step(pay("900"))[0]).as("900 + 900").isEqualTo(F);
        assertThat(s.at(pay("9223372036854")).length).isEqualTo(1);
        assertThat(s.at(pay("9223372034854"))[0]).as("1800 + 9,223,372,034,854: at the top of the exact range").isEqualTo(F);
        assertThat(s.at(pay("9223372036854"))[0]).as("a total beyond 9,223,372,036,854 is no number").isEqualTo(U);
        assertThat(s.step(pay("1e308"))[0]).as("an amount beyond the exact range").isEqualTo(U);
        assertThat(s.at(pay("-1e308"))[0]).as("for good").isEqualTo(U);
        assertThat(s.at(pay("1"))[0]).as("for good").isEqualTo(U);
    }

    /** Oracle: the literal read exactly (BigDecimal) is a number when inside the double range, and then compared exactly. */
    @Test
    void randomLiteralsAgreeWithAnExactReading() {
        Random r = new Random(7);
        Session s = new Session(Policy.EMPTY, "arg(pay, amount) <= 1000");
        BigDecimal max = new BigDecimal(Double.MAX_VALUE);
        for (int i = 0; i < 2000; i++) {
            StringBuilder lit = new StringBuilder(r.nextBoolean() ? "-" : "");
            lit.append(1 + r.nextInt(9));
            for (int d = r.nextInt(12); d > 0; d--) lit.append(r.nextInt(10));
            int exp = r.nextInt(841) - 420;
            if (exp > 290 && exp < 320) exp += 40;   // keep clear of the rounding edge at Double.MAX_VALUE
            lit.append('e').append(exp);
            BigDecimal exact = new BigDecimal(lit.toString());
            int expected = exact.abs().compareTo(max) > 0 ? U : exact.compareTo(BigDecimal.valueOf(1000)) <= 0 ? T : F;
            assertThat(s.one(pay(lit.toString()))).as(lit.toString()).isEqualTo(expected);
        }
    }
}
