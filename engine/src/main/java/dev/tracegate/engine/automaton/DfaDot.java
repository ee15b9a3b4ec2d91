package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.RvVerdict;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Graphviz DOT for an automaton: one node per state (id and verdict; double circle when accepting,
 * green or red fill for the permanently satisfied or violated sink), one edge per (state, target)
 * labelled with a sum of products over the atoms' keys that says which letters take it (irredundant
 * when the state tests at most 12 atoms; one product per diagram path otherwise).
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
                    .append(quote(s + "\n" + v.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')))
                    .append(", shape=").append(dfa.accepting(s) ? "doublecircle" : "circle");
            if (v == RvVerdict.PERMANENTLY_SATISFIED) out.append(", style=filled, fillcolor=\"#b7e4b0\"");
            if (v == RvVerdict.PERMANENTLY_VIOLATED) out.append(", style=filled, fillcolor=\"#f4b0a8\"");
            out.append("];\n");
        }
        for (int s = 0; s < dfa.stateCount(); s++) {
            Map<Integer, List<String>> byTarget = new TreeMap<>();
            if (dfa.isTable()) tableCubes(dfa, s, byTarget);
            else diagramState(dfa, s, byTarget);
            for (Map.Entry<Integer, List<String>> e : byTarget.entrySet()) {
                out.append("  s").append(s).append(" -> s").append(e.getKey())
                        .append(" [label=").append(quote(String.join(" | ", e.getValue()))).append("];\n");
            }
        }
        return out.append("}\n").toString();
    }

    /** A state of a table automaton: irredundant sums of products over all atoms. */
    private static void tableCubes(Dfa dfa, int s, Map<Integer, List<String>> out) {
        int k = dfa.atomCount();
        int[] targets = new int[1 << k];
        System.arraycopy(dfa.table(), s << k, targets, 0, 1 << k);
        List<String> names = new ArrayList<>();
        for (int j = 0; j < k; j++) names.add(dfa.atoms().get(j).key());
        sumsOfProducts(targets, names, out);
    }

    /**
     * A state of a diagram automaton: irredundant sums of products over the atoms its diagram tests
     * when they are few enough to tabulate, else one product per diagram path.
     */
    private static void diagramState(Dfa dfa, int s, Map<Integer, List<String>> out) {
        int root = dfa.root()[s];
        java.util.TreeSet<Integer> tested = new java.util.TreeSet<>();
        collectAtoms(dfa, root, tested, new java.util.HashSet<>());
        if (tested.size() > 12) {
            diagramCubes(dfa, root, new ArrayList<>(), out);
            return;
        }
        int[] vars = tested.stream().mapToInt(Integer::intValue).toArray();
        int[] targets = new int[1 << vars.length];
        List<String> names = new ArrayList<>();
        for (int v : vars) names.add(dfa.atoms().get(v).key());
        for (int local = 0; local < targets.length; local++) {
            int r = root;
            while (r >= 0) {
                int at = java.util.Arrays.binarySearch(vars, dfa.nodeAtom()[r]);
                r = ((local >>> at) & 1) != 0 ? dfa.nodeHi()[r] : dfa.nodeLo()[r];
            }
            targets[local] = ~r;
        }
        sumsOfProducts(targets, names, out);
    }

    private static void collectAtoms(Dfa dfa, int r, java.util.Set<Integer> out, java.util.Set<Integer> seen) {
        if (r < 0 || !seen.add(r)) return;
        out.add(dfa.nodeAtom()[r]);
        collectAtoms(dfa, dfa.nodeLo()[r], out, seen);
        collectAtoms(dfa, dfa.nodeHi()[r], out, seen);
    }

    /**
     * Per target, an irredundant sum of products of the letters ({@code targets[letter]}, bit j =
     * {@code names.get(j)}) that lead there (Minato-Morreale: cubes with !x, cubes with x, and cubes
     * that need neither, recursively).
     */
    private static void sumsOfProducts(int[] targets, List<String> names, Map<Integer, List<String>> out) {
        int k = names.size();
        int letters = targets.length;
        for (int t : targets) out.putIfAbsent(t, new ArrayList<>());
        for (Map.Entry<Integer, List<String>> e : out.entrySet()) {
            boolean[] f = new boolean[letters];
            for (int letter = 0; letter < letters; letter++) f[letter] = targets[letter] == e.getKey();
            for (int[] cube : isop(f, f, 0, k)) {
                List<String> lits = new ArrayList<>();
                for (int j = 0; j < k; j++) {
                    if ((cube[0] >>> j & 1) != 0) lits.add(names.get(j));
                    if ((cube[1] >>> j & 1) != 0) lits.add("!" + names.get(j));
                }
                e.getValue().add(product(lits));
            }
        }
    }

    /** Cubes {positive mask, negative mask} covering all of {@code lo} and nothing outside {@code up}. */
    private static List<int[]> isop(boolean[] lo, boolean[] up, int j, int k) {
        List<int[]> out = new ArrayList<>();
        if (none(lo)) return out;
        if (all(up)) {
            out.add(new int[] {0, 0});
            return out;
        }
        while (j < k && !dependsOn(lo, j) && !dependsOn(up, j)) j++;
        boolean[] lo0 = cofactor(lo, j, false), lo1 = cofactor(lo, j, true);
        boolean[] up0 = cofactor(up, j, false), up1 = cofactor(up, j, true);
        List<int[]> c0 = isop(andNot(lo0, up1), up0, j + 1, k);
        List<int[]> c1 = isop(andNot(lo1, up0), up1, j + 1, k);
        boolean[] rest = new boolean[lo.length];
        boolean[] r0 = cover(c0, lo.length), r1 = cover(c1, lo.length);
        for (int l = 0; l < lo.length; l++) rest[l] = (lo0[l] && !r0[l]) || (lo1[l] && !r1[l]);
        boolean[] both = new boolean[lo.length];
        for (int l = 0; l < lo.length; l++) both[l] = up0[l] && up1[l];
        List<int[]> cs = isop(rest, both, j + 1, k);
        for (int[] c : c0) out.add(new int[] {c[0], c[1] | 1 << j});
        for (int[] c : c1) out.add(new int[] {c[0] | 1 << j, c[1]});
        out.addAll(cs);
        return out;
    }

    private static boolean none(boolean[] f) {
        for (boolean b : f) if (b) return false;
        return true;
    }

    private static boolean all(boolean[] f) {
        for (boolean b : f) if (!b) return false;
        return true;
    }

    private static boolean dependsOn(boolean[] f, int j) {
        for (int l = 0; l < f.length; l++) if (f[l] != f[l ^ (1 << j)]) return true;
        return false;
    }

    /** f with variable j fixed (the result no longer depends on j). */
    private static boolean[] cofactor(boolean[] f, int j, boolean value) {
        boolean[] g = new boolean[f.length];
        for (int l = 0; l < f.length; l++) g[l] = f[value ? l | 1 << j : l & ~(1 << j)];
        return g;
    }

    private static boolean[] andNot(boolean[] a, boolean[] b) {
        boolean[] g = new boolean[a.length];
        for (int l = 0; l < a.length; l++) g[l] = a[l] && !b[l];
        return g;
    }

    private static boolean[] cover(List<int[]> cubes, int letters) {
        boolean[] g = new boolean[letters];
        for (int l = 0; l < letters; l++) {
            for (int[] c : cubes) {
                if ((l & c[0]) == c[0] && (l & c[1]) == 0) {
                    g[l] = true;
                    break;
                }
            }
        }
        return g;
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
            else if (c == '&') b.append("&amp;");   // Graphviz reads &lt; and &#60; in a label as the character they name
            else b.append(c);
        }
        return b.append('"').toString();
    }
}
