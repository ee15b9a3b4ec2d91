package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formula.BinOp;
import dev.tracegate.engine.ltl.Formula.UnOp;
import dev.tracegate.engine.ltl.Formulas;

import java.util.Random;

/**
 * Random formulas over the full syntax for the compiler's oracle tests: boolean, future and past
 * operators, with past operators' operands kept past-only (the compiler's documented restriction).
 */
final class RandomFormulas {
    private static final UnOp[] FUTURE_UN = {UnOp.NEXT, UnOp.WEAK_NEXT, UnOp.EVENTUALLY, UnOp.ALWAYS};
    private static final UnOp[] PAST_UN = {UnOp.YESTERDAY, UnOp.ONCE, UnOp.HISTORICALLY};
    private static final BinOp[] BOOL_BIN = {BinOp.AND, BinOp.OR, BinOp.IMPLIES, BinOp.IFF};
    private static final BinOp[] FUTURE_BIN = {BinOp.UNTIL, BinOp.WEAK_UNTIL, BinOp.RELEASE};

    private final Random random;
    private final int atoms;

    RandomFormulas(long seed, int atoms) {
        this.random = new Random(seed);
        this.atoms = atoms;
    }

    /** A formula of at most {@code depth} operator levels, future and past mixed. */
    Formula next(int depth) { return gen(depth, false); }

    private Formula gen(int depth, boolean pastOnly) {
        if (depth == 0 || random.nextInt(5) == 0) return leaf();
        int pick = random.nextInt(pastOnly ? 6 : 10);
        switch (pick) {
            case 0: return Formulas.not(gen(depth - 1, pastOnly));
            case 1: case 2: return Formulas.binary(BOOL_BIN[random.nextInt(BOOL_BIN.length)], gen(depth - 1, pastOnly), gen(depth - 1, pastOnly));
            case 3: case 4: return Formulas.unary(PAST_UN[random.nextInt(PAST_UN.length)], gen(depth - 1, true));
            case 5: return Formulas.binary(BinOp.SINCE, gen(depth - 1, true), gen(depth - 1, true));
            case 6: case 7: return Formulas.unary(FUTURE_UN[random.nextInt(FUTURE_UN.length)], gen(depth - 1, false));
            default: return Formulas.binary(FUTURE_BIN[random.nextInt(FUTURE_BIN.length)], gen(depth - 1, false), gen(depth - 1, false));
        }
    }

    private Formula leaf() {
        if (random.nextInt(12) == 0) return random.nextBoolean() ? Formula.Const.TRUE : Formula.Const.FALSE;
        return Atom.of(String.valueOf((char) ('a' + random.nextInt(atoms))));
    }
}
