package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The joint transition tables: every entry of every tabulated group is what the definition gives, decoded entry by
 * entry (each formula's field of the entry: its state and letter, that state's successor in its automaton, the
 * permanently-violated flag when the step enters violation; 0 when a field's state is none of its automaton's), for
 * seeded random contract sets of 1 to 40 contracts, so that the table built formula by formula while the agent starts
 * is the one the step was designed for.
 */
class FlatTransitionsTest {

    @Test
    void everyEntryOfEveryGroupTableIsItsFormulasSuccessorsAsDefined() throws Exception {
        DfaCompiler compiler = new DfaCompiler(2_000);
        long entries = 0;
        int groupsWithSeveralFormulas = 0;
        for (int seed = 0; seed < 60; seed++) {
            Random r = new Random(seed);
            int n = 1 + r.nextInt(seed < 30 ? 8 : 40);
            ContractSet set = ContractSet.compile(RandomContracts.contracts(r, n, 2 + r.nextInt(6)), compiler);
            FlatTransitions flat = field(set, "flat");
            List<Dfa> dfas = field(set, "formulas");
            boolean[][] pv = field(set, "permanentlyViolated");
            for (long group : flat.groups) {
                int base = (int) group;
                if (base < 0) continue;   // a decision-diagram formula, stepped by its automaton
                int lo = (int) (group >>> 32) & 63;
                int w = (int) (group >>> 38) & 63;
                int word = (int) (group >>> 50);
                int formulas = 0;
                for (int f = 0; f < dfas.size(); f++) {
                    long l = flat.layout[f];
                    int at = FlatTransitions.fieldShift(l);
                    if (FlatTransitions.word(l) == word && at >= lo && at < lo + w) formulas++;
                }
                if (formulas > 1) groupsWithSeveralFormulas++;
                for (int x = 0; x < 1 << w; x++) {
                    assertThat(flat.flat[base + x]).as("seed %d, group at %d, entry %d", seed, base, x)
                            .isEqualTo(expected(x, lo, w, word, flat.layout, dfas, pv));
                    entries++;
                }
            }
        }
        assertThat(entries).as("entries checked").isGreaterThan(10_000);
        assertThat(groupsWithSeveralFormulas).as("groups that tabulate several formulas jointly").isGreaterThan(20);
    }

    /** Entry {@code x} of the group of bits {@code lo .. lo+w} of packed long {@code word}, from the definition. */
    private static int expected(int x, int lo, int w, int word, long[] layout, List<Dfa> dfas, boolean[][] pv) {
        int e = 0;
        for (int f = 0; f < dfas.size(); f++) {
            long l = layout[f];
            int at = FlatTransitions.fieldShift(l) - lo;
            if (FlatTransitions.word(l) != word || at < 0 || at >= w) continue;
            int width = (int) (l >>> 38) & 63;
            int letterBits = ((int) (l >>> 44) & 63) - FlatTransitions.fieldShift(l);
            int field = x >>> at & ((1 << width) - 1);
            int s = field >>> letterBits;
            Dfa d = dfas.get(f);
            if (s >= d.stateCount()) return 0;   // no packed state has this field: the entry is never read
            int t = d.next(s, field & ((1 << letterBits) - 1));
            e |= t << (at + letterBits);
            if (pv[f][t] && !pv[f][s]) e |= FlatTransitions.FRESH;
        }
        return e;
    }

    @SuppressWarnings("unchecked")
    private static <T> T field(Object owner, String name) throws ReflectiveOperationException {
        Field f = owner.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return (T) f.get(owner);
    }
}
