package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The MONA oracle: writes an M2L-Str program stating that a compiled automaton accepts exactly the
 * nonempty strings whose first position satisfies the formula (translated to first-order logic over
 * positions, past operators included; the automaton's run is encoded with its states in binary), runs {@code mona}, and returns either agreement or a
 * distinguishing trace from MONA's counter-example.
 *
 * <p>MONA's M2L-Str gives odd answers on the empty string (first-order quantifiers over no
 * position), so the program quantifies over nonempty strings only; the empty trace is checked by
 * the caller (it satisfies every formula).
 */
final class Mona {
    private Mona() {}

    /** The {@code mona} executable, or null when it is not installed. */
    static String executable() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            File f = new File(dir, "mona");
            if (f.canExecute()) return f.getPath();
        }
        return new File("/usr/bin/mona").canExecute() ? "/usr/bin/mona" : null;
    }

    /** A disagreement: MONA's shortest string on which the automaton and the formula differ. */
    record Disagreement(long[] trace, String monaOutput) {}

    /** Runs MONA; null when the automaton's language equals the formula's on nonempty strings. */
    static Disagreement check(Formula f, Dfa dfa, Path workDir) throws IOException, InterruptedException {
        Path file = Files.createTempFile(workDir, "check", ".mona");
        Files.writeString(file, program(f, dfa), StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(executable(), "-q", file.toString()).redirectErrorStream(true).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("mona timed out on " + file);
        }
        String out = new String(bytes, StandardCharsets.UTF_8);
        if (out.contains("Formula is valid")) {
            Files.delete(file);
            return null;
        }
        if (!out.contains("counter-example")) throw new IllegalStateException("unexpected mona output for " + file + ":\n" + out);
        return new Disagreement(counterExample(out, dfa.atoms().size()), out);
    }

    /** The M2L-Str program: nonempty strings, automaton accepts iff the formula holds at position 0. */
    static String program(Formula f, Dfa dfa) {
        int k = dfa.atoms().size();
        StringBuilder b = new StringBuilder("m2l-str;\nvar2 ZZ");
        for (int j = 0; j < k; j++) b.append(", A").append(j);
        b.append(";\n");
        b.append("(ex2 NE: NE ~= empty) => ((").append(automaton(dfa)).append(")\n<=>\n(")
                .append(new Translation(Formulas.atoms(f)).at(f, "0")).append("));\n");
        return b.toString();
    }

    /**
     * The run of the automaton, with states in binary: position p is in set Bi iff bit i of the state
     * after reading the letters up to p is set (one-hot sets make MONA's projections explode).
     */
    private static String automaton(Dfa dfa) {
        int n = dfa.stateCount();
        int k = dfa.atoms().size();
        int bits = Math.max(1, 32 - Integer.numberOfLeadingZeros(n - 1));
        StringBuilder b = new StringBuilder("ex2 ");
        for (int i = 0; i < bits; i++) b.append(i == 0 ? "" : ", ").append("B").append(i);
        b.append(":\n  (all1 p: p = 0 => (").append(moves(dfa, dfa.initialState(), "p", k, bits)).append("))\n");
        b.append("  & (all1 p: all1 q: q = p + 1 => (true");
        for (int s = 0; s < n; s++) {
            b.append("\n      & (").append(code(s, "p", bits)).append(" => (").append(moves(dfa, s, "q", k, bits)).append("))");
        }
        b.append("))\n");
        b.append("  & (ex1 p: (all1 q: q <= p) & (false");
        for (int s = 0; s < n; s++) if (dfa.accepting(s)) b.append(" | ").append(code(s, "p", bits));
        b.append("))");
        return b.toString();
    }

    private static String code(int s, String pos, int bits) {
        StringBuilder b = new StringBuilder("(true");
        for (int i = 0; i < bits; i++) b.append(" & ").append(pos).append(((s >>> i) & 1) != 0 ? " in B" : " notin B").append(i);
        return b.append(")").toString();
    }

    /** For every letter read at position {@code pos}: the position carries the successor's code. */
    private static String moves(Dfa dfa, int s, String pos, int k, int bits) {
        List<String> parts = new ArrayList<>();
        for (long letter = 0; letter < 1L << k; letter++) {
            StringBuilder cube = new StringBuilder("(true");
            for (int j = 0; j < k; j++) {
                cube.append(" & ").append(pos).append(((letter >>> j) & 1) != 0 ? " in A" : " notin A").append(j);
            }
            parts.add(cube.append(" => ").append(code(dfa.next(s, letter), pos, bits)).append(")").toString());
        }
        return String.join(" & ", parts);
    }

    /** Parses the rows {@code Aj  X bits} of MONA's counter-example ('X' = don't care, read as 0). */
    private static long[] counterExample(String out, int k) {
        String[] lines = out.split("\n");
        int start = -1;
        for (int i = 0; i < lines.length; i++) if (lines[i].contains("counter-example")) start = i;
        int length = Integer.parseInt(lines[start].replaceAll(".*\\((\\d+)\\).*", "$1"));
        long[] trace = new long[length];
        for (int i = start + 1; i < lines.length && !lines[i].isBlank(); i++) {
            String[] cols = lines[i].trim().split("\\s+");
            if (!cols[0].startsWith("A") || cols.length < 3) continue;
            int j = Integer.parseInt(cols[0].substring(1));
            String bits = cols[2];
            for (int p = 0; p < length && p < bits.length(); p++) if (bits.charAt(p) == '1') trace[p] |= 1L << j;
        }
        return trace;
    }

    /** LTLf with past to first-order logic over positions; fresh variable names per quantifier. */
    private static final class Translation {
        private final List<Atom> atoms;
        private int fresh;

        Translation(List<Atom> atoms) { this.atoms = atoms; }

        String at(Formula f, String x) {
            if (f instanceof Formula.Const c) return c.value() ? "true" : "false";
            if (f instanceof Atom a) return "(" + x + " in A" + atoms.indexOf(a) + ")";
            String y = "v" + (++fresh);
            String z = "v" + (++fresh);
            if (f instanceof Formula.Unary u) {
                Formula g = u.arg();
                return switch (u.op()) {
                    case NOT -> "~" + at(g, x);
                    case NEXT -> "(ex1 " + y + ": " + y + " = " + x + " + 1 & " + at(g, y) + ")";
                    case WEAK_NEXT -> "(all1 " + y + ": " + y + " = " + x + " + 1 => " + at(g, y) + ")";
                    case EVENTUALLY -> "(ex1 " + y + ": " + x + " <= " + y + " & " + at(g, y) + ")";
                    case ALWAYS -> "(all1 " + y + ": " + x + " <= " + y + " => " + at(g, y) + ")";
                    case YESTERDAY -> "(ex1 " + y + ": " + y + " + 1 = " + x + " & " + at(g, y) + ")";
                    case ONCE -> "(ex1 " + y + ": " + y + " <= " + x + " & " + at(g, y) + ")";
                    case HISTORICALLY -> "(all1 " + y + ": " + y + " <= " + x + " => " + at(g, y) + ")";
                };
            }
            Formula.Binary b = (Formula.Binary) f;
            Formula l = b.left();
            Formula r = b.right();
            return switch (b.op()) {
                case AND -> "(" + at(l, x) + " & " + at(r, x) + ")";
                case OR -> "(" + at(l, x) + " | " + at(r, x) + ")";
                case IMPLIES -> "(" + at(l, x) + " => " + at(r, x) + ")";
                case IFF -> "(" + at(l, x) + " <=> " + at(r, x) + ")";
                case UNTIL -> until(l, r, x, y, z);
                case WEAK_UNTIL -> {
                    String w = "v" + (++fresh);
                    yield "(" + until(l, r, x, y, z) + " | (all1 " + w + ": " + x + " <= " + w + " => " + at(l, w) + "))";
                }
                case RELEASE -> "(all1 " + y + ": " + x + " <= " + y + " => (" + at(r, y) + " | (ex1 " + z + ": "
                        + x + " <= " + z + " & " + z + " < " + y + " & " + at(l, z) + ")))";
                case SINCE -> "(ex1 " + y + ": " + y + " <= " + x + " & " + at(r, y) + " & (all1 " + z + ": "
                        + y + " < " + z + " & " + z + " <= " + x + " => " + at(l, z) + "))";
            };
        }

        private String until(Formula l, Formula r, String x, String y, String z) {
            return "(ex1 " + y + ": " + x + " <= " + y + " & " + at(r, y) + " & (all1 " + z + ": " + x + " <= " + z
                    + " & " + z + " < " + y + " => " + at(l, z) + "))";
        }
    }
}
