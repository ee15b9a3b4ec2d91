package dev.tracegate.matchers.trace;

import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The byte reader ({@link EventLine} with the Jackson fallback) against the char reader (Jackson on
 * every line) as the oracle: on random lines, valid and malformed, both give equal events, or the same
 * error message (file:line:column), line by line and in lenient mode over whole inputs.
 */
class EventLineOracleTest {
    private static final String[] KNOWN = {"session", "seq", "ts", "kind", "tool", "id", "args", "result", "text", "subject",
        "purposes", "categories", "granted", "error", "tokens", "depth"};
    private static final String[] KINDS = {"user", "assistant", "call", "return", "consent", "erasure", "end", "CALL", " Return ", "cal"};
    private static final String[] ODD = {"\"", "\\", "\\u00e9", "\\ud83d\\ude42", "\\ud800", "\\n", "\\t", "\\/", "é", "ß", "€", "🙂",
        "\u2028", "\u0000", "\u001f", "\u007f", "@", " ", "x", "+44 20 7946 0958", "jane@example.com"};

    /** One outcome per line: the event, or the error message. */
    private static List<Object> outcomes(TraceReader r) throws IOException {
        List<Object> out = new ArrayList<>();
        while (true) {
            try {
                Event e = r.next();
                if (e == null) return out;
                out.add(e);
            } catch (TraceFormatException ex) {
                out.add(ex.getMessage());
                return out; // strict: the first error ends the input
            }
        }
    }

    private static List<Object> viaChars(byte[] input, TraceReader.Mode mode) throws IOException {
        try (TraceReader r = new TraceReader(new InputStreamReader(new ByteArrayInputStream(input), StandardCharsets.UTF_8), "f.jsonl", mode)) {
            List<Object> out = outcomes(r);
            out.add(r.problems().stream().map(Throwable::getMessage).toList());
            out.add(List.of(r.lines(), r.events(), r.skipped()));
            return out;
        }
    }

    private static List<Object> viaBytes(byte[] input, TraceReader.Mode mode) throws IOException {
        try (TraceReader r = new TraceReader(new ByteArrayInputStream(input), "f.jsonl", mode)) {
            List<Object> out = outcomes(r);
            out.add(r.problems().stream().map(Throwable::getMessage).toList());
            out.add(List.of(r.lines(), r.events(), r.skipped()));
            return out;
        }
    }

    /**
     * What the byte reader is to give: the char reader's reading (over the bytes decoded as UTF-8), except that a line
     * that is not well-formed UTF-8 is a malformed line of its own, named by the column of its first bad byte (trial27 01:
     * the char reader decodes such bytes to U+FFFD, which made two different addresses equal).
     */
    private static List<Object> expected(byte[] input, TraceReader.Mode mode) throws IOException {
        java.util.TreeMap<Long, String> bad = new java.util.TreeMap<>();
        byte[] clean = input.clone();
        java.io.ByteArrayOutputStream sanitized = new java.io.ByteArrayOutputStream();
        long lineNo = 0;
        for (int from = 0; from < input.length; ) {
            int nl = from;
            while (nl < input.length && input[nl] != '\n') nl++;
            lineNo++;
            int s = from, e = nl;
            if (e > s && input[e - 1] == '\r') e--;
            if (lineNo == 1 && e - s >= 3 && input[s] == (byte) 0xEF && input[s + 1] == (byte) 0xBB && input[s + 2] == (byte) 0xBF) s += 3;
            java.nio.charset.CharsetDecoder d = StandardCharsets.UTF_8.newDecoder();
            java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(input, s, e - s);
            java.nio.CharBuffer out = java.nio.CharBuffer.allocate(e - s);
            if (d.decode(in, out, true).isError()) {
                bad.put(lineNo, "f.jsonl:" + lineNo + ":" + (out.position() + 1) + ": the line is not UTF-8 text: byte "
                        + String.format("0x%02X", input[in.position()] & 0xFF) + " is not valid UTF-8 there (a file written in Latin-1,"
                        + " Windows-1252 or another encoding?). Fix: write the trace as UTF-8, e.g. iconv -f WINDOWS-1252 -t UTF-8"
                        + " f.jsonl > utf8-f.jsonl");
                sanitized.write(' ');   // blank: read as no event, counted as a line
            } else {
                sanitized.write(input, from, nl - from);
            }
            if (nl < input.length) sanitized.write('\n');
            from = nl + 1;
        }
        if (bad.isEmpty()) return viaChars(clean, mode);
        byte[] text = sanitized.toByteArray();
        try (TraceReader r = new TraceReader(new InputStreamReader(new ByteArrayInputStream(text), StandardCharsets.UTF_8), "f.jsonl", mode)) {
            List<Object> out = new ArrayList<>();
            if (mode == TraceReader.Mode.STRICT) {
                long k = bad.firstKey();
                List<Event> read = new ArrayList<>();
                while (true) {
                    Event e;
                    try {
                        e = r.next();
                    } catch (TraceFormatException ex) {
                        if (ex.line() < k) {
                            out.addAll(read);
                            out.add(ex.getMessage());
                            out.add(List.of());
                            out.add(List.of(r.lines(), r.events(), r.skipped()));
                            return out;
                        }
                        e = null;
                    }
                    if (e == null || r.lines() > k) break;
                    read.add(e);
                }
                out.addAll(read);
                out.add(bad.get(k));
                out.add(List.of());
                out.add(List.of(k, (long) read.size(), 0L));
                return out;
            }
            List<Object> events = outcomes(r);
            out.addAll(events);
            List<String> problems = new ArrayList<>();
            java.util.Iterator<java.util.Map.Entry<Long, String>> b = bad.entrySet().iterator();
            java.util.Map.Entry<Long, String> next = b.hasNext() ? b.next() : null;
            for (TraceFormatException p : r.problems()) {
                while (next != null && next.getKey() < p.line()) {
                    problems.add(next.getValue());
                    next = b.hasNext() ? b.next() : null;
                }
                problems.add(p.getMessage());
            }
            while (next != null) {
                problems.add(next.getValue());
                next = b.hasNext() ? b.next() : null;
            }
            out.add(problems.subList(0, Math.min(problems.size(), TraceReader.KEPT_PROBLEMS)));
            out.add(List.of(r.lines(), r.events(), r.skipped() + bad.size()));
            return out;
        }
    }

