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
    /** The lines of an attached start, while it runs (null otherwise): the attach command prints them ({@link #beginTranscript}). */
    private static volatile StringBuilder transcript;

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
        print("[tracegate] " + line);
    }

    public static void warn(String line) {
        print("[tracegate] WARN " + line);
    }

    public static void error(String line, Throwable error) {
        print("[tracegate] ERROR " + line + (error == null ? "" : ": " + error));
        if (error != null && debug) {
            error.printStackTrace(out());
        }
    }

    private static void print(String line) {
        out().println(line);
        StringBuilder t = transcript;
        if (t != null) {
            synchronized (t) {
                t.append(line).append('\n');
            }
        }
    }

    /**
     * From now on the INFO, WARN and ERROR lines (from any thread) are also kept, until {@link #endTranscript}: an
     * attached start hands them to the {@code attach} command, whose user does not see the application's standard error.
     */
    static void beginTranscript() {
        transcript = new StringBuilder();
    }

    /** The lines kept since {@link #beginTranscript} (empty if it was not called), and no more are kept. */
    static String endTranscript() {
        StringBuilder t = transcript;
        transcript = null;
        if (t == null) return "";
        synchronized (t) {
            return t.toString();
        }
    }

    public static void debug(String line) {
        if (debug) {
            out().println("[tracegate] DEBUG " + line);
        }
    }
}
