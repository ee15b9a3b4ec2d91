package dev.tracegate.contracts.library;

/**
 * A mistake in a contract library: where (file:line:column), what is wrong, and how to fix it.
 * The message is meant for the person who wrote the file; it never carries a stack trace.
 */
public final class LibraryException extends RuntimeException {
    private final String file;
    private final int line;
    private final int column;
    private final String problem;
    private final String hint;

    public LibraryException(String file, int line, int column, String problem, String hint) {
        super(format(file, line, column, problem, hint), null, false, false);
        this.file = file;
        this.line = line;
        this.column = column;
        this.problem = problem;
        this.hint = hint;
    }

    static String format(String file, int line, int column, String problem, String hint) {
        StringBuilder b = new StringBuilder();
        b.append(file == null ? "<library>" : file);
        if (line > 0) b.append(':').append(line).append(':').append(column);
        b.append(": ").append(problem);
        if (hint != null && !hint.isEmpty()) b.append("\n  hint: ").append(hint);
        return b.toString();
    }

    public String file() { return file; }

    public int line() { return line; }

    public int column() { return column; }

    /** What is wrong, without position or hint. */
    public String problem() { return problem; }

    /** How to fix it, or null. */
    public String hint() { return hint; }
}
