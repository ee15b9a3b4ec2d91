package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.RvVerdict;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Graphviz DOT for an automaton: one node per state (id and verdict; double circle when accepting,
 * green or red fill for the permanently satisfied or violated sink), one edge per (state, target)
 * labelled with a sum of products over the atoms' keys that says which letters take it.
 */
final class DfaDot {
    private DfaDot() {}

    static String render(Dfa dfa) {
        StringBuilder out = new StringBuilder();
        out.append("digraph dfa {\n");
        out.append("  rankdir=LR;\n");
        out.append("  node [shape=circle, fontname=\"Helvetica\"];\n");
        out.append("  edge [fontname=\"Helvetica\"];\n");
        out.append("  label=").append(quote(dev.tracegate.engine.ltl.Formulas.print(dfa.formula()))).append(";\n");
        out.append("  start [shape=point, label=\"\"];\n");
        out.append("  start -> s").append(dfa.initialState()).append(";\n");
        for (int s = 0; s < dfa.stateCount(); s++) {
            RvVerdict v = dfa.verdict(s);
            out.append("  s").append(s).append(" [label=")
                    .append(quote(s + "\n" + v.name().toLowerCase().replace('_', ' ')))
                    .append(", shape=").append(dfa.accepting(s) ? "doublecircle" : "circle");
            if (v == RvVerdict.PERMANENTLY_SATISFIED) out.append(", style=filled, fillcolor=\"#b7e4b0\"");
            if (v == RvVerdict.PERMANENTLY_VIOLATED) out.append(", style=filled, fillcolor=\"#f4b0a8\"");
            out.append("];\n");
        }
        for (int s = 0; s < dfa.stateCount(); s++) {
            Map<Integer, List<String>> byTarget = new TreeMap<>();
            List<String> cube = new ArrayList<>();
            if (dfa.isTable()) tableCubes(dfa, s, 0, 0, cube, byTarget);
            else diagramCubes(dfa, dfa.root()[s], cube, byTarget);
            for (Map.Entry<Integer, List<String>> e : byTarget.entrySet()) {
                out.append("  s").append(s).append(" -> s").append(e.getKey())
                        .append(" [label=").append(quote(String.join(" | ", e.getValue()))).append("];\n");
            }
        }
        return out.append("}\n").toString();
    }

    /** Splits on atoms in order until every letter left under the cube goes to the same target. */
    private static void tableCubes(Dfa dfa, int s, int j, int fixed, List<String> cube, Map<Integer, List<String>> out) {
        int k = dfa.atomCount();
        int[] table = dfa.table();
        int target = table[(s << k) | fixed];
        boolean uniform = true;
        for (int rest = 0; rest < 1 << (k - j) && uniform; rest++) {
            uniform = table[(s << k) | fixed | (rest << j)] == target;
        }
        if (uniform) {
            out.computeIfAbsent(target, t -> new ArrayList<>()).add(product(cube));
            return;
        }
        String key = dfa.atoms().get(j).key();
        cube.add("!" + key);
        tableCubes(dfa, s, j + 1, fixed, cube, out);
        cube.set(cube.size() - 1, key);
        tableCubes(dfa, s, j + 1, fixed | (1 << j), cube, out);
        cube.remove(cube.size() - 1);
    }

    private static void diagramCubes(Dfa dfa, int r, List<String> cube, Map<Integer, List<String>> out) {
        if (r < 0) {
            out.computeIfAbsent(~r, t -> new ArrayList<>()).add(product(cube));
            return;
        }
        String key = dfa.atoms().get(dfa.nodeAtom()[r]).key();
        cube.add("!" + key);
        diagramCubes(dfa, dfa.nodeLo()[r], cube, out);
        cube.set(cube.size() - 1, key);
        diagramCubes(dfa, dfa.nodeHi()[r], cube, out);
        cube.remove(cube.size() - 1);
    }

    private static String product(List<String> cube) { return cube.isEmpty() ? "true" : String.join(" & ", cube); }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c == '\n') b.append("\\n");
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
