package dev.tracegate.matchers.event;

import java.util.Locale;

/**
 * Tool names as contracts compare them: trimmed and case-folded, and an MCP-qualified name
 * {@code mcp__server__T} also answers to its bare name {@code T}.
 */
public final class ToolName {
    private static final String MCP_PREFIX = "mcp__";

    private ToolName() {}

    /** The folded form of a tool name (trimmed, lower case); null stays null. */
    public static String fold(String name) {
        if (name == null) return null;
        if (folded(name)) return name;
        return name.trim().toLowerCase(Locale.ROOT);
    }

    /** True when {@code name} is folded already: no space or control char at either end, no upper-case or non-ASCII char. */
    private static boolean folded(String name) {
        int n = name.length();
        if (n == 0 || name.charAt(0) <= ' ' || name.charAt(n - 1) <= ' ') return false;
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c >= 0x80 || (c >= 'A' && c <= 'Z')) return false;
        }
        return true;
    }

    /**
     * The bare name of a folded MCP-qualified name ({@code mcp__server__t} gives {@code t}), or the
     * folded name itself when it is not of that shape. The server part ends at the first {@code __}
     * after the prefix, so a tool name may itself contain {@code __}.
     */
    public static String bare(String folded) {
        if (folded == null || !folded.startsWith(MCP_PREFIX)) return folded;
        int sep = folded.indexOf("__", MCP_PREFIX.length());
        if (sep < 0 || sep + 2 >= folded.length()) return folded;
        return folded.substring(sep + 2);
    }

    /** True when the event tool name {@code actual} answers to the contract's tool name {@code wanted}. */
    public static boolean matches(String actual, String wanted) {
        String a = fold(actual);
        String w = fold(wanted);
        if (a == null || w == null) return false;
        return a.equals(w) || bare(a).equals(w);
    }
}
