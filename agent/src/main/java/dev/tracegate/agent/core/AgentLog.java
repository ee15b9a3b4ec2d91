package dev.tracegate.agent.core;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's own console lines, prefixed "[tracegate]", on the host's standard error (taken once at
 * start, so a host that redirects System.err later does not swallow them).
 *
 * <p>No line is written on the thread that logs it: a line goes into a bounded queue and the daemon thread
 * {@code tracegate-log} writes it, so a standard error that takes nothing (a pipe nobody reads) or takes it slowly
 * never holds a tool call, a start or an exit. A full queue drops the line and counts it ({@link #dropped()}, the
 * MBean's {@code StderrLinesDropped}); where the lines were lost, the printer says {@code N lines dropped} once it
 * can write again. The start and the shutdown wait, bounded, for the lines queued before them ({@link #flush}).
 */
public final class AgentLog {

    private static final PrintStream ERR = System.err;
    private static volatile PrintStream captured;
    private static volatile boolean debug;
    /** The lines of an attached start, while it runs (null otherwise): the attach command prints them ({@link #beginTranscript}). */
    private static volatile StringBuilder transcript;
    /** Lines the queue holds at most (agent/CONFIG.md, "Decisions on standard error"). */
    static final int CAPACITY = 4096;
    private static final Printer PRINTER = new Printer(CAPACITY);
    /** How long the start and the shutdown wait for the lines queued before them to be written. */
    public static final long FLUSH_MILLIS = 2_000;

    private AgentLog() {
    }

    /**
     * Sends the lines to {@code to} instead of standard error (null: back to it), written at once on the logging
     * thread; for tests that read what an operator sees.
     */
    public static void captureForTest(PrintStream to) {
        captured = to;
    }

    private static void line(String text) {
        PrintStream c = captured;
        if (c != null) {
            c.println(text);
        } else {
            PRINTER.offer(text);
        }
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

    /**
     * A decision line ({@code BLOCK ...}, {@code REDIRECT ...}, {@code SUPPRESS ...}): printed like {@link #info}, but
     * never part of an attached start's report ({@link #beginTranscript}): what the application decided while the
     * agent was starting is not a start-up line, and under load it buried them (trial38 01).
     */
    public static void decision(String line) {
        line("[tracegate] " + oneLine(line));
    }

    /**
     * A value that comes from outside (a session id, a tool name, a subject) as one field of a line: as it is when it is
     * a plain word, else in double quotes with {@code "}, {@code \} and control characters escaped. A session id is
     * whatever the application or the model chose (trial43 03: a memory id holding a line break and
     * {@code tool=x contract=none} forged a decision line); an alert that keys on {@code contract=} must read the
     * contract's field, not the session's text.
     */
    public static String field(String value) {
        if (value == null) return "null";
        int n = value.length();
        boolean plain = n > 0;
        for (int i = 0; i < n && plain; i++) {
            char c = value.charAt(i);
            plain = c > ' ' && c != '"' && c != '\\' && !control(c) && !Character.isSpaceChar(c);
        }
        if (plain) return value;
        StringBuilder b = new StringBuilder(n + 8).append('"');
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else escapeControl(b, c);
        }
        return b.append('"').toString();
    }

    /** {@code line} with its control characters (line breaks, escape sequences) written as escapes: one line stays one line. */
    static String oneLine(String line) {
        int n = line.length(), i = 0;
        while (i < n && !control(line.charAt(i))) i++;
        if (i == n) return line;
        StringBuilder b = new StringBuilder(n + 16).append(line, 0, i);
        for (; i < n; i++) escapeControl(b, line.charAt(i));
        return b.toString();
    }

    private static boolean control(char c) {
        // line and paragraph separators, and format characters such as the bidirectional overrides that reorder a line on screen
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || Character.getType(c) == Character.FORMAT;
    }

    private static void escapeControl(StringBuilder b, char c) {
        switch (c) {
            case '\n': b.append("\\n"); break;
            case '\r': b.append("\\r"); break;
            case '\t': b.append("\\t"); break;
            default:
                if (control(c)) b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                else b.append(c);
        }
    }

    public static void warn(String line) {
        print("[tracegate] WARN " + line);
    }

    public static void error(String line, Throwable error) {
        print("[tracegate] ERROR " + line + (error == null ? "" : ": " + error));
        if (error != null && debug) {
            stackTrace(error);
        }
    }

    private static void print(String line) {
        line(line);
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
            line("[tracegate] DEBUG " + line);
        }
    }

    /** The stack trace of {@code error}, as {@link Throwable#printStackTrace()} prints it, after the lines before it. */
    static void stackTrace(Throwable error) {
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        String text = trace.toString();
        line(text.endsWith(System.lineSeparator()) ? text.substring(0, text.length() - System.lineSeparator().length()) : text);
    }

    /** A paragraph as it is, without the "[tracegate]" prefix (the refused start's). */
    static void plain(String text) {
        line(text);
    }

    /**
     * A stream whose lines go, as they are, through the same queue as the agent's other lines (the live view's, so that
     * {@code view: live} never holds an event's thread on standard error either); a line is queued once its newline comes.
     */
    public static PrintStream plainStream() {
        return new PrintStream(new LineStream(), true, StandardCharsets.UTF_8);
    }

    /** Bytes up to each newline, queued as one line. */
    private static final class LineStream extends OutputStream {
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                byte[] bytes = pending.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                pending.reset();
                line(new String(bytes, 0, n, StandardCharsets.UTF_8));
            } else {
                pending.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) write(b[i]);
        }
    }

    /**
     * Waits until the lines queued so far are written, at most {@code millis}: the start before it returns (its lines
     * come before the application's), the shutdown at its end. A standard error that takes nothing holds the
     * caller that long, no longer.
     */
    public static void flush(long millis) {
        PRINTER.flush(millis);
    }

    /** Lines dropped since the start because the queue was full (standard error took them too slowly or not at all). */
    public static long dropped() {
        return PRINTER.dropped.get();
    }

    /** The printer's note for lines lost at one place. */
    static String droppedNote(long n) {
        return "[tracegate] WARN " + n + (n == 1 ? " line" : " lines") + " dropped: standard error did not take the agent's lines"
                + " as fast as they came (every decision is in the audit log; the MBean's StderrLinesDropped counts them)";
    }

    /**
     * The queue and its thread. Producers hold the monitor only to put a line in the ring (never to write); the
     * printer holds it only to take one, and writes outside it.
     */
    static final class Printer implements Runnable {
        private final String[] ring;
        private final PrintStream to;
        private int head;
        private int size;
        /** Lines dropped since the printer last said so; its note goes where they were lost. */
        private long unsaid;
        private boolean writing;
        private volatile boolean started;
        final AtomicLong dropped = new AtomicLong();

        Printer(int capacity) {
            this(capacity, ERR);
        }

        Printer(int capacity, PrintStream to) {
            this.ring = new String[capacity];
            this.to = to;
        }

        /** Queues {@code line}, or drops and counts it when the queue is full; never waits for the stream. */
        void offer(String line) {
            synchronized (this) {
                if (unsaid > 0) {
                    // the note goes first, after the lines queued before the loss: it needs a slot of its own
                    if (size + 2 > ring.length) {
                        drop();
                        return;
                    }
                    put(droppedNote(unsaid));
                    unsaid = 0;
                } else if (size == ring.length) {
                    drop();
                    return;
                }
                put(line);
                notifyAll();
            }
            if (!started) start();
        }

        private void drop() {
            unsaid++;
            dropped.incrementAndGet();
        }

        private void put(String line) {
            ring[(head + size) % ring.length] = line;
            size++;
        }

        private synchronized void start() {
            if (started) return;
            try {
                // no inherited thread locals or context loader of whichever host thread logged first
                Thread t = new Thread(null, this, "tracegate-log", 0, false);
                t.setDaemon(true);
                t.setContextClassLoader(AgentLog.class.getClassLoader());
                t.start();
                started = true;
            } catch (RuntimeException | Error e) {
                // lines wait in the queue (then drop) until a later line starts the thread
            }
        }

        @Override
        public void run() {
            while (true) {
                String line;
                synchronized (this) {
                    writing = false;
                    notifyAll();   // a flush may be waiting for the queue to be empty
                    while (size == 0 && unsaid == 0) {
                        try {
                            wait();
                        } catch (InterruptedException e) {
                            // the printer ends with the JVM only
                        }
                    }
                    if (size > 0) {
                        line = ring[head];
                        ring[head] = null;
                        head = (head + 1) % ring.length;
                        size--;
                    } else {
                        line = droppedNote(unsaid);   // the loss was last: said once the stream took the rest
                        unsaid = 0;
                    }
                    writing = true;
                }
                try {
                    to.println(line);
                } catch (RuntimeException | Error ignored) {
                    // a PrintStream records its own failures; nothing else may end the printer
                }
            }
        }

        void flush(long millis) {
            long deadline = System.nanoTime() + millis * 1_000_000L;
            boolean interrupted = false;
            synchronized (this) {
                try {
                    while (size > 0 || unsaid > 0 || writing) {
                        if (!started) start();
                        long left = (deadline - System.nanoTime()) / 1_000_000L;
                        if (left <= 0) return;
                        try {
                            wait(left);
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                } finally {
                    if (interrupted) Thread.currentThread().interrupt();
                }
            }
        }
    }
}
