package dev.tracegate.matchers.trace;

import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A trace read from bytes with a line of {@link TraceReader#MAX_LINE} bytes or more, where the reader goes on over
 * characters (session 16). A byte that is not UTF-8 there stopped the read in both modes with "the rest of the file is
 * not read", also inside a line that is over the limit anyway; now such a line is the line-limit error, a line within
 * the limit is a malformed line with its number and column, and the lines after it are read. The line-limit error
 * names the field that is too long (it said "result text" when the arguments were). The lines are made as they are
 * read ({@link Lines}), never held whole by the test. Needs ~300 MB heap (the reader's own buffer), so long.
 */
@Tag("long")
class LongLineUtf8Test {
    private static final String AFTER = "{\"session\":\"s1\",\"kind\":\"user\",\"text\":\"after\"}\n";
    private static final String LATIN1_HEAD = "{\"session\":\"s1\",\"kind\":\"user\",\"text\":\"caf";
    private static final String END = "{\"session\":\"s1\",\"kind\":\"user\",\"text\":\"end\"}\n";

    /** Line 1: a call whose "args" run past the limit, with a Latin-1 byte inside the limit; then three short lines, one Latin-1. */
    private static InputStream argumentsPastTheLimitWithALatin1Byte() {
        long half = TraceReader.MAX_LINE / 2;
        return new Lines()
                .text("{\"session\":\"s1\",\"kind\":\"call\",\"tool\":\"search\",\"args\":{\"q\":\"")
                .repeat("a", half).bytes(0xE9).repeat("a", half + 1000).text("\"}}\n")
                .text(AFTER)
                .text(LATIN1_HEAD).bytes(0xE9).text("\"}\n")
                .text(END);
    }

    @Test
    void lenientReportsTheLineLimitThenTheLatin1LineAndReadsOn() throws IOException {
        try (TraceReader r = new TraceReader(argumentsPastTheLimitWithALatin1Byte(), "big.jsonl", TraceReader.Mode.LENIENT)) {
            List<String> texts = new ArrayList<>();
            for (Event e = r.next(); e != null; e = r.next()) texts.add(e.text());
            assertThat(texts).containsExactly("after", "end");
            assertThat(r.skipped()).isEqualTo(2);
            TraceFormatException limit = r.problems().get(0);
            assertThat(limit.line()).isEqualTo(1);
            assertThat(limit.problem()).isEqualTo("line is longer than " + TraceReader.MAX_LINE
                    + " characters (its \"args\" value goes on past the limit)");
            assertThat(limit.fix()).isEqualTo("split the event or shorten its arguments (\"args\")");
            TraceFormatException latin1 = r.problems().get(1);
            assertThat(latin1.line()).isEqualTo(3);
            assertThat(latin1.column()).isEqualTo(LATIN1_HEAD.length() + 1);
            assertThat(latin1.problem()).startsWith("the line is not UTF-8 text: byte 0xE9 is not valid UTF-8 there");
        }
    }

    @Test
    void strictStopsAtTheLineLimitNamingTheArguments() {
        assertThatThrownBy(() -> {
            try (TraceReader r = new TraceReader(argumentsPastTheLimitWithALatin1Byte(), "big.jsonl", TraceReader.Mode.STRICT)) {
                r.next();
            }
        }).isInstanceOfSatisfying(TraceFormatException.class, e -> {
            assertThat(e.line()).isEqualTo(1);
            assertThat(e.problem()).startsWith("line is longer than " + TraceReader.MAX_LINE + " characters");
            assertThat(e.fix()).contains("arguments").doesNotContain("result");
        });
    }

    /**
     * A line of more than MAX_LINE bytes but fewer characters (two-byte letters) is within the limit: a byte that is not
     * UTF-8 in it makes it a malformed line with its column, and the read goes on.
     */
    @Test
    void aLatin1ByteInALongLineWithinTheLimitIsAMalformedLine() throws IOException {
        String head = "{\"session\":\"s1\",\"kind\":\"user\",\"text\":\"";
        long letters = TraceReader.MAX_LINE / 2 + 10;   // "é" is two bytes: more than MAX_LINE bytes, about half as many characters
        InputStream in = new Lines().text(head).repeat("é", letters).bytes(0xFF).text("\"}\n").text(AFTER);
        try (TraceReader r = new TraceReader(in, "big.jsonl", TraceReader.Mode.LENIENT)) {
            Event e = r.next();
            assertThat(e).isNotNull();
            assertThat(e.text()).isEqualTo("after");
            assertThat(r.next()).isNull();
            assertThat(r.skipped()).isEqualTo(1);
            TraceFormatException bad = r.problems().get(0);
            assertThat(bad.line()).isEqualTo(1);
            assertThat(bad.column()).isEqualTo(head.length() + letters + 1);
            assertThat(bad.problem()).startsWith("the line is not UTF-8 text: byte 0xFF");
        }
    }

    /** Bytes made as they are read: parts of text, single bytes, and a text repeated n times. */
    private static final class Lines extends InputStream {
        private final List<byte[]> units = new ArrayList<>();
        private final List<Long> counts = new ArrayList<>();
        private int part;
        private long left = -1;
        private int at;

        Lines text(String s) {
            return add(s.getBytes(StandardCharsets.UTF_8), 1);
        }

        Lines bytes(int... values) {
            byte[] b = new byte[values.length];
            for (int i = 0; i < b.length; i++) b[i] = (byte) values[i];
            return add(b, 1);
        }

        Lines repeat(String s, long n) {
            return add(s.getBytes(StandardCharsets.UTF_8), n);
        }

        private Lines add(byte[] unit, long n) {
            units.add(unit);
            counts.add(n);
            return this;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            int n = 0;
            while (n < len && part < units.size()) {
                byte[] unit = units.get(part);
                if (left < 0) {
                    left = counts.get(part);
                    at = 0;
                }
                if (left == 0) {
                    part++;
                    left = -1;
                    continue;
                }
                b[off + n++] = unit[at++];
                if (at == unit.length) {
                    at = 0;
                    left--;
                }
            }
            return n == 0 && len > 0 ? -1 : n;
        }
    }
}
