package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.reference.Progression;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An agent event whose atoms cannot be evaluated names every contract that some value of those atoms would freshly
 * FAIL (FORMULAS.md, "Contracts and verdicts"), also when the "false" reading of them already fails another one;
 * checked online and offline against formula progression over every value of the unevaluable atoms.
 */
class UnevaluableBlameTest {
    private static final DfaCompiler COMPILER = new DfaCompiler(2_000);

    @Test
    void aCallRefusedByTwoContractsNamesBoth() {
        // trial13 unevaluable-blame-missing: cap fails when "amount <= 100" reads false, neg only when "amount > 100" reads true
        List<Contract> cs = List.of(
                new Contract("cap", Parser.parse("true"), Parser.parse("G(pay -> at_most_100)"), "redirect", ""),
                new Contract("neg", Parser.parse("true"), Parser.parse("G(pay -> !over_100)"), "block", ""));
        ContractSet set = ContractSet.compile(cs, COMPILER);
        long pay = 1L << set.atoms().indexOf(Atom.of("pay"));
        long unknown = 1L << set.atoms().indexOf(Atom.of("at_most_100")) | 1L << set.atoms().indexOf(Atom.of("over_100"));
        BitsGrounder.Ev e = new BitsGrounder.Ev(1, pay, unknown, true);
        SessionMonitor<BitsGrounder.Ev> m = new SessionMonitor<>(set, new BitsGrounder());
        Decision online = m.step(m.session("s"), e, true, true, m.newWorker());
        Replay.Step offline = new Replay<>(set, new BitsGrounder(), true, "s").next(e, true, true);
        assertThat(online.refused()).isTrue();
        assertThat(online.contracts()).containsExactly(0, 1);
        assertThat(offline.contracts()).containsExactly(0, 1);
    }

    @Test
    void everyContractSomeValueFailsIsNamedAsProgressionSays() {
        int sets = 0;
        long widened = 0;
        for (int seed = 0; sets < 300; seed++) {
            Random r = new Random(seed);
            int atoms = 2 + r.nextInt(3);
            List<Contract> contracts = RandomContracts.contracts(r, 2 + r.nextInt(3), atoms);
            ContractSet set;
            try {
                set = ContractSet.compile(contracts, COMPILER);
            } catch (StateLimitException tooBig) {
                continue;
            }
            int width = set.atoms().size();
            if (width == 0) continue;
            sets++;
            SessionMonitor<BitsGrounder.Ev> online = new SessionMonitor<>(set, new BitsGrounder());
            Replay<BitsGrounder.Ev> offline = new Replay<>(set, new BitsGrounder(), true, "s");
            Worker w = online.newWorker();
            Session s = online.session("s");
            List<Long> prefix = new ArrayList<>();
            int len = r.nextInt(6);
            for (int i = 0; i < len; i++) {   // shadow mode: every event is applied, so the prefix is the trace
                long bits = r.nextLong() & ((1L << width) - 1);
                BitsGrounder.Ev e = new BitsGrounder.Ev(i, bits, 0, r.nextBoolean());
                online.step(s, e, e.agent, false, w);
                offline.next(e, e.agent, false);
                prefix.add(bits);
            }
            long letter = r.nextLong() & ((1L << width) - 1);
            long unev = 0;
            for (int k = 1 + r.nextInt(Math.min(3, width)); Long.bitCount(unev) < k; ) unev |= 1L << r.nextInt(width);
            BitsGrounder.Ev e = new BitsGrounder.Ev(len, letter, unev, true);
            int[] expected = blamedByProgression(set, prefix, letter & ~unev, unev);
            Decision d = online.step(s, e, true, true, w);
            Replay.Step o = offline.next(e, true, true);
            String where = "seed " + seed + " prefix " + prefix + " event " + e + " contracts " + contracts;
            assertThat(d.contracts()).as(where).containsExactly(expected);
            assertThat(o.contracts()).as(where).containsExactly(expected);
            assertThat(d.refused()).as(where).isEqualTo(expected.length > 0);
            if (d.kind() == Decision.Kind.BLOCK && blamedByProgression(set, prefix, letter & ~unev, 0).length < expected.length) widened++;
        }
        // the case of the fix: the false reading fails some contracts, another value fails more
        assertThat(widened).as("blocks widened by another value of the unevaluable atoms").isGreaterThan(5);
    }

    /** The contracts that the letter freshly makes FAIL for some value of the atoms {@code unev}, by progression. */
    private static int[] blamedByProgression(ContractSet set, List<Long> prefix, long letter, long unev) {
        List<Atom> atoms = set.atoms();
        long[] before = prefix.stream().mapToLong(Long::longValue).toArray();
        long[] after = Arrays.copyOf(before, before.length + 1);
        int[] bits = new int[Long.bitCount(unev)];
        for (int i = 0, m = 0; i < 64; i++) if ((unev >>> i & 1) != 0) bits[m++] = i;
        List<Integer> out = new ArrayList<>();
        for (int c = 0; c < set.contracts().size(); c++) {
            Contract k = set.contracts().get(c);
            if (failing(k, atoms, before)) continue;
            for (int mask = 0; mask < 1 << bits.length; mask++) {
                long l = letter;
                for (int b = 0; b < bits.length; b++) if ((mask >>> b & 1) != 0) l |= 1L << bits[b];
                after[before.length] = l;
                if (failing(k, atoms, after)) {
                    out.add(c);
                    break;
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static boolean failing(Contract c, List<Atom> atoms, long[] trace) {
        return Progression.verdict(c.assume(), atoms, trace) != RvVerdict.PERMANENTLY_VIOLATED
                && Progression.verdict(c.guarantee(), atoms, trace) == RvVerdict.PERMANENTLY_VIOLATED;
    }
}
