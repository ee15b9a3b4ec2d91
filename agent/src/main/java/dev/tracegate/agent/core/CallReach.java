package dev.tracegate.agent.core;

import dev.tracegate.matchers.event.Args;

import java.util.Iterator;
import java.util.Map;

/**
 * What a call site can carry out besides running a call or refusing it: a redirect to another tool, and removing
 * argument fields for a redaction. The supervisor asks before it decides, so that the audit log never records a
 * redaction or a redirect the call site could not do (it blocks instead and says why).
 */
public final class CallReach {
    /** A framework's call site: its arguments are JSON text or a map, and it has a tool table to redirect into. */
    public static final CallReach FULL = new CallReach(null, null, Map.of());

    private final String noRedirect;
    private final String noRewrite;
    private final Map<String, String> fixed;
    private final Map<String, String> partsFixed;

    /**
     * @param noRedirect why a redirect is impossible here, or null when it is possible
     * @param noRewrite  why no argument can be removed here, or null when fields can be removed
     * @param fixed      argument fields that cannot be removed, each with why (e.g. {@code card -> a long parameter})
     */
    public CallReach(String noRedirect, String noRewrite, Map<String, String> fixed) {
        this(noRedirect, noRewrite, fixed, Map.of());
    }

    /**
     * As above, with {@code partsFixed}: argument fields that can only be removed whole, not a field or element inside
     * them, each with why (e.g. {@code profile -> a r.Profile parameter of r.Crm.update}: the site passes the host's own
     * object, which it cannot rebuild without a field).
     */
    public CallReach(String noRedirect, String noRewrite, Map<String, String> fixed, Map<String, String> partsFixed) {
        this.noRedirect = noRedirect;
        this.noRewrite = noRewrite;
        this.fixed = Map.copyOf(fixed);
        this.partsFixed = Map.copyOf(partsFixed);
    }

    /** Why a part of the top-level argument {@code field} cannot be removed alone here (only all of it), or null when it can. */
    public String whyPartsFixed(String field) {
        return partsFixed.get(field);
    }

    /** Why this call site cannot run another tool instead, or null when it can. */
    public String whyNoRedirect() {
        return noRedirect;
    }

    /**
     * Why this call site cannot run {@code target} instead, or null when it can or cannot tell. A framework's site
     * ({@link #FULL}) runs a redirect from the tool table its hook put on this thread (a LangChain4j AI service's
     * name -> executor map, a Spring AI call's tool callbacks): a target not in it would not run (trial12: a typo in
     * redirect-to was logged as a redirect that ran). Read on the rare path of a redirect only.
     */
    public String whyNoRedirect(String target) {
        if (noRedirect != null || this != FULL) return noRedirect;
        java.util.List<String> names = toolNames(dev.tracegate.agent.bootstrap.Dispatcher.tools());
        if (names == null || names.contains(target)) return null;
        java.util.Collections.sort(names);
        return target + " is not a tool of this call site (its tools: " + String.join(", ", names)
                + "); check the contract's redirect-to or the redirect setting";
    }

    /**
     * As {@link #whyNoRedirect(String)}, and also why {@code target} cannot take the arguments of the refused call of
     * {@code tool}: a redirect runs the target with the same arguments by name, so a target that takes none of them, or
     * lacks one it requires, would run with nulls in their place (trial24: send_email ran with to=null, body=null in
     * place of refund). Only where the framework's tool table tells the target's parameters: a LangChain4j AI service's
     * method tools (the executor's Java method: every parameter but the ones LangChain4j fills itself, required unless
     * {@code @P(required = false)}; a parameter with no {@code @P} counts for "none shared" only) and Spring AI's tool
     * callbacks (the input schema's properties and required list); null when it cannot tell (an MCP tool, a site with no
     * table). Read on the rare path of a redirect only.
     */
    public String whyNoRedirect(String target, String tool, Args args) {
        String missing = whyNoRedirect(target);
        if (missing != null || this != FULL) return missing;
        Params p = params(dev.tracegate.agent.bootstrap.Dispatcher.tools(), target);
        if (p == null || p.names.isEmpty()) return null;
        java.util.List<String> given = new java.util.ArrayList<>();
        for (Iterator<String> it = args.fieldNames(); it.hasNext(); ) given.add(it.next());
        String list = given.isEmpty() ? "none" : String.join(", ", given);
        boolean shared = false;
        for (String n : p.names) shared |= given.contains(n);
        if (!shared) {
            return target + " takes none of " + tool + "'s arguments (" + list + "; its parameters: " + String.join(", ", p.names)
                    + "), so it would run with nulls; pick a redirect-to target that takes them";
        }
        java.util.List<String> lacking = new java.util.ArrayList<>();
        for (String n : p.required) if (!given.contains(n)) lacking.add(n);
        if (!lacking.isEmpty()) {
            return target + " requires " + String.join(", ", lacking) + ", which " + tool + "'s arguments (" + list
                    + ") do not have, so it would run with " + (lacking.size() == 1 ? "a null" : "nulls")
                    + "; pick a redirect-to target that takes them";
        }
        return null;
    }

