package dev.tracegate.contracts.analysis;

import java.util.Random;

/** Random formula text for the analysis' oracles: future operators over past-only subformulas (the compiler's restriction). */
final class FormulaText {
    private final String[] atoms;

    FormulaText(String... atoms) { this.atoms = atoms.clone(); }

    String atom(Random r) { return atoms[r.nextInt(atoms.length)]; }

    /** A formula of at most {@code depth} operators above its past-only leaves; an implication comes twice as often. */
    String future(Random r, int depth) {
        if (depth == 0 || r.nextInt(4) == 0) return r.nextInt(3) > 0 ? atom(r) : past(r, 2);
        return switch (r.nextInt(10)) {
            case 0 -> "!(" + future(r, depth - 1) + ")";
            case 1 -> "(" + future(r, depth - 1) + " & " + future(r, depth - 1) + ")";
            case 2 -> "(" + future(r, depth - 1) + " | " + future(r, depth - 1) + ")";
            case 3, 4 -> "(" + future(r, depth - 1) + " -> " + future(r, depth - 1) + ")";
            case 5 -> "G(" + future(r, depth - 1) + ")";
            case 6 -> "F(" + future(r, depth - 1) + ")";
            case 7 -> "X(" + future(r, depth - 1) + ")";
            case 8 -> "(" + future(r, depth - 1) + " U " + future(r, depth - 1) + ")";
            default -> "(" + future(r, depth - 1) + " W " + future(r, depth - 1) + ")";
        };
    }

    /** A past-only formula. */
    String past(Random r, int depth) {
        if (depth == 0 || r.nextInt(3) == 0) return atom(r);
        return switch (r.nextInt(5)) {
            case 0 -> "O(" + past(r, depth - 1) + ")";
            case 1 -> "H(" + past(r, depth - 1) + ")";
            case 2 -> "Y(" + past(r, depth - 1) + ")";
            case 3 -> "(" + past(r, depth - 1) + " S " + past(r, depth - 1) + ")";
            default -> "!(" + past(r, depth - 1) + ")";
        };
    }
}
