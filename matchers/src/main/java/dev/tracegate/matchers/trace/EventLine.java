package dev.tracegate.matchers.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one trace line straight from its UTF-8 bytes into the {@link Event} that {@link TraceReader}'s
 * Jackson path would build from it, without decoding the line to characters first. It reads only
 * lines it is sure of: strict JSON, well-formed UTF-8, every field of the right type, no duplicate
 * field, nesting and numbers within small bounds. For any other line it declines (returns null) and
 * the caller parses the line with Jackson, which builds the event or reports the error with its
 * column; so every error message comes from one place, and a declined valid line costs only time.
 * Not thread-safe: one per reader.
 */
final class EventLine {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Deeper argument trees are left to Jackson (its own limit is far higher). */
    private static final int MAX_DEPTH = 32;
    /** Longer number texts are left to Jackson (which has a length limit of its own). */
    private static final int MAX_NUMBER = 64;
    /** Longer field names are left to Jackson (which has a length limit of its own). */
    private static final int MAX_NAME = 1000;

    private static final int F_SESSION = 1, F_SEQ = 2, F_TS = 3, F_KIND = 4, F_TOOL = 5, F_ID = 6, F_ARGS = 7,
            F_RESULT = 8, F_TEXT = 9, F_SUBJECT = 10, F_PURPOSES = 11, F_CATEGORIES = 12, F_GRANTED = 13,
            F_ERROR = 14, F_TOKENS = 15, F_DEPTH = 16;
    private static final byte[][] NAMES = new byte[17][];

    static {
        String[] names = {null, "session", "seq", "ts", "kind", "tool", "id", "args", "result", "text", "subject",
            "purposes", "categories", "granted", "error", "tokens", "depth"};
        for (int i = 1; i < names.length; i++) NAMES[i] = names[i].getBytes(StandardCharsets.US_ASCII);
    }