    /** A tool's parameter names, and those it requires. */
    private record Params(java.util.List<String> names, java.util.List<String> required) {}

    /** The parameters of {@code target} in a framework's tool table, or null when the table does not tell them. */
    private static Params params(Object table, String target) {
        try {
            if (table instanceof Map<?, ?> map) {
                Object executor = map.get(target);
                if (executor == null) return null;
                java.lang.reflect.Method method = null;
                // LangChain4j's DefaultToolExecutor keeps the tool's method (originalMethod: the one with the parameter names)
                for (Class<?> k = executor.getClass(); k != null && k != Object.class && method == null; k = k.getSuperclass()) {
                    for (java.lang.reflect.Field f : k.getDeclaredFields()) {
                        if (f.getType() == java.lang.reflect.Method.class && f.getName().equals("originalMethod")) {
                            f.setAccessible(true);
                            method = (java.lang.reflect.Method) f.get(executor);
                        }
                    }
                }
                if (method == null) return null;
                java.util.List<String> names = new java.util.ArrayList<>();
                java.util.List<String> required = new java.util.ArrayList<>();
                for (java.lang.reflect.Parameter parameter : method.getParameters()) {
                    if (filledByFramework(parameter)) continue;
                    names.add(parameter.getName());
                    for (java.lang.annotation.Annotation a : parameter.getAnnotations()) {
                        if (a.annotationType().getName().equals("dev.langchain4j.agent.tool.P")
                                && Boolean.TRUE.equals(a.annotationType().getMethod("required").invoke(a))) {
                            required.add(parameter.getName());
                        }
                    }
                }
                return new Params(names, required);
            }
            if (table instanceof java.util.List<?> list) {
                for (Object callback : list) {
                    Object definition = callback.getClass().getMethod("getToolDefinition").invoke(callback);
                    if (!target.equals(definition.getClass().getMethod("name").invoke(definition))) continue;
                    Object schema = definition.getClass().getMethod("inputSchema").invoke(definition);
                    if (!(schema instanceof String text)) return null;
                    com.fasterxml.jackson.databind.JsonNode root = Args.ofJson(text).root();
                    com.fasterxml.jackson.databind.JsonNode properties = root.get("properties");
                    if (properties == null || !properties.isObject()) return null;
                    java.util.List<String> names = new java.util.ArrayList<>();
                    properties.fieldNames().forEachRemaining(names::add);
                    java.util.List<String> required = new java.util.ArrayList<>();
                    com.fasterxml.jackson.databind.JsonNode req = root.get("required");
                    if (req != null && req.isArray()) for (var r : req) if (r.isTextual()) required.add(r.asText());
                    return new Params(names, required);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
        return null;
    }

    /** A LangChain4j tool parameter the framework fills itself (memory id, invocation context or parameters). */
    private static boolean filledByFramework(java.lang.reflect.Parameter parameter) {
        String type = parameter.getType().getName();
        if (type.startsWith("dev.langchain4j.invocation.")) return true;
        for (java.lang.annotation.Annotation a : parameter.getAnnotations()) {
            if (a.annotationType().getName().equals("dev.langchain4j.agent.tool.ToolMemoryId")) return true;
        }
        return false;
    }

    /** The names in a framework's tool table, or null when there is none or its entries cannot be read. */
    private static java.util.List<String> toolNames(Object table) {
        java.util.List<String> names = new java.util.ArrayList<>();
        if (table instanceof Map<?, ?> map) {
            for (Object k : map.keySet()) {
                if (!(k instanceof String)) return null;
                names.add((String) k);
            }
            return names;
        }
        if (table instanceof java.util.List<?> list) {
            try {
                // Spring AI's ToolCallback: getToolDefinition().name(), read reflectively (the agent does not link against it)
                for (Object callback : list) {
                    Object definition = callback.getClass().getMethod("getToolDefinition").invoke(callback);
                    names.add((String) definition.getClass().getMethod("name").invoke(definition));
                }
                return names;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null;
            }
        }
        return null;
    }

    /** Whether the top-level argument {@code field} can be removed here. */
    public boolean removable(String field) {
        return noRewrite == null && !fixed.containsKey(field);
    }

    /**
     * Why the call cannot run with {@code after} (the arguments without some of {@code before}'s top-level fields), or
     * null when it can: the site takes no rewritten arguments, or a removed field cannot be removed.
     */
    public String whyNotRemoved(Args before, Args after) {
        if (noRewrite != null) return noRewrite;
        if (fixed.isEmpty()) return null;
        StringBuilder why = null;
        for (Iterator<String> it = before.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            String reason = fixed.get(field);
            if (reason == null || after.root().has(field)) continue;
            why = why == null ? new StringBuilder() : why.append("; ");
            why.append("the argument ").append(field).append(" is ").append(reason).append(" and cannot be removed");
        }
        return why == null ? null : why.toString();
    }
}
