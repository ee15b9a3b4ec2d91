package dev.tracegate.agent.core;

import java.io.PrintStream;

/**
 * The agent's own console lines, prefixed "[tracegate]", on the host's standard error (taken once at
 * start, so a host that redirects System.err later does not swallow them).
 */
public final class AgentLog {

    private static final PrintStream OUT = System.err;
    private static volatile boolean debug;

    private AgentLog() {
    }

    static void debug(boolean on) {
        debug = on;
    }

    public static boolean debugging() {
        return debug;
    }

    public static void info(String line) {
        OUT.println("[tracegate] " + line);
    }

    public static void warn(String line) {
        OUT.println("[tracegate] WARN " + line);
    }

    public static void error(String line, Throwable error) {
        OUT.println("[tracegate] ERROR " + line + (error == null ? "" : ": " + error));
        if (error != null && debug) {
            error.printStackTrace(OUT);
        }
    }

    public static void debug(String line) {
        if (debug) {
            OUT.println("[tracegate] DEBUG " + line);
        }
    }
}