    private static void sameOutcomes(byte[] input) throws IOException {
        for (TraceReader.Mode mode : TraceReader.Mode.values()) {
            List<Object> expected = expected(input, mode);
            List<Object> actual = viaBytes(input, mode);
            assertThat(actual).as("%s reading of %s", mode, show(input)).isEqualTo(expected);
            for (int i = 0; i < expected.size(); i++) {
                if (expected.get(i) instanceof Event e) sameTree(e, (Event) actual.get(i));
            }
        }
    }

    /** Event.equals compares argument trees with Jackson's equals; this also compares their text and kind of node. */
    private static void sameTree(Event expected, Event actual) {
        assertThat(actual.args().json()).isEqualTo(expected.args().json());
        assertThat(actual.args().malformed()).isEqualTo(expected.args().malformed());
        assertThat(actual.args().toString()).isEqualTo(expected.args().toString());
        for (int i = 0; i < expected.args().leafCount(); i++) {
            assertThat(actual.args().leafValue(i).getNodeType()).isEqualTo(expected.args().leafValue(i).getNodeType());
            assertThat(actual.args().leafValue(i).numberType()).isEqualTo(expected.args().leafValue(i).numberType());
        }
    }

    private static String show(byte[] input) {
        StringBuilder b = new StringBuilder();
        for (byte x : input) {
            if (x >= 0x20 && x < 0x7f) b.append((char) x);
            else b.append(String.format("\\x%02x", x & 0xff));
        }
        return b.toString();
    }

    // ---- random lines

