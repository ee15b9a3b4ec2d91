package dev.tracegate.agent.core;

import java.io.PrintStream;

/**
 * The agent's own console lines, prefixed "[tracegate]", on the host's standard error (taken once at
 * start, so a host that redirects System.err later does not swallow them).
 */
public final class AgentLog {

    private static final PrintStream ERR = System.err;
    private static volatile PrintStream captured;
    private static volatile boolean debug;

    private AgentLog() {
    }

    /** Sends the lines to {@code to} instead of standard error (null: back to it); for tests that read what an operator sees. */
    public static void captureForTest(PrintStream to) {
        captured = to;
    }

    private static PrintStream out() {
        PrintStream c = captured;
        return c != null ? c : ERR;
    }

    static void debug(boolean on) {
        debug = on;
    }

    public static boolean debugging() {
        return debug;
    }

    public static void info(String line) {
        out().println("[tracegate] " + line);
    }

    public static void warn(String line) {
        out().println("[tracegate] WARN " + line);
    }

    public static void error(String line, Throwable error) {
        out().println("[tracegate] ERROR " + line + (error == null ? "" : ": " + error));
        if (error != null && debug) {
            error.printStackTrace(out());
        }
    }

    public static void debug(String line) {
        if (debug) {
            out().println("[tracegate] DEBUG " + line);
        }
    }
}
