package dev.tracegate.matchers.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * Streams events from a JSONL trace (one JSON object per line, format in matchers/README.md).
 * In {@link Mode#STRICT} the first malformed line throws a {@link TraceFormatException}; in
 * {@link Mode#LENIENT} it is skipped, counted and kept (the first {@value #KEPT_PROBLEMS}) for the report.
 * Not thread-safe: one reader per thread.
 *
 * <p>Over bytes ({@link #open}, {@link #TraceReader(InputStream, String, Mode)}) a line is read straight
 * from its UTF-8 bytes when it is plain ({@link EventLine}); any other line is decoded and parsed with
 * Jackson, as every line is over characters, so events and error messages (file:line:column) are the same.
 */
public final class TraceReader implements Closeable {
    /** How malformed lines are handled. */
    public enum Mode {
        /** Stop at the first malformed line. */
        STRICT,
        /** Skip malformed lines, count them and keep the first problems. */
        LENIENT
    }

    /** Problems kept in lenient mode (all are counted). */
    public static final int KEPT_PROBLEMS = 100;
    /** Longest accepted line, in characters. */
    public static final int MAX_LINE = 64 * 1024 * 1024;

    static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonFactory FACTORY = JSON.getFactory();
    private static final String KINDS = "user, assistant, call, return, consent, erasure, end";

    private static final int F_SESSION = 1, F_SEQ = 2, F_TS = 4, F_KIND = 8, F_TOOL = 16, F_ID = 32, F_ARGS = 64,
            F_RESULT = 128, F_TEXT = 256, F_SUBJECT = 512, F_PURPOSES = 1024, F_CATEGORIES = 2048,
            F_GRANTED = 4096, F_ERROR = 8192, F_TOKENS = 16384, F_DEPTH = 32768;

    /** Characters being read: the reader given, or the rest of the bytes after a line too long for the byte buffer; else null. */
    private Reader in;
    /** The rest of the bytes after a line of {@value #MAX_LINE} bytes or more, as {@link #in}; else null. */
    private Utf8Rest rest;
    /** Lines read when the bytes were switched to {@link #rest}: its line k (from 0) is line {@code switchedAt + 1 + k}. */
    private long switchedAt;
    private final String source;
    private final Mode mode;
    private char[] buf;
    private int start;
    private int end;
    private boolean eof;
    // reading bytes (null when reading characters)
    private final InputStream bytesIn;
    /** Decodes the lines EventLine leaves to Jackson, with the malformed-input action of the char reader it stands for. */
    private final CharsetDecoder decoder;
    private final EventLine lines;
    private byte[] bytes;
    private int bstart;
    private int bend;
    private boolean beof;
    private long line;
    private long skipped;
    private long events;
    private final List<TraceFormatException> problems = new ArrayList<>();
    private Consumer<TraceFormatException> onSkip;
    /** What the line being parsed holds that is read, but not as written (a string "args" holding no JSON object); else null. */
    private TraceFormatException note;
    private Consumer<TraceFormatException> onNote;
    private long notes;

    /** A reader over {@code in}; {@code source} names it in error messages. */
    public TraceReader(Reader in, String source, Mode mode) {
        this.in = in;
        this.source = source;
        this.mode = mode;
        this.buf = new char[1 << 16];
        this.bytesIn = null;
        this.decoder = null;
        this.lines = null;
    }

    /**
     * A reader over UTF-8 bytes. A line that is not well-formed UTF-8 is a malformed line (its column names the first
     * byte that is not; trial27 01: Latin-1 bytes decoded to U+FFFD made two addresses equal), also in and after a line
     * of {@value #MAX_LINE} bytes or more (session 16: there it stopped the read); a line longer than {@value #MAX_LINE}
     * characters is the line-limit error, whatever bytes it holds.
     * Faster than the same bytes through a Reader: plain lines skip the decoding and Jackson.
     */
    public TraceReader(InputStream in, String source, Mode mode) {
        this(in, source, mode, CodingErrorAction.REPORT);
    }

    private TraceReader(InputStream in, String source, Mode mode, CodingErrorAction malformed) {
        this.in = null;
        this.source = source;
        this.mode = mode;
        this.bytesIn = in;
        this.decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(malformed).onUnmappableCharacter(malformed);
        this.lines = new EventLine();
        this.bytes = new byte[1 << 16];
    }

    /** Opens a UTF-8 trace file; a line that is not UTF-8 is a malformed line, as in {@link #TraceReader(InputStream, String, Mode)}. */
    public static TraceReader open(Path file, Mode mode) throws IOException {
        return new TraceReader(Files.newInputStream(file), file.getFileName().toString(), mode, CodingErrorAction.REPORT);
    }

    /** Reads a whole file into memory (tests and small traces). */
    public static List<Event> readAll(Path file, Mode mode) throws IOException {
        try (TraceReader r = open(file, mode)) {
            List<Event> out = new ArrayList<>();
            for (Event e = r.next(); e != null; e = r.next()) out.add(e);
            return out;
        }
    }

    /** Called with each skipped line's problem in lenient mode (for progress output). */
    public TraceReader onSkip(Consumer<TraceFormatException> listener) {
        this.onSkip = listener;
        return this;
    }

    /**
     * Called with each line that is read but not quite as written: a call whose string "args" holds no JSON object
     * (kept as {@code {"_raw": text}}, as online). The line is an event all the same.
     */
    public TraceReader onNote(Consumer<TraceFormatException> listener) {
        this.onNote = listener;
        return this;
    }

    /** Lines read as events with a note so far (see {@link #onNote}). */
    public long notes() { return notes; }

    /**
     * The next event, or null at the end of the input. Blank lines are ignored.
     *
     * @throws TraceFormatException in strict mode, for a malformed line
     */
    public Event next() throws IOException {
        if (in == null) {
            while (true) {
                int eol = nextByteLine();
                if (eol == SWITCHED) break;
                if (eol < 0) return null;
                int from = bstart;
                int to = eol;
                bstart = eol + 1;
                line++;
                byte[] b = bytes;
                if (to > from && b[to - 1] == '\r') to--;
                if (line == 1 && to - from >= 3 && b[from] == (byte) 0xEF && b[from + 1] == (byte) 0xBB && b[from + 2] == (byte) 0xBF) {
                    from += 3; // U+FEFF
                }
                if (isBlank(b, from, to)) continue;
                Event e = lines.read(b, from, to, line);
                if (e != null) {
                    events++;
                    return e;
                }
                CharBuffer chars;
                try {
                    chars = decoder.decode(ByteBuffer.wrap(b, from, to - from));
                } catch (CharacterCodingException notUtf8) {
                    TraceFormatException ex = notUtf8(b, from, to);
                    if (mode == Mode.STRICT) throw ex;
                    skip(ex);
                    continue;
                }
                try {
                    e = parse(chars.array(), chars.arrayOffset() + chars.position(), chars.remaining());
                    events++;
                    noted();
                    return e;
                } catch (TraceFormatException ex) {
                    if (mode == Mode.STRICT) throw ex;
                    skip(ex);
                }
            }
        }
        while (true) {
            int eol = nextLine();
            if (eol < 0) return null;
            int from = start;
            int to = eol;
            start = eol + 1;
            line++;
            if (to > from && buf[to - 1] == '\r') to--;
            if (line == 1 && to > from && buf[from] == '\uFEFF') from++;
            long[] bad = rest == null ? null : rest.firstBadByteOf(line - switchedAt - 1);
            if (bad != null) {
                TraceFormatException ex = notUtf8(line, bad[1], (int) bad[2]);
                if (mode == Mode.STRICT) throw ex;
                skip(ex);
                continue;
            }
            if (isBlank(from, to)) continue;
            try {
                Event e = parse(buf, from, to - from);
                events++;
                noted();
                return e;
            } catch (TraceFormatException ex) {
                if (mode == Mode.STRICT) throw ex;
                skip(ex);
            }
        }
    }

    /**
     * The problem of line {@code [from, to)} of {@code b}, which is not well-formed UTF-8: the column of its first byte
     * that is not (in characters, as Jackson counts them), that byte, and how to convert the file.
     */
    private TraceFormatException notUtf8(byte[] b, int from, int to) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(b, from, to - from);
        CharBuffer out = CharBuffer.allocate(to - from);
        d.decode(in, out, true);   // stops at the first malformed sequence, in.position() on it
        int at = Math.min(in.position(), to - 1);
        return notUtf8(line, out.position() + 1, b[at] & 0xFF);
    }

    /** Line {@code at} is not well-formed UTF-8: {@code value}, at character {@code column}, is the first byte that is not. */
    private TraceFormatException notUtf8(long at, long column, int value) {
        return new TraceFormatException(source, at, (int) Math.min(Integer.MAX_VALUE, column),
                String.format("the line is not UTF-8 text: byte 0x%02X is not valid UTF-8 there (a file written in Latin-1,"
                        + " Windows-1252 or another encoding?)", value),
                "write the trace as UTF-8, e.g. iconv -f WINDOWS-1252 -t UTF-8 " + source + " > utf8-" + source);
    }

    private void noted() {
        if (note == null) return;
        notes++;
        if (onNote != null) onNote.accept(note);
        note = null;
    }

    private void skip(TraceFormatException ex) {
        skipped++;
        if (problems.size() < KEPT_PROBLEMS) problems.add(ex);
        if (onSkip != null) onSkip.accept(ex);
    }

    /** Lines read so far (blank ones included). */
    public long lines() { return line; }
    /** Events returned so far. */
    public long events() { return events; }
    /** Malformed lines skipped so far (lenient mode). */
    public long skipped() { return skipped; }
    /** The first {@value #KEPT_PROBLEMS} problems of skipped lines. */
    public List<TraceFormatException> problems() { return Collections.unmodifiableList(problems); }

    @Override public void close() throws IOException {
        if (in != null) in.close();
        else bytesIn.close();
    }

    private static boolean isBlank(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') return false;
        }
        return true;
    }

    /** {@link #nextByteLine()}'s answer when the rest of the input is read as characters from now on. */
    private static final int SWITCHED = -2;

    /**
     * Index of the end of the next line in {@code bytes} (a '\n' or the end of input), -1 at the end, or
     * {@link #SWITCHED}: a line of {@link #MAX_LINE} bytes or more may be too long (its length in
     * characters decides), so from there on the rest of the input is read as characters, as by the
     * char reader this one stands for.
     */
    private int nextByteLine() throws IOException {
        int scan = bstart;
        while (true) {
            byte[] b = bytes;
            int nl = EventLine.indexOfNewline(b, scan, bend);
            if (nl >= 0) return nl;
            if (beof) {
                if (bstart < bend) {
                    // last line without newline: pretend one
                    if (bend == b.length) bytes = b = Arrays.copyOf(b, b.length + 1);
                    b[bend] = '\n';
                    bend++;
                    return bend - 1;
                }
                return -1;
            }
            scan = bend;
            if (bstart > 0) {
                System.arraycopy(b, bstart, b, 0, bend - bstart);
                scan -= bstart;
                bend -= bstart;
                bstart = 0;
            }
            if (bend == b.length) {
                if (b.length >= MAX_LINE) {
                    rest = new Utf8Rest(new SequenceInputStream(new ByteArrayInputStream(b, bstart, bend - bstart), bytesIn));
                    in = rest;
                    switchedAt = line;
                    buf = new char[1 << 16];
                    bytes = null;
                    return SWITCHED;
                }
                bytes = b = Arrays.copyOf(b, Math.min(MAX_LINE, b.length * 2));
            }
            int n = bytesIn.read(b, bend, b.length - bend);
            if (n < 0) beof = true;
            else bend += n;
        }
    }

    private boolean isBlank(int from, int to) {
        for (int i = from; i < to; i++) {
            char c = buf[i];
            if (c != ' ' && c != '\t' && c != '\r') return false;
        }
        return true;
    }

    /** Index of the end of the next line in {@code buf} (a '\n' or the end of input), or -1 at the end. */
    private int nextLine() throws IOException {
        int scan = start;
        while (true) {
            for (int i = scan; i < end; i++) if (buf[i] == '\n') return i;
            if (eof) {
                if (start < end) {
                    // last line without newline: pretend one
                    if (end == buf.length) buf = Arrays.copyOf(buf, buf.length + 1);
                    buf[end] = '\n';
                    end++;
                    return end - 1;
                }
                return -1;
            }
            scan = end;
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, end - start);
                scan -= start;
                end -= start;
                start = 0;
            }
            if (end == buf.length) {
                if (buf.length >= MAX_LINE) {
                    TraceFormatException tooLong = tooLong(line + 1, openField(buf, start, end));
                    if (mode == Mode.STRICT) throw tooLong;
                    // Lenient: skip the rest of this line (counted like any malformed line) and go on.
                    discardRestOfLine();
                    line++;
                    skipped++;
                    if (problems.size() < KEPT_PROBLEMS) problems.add(tooLong);
                    if (onSkip != null) onSkip.accept(tooLong);
                    scan = start;
                    continue;
                }
                buf = Arrays.copyOf(buf, Math.min(MAX_LINE, buf.length * 2));
            }
            // the caller's reader may throw its own decoding error; the rest of the bytes (Utf8Rest) does not
            int n = in.read(buf, end, buf.length - end);
            if (n < 0) eof = true;
            else end += n;
        }
    }

    /**
     * The line-limit error of line {@code at}, naming the top-level field whose value was still open at the limit
     * ({@code field}, null if none): before session 16 it always said to shorten the "result text", also when the
     * arguments were what made the line long.
     */
    private TraceFormatException tooLong(long at, String field) {
        String what = field == null ? "its longest field"
                : switch (field) {
                    case "args" -> "its arguments (\"args\")";
                    case "result" -> "its result text (\"result\")";
                    case "text" -> "its text (\"text\")";
                    case "error" -> "its error text (\"error\")";
                    default -> "its \"" + field + "\" value";
                };
        return new TraceFormatException(source, at, 1, "line is longer than " + MAX_LINE + " characters"
                + (field == null ? "" : " (its \"" + field + "\" value goes on past the limit)"), "split the event or shorten " + what);
    }

    /**
     * The top-level field of the JSON object in {@code c[from, to)} whose value is still open at {@code to} (a line cut at
     * the limit), or null. A scan of the characters, not a parse: no copy of the line (error path only).
     */
    static String openField(char[] c, int from, int to) {
        int depth = 0;
        boolean inString = false;
        int stringStart = -1;
        String lastString = null;
        String field = null;
        for (int i = from; i < to; i++) {
            char ch = c[i];
            if (inString) {
                if (ch == '\\') i++;
                else if (ch == '"') {
                    inString = false;
                    lastString = depth == 1 && i - stringStart <= 64 ? new String(c, stringStart, i - stringStart) : null;
                }
                continue;
            }
            switch (ch) {
                case '"' -> {
                    inString = true;
                    stringStart = i + 1;
                }
                case '{', '[' -> depth++;
                case '}', ']' -> depth--;
                case ':' -> {
                    if (depth == 1) field = lastString;
                }
                case ',' -> {
                    if (depth == 1) field = null;
                }
                default -> {
                }
            }
        }
        return depth >= 1 ? field : null;
    }

    /**
     * The bytes after a line of {@value #MAX_LINE} bytes or more, decoded as UTF-8 (such a line may still be within the
     * limit, which counts characters). A byte that is not UTF-8 is given out as U+FFFD and remembered with its line
     * (counted from 0 here), column and value, so that {@link #next} reports that line as malformed and reads on, as over
     * the byte buffer; before session 16 an InputStreamReader threw there and the read stopped, in both modes, also when
     * the byte was inside a line too long anyway. Only this slow path decodes so.
     */
    private static final class Utf8Rest extends Reader {
        private final InputStream in;
        private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        private final ByteBuffer bytes = ByteBuffer.allocate(1 << 16).flip();
        private boolean eof;
        /** Newlines given out so far, and characters given out since the last one. */
        private long newlines;
        private long column;
        /** The first byte that is not UTF-8 of each line given out but not yet read by next(): {line, column, byte}. */
        private final java.util.ArrayDeque<long[]> bad = new java.util.ArrayDeque<>();

        Utf8Rest(InputStream in) {
            this.in = in;
        }

        /** The first byte that is not UTF-8 of line {@code k}, as {line, column, byte}, or null; forgets those of lines before. */
        long[] firstBadByteOf(long k) {
            while (!bad.isEmpty() && bad.peekFirst()[0] < k) bad.pollFirst();
            return !bad.isEmpty() && bad.peekFirst()[0] == k ? bad.pollFirst() : null;
        }

        /** The second half of a surrogate pair decoded for a read of one character, or -1. */
        private int pending = -1;

        @Override
        public int read(char[] c, int off, int len) throws IOException {
            if (len == 0) return 0;
            if (pending >= 0) {
                c[off] = (char) pending;
                pending = -1;
                return 1;
            }
            if (len == 1) {   // a character outside the BMP needs two: keep the second for the next read
                char[] two = new char[2];
                int n = read(two, 0, 2);
                if (n <= 0) return n;
                c[off] = two[0];
                if (n == 2) pending = two[1];
                return 1;
            }
            CharBuffer out = CharBuffer.wrap(c, off, len);
            while (true) {
                int before = out.position();
                java.nio.charset.CoderResult r = decoder.decode(bytes, out, eof);
                count(c, before, out.position());
                if (r.isError()) {
                    if (!out.hasRemaining()) break;   // no room for U+FFFD: the next read meets the byte again
                    if (bad.isEmpty() || bad.peekLast()[0] != newlines) bad.addLast(new long[] {newlines, column + 1, bytes.get(bytes.position()) & 0xFF});
                    bytes.position(bytes.position() + r.length());
                    out.put('\uFFFD');
                    column++;
                    continue;
                }
                if (r.isOverflow() || out.position() > off || eof) break;
                bytes.compact();
                int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
                if (n < 0) eof = true;
                else bytes.position(bytes.position() + n);
                bytes.flip();
            }
            int n = out.position() - off;
            return n == 0 && eof ? -1 : n;
        }

        private void count(char[] c, int from, int to) {
            for (int i = from; i < to; i++) {
                if (c[i] == '\n') {
                    newlines++;
                    column = 0;
                } else {
                    column++;
                }
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** Drops buffered and further characters up to and including the next newline (or the end of input). */
    private void discardRestOfLine() throws IOException {
        start = 0;
        end = 0;
        while (true) {
            int n = in.read(buf, 0, buf.length);
            if (n < 0) {
                eof = true;
                return;
            }
            for (int i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                    start = i + 1;
                    end = n;
                    return;
                }
            }
        }
    }

    private TraceFormatException error(JsonParser p, String problem, String fix) {
        JsonLocation loc = p.currentTokenLocation();
        int col = loc == null ? 1 : Math.max(1, loc.getColumnNr());
        return new TraceFormatException(source, line, col, problem, fix);
    }

    /** Parses one line; package-visible for tests. */
    Event parse(char[] chars, int off, int len) throws IOException {
        note = null;
        try (JsonParser p = FACTORY.createParser(chars, off, len)) {
            return parse(p);
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            int col = loc == null ? 1 : Math.max(1, loc.getColumnNr());
            String problem = TraceFormatException.jsonProblem(e, "line");
            String fix = problem.startsWith("the line ends")
                    ? "complete the line or delete it (a trace cut off while it was written ends in such a line)"
                    : "each line must be one complete JSON object, e.g. {\"session\":\"s1\",\"kind\":\"user\",\"text\":\"hi\"}";
            throw new TraceFormatException(source, line, col, "not valid JSON: " + problem, fix);
        }
    }

    private Event parse(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw error(p, "line is not a JSON object", "write one event per line as {\"session\":...,\"kind\":...}");
        }
        int seen = 0;
        String session = null, tool = null, id = null, result = null, text = null, subject = null;
        long seq = line, ts = 0, tokens = -1;
        int depth = 0;
        EventKind kind = null;
        Args args = null;
        List<String> purposes = null, categories = null;
        boolean granted = true, error = false;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            int bit = bit(name);
            if (bit != 0) {
                if ((seen & bit) != 0) throw error(p, "field \"" + name + "\" appears twice", "keep one of them");
                seen |= bit;
            }
            switch (name) {
                case "session" -> session = string(p, v, name, "\"session\":\"s1\"");
                case "seq" -> seq = integer(p, v, name);
                case "ts" -> ts = timestamp(p, v);
                case "kind" -> {
                    String k = string(p, v, name, "\"kind\":\"call\"");
                    kind = EventKind.parse(k);
                    if (kind == null) throw error(p, "unknown kind \"" + k + "\"", "use one of " + KINDS);
                }
                case "tool" -> tool = string(p, v, name, "\"tool\":\"search\"");
                case "id" -> id = v == JsonToken.VALUE_NUMBER_INT ? p.getText() : string(p, v, name, "\"id\":\"call_1\"");
                case "args" -> {
                    if (v == JsonToken.START_OBJECT) {
                        JsonNode node = JSON.readTree(p);
                        args = Args.of(node);
                    } else if (v == JsonToken.VALUE_STRING) {
                        // a string holding the arguments' JSON (as OpenAI-style logs carry them); one that holds no JSON
                        // object (cut off, key=value text, an array) is refused like an array written as such, not read
                        // as a call without arguments; a blank string is no arguments
                        String held = p.getText();
                        args = Args.ofJson(held);
                        if (args.malformed()) {
                            // malformed model output (cut off, key=value text, an array): kept as {"_raw": text}, as the agent
                            // keeps it online, so the call is judged as it was (trial27 10); said once per line
                            note = error(p, "field \"args\" holds a string that is not a JSON object (" + notAnObject(held)
                                    + "): the call is kept with arguments {\"_raw\": <the string>}, as the agent keeps such model"
                                    + " output online; a contract that reads one of its arguments finds it missing (unevaluable)", null);
                        }
                    } else if (v != JsonToken.VALUE_NULL) {
                        throw error(p, "field \"args\" must be a JSON object, found " + describe(v),
                                "write the arguments as an object, e.g. \"args\":{\"amount\":120}");
                    }
                }
                case "result" -> {
                    if (v == JsonToken.VALUE_STRING) result = p.getText();
                    else if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) result = JSON.readTree(p).toString();
                    else if (v != JsonToken.VALUE_NULL) result = p.getText();
                }
                case "text" -> text = string(p, v, name, "\"text\":\"hello\"");
                case "subject" -> subject = v == JsonToken.VALUE_NUMBER_INT ? p.getText() : string(p, v, name, "\"subject\":\"alice@example.com\"");
                case "purposes" -> purposes = strings(p, v, name, "\"purposes\":[\"billing\"]");
                case "categories" -> categories = strings(p, v, name, "\"categories\":[\"email\"]");
                case "granted" -> granted = bool(p, v, name);
                case "error" -> error = bool(p, v, name);
                case "tokens" -> tokens = integer(p, v, name);
                case "depth" -> depth = (int) Math.min(Integer.MAX_VALUE, integer(p, v, name));
                default -> p.skipChildren(); // unknown fields are ignored so audit records replay as traces
            }
        }
        if (t != JsonToken.END_OBJECT) throw error(p, "unexpected " + describe(t), "close the object with }");
        JsonToken after = p.nextToken();
        if (after != null) {
            throw error(p, "more than one JSON value on the line", "put each event on its own line");
        }
        if (kind == null) {
            throw new TraceFormatException(source, line, 1, "field \"kind\" is missing",
                    "add \"kind\" with one of " + KINDS);
        }
        if (session == null) {
            throw new TraceFormatException(source, line, 1, "field \"session\" is missing",
                    "add \"session\":\"<session id>\" (events of one session share it)");
        }
        if ((kind == EventKind.CALL || kind == EventKind.RETURN) && (tool == null || tool.isBlank())) {
            throw new TraceFormatException(source, line, 1, "a " + kind.name().toLowerCase(java.util.Locale.ROOT) + " event needs a \"tool\"",
                    "add \"tool\":\"<tool name>\"");
        }
        return Event.builder(kind).session(session).seq(seq).ts(ts).tool(tool).callId(id).args(args).result(result)
                .text(text).subject(subject).purposes(purposes).categories(categories).granted(granted).error(error)
                .tokens(tokens).depth(depth).build();
    }

    private static int bit(String name) {
        return switch (name) {
            case "session" -> F_SESSION;
            case "seq" -> F_SEQ;
            case "ts" -> F_TS;
            case "kind" -> F_KIND;
            case "tool" -> F_TOOL;
            case "id" -> F_ID;
            case "args" -> F_ARGS;
            case "result" -> F_RESULT;
            case "text" -> F_TEXT;
            case "subject" -> F_SUBJECT;
            case "purposes" -> F_PURPOSES;
            case "categories" -> F_CATEGORIES;
            case "granted" -> F_GRANTED;
            case "error" -> F_ERROR;
            case "tokens" -> F_TOKENS;
            case "depth" -> F_DEPTH;
            default -> 0;
        };
    }

    private String string(JsonParser p, JsonToken v, String name, String example) throws IOException {
        if (v == JsonToken.VALUE_STRING) return p.getText();
        if (v == JsonToken.VALUE_NULL) return null;
        throw error(p, "field \"" + name + "\" must be a string, found " + describe(v), "write it in quotes, e.g. " + example);
    }

    private long integer(JsonParser p, JsonToken v, String name) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw error(p, "field \"" + name + "\" is too large", "use a value below 2^63");
            }
            long n = p.getLongValue();
            if (n < 0) throw error(p, "field \"" + name + "\" must not be negative, found " + n, "use 0 or more");
            return n;
        }
        throw error(p, "field \"" + name + "\" must be an integer, found " + describe(v),
                "write a whole number without quotes, e.g. \"" + name + "\":3");
    }

    private long timestamp(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT) return integer(p, v, "ts");
        if (v == JsonToken.VALUE_STRING) {
            String s = p.getText();
            try {
                return Instant.parse(s).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw error(p, "field \"ts\" is not an ISO-8601 instant: \"" + s + "\"",
                        "write epoch milliseconds (\"ts\":1767225600000) or an instant (\"ts\":\"2026-01-01T00:00:00Z\")");
            }
        }
        throw error(p, "field \"ts\" must be epoch milliseconds or an ISO-8601 string, found " + describe(v),
                "e.g. \"ts\":1767225600000");
    }

    private boolean bool(JsonParser p, JsonToken v, String name) throws IOException {
        if (v == JsonToken.VALUE_TRUE) return true;
        if (v == JsonToken.VALUE_FALSE) return false;
        throw error(p, "field \"" + name + "\" must be true or false, found " + describe(v),
                "write \"" + name + "\":true or \"" + name + "\":false without quotes");
    }

    private List<String> strings(JsonParser p, JsonToken v, String name, String example) throws IOException {
        if (v == JsonToken.VALUE_NULL) return null;
        if (v == JsonToken.VALUE_STRING) return List.of(p.getText());
        if (v != JsonToken.START_ARRAY) {
            throw error(p, "field \"" + name + "\" must be an array of strings, found " + describe(v), "e.g. " + example);
        }
        List<String> out = new ArrayList<>(4);
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.VALUE_STRING) {
                throw error(p, "field \"" + name + "\" must contain only strings, found " + describe(t), "e.g. " + example);
            }
            out.add(p.getText());
        }
        return out;
    }

    /** Why {@code text} (the value of a string "args") holds no JSON object: what the JSON parser rejected, or what it holds. */
    private static String notAnObject(String text) {
        try {
            JsonNode n = JSON.readTree(text);
            String what = n == null ? "nothing" : n.isArray() ? "an array" : n.isTextual() ? "a string" : n.isNumber() ? "a number"
                    : n.isBoolean() ? "a boolean" : n.isNull() ? "null" : "no object";
            return "it holds " + what;
        } catch (JsonProcessingException e) {
            return "not valid JSON: " + TraceFormatException.jsonProblem(e, "string");
        }
    }

    private static String describe(JsonToken t) {
        if (t == null) return "the end of the line";
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a decimal number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
        };
    }

    static {
        // Lines up to MAX_LINE may hold long results; Jackson's default string limit is lower.
        FACTORY.setStreamReadConstraints(StreamReadConstraints.builder().maxStringLength(MAX_LINE).build());
    }
}
