package dev.tracegate.engine.monitor;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Seeded random formulas and contract sets for the monitor's tests (future and past operators). */
final class RandomContracts {
    private RandomContracts() {}

    static Formula formula(Random r, int atoms, int depth) {
        if (depth == 0 || r.nextInt(5) == 0) {
            int k = r.nextInt(atoms + 1);
            return k == atoms ? (r.nextBoolean() ? Formula.Const.TRUE : Formula.Const.FALSE) : Atom.of("p" + k);
        }
        int pick = r.nextInt(17);
        Formula.UnOp[] un = Formula.UnOp.values();
        Formula.BinOp[] bin = Formula.BinOp.values();
        if (pick < 8) {
            Formula.UnOp op = un[r.nextInt(un.length)];
            Formula arg = op.isPast() ? pastOnly(r, atoms, depth - 1) : formula(r, atoms, depth - 1);
            return Formulas.unary(op, arg);
        }
        Formula.BinOp op = bin[r.nextInt(bin.length)];
        if (op.isPast()) return Formulas.binary(op, pastOnly(r, atoms, depth - 1), pastOnly(r, atoms, depth - 1));
        return Formulas.binary(op, formula(r, atoms, depth - 1), formula(r, atoms, depth - 1));
    }

    /** A formula without future operators (the compiler's restriction on past operands). */
    static Formula pastOnly(Random r, int atoms, int depth) {
        if (depth == 0 || r.nextInt(4) == 0) return Atom.of("p" + r.nextInt(atoms));
        int pick = r.nextInt(7);
        return switch (pick) {
            case 0 -> Formulas.not(pastOnly(r, atoms, depth - 1));
            case 1 -> Formulas.and(pastOnly(r, atoms, depth - 1), pastOnly(r, atoms, depth - 1));
            case 2 -> Formulas.or(pastOnly(r, atoms, depth - 1), pastOnly(r, atoms, depth - 1));
            case 3 -> Formulas.unary(Formula.UnOp.YESTERDAY, pastOnly(r, atoms, depth - 1));
            case 4 -> Formulas.unary(Formula.UnOp.ONCE, pastOnly(r, atoms, depth - 1));
            case 5 -> Formulas.unary(Formula.UnOp.HISTORICALLY, pastOnly(r, atoms, depth - 1));
            default -> Formulas.binary(Formula.BinOp.SINCE, pastOnly(r, atoms, depth - 1), pastOnly(r, atoms, depth - 1));
        };
    }

    /** Contracts whose guarantees are safety-heavy (so that blocks happen) and assumptions sometimes break. */
    static List<Contract> contracts(Random r, int n, int atoms) {
        List<Contract> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Formula a = r.nextInt(3) == 0 ? formula(r, atoms, 3) : Formula.Const.TRUE;
            Formula g = r.nextBoolean()
                    ? Formulas.unary(Formula.UnOp.ALWAYS, formula(r, atoms, 3))
                    : formula(r, atoms, 4);
            out.add(new Contract("c" + i, a, g, "block", ""));
        }
        return out;
    }
}
