package dev.tracegate.agent.config;

import java.util.List;
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
    private final List<String> excludeParams;

    ConfiguredMethod(String className, String method, Kind kind, String toolName, String argsParam, String sessionParam,
                     String subjectParam, String purposeParam, String grantedParam, String where, boolean nested) {
        this(className, method, kind, toolName, argsParam, sessionParam, subjectParam, purposeParam, grantedParam, where, nested, false);
    }

    ConfiguredMethod(String className, String method, Kind kind, String toolName, String argsParam, String sessionParam,
                     String subjectParam, String purposeParam, String grantedParam, String where, boolean nested, boolean blockThrows) {
        this(className, method, kind, toolName, argsParam, sessionParam, subjectParam, purposeParam, grantedParam, where, nested,
                blockThrows, List.of());
    }

    ConfiguredMethod(String className, String method, Kind kind, String toolName, String argsParam, String sessionParam,
                     String subjectParam, String purposeParam, String grantedParam, String where, boolean nested, boolean blockThrows,
                     List<String> excludeParams) {
        this.blockThrows = blockThrows;
        this.excludeParams = List.copyOf(excludeParams);
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

    /** The placeholders a {@code tool-name} can be: the method's name, the class's simple name. */
    public static final List<String> PLACEHOLDERS = List.of("$method", "$class");

    /**
     * The tool name (TOOL): a literal, a parameter, a field path read at each call ({@code 0.name}, {@code tool.name},
     * {@code this.name}), {@code $method} for the method's own name (the default) or {@code $class} for the class's simple name.
     */
    public String toolName() { return toolName; }

    /**
     * Which parameter holds the arguments (TOOL): an index or a name, {@code this} (the fields of the object the method is
     * called on), a field path from one of them ({@code this.input}), or {@code *} for all parameters by name (the default).
     */
    public String argsParam() { return argsParam; }

    /** Which parameter holds the session id: an index, a name, a field path (from one, or from {@code this}) or a literal; null for the default session. */
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

    /**
     * {@code exclude-params} (TOOL, all parameters by name): the parameters, each a 0-based index or a name, that are no tool
     * data (a framework's context, a callback, a stream): left out of the call's arguments as the session parameter is, and
     * still readable by a {@code session-param} field path. Empty when not set.
     */
    public List<String> excludeParams() { return excludeParams; }

    /** Where it was configured (file:line:col). */
    public String where() { return where; }

    /**
     * Why a {@code *-param} value cannot mean what it must be read as, or null; said at start with the value's place.
     * {@code field} as the entry writes it ({@code session-param}; {@code session} in a methods file). A negative number is
     * no parameter (it was a silent literal session, trial30 01); a {@code session-param} that starts with an index and a
     * '.' is a field path and needs field names after it ({@code 0.sessionId}); an {@code args-param} has no literal use, so
     * anything but {@code *}, an index or a parameter's name (a field path {@code 1.amount}) is refused.
     */
    public static String paramProblem(String field, String value) {
        if ((field.equals("tool-name") || field.equals("name")) && value.startsWith("$") && !PLACEHOLDERS.contains(value)) {
            String near = AgentConfig.nearest(value, PLACEHOLDERS);
            return field + " '" + value + "' is no placeholder" + (near != null ? " (did you mean '" + near + "'?)" : "") + ": the"
                    + " placeholders are $method (the method's name, the default) and $class (the class's simple name: WeatherTool for"
                    + " com.acme.tools.WeatherTool), and a literal tool name cannot start with $. Write e.g. " + field
                    + (field.equals("name") ? "=" : ": ") + "$class.";
        }
        if (value.equals("$completion") || value.startsWith("$completion.")) {
            // the name kotlinc gives a suspend fun's trailing Continuation: by name it would be that parameter (trial33)
            return field + " '" + value + "' names the parameter kotlinc adds last to a Kotlin suspend fun, its Continuation"
                    + " ($completion): it holds the coroutine, never a value of the call. The function's own parameters are counted from"
                    + " 0 without it (" + field + (field.endsWith("param") ? ": " : "=") + "0 is the first): give the index or name of the"
                    + " one that holds it (CONFIG.md, \"Kotlin suspend functions\").";
        }
        boolean negative = value.length() > 1 && value.charAt(0) == '-' && value.substring(1).chars().allMatch(Character::isDigit);
        if (negative) {
            return field + " '" + value + "' is a negative number, which names no parameter: parameters are counted from 0 (" + field
                    + ": 0 is the first)" + (field.startsWith("session") ? ", and a literal session id is text such as web-1" : "") + ".";
        }
        int dot = value.indexOf('.');
        boolean reads = field.startsWith("session") || field.startsWith("args") || field.equals("tool-name") || field.equals("name");
        String root = dot > 0 ? value.substring(0, dot) : value;
        if (reads && dot > 0 && (root.equals("this") || root.chars().allMatch(Character::isDigit))) {
            // a field path: from a parameter's index (or name, known only per method) or from this, the object the method is
            // called on; tool-name reads one since session 23 (trial46 07: "0.name" was every call's literal tool name)
            for (String part : value.substring(dot + 1).split("\\.", -1)) {
                if (part.isEmpty() || !Character.isJavaIdentifierStart(part.charAt(0)) || !part.chars().allMatch(Character::isJavaIdentifierPart)) {
                    return field + " '" + value + "' starts like a field path (a parameter's 0-based index, or this, then field names"
                            + " separated by '.'), but '" + part + "' is no field name. Write e.g. " + field + (field.endsWith("param") ? ": " : "=")
                            + root + (field.startsWith("session") ? ".sessionId" : field.startsWith("args") ? ".input" : ".name") + ".";
                }
            }
        }
        boolean other = field.startsWith("subject") || field.startsWith("purpose") || field.startsWith("granted");
        if (other && (value.equals("this") || value.startsWith("this."))) {
            return field + " '" + value + "' names the object the method is called on (this), which only args-param, session-param"
                    + " and tool-name read: a " + field + " is a parameter's 0-based index or name, or a literal. Configure a method that"
                    + " takes the value itself (e.g. the subject's e-mail address as text).";
        }
        if (other && dot > 0 && value.substring(0, dot).chars().allMatch(Character::isDigit) && dot + 1 < value.length()
                && Character.isJavaIdentifierStart(value.charAt(dot + 1))) {
            // 1.email would be a literal subject "1.email" for every call: no one's consent, no one's erasure
            return field + " '" + value + "' reads as a field path, which only session-param reads: a " + field + " is a parameter's"
                    + " 0-based index or name, or a literal. Configure a method that takes the value itself (e.g. the subject's"
                    + " e-mail address as text).";
        }
        if (field.startsWith("exclude") && value.equals("this")) {
            return field + " 'this' names the object the method is called on, which is never among the arguments (only args-param:"
                    + " this makes its fields the arguments): give each parameter that is no tool data by its index or name.";
        }
        if (field.startsWith("exclude") && !value.chars().allMatch(Character::isDigit)
                && !(Character.isJavaIdentifierStart(value.charAt(0)) && value.chars().allMatch(Character::isJavaIdentifierPart))) {
            return field + " '" + value + "' is neither a parameter's 0-based index nor its name" + (dot > 0 ? " (a field of a parameter"
                    + " cannot be left out: the arguments are whole parameters; leave out the whole parameter, " + value.substring(0, dot)
                    + ", and a session-param field path still reads it)" : "") + ". Give each parameter that is no tool data (a"
                    + " framework's context, a callback, a stream) by its index or name, e.g. exclude" + (field.endsWith("params") ? "-params: [" : "=")
                    + (dot > 0 ? value.substring(0, dot) : "toolContext") + (field.endsWith("params") ? "]" : "") + ".";
        }
        if (field.startsWith("args") && !value.equals("*") && !value.chars().allMatch(Character::isDigit) && !fieldPathLike(value)) {
            return field + " '" + value + "' is neither a parameter's 0-based index nor its name, this (the object the method is called"
                    + " on) nor a field path from one of them (this.input, 1.request). Give the parameter that holds the arguments, or"
                    + " leave it out to have all parameters by name.";
        }
        return null;
    }

    /** A parameter's name or this, or a field path from an index, a name or this: identifiers (an index first) joined by '.'. */
    private static boolean fieldPathLike(String value) {
        String[] parts = value.split("\\.", -1);
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.isEmpty()) return false;
            if (i == 0 && part.chars().allMatch(Character::isDigit)) continue;
            if (!Character.isJavaIdentifierStart(part.charAt(0)) || !part.chars().allMatch(Character::isJavaIdentifierPart)) return false;
        }
        return parts.length > 1 || !parts[0].chars().allMatch(Character::isDigit);
    }

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
        if (!excludeParams.isEmpty()) b.append(" exclude-params=").append(excludeParams);
        return b.toString();
    }
}
