package dev.tracegate.matchers.trace;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.JsonEOFException;

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

    /**
     * What the JSON parser rejected, as one plain sentence without the parser's internals: for input
     * that ends too early (a truncated line or file), what is left open and where it opens ("the line
     * ends before the object that opens at column 1 is closed with '}'"); otherwise the parser's own
     * description, cut before any location it appends. {@code unit} names the input: "line" or "file".
     */
    public static String jsonProblem(JsonProcessingException e, String unit) {
        String m = e.getOriginalMessage() == null ? "unreadable JSON" : e.getOriginalMessage();
        if (m.startsWith("Unexpected end-of-input") && e.getProcessor() instanceof JsonParser p) {
            JsonToken t = e instanceof JsonEOFException eof ? eof.getTokenBeingDecoded() : null;
            JsonStreamContext c = p.getParsingContext();
            String open = null;
            char close = 0;
            if (c != null && (c.inObject() || c.inArray())) {
                JsonLocation at = c.startLocation(ContentReference.unknown());
                open = (c.inObject() ? "the object" : "the array") + " that opens at "
                        + (at.getLineNr() > 1 ? "line " + at.getLineNr() + ", " : "") + "column " + at.getColumnNr();
                close = c.inObject() ? '}' : ']';
            }
            if (t == JsonToken.VALUE_STRING || t == JsonToken.FIELD_NAME) {
                return "the " + unit + " ends inside a string (it has no closing quote)";
            }
            if (open != null) return "the " + unit + " ends before " + open + " is closed with '" + close + "'";
            return "the " + unit + " ends before its JSON value is complete";
        }
        int cut = m.indexOf(" (start marker at ");
        if (cut < 0) cut = m.indexOf(" at [Source: ");
        return cut >= 0 ? m.substring(0, cut) : m;
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
