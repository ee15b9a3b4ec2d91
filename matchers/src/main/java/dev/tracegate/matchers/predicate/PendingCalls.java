package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Arrays;
import java.util.Objects;

/**
 * The calls of one latch's tool that are in flight in a session, each with the value its latch reads
 * ({@code arg(f)} of the CALL), keyed by the call's id: a RETURN with an id takes the value of the
 * accepted CALL with that id, whatever other calls of the tool ran in between (LangChain4j's
 * {@code executeToolsConcurrently()}, parallel tool calls of one model message). Only accepted CALLs
 * enter it (the grounder's {@code apply} runs for accepted events only), so a refused call never feeds a
 * latch.
 *
 * <p>Bounded: at most {@value #MAX} calls; a further call forgets the oldest, whose RETURN then reads no
 * value (it sets and adds nothing, as a CALL without the argument). A CALL whose id is already pending
 * makes that id ambiguous: neither call's RETURN can tell which CALL it answers, so the next RETURN of
 * the id reads no value either. Immutable (session states share it): an update returns a new table, and
 * lookups do not allocate.
 */
final class PendingCalls {
    /** Calls of one tool in flight at once in one session that a latch remembers. */
    static final int MAX = 64;
    static final PendingCalls EMPTY = new PendingCalls(new String[0], new JsonNode[0]);
    /** The value of an id that two pending calls carried: its RETURN reads nothing. */
    private static final JsonNode AMBIGUOUS = com.fasterxml.jackson.databind.node.MissingNode.getInstance();

    private final String[] ids;      // oldest first
    private final JsonNode[] values; // parallel to ids; AMBIGUOUS for an id two calls carried

    private PendingCalls(String[] ids, JsonNode[] values) {
        this.ids = ids;
        this.values = values;
    }

    static PendingCalls of(Object ref) { return ref instanceof PendingCalls p ? p : EMPTY; }

    /** After an accepted CALL with id {@code id} (not null) whose latch value is {@code value} (null: none). */
    PendingCalls call(String id, JsonNode value) {
        int at = indexOf(id);
        if (at >= 0) {
            if (values[at] == AMBIGUOUS) return this;
            JsonNode[] v = values.clone();
            v[at] = AMBIGUOUS;
            return new PendingCalls(ids, v);
        }
        int keep = Math.min(ids.length, MAX - 1);
        int from = ids.length - keep;
        String[] i = new String[keep + 1];
        JsonNode[] v = new JsonNode[keep + 1];
        System.arraycopy(ids, from, i, 0, keep);
        System.arraycopy(values, from, v, 0, keep);
        i[keep] = id;
        v[keep] = value;
        return new PendingCalls(i, v);
    }

    /** The latch value of the pending call {@code id}, or null (unknown id, no such argument, ambiguous id). */
    JsonNode value(String id) {
        int at = indexOf(id);
        return at < 0 || values[at] == AMBIGUOUS ? null : values[at];
    }

    /** After the RETURN of call {@code id}: the table without it. */
    PendingCalls returned(String id) {
        int at = indexOf(id);
        if (at < 0) return this;
        if (ids.length == 1) return EMPTY;
        String[] i = new String[ids.length - 1];
        JsonNode[] v = new JsonNode[ids.length - 1];
        System.arraycopy(ids, 0, i, 0, at);
        System.arraycopy(ids, at + 1, i, at, i.length - at);
        System.arraycopy(values, 0, v, 0, at);
        System.arraycopy(values, at + 1, v, at, v.length - at);
        return new PendingCalls(i, v);
    }

    private int indexOf(String id) {
        for (int k = ids.length - 1; k >= 0; k--) if (ids[k].equals(id)) return k;
        return -1;
    }

    int size() { return ids.length; }

    String id(int k) { return ids[k]; }

    /** The value of entry {@code k}: null for none, and for an ambiguous id {@link #isAmbiguous}. */
    JsonNode rawValue(int k) { return values[k] == AMBIGUOUS ? null : values[k]; }

    boolean isAmbiguous(int k) { return values[k] == AMBIGUOUS; }

    /** Rebuilds a table from its entries (deserialisation); {@code ambiguous[k]} marks an ambiguous id. */
    static PendingCalls restore(String[] ids, JsonNode[] values, boolean[] ambiguous) {
        if (ids.length > MAX) throw new IllegalArgumentException(ids.length + " pending calls, at most " + MAX);
        if (ids.length == 0) return EMPTY;
        JsonNode[] v = values.clone();
        for (int k = 0; k < v.length; k++) {
            Objects.requireNonNull(ids[k], "pending call id");
            if (ambiguous[k]) v[k] = AMBIGUOUS;
        }
        return new PendingCalls(ids.clone(), v);
    }

    @Override public boolean equals(Object o) {
        return o instanceof PendingCalls p && Arrays.equals(ids, p.ids) && Arrays.equals(values, p.values);
    }

    @Override public int hashCode() { return 31 * Arrays.hashCode(ids) + Arrays.hashCode(values); }

    @Override public String toString() {
        StringBuilder b = new StringBuilder("PendingCalls{");
        for (int k = 0; k < ids.length; k++) {
            if (k > 0) b.append(", ");
            b.append(ids[k]).append('=').append(values[k] == AMBIGUOUS ? "<ambiguous>" : values[k]);
        }
        return b.append('}').toString();
    }
}
