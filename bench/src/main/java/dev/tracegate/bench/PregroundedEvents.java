package dev.tracegate.bench;

import dev.tracegate.engine.monitor.Grounder;
import dev.tracegate.engine.monitor.SessionState;

/**
 * A grounder for events that are already valuations: the event is the {@code long[]} of atom truth
 * values, so grounding is one array copy and the benchmarks measure the engine alone.
 */
public final class PregroundedEvents implements Grounder<long[]> {
    /** The one instance; it keeps no state. */
    public static final PregroundedEvents INSTANCE = new PregroundedEvents();

    private PregroundedEvents() {}

    @Override public int words() { return 0; }

    @Override public int refs() { return 0; }

    @Override
    public int ground(long[] event, SessionState state, long[] valuation, long[] unevaluable) {
        System.arraycopy(event, 0, valuation, 0, event.length);
        return 0;
    }

    @Override public void apply(long[] event, long[] valuation, SessionState state) {}
}