    /** Thrown (without a stack trace) to give a line to Jackson. */
    private static final class Decline extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Decline() { super(null, null, false, false); }
    }

    private static final Decline DECLINE = new Decline();

    /** Eight bytes at a time (little-endian: the lowest byte is the first), for the scans below. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L, HIGHS = 0x8080808080808080L;

    /** High bit of each byte of {@code w} that is zero (exact for the lowest such byte; higher ones may be false hits). */
    private static long zeroBytes(long w) { return (w - ONES) & ~w & HIGHS; }

    /** Index of the first '\n' in {@code b[from, to)}, or -1; eight bytes per step. */
    static int indexOfNewline(byte[] b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long t = zeroBytes((long) LONGS.get(b, i) ^ 0x0A0A0A0A0A0A0A0AL);
            if (t != 0) return i + (Long.numberOfTrailingZeros(t) >>> 3);
        }
        for (; i < to; i++) if (b[i] == '\n') return i;
        return -1;
    }

    /**
     * Index of the first byte in {@code b[from, to)} that a string cannot copy as is ('"', '\\', a control
     * char or a byte of a multi-byte char), or {@code to}; eight bytes per step over plain text.
     */
    private static int plainRun(byte[] b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long w = (long) LONGS.get(b, i);
            // a quote, a backslash, a byte below 0x20, or a byte with its high bit set
            long t = zeroBytes(w ^ 0x2222222222222222L) | zeroBytes(w ^ 0x5C5C5C5C5C5C5C5CL) | ((w - 0x2020202020202020L) & ~w & HIGHS)
                    | (w & HIGHS);
            if (t != 0) break;
        }
        for (; i < to; i++) {
            byte c = b[i];
            if (c == '"' || c == '\\' || c < 0x20) return i; // bytes >= 0x80 are negative here
        }
        return to;
    }

    private byte[] b;
    private int p;
    private int end;
    private char[] chars = new char[256];
    /** The last string read had a surrogate char (Jackson checks those in field names: it decides such names). */
    private boolean surrogate;

    /**
     * The event on bytes {@code [from, to)} of {@code bytes} (one line, without its line break), or null
     * when this reader leaves the line to Jackson. {@code line} is the default sequence number.
     */
    Event read(byte[] bytes, int from, int to, long line) {
        b = bytes;
        p = from;
        end = to;
        try {
            return event(line);
        } catch (RuntimeException e) {
            // DECLINE, or anything the Jackson path meets too (an instant out of range): it decides
            return null;
        } finally {
            b = null;
        }
    }

    private Event event(long line) {
        ws();
        expect('{');
        int seen = 0;
        String session = null, tool = null, id = null, result = null, text = null, subject = null;
        long seq = line, ts = 0, tokens = -1;
        int depth = 0;
        EventKind kind = null;
        Args args = null;
        List<String> purposes = null, categories = null;
        boolean granted = true, error = false;
        ws();
        if (peek() == '}') {
            p++;
        } else {
            while (true) {
                ws();
                int field = name();
                ws();
                if (field != 0) {
                    if ((seen & (1 << field)) != 0) throw DECLINE;
                    seen |= 1 << field;
                }
                switch (field) {
                    case F_SESSION -> session = peek() == 'n' ? stringOrNull() : keptName();
                    case F_SEQ -> seq = count();
                    case F_TS -> ts = peek() == '"' ? Instant.parse(string()).toEpochMilli() : count();
                    case F_KIND -> {
                        kind = kind();
                        if (kind == null) throw DECLINE;
                    }
                    case F_TOOL -> tool = peek() == 'n' ? stringOrNull() : keptName();
                    case F_ID -> id = stringOrIntegerText();
                    case F_ARGS -> {
                        byte c = peek();
                        if (c == '{') args = args();
                        else if (c == '"') {
                            args = Args.ofJson(string());
                            if (args.malformed()) throw DECLINE;   // the Jackson path keeps it raw and says what is wrong with it
                        }
                        else literal("null");
                    }
                    case F_RESULT -> {
                        byte c = peek();
                        if (c == '"') result = string();
                        else if (c == '{') result = object(0).toString();
                        else if (c == '[') result = array(0).toString();
                        else if (c == 'n') literal("null");
                        else if (c == 't') result = literal("true");
                        else if (c == 'f') result = literal("false");
                        else {
                            int s = p;
                            number();
                            result = ascii(s, p);
                        }
                    }
                    case F_TEXT -> text = stringOrNull();
                    case F_SUBJECT -> subject = stringOrIntegerText();
                    case F_PURPOSES -> purposes = strings();
                    case F_CATEGORIES -> categories = strings();
                    case F_GRANTED -> granted = bool();
                    case F_ERROR -> error = bool();
                    case F_TOKENS -> tokens = count();
                    case F_DEPTH -> depth = (int) Math.min(Integer.MAX_VALUE, count());
                    default -> value(0); // unknown fields are read (so the line is valid JSON) and dropped
                }
                ws();
                byte c = next();
                if (c == '}') break;
                if (c != ',') throw DECLINE;
            }
        }
        ws();
        if (p != end) throw DECLINE;
        if (kind == null || session == null) throw DECLINE;
        if ((kind == EventKind.CALL || kind == EventKind.RETURN) && (tool == null || tool.isBlank())) throw DECLINE;
        return Event.builder(kind).session(session).seq(seq).ts(ts).tool(tool).callId(id).args(args).result(result)
                .text(text).subject(subject).purposes(purposes).categories(categories).granted(granted).error(error)
                .tokens(tokens).depth(depth).build();
    }

    // ---- fields

    /** A field name and its colon; the known field's number, or 0. */
    private int name() {
        expectAt('"');
        int s = ++p;
        int i = s;
        while (i < end) {
            byte c = b[i];
            if (c == '"') break;
            if (c == '\\' || c < 0x20) throw DECLINE; // escapes, control and non-ASCII bytes: Jackson decides
            i++;
        }
        if (i >= end || i - s > MAX_NAME) throw DECLINE;
        p = i + 1;
        ws();
        expect(':');
        return known(s, i - s);
    }

    /** The known names' first eight bytes (zero-padded) as little-endian longs, by field number. */
    private static final long[] NAME_WORDS = new long[NAMES.length];
    /** The kinds as written (lower case), and their first eight bytes as little-endian longs, zero-padded. */
    private static final EventKind[] KINDS = EventKind.values();
    private static final byte[][] KIND_NAMES = new byte[KINDS.length][];
    private static final long[] KIND_WORDS = new long[KINDS.length];

    static {
        for (int f = 1; f < NAMES.length; f++) NAME_WORDS[f] = word(NAMES[f]);
        for (int k = 0; k < KINDS.length; k++) {
            KIND_NAMES[k] = KINDS[k].name().toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
            KIND_WORDS[k] = word(KIND_NAMES[k]);
        }
    }

    private static long word(byte[] w) {
        long v = 0;
        for (int k = Math.min(8, w.length) - 1; k >= 0; k--) v = (v << 8) | (w[k] & 0xFF);
        return v;
    }

    /**
     * The known field named by bytes {@code [s, s + n)}, or 0: one eight-byte compare where the line has
     * eight bytes from {@code s} on (a name is followed by at least {@code ":} and a value, so all but the
     * shortest names at the very end of a line do).
     */
    private int known(int s, int n) {
        if (n > 10 || s + 8 > end) return knownByBytes(s, n);
        long w = (long) LONGS.get(b, s);
        if (n < 8) w &= (1L << (n << 3)) - 1;
        switch (n) {
            case 2: return w == NAME_WORDS[F_ID] ? F_ID : w == NAME_WORDS[F_TS] ? F_TS : 0;
            case 3: return w == NAME_WORDS[F_SEQ] ? F_SEQ : 0;
            case 4: return w == NAME_WORDS[F_KIND] ? F_KIND : w == NAME_WORDS[F_TOOL] ? F_TOOL : w == NAME_WORDS[F_ARGS] ? F_ARGS
                    : w == NAME_WORDS[F_TEXT] ? F_TEXT : 0;
            case 5: return w == NAME_WORDS[F_ERROR] ? F_ERROR : w == NAME_WORDS[F_DEPTH] ? F_DEPTH : 0;
            case 6: return w == NAME_WORDS[F_RESULT] ? F_RESULT : w == NAME_WORDS[F_TOKENS] ? F_TOKENS : 0;
            case 7: return w == NAME_WORDS[F_SESSION] ? F_SESSION : w == NAME_WORDS[F_SUBJECT] ? F_SUBJECT
                    : w == NAME_WORDS[F_GRANTED] ? F_GRANTED : 0;
            case 8: return w == NAME_WORDS[F_PURPOSES] ? F_PURPOSES : 0;
            case 10: return w == NAME_WORDS[F_CATEGORIES] && is(s, F_CATEGORIES) ? F_CATEGORIES : 0;
            default: return 0;
        }
    }

    /** {@link #known} byte by byte, for a name near the end of the line. */
    private int knownByBytes(int s, int n) {
        switch (n) {
            case 2: return is(s, F_ID) ? F_ID : is(s, F_TS) ? F_TS : 0;
            case 3: return is(s, F_SEQ) ? F_SEQ : 0;
            case 4: return is(s, F_KIND) ? F_KIND : is(s, F_TOOL) ? F_TOOL : is(s, F_ARGS) ? F_ARGS : is(s, F_TEXT) ? F_TEXT : 0;
            case 5: return is(s, F_ERROR) ? F_ERROR : is(s, F_DEPTH) ? F_DEPTH : 0;
            case 6: return is(s, F_RESULT) ? F_RESULT : is(s, F_TOKENS) ? F_TOKENS : 0;
            case 7: return is(s, F_SESSION) ? F_SESSION : is(s, F_SUBJECT) ? F_SUBJECT : is(s, F_GRANTED) ? F_GRANTED : 0;
            case 8: return is(s, F_PURPOSES) ? F_PURPOSES : 0;
            case 10: return is(s, F_CATEGORIES) ? F_CATEGORIES : 0;
            default: return 0;
        }
    }

    /**
     * The kind at p, a string: its lower-case name as the trace writer writes it, found by one eight-byte
     * compare, else {@link EventKind#parse} of the string (any case, spaces around).
     */
    private EventKind kind() {
        expectAt('"');
        int s = p + 1;
        if (s + 8 <= end) {
            long w = (long) LONGS.get(b, s);
            for (int k = 0; k < KINDS.length; k++) {
                byte[] name = KIND_NAMES[k];
                int n = name.length;
                if ((n < 8 ? w & ((1L << (n << 3)) - 1) : w) != KIND_WORDS[k] || s + n >= end || b[s + n] != '"') continue;
                boolean same = true;
                for (int i = 8; i < n; i++) same &= b[s + i] == name[i]; // past the first eight bytes (assistant)
                if (same) {
                    p = s + n + 1;
                    return KINDS[k];
                }
            }
        }
        return EventKind.parse(string());
    }

    private boolean is(int s, int field) {
        byte[] w = NAMES[field];
        if (s + w.length > end) return false;
        for (int k = 0; k < w.length; k++) if (b[s + k] != w[k]) return false;
        return true;
    }

    private String stringOrNull() {
        if (peek() == 'n') {
            literal("null");
            return null;
        }
        return string();
    }

    /** A string, null, or an integer as written (ids and subjects may be numbers). */
    private String stringOrIntegerText() {
        byte c = peek();
        if (c == '"') return string();
        if (c == 'n') {
            literal("null");
            return null;
        }
        int s = p;
        if (number()) throw DECLINE; // a decimal number is an error there
        return ascii(s, p);
    }

    /** A non-negative integer below 10^18 (the others are Jackson's to accept or report). */
    private long count() {
        int s = p;
        while (p < end && isDigit(b[p])) p++;
        int n = p - s;
        if (n == 0 || n > 18 || (n > 1 && b[s] == '0')) throw DECLINE;
        if (p < end && (b[p] == '.' || b[p] == 'e' || b[p] == 'E')) throw DECLINE;
        long v = 0;
        for (int i = s; i < p; i++) v = v * 10 + (b[i] - '0');
        return v;
    }

    private boolean bool() {
        byte c = peek();
        if (c == 't') {
            literal("true");
            return true;
        }
        literal("false");
        return false;
    }

    private List<String> strings() {
        byte c = peek();
        if (c == 'n') {
            literal("null");
            return null;
        }
        if (c == '"') return List.of(string());
        expect('[');
        List<String> out = new ArrayList<>(4);
        ws();
        if (peek() == ']') {
            p++;
            return out;
        }
        while (true) {
            ws();
            out.add(string());
            ws();
            byte d = next();
            if (d == ']') return out;
            if (d != ',') throw DECLINE;
        }
    }

    // ---- JSON values as Jackson's tree model builds them

    private JsonNode value(int depth) {
        byte c = peek();
        switch (c) {
            case '{': return object(depth);
            case '[': return array(depth);
            case '"': return NODES.textNode(string());
            case 't': literal("true"); return NODES.booleanNode(true);
            case 'f': literal("false"); return NODES.booleanNode(false);
            case 'n': literal("null"); return NODES.nullNode();
            default: {
                int s = p;
                if (number()) return NODES.numberNode(Double.parseDouble(ascii(s, p)));
                return integer(s, p);
            }
        }
    }

    private ObjectNode object(int depth) {
        if (depth >= MAX_DEPTH) throw DECLINE;
        expect('{');
        ObjectNode o = NODES.objectNode();
        ws();
        if (peek() == '}') {
            p++;
            return o;
        }
        while (true) {
            ws();
            String key = keptName();
            if (key.length() > MAX_NAME || surrogate) throw DECLINE;
            ws();
            expect(':');
            ws();
            if (o.replace(key, value(depth + 1)) != null) throw DECLINE; // duplicate keys: Jackson's rules decide
            ws();
            byte c = next();
            if (c == '}') return o;
            if (c != ',') throw DECLINE;
        }
    }

    private ArrayNode array(int depth) {
        if (depth >= MAX_DEPTH) throw DECLINE;
        expect('[');
        ArrayNode a = NODES.arrayNode();
        ws();
        if (peek() == ']') {
            p++;
            return a;
        }
        while (true) {
            ws();
            a.add(value(depth + 1));
            ws();
            byte c = next();
            if (c == ']') return a;
            if (c != ',') throw DECLINE;
        }
    }

    /** Most fields an argument object read by {@link #scalarFields} may have (more go to {@link #object}). */
    private static final int MAX_FIELDS = 16;
    private static final String[] NO_NAMES = new String[0];
    private static final JsonNode[] NO_VALUES = new JsonNode[0];
    private final String[] fieldNames = new String[MAX_FIELDS];
    private final JsonNode[] fieldValues = new JsonNode[MAX_FIELDS];

    /**
     * The argument object at p: read straight into {@link Args#ofFields} when every value is a scalar or
     * null and there are at most {@value #MAX_FIELDS} fields (no Jackson tree); otherwise read again from
     * its start as a tree. Both give equal arguments and decline the same lines.
     */
    private Args args() {
        int start = p;
        Args a = scalarFields();
        if (a != null) return a;
        p = start;
        return Args.of(object(0));
    }

    /** The argument object at p if all its values are scalars (else null, p anywhere inside it); declines what {@link #object} declines. */
    private Args scalarFields() {
        expect('{');
        ws();
        if (peek() == '}') {
            p++;
            return Args.ofFields(NO_NAMES, NO_VALUES, 0);
        }
        final String[] names = fieldNames;
        final JsonNode[] values = fieldValues;
        int n = 0;
        while (true) {
            ws();
            String key = keptName();
            if (key.length() > MAX_NAME || surrogate) throw DECLINE;
            ws();
            expect(':');
            ws();
            byte v = peek();
            if (v == '{' || v == '[' || n == MAX_FIELDS) return null;
            for (int i = 0; i < n; i++) if (key.equals(names[i])) throw DECLINE; // duplicate keys: Jackson's rules decide
            names[n] = key;
            values[n++] = value(1);
            ws();
            byte c = next();
            if (c == '}') break;
            if (c != ',') throw DECLINE;
        }
        return Args.ofFields(java.util.Arrays.copyOf(names, n), java.util.Arrays.copyOf(values, n), n);
    }

    /** Checks a JSON number at p and moves past it; true when it has a fraction or an exponent. */
    private boolean number() {
        int s = p;
        if (p < end && b[p] == '-') p++;
        if (p >= end) throw DECLINE;
        if (b[p] == '0') p++;
        else if (b[p] >= '1' && b[p] <= '9') while (p < end && isDigit(b[p])) p++;
        else throw DECLINE;
        boolean decimal = false;
        if (p < end && b[p] == '.') {
            int f = ++p;
            while (p < end && isDigit(b[p])) p++;
            if (p == f) throw DECLINE;
            decimal = true;
        }
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            if (p < end && (b[p] == '+' || b[p] == '-')) p++;
            int f = p;
            while (p < end && isDigit(b[p])) p++;
            if (p == f) throw DECLINE;
            decimal = true;
        }
        if (p - s > MAX_NUMBER) throw DECLINE;
        return decimal;
    }

    /** The integer on {@code [s, e)} as the node Jackson gives it: int when it fits, else long (longer ones declined). */
    private JsonNode integer(int s, int e) {
        boolean neg = b[s] == '-';
        int d = neg ? s + 1 : s;
        if (e - d > 18) throw DECLINE;
        long v = 0;
        for (int i = d; i < e; i++) v = v * 10 + (b[i] - '0');
        if (neg) v = -v;
        return v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
    }

    /** The literal {@code word} at p (then p after it); declines anything else. */
    private String literal(String word) {
        int n = word.length();
        if (p + n > end) throw DECLINE;
        for (int k = 0; k < n; k++) if (b[p + k] != word.charAt(k)) throw DECLINE;
        p += n;
        return word;
    }

    // ---- strings

    /** A JSON string at p; p after its closing quote. ASCII without escapes is copied as is. */
    private String string() {
        surrogate = false;
        expectAt('"');
        int s = ++p;
        int i = plainRun(b, s, end);
        if (i < end && b[i] == '"') {
            p = i + 1;
            return ascii(s, i);
        }
        return decodedString(s, i);
    }

    /** Most distinct names {@link #keptName()} keeps (a power of two), and the longest it keeps. */
    private static final int NAME_SLOTS = 256, MAX_KEPT_NAME = 64;
    /** Names read before, by a hash of their bytes (one per slot, the last one wins): see {@link #keptName()}. */
    private final String[] names = new String[NAME_SLOTS];

    /**
     * A JSON string at p that names something and comes again line after line: a session id, a tool name, an
     * argument's key. A plain ASCII one of at most {@value #MAX_KEPT_NAME} bytes that an earlier line had in the same
     * slot is that line's String (no copy): the small trace's lines are about 560 bytes of garbage each, and a session
     * id, a tool name and two or three keys were a fifth of it. Equal in every way to {@link #string()}.
     */
    private String keptName() {
        surrogate = false;
        expectAt('"');
        int s = ++p;
        int i = plainRun(b, s, end);
        if (i < end && b[i] == '"') {
            p = i + 1;
            int n = i - s;
            if (n > MAX_KEPT_NAME) return ascii(s, i);
            int h = n;
            for (int k = s; k < i; k++) h = 31 * h + b[k];
            int slot = (h ^ (h >>> 8)) & (NAME_SLOTS - 1);
            String kept = names[slot];
            if (kept != null && kept.length() == n && sameAscii(kept, s)) return kept;
            return names[slot] = ascii(s, i);
        }
        return decodedString(s, i);
    }

    /** Whether {@code kept} (ASCII) is bytes {@code [s, s + kept.length())}. */
    private boolean sameAscii(String kept, int s) {
        for (int k = 0, n = kept.length(); k < n; k++) if (kept.charAt(k) != b[s + k]) return false;
        return true;
    }

    /** The rest of a string with escapes or multi-byte characters: strict UTF-8 (anything malformed declines). */
    private String decodedString(int s, int i) {
        if (chars.length < end - s) chars = new char[Math.max(end - s, chars.length * 2)];
        char[] cs = chars; // a string never has more chars than bytes
        int n = 0;
        for (int k = s; k < i; k++) cs[n++] = (char) b[k];
        while (true) {
            int r = plainRun(b, i, end); // plain ASCII up to r: widened as is
            for (; i < r; i++) cs[n++] = (char) b[i];
            if (i >= end) throw DECLINE;
            int c = b[i] & 0xFF;
            if (c == '"') {
                p = i + 1;
                return new String(cs, 0, n);
            }
            if (c == '\\') {
                if (i + 1 >= end) throw DECLINE;
                int e = b[i + 1];
                i += 2;
                switch (e) {
                    case '"': cs[n++] = '"'; break;
                    case '\\': cs[n++] = '\\'; break;
                    case '/': cs[n++] = '/'; break;
                    case 'b': cs[n++] = '\b'; break;
                    case 'f': cs[n++] = '\f'; break;
                    case 'n': cs[n++] = '\n'; break;
                    case 'r': cs[n++] = '\r'; break;
                    case 't': cs[n++] = '\t'; break;
                    case 'u': {
                        if (i + 4 > end) throw DECLINE;
                        int v = 0;
                        for (int k = 0; k < 4; k++) v = (v << 4) | hex(b[i + k]);
                        cs[n++] = (char) v;
                        if (Character.isSurrogate((char) v)) surrogate = true;
                        i += 4;
                        break;
                    }
                    default: throw DECLINE;
                }
            } else if (c < 0x20) {
                throw DECLINE;
            } else if (c < 0x80) {
                cs[n++] = (char) c;
                i++;
            } else if (c >= 0xC2 && c <= 0xDF) {
                int c1 = cont(i + 1, 0x80, 0xBF);
                cs[n++] = (char) (((c & 0x1F) << 6) | c1);
                i += 2;
            } else if (c >= 0xE0 && c <= 0xEF) {
                int c1 = cont(i + 1, c == 0xE0 ? 0xA0 : 0x80, c == 0xED ? 0x9F : 0xBF); // no overlongs, no surrogates
                int c2 = cont(i + 2, 0x80, 0xBF);
                cs[n++] = (char) (((c & 0x0F) << 12) | (c1 << 6) | c2);
                i += 3;
            } else if (c >= 0xF0 && c <= 0xF4) {
                int c1 = cont(i + 1, c == 0xF0 ? 0x90 : 0x80, c == 0xF4 ? 0x8F : 0xBF); // no overlongs, nothing past U+10FFFF
                int c2 = cont(i + 2, 0x80, 0xBF);
                int c3 = cont(i + 3, 0x80, 0xBF);
                int cp = ((c & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
                cs[n++] = Character.highSurrogate(cp);
                cs[n++] = Character.lowSurrogate(cp);
                surrogate = true;
                i += 4;
            } else {
                throw DECLINE;
            }
        }
    }

    /** The low six bits of the continuation byte at {@code i}, which must lie in [lo, hi]. */
    private int cont(int i, int lo, int hi) {
        if (i >= end) throw DECLINE;
        int c = b[i] & 0xFF;
        if (c < lo || c > hi) throw DECLINE;
        return c & 0x3F;
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw DECLINE;
    }

    /** Bytes {@code [s, e)}, all ASCII, as a string (the Latin-1 copy is the cheapest decoding of ASCII). */
    private String ascii(int s, int e) { return new String(b, s, e - s, StandardCharsets.ISO_8859_1); }

    // ---- bytes

    /** Skips JSON whitespace (a line has no line feed, but the JSON grammar allows one). */
    private void ws() {
        while (p < end) {
            byte c = b[p];
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
            p++;
        }
    }

    private byte peek() {
        if (p >= end) throw DECLINE;
        return b[p];
    }

    private byte next() {
        if (p >= end) throw DECLINE;
        return b[p++];
    }

    private void expect(char c) {
        if (p >= end || b[p] != c) throw DECLINE;
        p++;
    }

    private void expectAt(char c) {
        if (p >= end || b[p] != c) throw DECLINE;
    }

    private static boolean isDigit(byte c) { return c >= '0' && c <= '9'; }
}
