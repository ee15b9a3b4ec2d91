package dev.tracegate.agent.bootstrap;

/**
 * What inlined advice must do with a tool call that tracegate does not simply let through;
 * {@code null} from {@link Dispatcher#onToolCall} means "proceed unchanged".
 *
 * <p>JDK types only: this class lives on the bootstrap class path so every class loader sees it.
 */
public final class Ruling {
    /** Skip the tool; hand {@link #text} to the model as the tool's (error) result. */
    public static final int SUBSTITUTE = 1;
    /** Skip the tool; throw {@link #violation()} into the host. */
    public static final int THROW = 2;
    /** Run the same tool with {@link #arguments} (JSON) instead of the original arguments. */
    public static final int REWRITE = 3;
    /** Run tool {@link #tool} with {@link #arguments} instead; advice falls back to {@link #text} if it cannot reach it. */
    public static final int REDIRECT = 4;
    /** A redirect that the advice already executed: skip the tool, {@link #text} is the other tool's result (not an error). */
    public static final int REPLACED = 5;
    /** Run the method unchanged and unsupervised: its call could not be supervised (fail: open), so no RETURN is reported. */
    public static final int UNSUPERVISED = 6;

    /**
     * What {@link Dispatcher#onMethodCall} gives a configured method whose call could not be supervised under
     * {@code fail: open}: the method runs, and its result is not reported either, since no contract saw its call.
     */
    public static final Ruling LET_THROUGH = new Ruling(UNSUPERVISED, null, null, null, null);

    /**
     * What {@link Dispatcher#onMethodCall} gives a configured method whose event counts only if the method returns
     * normally (a consent method's grant: one that throws stored no consent): the method runs unchanged (a rewrite with
     * nothing rewritten) and the advice reports its normal return through {@link Dispatcher#onMethodResult}.
     */
    public static final Ruling AT_RETURN = new Ruling(REWRITE, null, null, null, null);

    public final int kind;
    public final String text;
    public final String tool;
    public final String arguments;
    /** Rewritten Java arguments for configured methods (REWRITE), or null. */
    public final Object[] values;

    public Ruling(int kind, String text, String tool, String arguments, Object[] values) {
        this.kind = kind;
        this.text = text;
        this.tool = tool;
        this.arguments = arguments;
        this.values = values;
    }

    public static Ruling substitute(String text) {
        return new Ruling(SUBSTITUTE, text, null, null, null);
    }

    public static Ruling replaced(String text) {
        return new Ruling(REPLACED, text, null, null, null);
    }

    /** True when the advice must skip the original method body. */
    public boolean skips() {
        return kind == SUBSTITUTE || kind == THROW || kind == REPLACED;
    }

    /** True when the substituted text is an error result (a block), false for a redirect's real result. */
    public boolean isError() {
        return kind != REPLACED;
    }

    public TracegateViolation violation() {
        return new TracegateViolation(text);
    }

    @Override
    public String toString() {
        return "Ruling[" + kind + ", tool=" + tool + ", text=" + text + "]";
    }
}
