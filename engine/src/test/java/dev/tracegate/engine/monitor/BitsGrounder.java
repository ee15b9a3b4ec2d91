package dev.tracegate.engine.monitor;

/**
 * A grounder for tests: an event is a letter over the contract set's global atoms, plus the atoms
 * that cannot be evaluated. Word 0 counts applied events and word 1 sums their letters, so a test
 * can see that a refused event left no trace in the counters either; ref 0 is the immutable list of
 * applied event ids, newest first (the linearisation order).
 */
class BitsGrounder implements Grounder<BitsGrounder.Ev> {

    /** An event; {@code seenApplied} is written by ground (test-only side channel: which prefix it was judged on). */
    static final class Ev {
        final int id;
        final long bits;
        final long unevaluable;
        final boolean agent;
        /** Contracts an approver excused this event for (stepped with stepExcusing), or null. */
        final int[] excused;
        volatile long seenApplied = -1;

        Ev(int id, long bits, long unevaluable, boolean agent) {
            this(id, bits, unevaluable, agent, null);
        }

        Ev(int id, long bits, long unevaluable, boolean agent, int[] excused) {
            this.id = id;
            this.bits = bits;
            this.unevaluable = unevaluable;
            this.agent = agent;
            this.excused = excused;
        }

        @Override public String toString() {
            return "Ev#" + id + "{bits=" + Long.toBinaryString(bits) + ", unev=" + Long.toBinaryString(unevaluable) + ", agent=" + agent
                    + (excused == null ? "" : ", excused=" + java.util.Arrays.toString(excused)) + "}";
        }
    }

    /** Immutable cons list of applied event ids. */
    record History(int id, int size, History rest) {
        int[] toArrayOldestFirst() {
            int[] out = new int[size];
            History h = this;
            for (int i = size - 1; i >= 0; i--, h = h.rest) out[i] = h.id;
            return out;
        }
    }

    @Override public int words() { return 2; }

    @Override public int refs() { return 1; }

    @Override public int ground(Ev e, SessionState state, long[] valuation, long[] unevaluable) {
        History h = (History) state.refs[0];
        e.seenApplied = h == null ? 0 : h.size();
        valuation[0] = e.bits & ~e.unevaluable;
        unevaluable[0] = e.unevaluable;
        return Long.bitCount(e.unevaluable);
    }

    @Override public void apply(Ev e, long[] valuation, SessionState state) {
        state.words[0]++;
        state.words[1] += valuation[0];
        History h = (History) state.refs[0];
        state.refs[0] = new History(e.id, h == null ? 1 : h.size() + 1, h);
    }
}
