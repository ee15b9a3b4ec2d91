package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Contracts that share no atom are analysed apart only when that cannot change a finding (trial7 finding 19: twelve small
 * contracts about different tools made the dead-end check's product too large, and check failed). Checked against the
 * analysis of all contracts as one part, on random libraries.
 */
class IndependentPartsTest {

    private static Contract c(String id, String assume, String guarantee) {
        return new Contract(id, Parser.parse(assume), Parser.parse(guarantee), "block", "");
    }

    @Test
    void manySmallContractsAboutDifferentToolsAreAnalysedApartAndPass() {
        List<Contract> cs = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            String t = "t" + i;
            cs.add(c("big.c" + i, "true", switch (i % 5) {
                case 0 -> "G(call(" + t + ") -> O returned(v" + i + "))";
                case 1 -> "G(count(" + t + ") <= 3)";
                case 2 -> "G(returned(" + t + ") -> F call(n" + i + "))";
                case 3 -> "G(call(" + t + ") -> arg(" + t + ", amount) <= 100)";
                default -> "!call(" + t + ") W user_matches(\"ok" + i + "\")";
            }));
        }
        LibraryAnalysis analysis = new LibraryAnalysis(new DfaCompiler(20_000));
        assertThat(analysis.independentParts(cs)).hasSize(25);
        assertThat(analysis.analyse(cs)).as("no check skipped, nothing found").isEmpty();
    }

    /**
     * Two deadlines over different tools that fall due at the same event: each contract alone has no dead end, together
     * they have one; a part whose automata cannot wait keeps the contracts together, so the dead end is found.
     */
    @Test
    void deadlinesThatCollideKeepTheContractsTogether() {
        List<Contract> cs = List.of(c("x.a", "true", "G(call(a0) -> X X call(t0))"), c("x.b", "true", "G(call(b1) -> X call(t1))"));
        LibraryAnalysis analysis = new LibraryAnalysis(new DfaCompiler(20_000));
        assertThat(analysis.independentParts(cs)).hasSize(1);
        assertThat(analysis.analyse(cs)).extracting(LibraryAnalysis.Finding::kind).contains(LibraryAnalysis.Kind.DEAD_END);
    }

    private static final String[] TEMPLATES = {
        "G(%1$s -> O %2$s)", "G(%1$s -> F %2$s)", "G(%1$s -> X %2$s)", "G(%1$s -> WX %2$s)", "G !%1$s", "!%1$s W %2$s",
        "G(%1$s -> X !%2$s)", "F %1$s", "G(%1$s)", "%1$s U %2$s", "G(%1$s -> (%2$s R !%1$s))",
    };
    private static final String[] ASSUMES = {"true", "true", "G !%1$s", "F %1$s"};

    /** The kinds of findings are the same whether the parts are analysed apart or all contracts as one part. */
    @Test
    void analysingThePartsApartFindsWhatAnalysingThemTogetherFinds() {
        Random rnd = new Random(20261130);
        LibraryAnalysis analysis = new LibraryAnalysis(new DfaCompiler(20_000));
        int split = 0;
        for (int lib = 0; lib < 800; lib++) {
            int n = 2 + rnd.nextInt(3);
            List<Contract> cs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // atoms from a small pool: some contracts share one, others have their own tools
                String p = atom(rnd, i), q = atom(rnd, i);
                String g = String.format(TEMPLATES[rnd.nextInt(TEMPLATES.length)], p, q);
                String a = String.format(ASSUMES[rnd.nextInt(ASSUMES.length)], "user_matches(\"u" + (rnd.nextInt(5) == 0 ? "shared" : i) + "\")");
                cs.add(c("r" + lib + ".c" + i, a, g));
            }
            if (analysis.independentParts(cs).size() > 1) split++;
            Set<String> apart = kinds(analysis.analyse(cs));
            Set<String> together = kinds(analysis.analyseTogether(cs));
            assertThat(apart).as("library %d: %s", lib, cs).isEqualTo(together);
        }
        assertThat(split).as("libraries that were split (the property says something)").isGreaterThan(40);
    }

    private static String atom(Random rnd, int contract) {
        int pool = rnd.nextInt(6);
        String tool = pool == 0 ? "shared" : "t" + contract + "_" + rnd.nextInt(2);
        return switch (rnd.nextInt(4)) {
            case 0, 1 -> "call(" + tool + ")";
            case 2 -> "returned(" + tool + ")";
            default -> "count(" + tool + ") <= 2";
        };
    }

    private static Set<String> kinds(List<LibraryAnalysis.Finding> fs) {
        return fs.stream().map(f -> f.kind().name()).collect(Collectors.toCollection(TreeSet::new));
    }
}
