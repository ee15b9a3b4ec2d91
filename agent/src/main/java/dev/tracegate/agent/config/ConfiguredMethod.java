package dev.tracegate.agent.config;

import java.util.Objects;

/**
 * A method named in {@code configured-methods}: which class and method (globs with {@code *}), and how
 * its parameters make a tool call, a consent or an erasure event. A parameter reference is a 0-based
 * parameter index or, for literals, any other text.
 */
public final class ConfiguredMethod {

    /** What a call of the method becomes. */
    public enum Kind { TOOL, CONSENT, ERASURE }

    private final String className;
    private final String method;
    private final Kind kind;
    private final String toolName;
    private final String argsParam;
    private final String sessionParam;
    private final String subjectParam;
    private final String purposeParam;
    private final String grantedParam;
    private final String where;
    private final boolean nested;
    private final boolean blockThrows;

    ConfiguredMethod(String className, String method, Kind kind, String toolName, String argsParam, String sessionParam,
                     String subjectParam, String purposeParam, String grantedParam, String where, boolean nested) {
        this(className, method, kind, toolName, argsParam, sessionParam, subjectParam, purposeParam, grantedParam, where, nested, false);
    }

    ConfiguredMethod(String className, String method, Kind kind, String toolName, String argsParam, String sessionParam,
                     String subjectParam, String purposeParam, String grantedParam, String where, boolean nested, boolean blockThrows) {
        this.blockThrows = blockThrows;
        this.className = Objects.requireNonNull(className);
        this.method = Objects.requireNonNull(method);
        this.kind = Objects.requireNonNull(kind);
        this.toolName = toolName;
        this.argsParam = argsParam;
        this.sessionParam = sessionParam;
        this.subjectParam = subjectParam;
        this.purposeParam = purposeParam;
        this.grantedParam = grantedParam;
        this.where = where;
        this.nested = nested;
    }

    /** Binary class name or glob, e.g. {@code com.acme.Shop} or {@code com.acme.*Tools}. */
    public String className() { return className; }

    /** Method name or glob. */
    public String method() { return method; }

    public Kind kind() { return kind; }

    /** The tool name (TOOL): a literal, or {@code $method} for the method's own name (the default). */
    public String toolName() { return toolName; }

    /** Which parameter holds the arguments (TOOL): an index, or {@code *} for all parameters by name (the default). */
    public String argsParam() { return argsParam; }

    /** Which parameter holds the session id: an index or a literal; null for the default session. */
    public String sessionParam() { return sessionParam; }

    /** Which parameter holds the data subject (CONSENT, ERASURE). */
    public String subjectParam() { return subjectParam; }

    /** Which parameter holds the purpose (CONSENT). */
    public String purposeParam() { return purposeParam; }

    /** Which parameter says whether consent is granted (CONSENT): an index, or the literal true/false (default true). */
    public String grantedParam() { return grantedParam; }

    /**
     * Whether a tool method is supervised also when it runs inside another supervised call on the same thread
     * ({@code nested: true}); consent and erasure methods always are.
     */
    public boolean nested() { return nested; }

    /**
     * {@code block-style: exception} (TOOL): its blocked calls and withheld results throw {@code TracegateViolation} whatever
     * {@code block.style} says, so nothing that stores the method's value (a cache) stores a refusal.
     */
    public boolean blockThrows() { return blockThrows; }

    /** Where it was configured (file:line:col). */
    public String where() { return where; }

    @Override public String toString() {
        StringBuilder b = new StringBuilder().append(kind.name().toLowerCase(java.util.Locale.ROOT)).append(' ')
                .append(className).append('#').append(method);
        if (toolName != null) b.append(" tool-name=").append(toolName);
        if (argsParam != null) b.append(" args-param=").append(argsParam);
        if (sessionParam != null) b.append(" session-param=").append(sessionParam);
        if (subjectParam != null) b.append(" subject-param=").append(subjectParam);
        if (purposeParam != null) b.append(" purpose-param=").append(purposeParam);
        if (grantedParam != null) b.append(" granted-param=").append(grantedParam);
        if (nested) b.append(" nested=true");
        if (blockThrows) b.append(" block-style=exception");
        return b.toString();
    }
}