    /** A random line: mostly events the format accepts, with every kind of JSON value, escape and character. */
    static String line(Random r) {
        StringBuilder b = new StringBuilder();
        b.append(ws(r)).append('{');
        List<String> fields = new ArrayList<>();
        if (r.nextInt(10) > 0) fields.add("session");
        if (r.nextInt(10) > 0) fields.add("kind");
        int extra = r.nextInt(8);
        for (int i = 0; i < extra; i++) fields.add(r.nextInt(5) == 0 ? "x" + r.nextInt(3) : KNOWN[r.nextInt(KNOWN.length)]);
        java.util.Collections.shuffle(fields, r);
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) b.append(ws(r)).append(',');
            String f = fields.get(i);
            b.append(ws(r)).append('"').append(f).append('"').append(ws(r)).append(':').append(ws(r));
            b.append(fieldValue(f, r));
        }
        b.append(ws(r)).append('}').append(ws(r));
        return b.toString();
    }

    private static String fieldValue(String f, Random r) {
        boolean odd = r.nextInt(8) == 0; // a value of some other type
        if (odd) return value(r, 0);
        return switch (f) {
            case "session", "tool", "text" -> r.nextInt(20) == 0 ? "null" : string(r);
            case "kind" -> quote(KINDS[r.nextInt(KINDS.length)]);
            case "seq", "tokens", "depth" -> integer(r);
            case "ts" -> r.nextBoolean() ? integer(r) : quote(r.nextBoolean() ? "2026-01-01T00:00:00Z" : "2026-13-01");
            case "id", "subject" -> r.nextBoolean() ? string(r) : integer(r);
            case "args" -> r.nextInt(6) == 0 ? quote(r.nextBoolean() ? "{\\\"a\\\":1}" : "not json") : object(r, 0);
            case "result" -> r.nextBoolean() ? string(r) : value(r, 0);
            case "purposes", "categories" -> r.nextBoolean() ? string(r) : "[" + String.join(",", strings(r)) + "]";
            case "granted", "error" -> r.nextBoolean() ? "true" : "false";
            default -> value(r, 0);
        };
    }

    private static List<String> strings(Random r) {
        List<String> out = new ArrayList<>();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) out.add(r.nextInt(10) == 0 ? value(r, 2) : string(r));
        return out;
    }

    static String value(Random r, int depth) {
        int k = r.nextInt(depth > 3 ? 6 : 8);
        return switch (k) {
            case 0, 1 -> string(r);
            case 2 -> integer(r);
            case 3 -> decimal(r);
            case 4 -> r.nextBoolean() ? "true" : "false";
            case 5 -> "null";
            case 6 -> object(r, depth + 1);
            default -> {
                StringBuilder b = new StringBuilder("[");
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) b.append(i > 0 ? "," : "").append(ws(r)).append(value(r, depth + 1));
                yield b.append(ws(r)).append(']').toString();
            }
        };
    }

    static String object(Random r, int depth) {
        StringBuilder b = new StringBuilder("{");
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            b.append(i > 0 ? "," : "").append(ws(r));
            b.append(r.nextInt(3) == 0 ? string(r) : quote("k" + r.nextInt(6))).append(ws(r)).append(':').append(ws(r)).append(value(r, depth + 1));
        }
        return b.append(ws(r)).append('}').toString();
    }

    static String integer(Random r) {
        return switch (r.nextInt(8)) {
            case 0 -> "0";
            case 1 -> "-" + r.nextInt(1000);
            case 2 -> Long.toString(r.nextLong());
            case 3 -> Long.toString(Integer.MAX_VALUE + (long) r.nextInt(3) - 1);
            case 4 -> "1" + "0".repeat(r.nextInt(25));
            case 5 -> "-0";
            default -> Integer.toString(r.nextInt(100_000));
        };
    }

    static String decimal(Random r) {
        return switch (r.nextInt(6)) {
            case 0 -> Double.toString(r.nextDouble() * 1000);
            case 1 -> r.nextInt(100) + "e" + (r.nextInt(40) - 20);
            case 2 -> "-0.0";
            case 3 -> "1E400";
            case 4 -> "1.50";
            default -> r.nextInt(10) + "." + r.nextInt(1000) + "E+" + r.nextInt(5);
        };
    }

    static String string(Random r) {
        StringBuilder b = new StringBuilder("\"");
        int n = r.nextInt(12);
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(10);
            if (k < 6) b.append((char) ('a' + r.nextInt(26)));
            else if (k < 8) b.append(ODD[r.nextInt(ODD.length)]);
            else b.append(' ');
        }
        return b.append('"').toString();
    }

    private static String quote(String s) { return "\"" + s + "\""; }

    static String ws(Random r) {
        int k = r.nextInt(12);
        return k < 9 ? "" : k == 9 ? " " : k == 10 ? "\t" : " \r ";
    }

    /** Random damage to a line's bytes: a byte inserted, removed or replaced (invalid UTF-8 included), or a cut. */
    static byte[] mutate(byte[] line, Random r) {
        byte[] b = line;
        int n = 1 + r.nextInt(3);
        for (int m = 0; m < n && b.length > 0; m++) {
            int at = r.nextInt(b.length);
            byte x = r.nextInt(3) == 0 ? (byte) (0x80 + r.nextInt(128)) : (byte) "{}[]\",:\\ 0-e.tnu\u0001".charAt(r.nextInt(17));
            b = switch (r.nextInt(4)) {
                case 0 -> concat(java.util.Arrays.copyOf(b, at), new byte[] {x}, java.util.Arrays.copyOfRange(b, at, b.length));
                case 1 -> concat(java.util.Arrays.copyOf(b, at), java.util.Arrays.copyOfRange(b, at + 1, b.length));
                case 2 -> {
                    byte[] c = b.clone();
                    c[at] = x;
                    yield c;
                }
                default -> java.util.Arrays.copyOf(b, at);
            };
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) o.writeBytes(p);
        return o.toByteArray();
    }

    // ---- properties

    @Property(tries = 3000)
    void randomLinesReadAsJacksonReadsThem(@ForAll long seed) throws IOException {
        Random r = new Random(seed);
        sameOutcomes(line(r).getBytes(StandardCharsets.UTF_8));
    }

    @Property(tries = 3000)
    void damagedLinesAreAcceptedOrRejectedAsJacksonDoes(@ForAll long seed) throws IOException {
        Random r = new Random(seed);
        sameOutcomes(mutate(line(r).getBytes(StandardCharsets.UTF_8), r));
    }

    @Property(tries = 300)
    void wholeInputsOfManyLinesReadTheSame(@ForAll long seed) throws IOException {
        Random r = new Random(seed);
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        if (r.nextInt(4) == 0) o.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        int n = 1 + r.nextInt(12);
        for (int i = 0; i < n; i++) {
            byte[] l = line(r).getBytes(StandardCharsets.UTF_8);
            o.writeBytes(r.nextInt(4) == 0 ? mutate(l, r) : l);
            o.writeBytes(switch (r.nextInt(6)) {
                case 0 -> "\r\n".getBytes(StandardCharsets.US_ASCII);
                case 1 -> "\n \t\n".getBytes(StandardCharsets.US_ASCII);
                default -> "\n".getBytes(StandardCharsets.US_ASCII);
            });
        }
        byte[] input = o.toByteArray();
        sameOutcomes(r.nextBoolean() ? input : java.util.Arrays.copyOf(input, input.length - 1));
    }

    /**
     * The fast path itself: where it reads a line, Jackson reads the same event; where Jackson rejects
     * a line, it declines. Without this the oracle above could pass with a fast path that never reads.
     */
    @Property(tries = 3000)
    void theFastPathReadsOnlyWhatJacksonReadsAndReadsItEqually(@ForAll long seed) throws IOException {
        Random r = new Random(seed);
        byte[] line = line(r).getBytes(StandardCharsets.UTF_8);
        if (r.nextBoolean()) line = mutate(line, r);
        Event fast = new EventLine().read(line, 0, line.length, 1);
        if (fast == null) return;
        List<Object> jackson = viaChars(line, TraceReader.Mode.STRICT);
        assertThat(jackson.get(0)).as(show(line)).isEqualTo(fast);
        sameTree((Event) jackson.get(0), fast);
    }

    @Test void theFastPathReadsWhatTheTraceWriterWrites() throws IOException {
        Random r = new Random(7);
        StringWriter w = new StringWriter();
        List<Event> written = new ArrayList<>();
        try (TraceWriter tw = new TraceWriter(w)) {
            for (int i = 0; i < 500; i++) {
                EventKind k = EventKind.values()[r.nextInt(EventKind.values().length)];
                Event.Builder b = Event.builder(k).session("s" + r.nextInt(5)).seq(i).ts(r.nextInt(3) == 0 ? 0 : 1767225600000L + i)
                        .tool(k == EventKind.CALL || k == EventKind.RETURN ? "send_email" : null).callId(r.nextBoolean() ? "call_" + i : null)
                        .text(k == EventKind.USER ? "Hi, I am Jane (jane@example.com, +44 20 7946 0958), café ünïcode 🙂 \"quoted\"\n" : null)
                        .result(k == EventKind.RETURN ? "{\"ok\":true,\"note\":\"tab\\there\"}" : null)
                        .subject(r.nextBoolean() ? "ann" : null).tokens(r.nextInt(3) - 1).depth(r.nextInt(2));
                if (k == EventKind.CALL) b.args(Map.of("to", "a@b.io", "amount", 12.5, "n", 3, "big", 12345678901L, "list", List.of("x", 2), "nested", Map.of("k", true)));
                if (k == EventKind.CONSENT) b.purposes("billing", "ads").granted(r.nextBoolean());
                Event e = b.build();
                written.add(e);
                tw.write(e);
            }
        }
        EventLine fast = new EventLine();
        String[] lines = w.toString().split("\n");
        for (int i = 0; i < lines.length; i++) {
            byte[] l = lines[i].getBytes(StandardCharsets.UTF_8);
            Event e = fast.read(l, 0, l.length, i + 1);
            assertThat(e).as("fast path declined %s", lines[i]).isNotNull();
            assertThat(e).isEqualTo(written.get(i));
            sameTree(written.get(i), e);
        }
    }

    /**
     * trial27 01: bytes that are not UTF-8 (a Latin-1 export) were decoded to U+FFFD over a stream, silently, also in
     * strict mode, so {@code ren\xe9} and {@code ren\xe8} read as the same address. Now such a line is a malformed line:
     * skipped and counted (lenient) or the end of the read (strict), named by file, line and the column of its first bad
     * byte, over a stream and from a file alike.
     */
    @Test void aLineThatIsNotUtf8IsAMalformedLineOverAStreamAndFromAFile(@TempDir Path dir) throws IOException {
        byte[] bad = concat("{\"session\":\"s\",\"kind\":\"user\",\"text\":\"\u00e9a".getBytes(StandardCharsets.UTF_8),
                new byte[] {(byte) 0xE2, (byte) 0x82, (byte) 0xC0, (byte) 0xFF}, "b\"}\n".getBytes(StandardCharsets.US_ASCII));
        byte[] input = concat("{\"session\":\"s\",\"kind\":\"end\"}\n".getBytes(StandardCharsets.US_ASCII), bad,
                "{\"session\":\"s\",\"kind\":\"user\",\"text\":\"ok\"}\n".getBytes(StandardCharsets.US_ASCII));
        sameOutcomes(input);
        String problem = "f.jsonl:2:40: the line is not UTF-8 text: byte 0xE2 is not valid UTF-8 there (a file written in Latin-1,"
                + " Windows-1252 or another encoding?). Fix: write the trace as UTF-8, e.g. iconv -f WINDOWS-1252 -t UTF-8 f.jsonl"
                + " > utf8-f.jsonl";
        Path f = dir.resolve("f.jsonl");
        Files.write(f, input);
        for (boolean file : new boolean[] {false, true}) {
            try (TraceReader r = file ? TraceReader.open(f, TraceReader.Mode.LENIENT)
                    : new TraceReader(new ByteArrayInputStream(input), "f.jsonl", TraceReader.Mode.LENIENT)) {
                assertThat(r.next().kind()).isEqualTo(EventKind.END);
                assertThat(r.next().text()).isEqualTo("ok");
                assertThat(r.next()).isNull();
                assertThat(r.skipped()).isEqualTo(1);
                assertThat(r.problems()).extracting(Throwable::getMessage).containsExactly(problem);
            }
            try (TraceReader r = file ? TraceReader.open(f, TraceReader.Mode.STRICT)
                    : new TraceReader(new ByteArrayInputStream(input), "f.jsonl", TraceReader.Mode.STRICT)) {
                assertThat(r.next().kind()).isEqualTo(EventKind.END);
                assertThatThrownBy(r::next).isInstanceOf(TraceFormatException.class).hasMessage(problem);
            }
        }
    }

    @Test void argumentsReadFromBytesKeepJacksonsNodeTypes() {
        byte[] l = "{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"t\",\"args\":{\"i\":2147483647,\"l\":2147483648,\"d\":1.0,\"e\":1e2,\"z\":-0,\"s\":\"\\u00e9\",\"b\":false,\"n\":null}}"
                .getBytes(StandardCharsets.UTF_8);
        Event e = new EventLine().read(l, 0, l.length, 1);
        assertThat(e).isNotNull();
        Args a = e.args();
        assertThat(a.json()).isEqualTo("{\"i\":2147483647,\"l\":2147483648,\"d\":1.0,\"e\":100.0,\"z\":0,\"s\":\"é\",\"b\":false,\"n\":null}");
        assertThat(a.root().get("i").isInt()).isTrue();
        assertThat(a.root().get("l").isLong()).isTrue();
        assertThat(a.root().get("d").isDouble()).isTrue();
    }
}
