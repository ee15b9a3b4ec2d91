package dev.tracegate.matchers.predicate;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.engine.monitor.TestStates;
import dev.tracegate.matchers.event.Event;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A grounding plus one session's state, stepped event by event as the monitor would. */
final class Session {
    static final int T = 1, F = 0, U = -1;

    final Grounding g;
    final SessionState st;

    Session(Policy policy, String... atoms) {
        List<Atom> list = new ArrayList<>();
        for (String a : atoms) list.add(atom(a));
        this.g = Grounding.compile(list, policy);
        this.st = TestStates.create(g.words(), g.refs());
        g.init(st);
    }

    static Atom atom(String text) {
        Object f = Parser.parse(text);
        if (!(f instanceof Atom a)) throw new IllegalArgumentException(text + " is not an atom");
        return a;
    }

    /** Truth of every atom at {@code e} (1 true, 0 false, -1 unevaluable), without applying it. */
    int[] at(Event e) {
        long[] val = new long[g.valuationWords()];
        long[] unev = new long[g.valuationWords()];
        int n = g.ground(e, st, val, unev);
        int[] out = new int[g.atoms().size()];
        int count = 0;
        for (int i = 0; i < out.length; i++) {
            boolean v = (val[i >>> 6] & (1L << i)) != 0;
            boolean u = (unev[i >>> 6] & (1L << i)) != 0;
            if (v && u) throw new AssertionError("atom " + i + " both true and unevaluable");
            out[i] = u ? U : v ? T : F;
            if (u) count++;
        }
        if (count != n) throw new AssertionError("ground returned " + n + " unevaluable but marked " + count);
        return out;
    }

    /** Truth of the single (first) atom. */
    int one(Event e) { return at(e)[0]; }

    /** Grounds and applies {@code e}; returns its truth values. */
    int[] step(Event e) {
        int[] v = at(e);
        long[] val = new long[g.valuationWords()];
        g.ground(e, st, val, null);
        g.apply(e, val, st);
        return v;
    }

    /** Applies several events. */
    Session feed(Event... es) {
        for (Event e : es) step(e);
        return this;
    }

    SessionState snapshot() { return TestStates.copy(st); }

    @Override public String toString() { return Arrays.toString(st.words) + Arrays.toString(st.refs); }
}
