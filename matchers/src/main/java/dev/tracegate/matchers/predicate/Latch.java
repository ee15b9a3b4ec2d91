package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.EventKind;

import java.util.Objects;

/**
 * A context update a library declares: when an event of a kind (and tool) is accepted, set, add to
 * or clear a context key. For example "after a successful RETURN of approve_refund,
 * {@code ctx.approved} := its {@code amount} argument":
 * {@code Latch.on(EventKind.RETURN, "approve_refund").set("approved").fromArg("amount")}.
 *
 * <p>An argument read on a RETURN comes from the RETURN's own arguments when it has them, else from
 * the accepted CALL of the same tool with the RETURN's call id (frameworks report results without
 * repeating the arguments, and calls may overlap), kept in a bounded table of calls in flight
 * ({@link PendingCalls}); a RETURN without a call id reads the last accepted CALL of the tool. A call
 * that was refused never feeds a latch. A RETURN latch fires only on success ({@code error} false) unless
 * {@link #onFailureToo()} is called. Instances are immutable; each step returns a new latch.
 */
public final class Latch {
    /** What the latch does to its key. */
    public enum Action {
        /** The key holds the value (replacing the previous one). */
        SET,
        /** The value is added to the set-valued key. */
        ADD,
        /** The key no longer holds a value. */
        CLEAR
    }

    /** Where the value comes from. */
    public enum Source {
        /** An argument field ({@code path}). */
        ARG,
        /** The RETURN's whole result text. */
        RESULT,
        /** A field of the result read as a JSON object ({@code path}). */
        RESULT_FIELD,
        /** The USER or ASSISTANT text. */
        TEXT,
        /** The event's data subject. */
        SUBJECT,
        /** A constant ({@code constant}). */
        CONSTANT,
        /** No value (CLEAR). */
        NONE
    }

    final EventKind kind;
    final String tool;
    final boolean successOnly;
    final Action action;
    final String key;
    final Source source;
    final Args.Path path;
    final String constant;

    private Latch(EventKind kind, String tool, boolean successOnly, Action action, String key, Source source,
                  Args.Path path, String constant) {
        this.kind = kind;
        this.tool = tool;
        this.successOnly = successOnly;
        this.action = action;
        this.key = key;
        this.source = source;
        this.path = path;
        this.constant = constant;
    }

    /** A latch triggered by accepted events of {@code kind} for {@code tool} (null: any tool). */
    public static Latch on(EventKind kind, String tool) {
        return new Latch(Objects.requireNonNull(kind, "kind"), tool, true, Action.SET, null, Source.NONE, null, null);
    }

    /** Fire also when the RETURN reports an error. */
    public Latch onFailureToo() { return new Latch(kind, tool, false, action, key, source, path, constant); }

    /** The key holds the value. */
    public Latch set(String key) { return new Latch(kind, tool, successOnly, Action.SET, checkKey(key), source, path, constant); }

    /** The value is added to the set-valued key (for example {@code permissions}). */
    public Latch add(String key) { return new Latch(kind, tool, successOnly, Action.ADD, checkKey(key), source, path, constant); }

    /** The key is cleared. */
    public Latch clear(String key) {
        return new Latch(kind, tool, successOnly, Action.CLEAR, checkKey(key), Source.NONE, null, null);
    }

    /** Value from argument field {@code path} (dotted for nested fields). */
    public Latch fromArg(String path) { return new Latch(kind, tool, successOnly, action, key, Source.ARG, Args.Path.of(path), null); }

    /** Value: the whole result text. */
    public Latch fromResult() { return new Latch(kind, tool, successOnly, action, key, Source.RESULT, null, null); }

    /** Value: field {@code path} of the result read as JSON. */
    public Latch fromResultField(String path) {
        return new Latch(kind, tool, successOnly, action, key, Source.RESULT_FIELD, Args.Path.of(path), null);
    }

    /** Value: the message text. */
    public Latch fromText() { return new Latch(kind, tool, successOnly, action, key, Source.TEXT, null, null); }

    /** Value: the event's subject. */
    public Latch fromSubject() { return new Latch(kind, tool, successOnly, action, key, Source.SUBJECT, null, null); }

    /** Value: a constant. */
    public Latch constant(String value) {
        return new Latch(kind, tool, successOnly, action, key, Source.CONSTANT, null, Objects.requireNonNull(value));
    }

    /** The context key this latch writes. */
    public String key() { return key; }

    /** The kind of event that fires it. */
    public EventKind kind() { return kind; }

    /** The tool whose events fire it, as written; null: any tool. */
    public String tool() { return tool; }

    /** Where its value comes from. */
    public Source source() { return source; }

    void validate() {
        if (key == null) throw new IllegalArgumentException("latch " + this + " names no key: call set(k), add(k) or clear(k)");
        if (action != Action.CLEAR && source == Source.NONE) {
            throw new IllegalArgumentException("latch " + this + " has no value source: call fromArg, fromResult, fromResultField, fromText, fromSubject or constant");
        }
    }

    private static String checkKey(String key) {
        if (key == null || key.isBlank()) throw new IllegalArgumentException("context key must not be empty");
        String k = key.trim();
        return k.startsWith("ctx.") ? k.substring(4) : k;
    }

    @Override public String toString() {
        return "on " + kind.name().toLowerCase(java.util.Locale.ROOT) + (tool == null ? "" : " " + tool) + ": " + action.name().toLowerCase(java.util.Locale.ROOT)
                + " " + key + (source == Source.NONE ? "" : " from " + source.name().toLowerCase(java.util.Locale.ROOT)
                + (path != null ? " " + path : "") + (constant != null ? " \"" + constant + "\"" : ""));
    }
}
