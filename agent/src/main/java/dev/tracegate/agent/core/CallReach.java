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
