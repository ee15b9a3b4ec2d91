package dev.tracegate.matchers.trace;

/**
 * A malformed line in a JSONL trace: where it is (file, line, column), what is wrong and how to fix it.
 * The message reads {@code trace.jsonl:12:7: field "seq" must be an integer, found a string. Fix: ...}.
 */
public final class TraceFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final long line;
    private final int column;
    private final String problem;
    private final String fix;

    public TraceFormatException(String source, long line, int column, String problem, String fix) {
        super(source + ":" + line + ":" + column + ": " + problem + (fix == null ? "" : ". Fix: " + fix));
        this.source = source;
        this.line = line;
        this.column = column;
        this.problem = problem;
        this.fix = fix;
    }

    /** The file name (or the name given to the reader). */
    public String source() { return source; }
    /** 1-based line number. */
    public long line() { return line; }
    /** 1-based column (character) within the line. */
    public int column() { return column; }
    /** What is wrong. */
    public String problem() { return problem; }
    /** How to fix it, or null. */
    public String fix() { return fix; }
}
