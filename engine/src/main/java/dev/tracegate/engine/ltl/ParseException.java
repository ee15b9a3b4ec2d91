package dev.tracegate.engine.ltl;

/**
 * A formula that does not parse: where (1-based line and column), which token, and what the parser
 * expected there. The message is {@code line L:C: unexpected <token>, expected <what>}, followed by
 * the source line and a caret under the column.
 */
public final class ParseException extends RuntimeException {
    private final int line;
    private final int column;
    private final String token;
    private final String expected;
    private final String reason;

    private final int openLine;
    private final int openColumn;

    ParseException(int line, int column, String token, String tokenDescription, String expected, String sourceLine) {
        this(line, column, token, tokenDescription, expected, sourceLine, 0, 0);
    }

    ParseException(int line, int column, String token, String tokenDescription, String expected, String sourceLine,
                   int openLine, int openColumn) {
        super(render(line, column, tokenDescription, expected, sourceLine));
        this.line = line;
        this.column = column;
        this.token = token;
        this.expected = expected;
        this.reason = "unexpected " + tokenDescription + ", expected " + expected;
        this.openLine = openLine;
        this.openColumn = openColumn;
    }

    /**
     * For a formula that ends with a bracket open ({@code expected ... to close '(' at L:C}): that bracket's 1-based
     * line and column in the formula, else null. A caller that places the formula in a file maps it as it maps
     * {@link #line()} and {@link #column()}, and says it with {@link #reasonWithOpening(int, int)}.
     */
    public int[] openedAt() { return openLine == 0 ? null : new int[] {openLine, openColumn}; }

    /** {@link #reason()} with the unclosed bracket's place given as {@code line:column} (e.g. in the file). */
    public String reasonWithOpening(int line, int column) {
        if (openLine == 0) return reason;
        String at = "' at " + openLine + ":" + openColumn;
        int i = reason.lastIndexOf(at);
        return i < 0 ? reason : reason.substring(0, i) + "' at " + line + ":" + column + reason.substring(i + at.length());
    }

    /** 1-based line of the offending token. */
    public int line() { return line; }

    /** 1-based column of the offending token. */
    public int column() { return column; }

    /** The offending token as written, or {@code "end of input"}. */
    public String token() { return token; }

    /** What the parser expected at that point, e.g. {@code "a formula after 'U'"}. */
    public String expected() { return expected; }

    /** The message without position and source excerpt, for callers that report positions their own way. */
    public String reason() { return reason; }

    private static String render(int line, int column, String tokenDescription, String expected, String sourceLine) {
        StringBuilder b = new StringBuilder();
        b.append("line ").append(line).append(':').append(column).append(": unexpected ")
                .append(tokenDescription).append(", expected ").append(expected).append('\n')
                .append(sourceLine).append('\n');
        // Copy tabs so that the caret lines up however the reader's terminal expands them.
        for (int i = 0; i < column - 1; i++) b.append(i < sourceLine.length() && sourceLine.charAt(i) == '\t' ? '\t' : ' ');
        return b.append('^').toString();
    }
}
