package dev.tracegate.matchers.imports;

/**
 * A message log that cannot be imported: which file, where in it (line, column and JSON path),
 * what is wrong and how to fix it. The message reads
 * {@code run.json:12:7 at $.messages[3].tool_calls[0]: tool call has no name. Fix: ...}.
 */
public final class MessageLogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final long line;
    private final long column;
    private final String jsonPath;
    private final String problem;
    private final String fix;

    public MessageLogException(String source, long line, long column, String jsonPath, String problem, String fix) {
        super(source + ":" + line + ":" + column + " at " + jsonPath + ": " + problem + (fix == null ? "" : ". Fix: " + fix));
        this.source = source;
        this.line = line;
        this.column = column;
        this.jsonPath = jsonPath;
        this.problem = problem;
        this.fix = fix;
    }

    /** The file name (or the name the caller gave the input). */
    public String source() { return source; }
    /** 1-based line of the JSON value at fault (of the message holding it when the value itself has no position). */
    public long line() { return line; }
    /** 1-based column, as {@link #line()}. */
    public long column() { return column; }
    /** The JSON path of the value at fault, e.g. {@code $.messages[3].tool_calls[0].function}. */
    public String jsonPath() { return jsonPath; }
    /** What is wrong. */
    public String problem() { return problem; }
    /** How to fix it, or null. */
    public String fix() { return fix; }
}
