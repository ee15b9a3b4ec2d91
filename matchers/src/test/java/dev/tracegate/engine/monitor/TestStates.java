package dev.tracegate.engine.monitor;

/** Creates session states for grounding tests (the engine keeps the constructor package-private). */
public final class TestStates {
    private TestStates() {}

    public static SessionState create(int words, int refs) { return new SessionState(0, words, refs, 0); }

    public static SessionState copy(SessionState s) {
        SessionState c = new SessionState(s.states.length, s.words.length, s.refs.length, 0);
        c.copyFrom(s);
        return c;
    }
}
