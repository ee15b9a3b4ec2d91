package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** DOT output: Graphviz accepts it, and the edge labels say exactly which letters take each edge. */
class DfaDotTest {
    private static final List<String> FORMULAS = List.of("G(a -> F b)", "G(grant -> (!revoke S consent))",
            "X a", "true", "false", "G(q -> F b) & (a U Y c)",
            "(x0 U x1) & G(x2 -> F(x3 | x4)) & G(x5 -> O x6) & G(x7 -> (!x8 S x9)) & F x10");
    private static final Pattern EDGE = Pattern.compile("^  s(\\d+) -> s(\\d+) \\[label=\"(.*)\"\\];$");

    private final DfaCompiler compiler = new DfaCompiler(1_000);

    @Test
    void edgeLabelsDescribeTheTransitionsExactly() {
        for (String text : FORMULAS) {
            Dfa dfa = compiler.compile(Parser.parse(text));
            String dot = dfa.toDot();
            CUBES.clear();
            Map<Integer, List<String[]>> edges = new HashMap<>();
            for (String line : dot.split("\n")) {
                Matcher m = EDGE.matcher(line);
                if (m.matches()) edges.computeIfAbsent(Integer.parseInt(m.group(1)), s -> new ArrayList<>())
                        .add(new String[] {m.group(2), m.group(3).replace("&amp;", "&")});   // DOT text: &amp; is &
            }
            int letters = 1 << dfa.atoms().size();
            for (int s = 0; s < dfa.stateCount(); s++) {
                assertThat(dot).contains("  s" + s + " [label=\"" + s + "\\n" + dfa.verdict(s).name().toLowerCase().replace('_', ' ') + "\"");
                for (int letter = 0; letter < letters; letter++) {
                    int taken = -1;
                    for (String[] e : edges.get(s)) {
                        if (holds(e[1], dfa.atoms(), letter)) {
                            assertThat(taken).as("%s: state %d letter %d matches two edges", text, s, letter).isEqualTo(-1);
                            taken = Integer.parseInt(e[0]);
                        }
                    }
                    assertThat(taken).as("%s: state %d letter %d", text, s, letter).isEqualTo(dfa.next(s, letter));
                }
            }
        }
    }

    @Test
    void sinksAndAcceptingStatesAreDrawnDifferently() {
        String dot = compiler.compile(Parser.parse("X a")).toDot();
        assertThat(dot).contains("shape=doublecircle").contains("fillcolor=\"#b7e4b0\"").contains("fillcolor=\"#f4b0a8\"");
    }

    @Test
    void graphvizAcceptsTheOutput() throws Exception {
        File dotTool = new File("/usr/bin/dot");
        if (!dotTool.canExecute()) System.err.println("DfaDotTest: /usr/bin/dot missing, graphviz check SKIPPED");
        Assumptions.assumeTrue(dotTool.canExecute(), "graphviz (dot) is not installed");
        // Small enough for a quick layout; the last one is a diagram automaton (11 atoms).
        List<String> formulas = List.of("G(a -> F b)", "G(grant -> (!revoke S consent))", "X a", "true", "false",
                "G(call(refund, \"x\\\"y\") -> O approve(refund))",
                "G(x0 -> F x1) & G(x2 | x3 | x4 | x5 | x6 | x7 | x8 | x9 | x10)");
        for (String text : formulas) {
            String dot = compiler.compile(Parser.parse(text)).toDot();
            Process p = new ProcessBuilder(dotTool.getPath(), "-Tsvg").redirectErrorStream(true).start();
            p.getOutputStream().write(dot.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            String svg = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("dot on %s:\n%s\n%s", text, dot, svg).isZero();
            assertThat(svg).contains("<svg");
        }
    }

    /**
     * An ampersand in an atom is drawn as itself (trial10 dot-label-html-entities: a pattern for HTML-escaped output,
     * output_matches("&lt;script"), was drawn as "<script", since Graphviz reads entities in labels).
     */
    @Test
    void anAmpersandInAnAtomIsDrawnAsWritten() throws Exception {
        String dot = compiler.compile(Parser.parse("G !output_matches(\"&lt;script\")")).toDot();
        assertThat(dot).contains("&amp;lt;script").doesNotContain("\"&lt;script");
        File dotTool = new File("/usr/bin/dot");
        Assumptions.assumeTrue(dotTool.canExecute(), "graphviz (dot) is not installed");
        Process p = new ProcessBuilder(dotTool.getPath(), "-Tplain").redirectErrorStream(true).start();
        p.getOutputStream().write(dot.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String plain = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(plain).as("the text Graphviz lays out").contains("&lt;script").doesNotContain("<script");
    }

    /** Evaluates a label "l & l | l & l" (l = key or !key) on a letter. */
    private static boolean holds(String label, List<Atom> atoms, int letter) {
        for (long[] cube : CUBES.computeIfAbsent(label, l -> parse(l, atoms))) {
            if ((letter & cube[0]) == cube[0] && (letter & cube[1]) == 0) return true;
        }
        return false;
    }

    private static final Map<String, List<long[]>> CUBES = new HashMap<>();

    /** Cubes as {mask of atoms that must hold, mask of atoms that must not}. */
    private static List<long[]> parse(String label, List<Atom> atoms) {
        List<long[]> out = new ArrayList<>();
        for (String cube : label.split(" \\| ")) {
            long[] masks = new long[2];
            if (!cube.equals("true")) {
                for (String lit : cube.split(" & ")) {
                    boolean neg = lit.startsWith("!");
                    int j = atoms.indexOf(Atom.of(neg ? lit.substring(1) : lit));
                    if (j < 0) throw new AssertionError("unknown atom in label: " + lit);
                    masks[neg ? 1 : 0] |= 1L << j;
                }
            }
            out.add(masks);
        }
        return out;
    }
}
