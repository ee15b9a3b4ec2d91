package dev.tracegate.agent.audit;

import dev.tracegate.matchers.trace.TraceReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads an audit log as a trace: its event records, in order, as {@link TraceReader} events (headers
 * and dropped notes read as blank lines, so line numbers in errors are the log's own).
 *
 * <p>With personal data hashed, the events carry digests where the values were: predicates on the
 * structure (which tool, which argument fields, counts, order, equality of two values within one log
 * segment) give the verdicts they gave online; predicates on content (a pattern, a number compared with
 * a bound, a data category found in a text) cannot, and come out unevaluable or different.
 */
public final class AuditTrace {
    private AuditTrace() {}

    /** A trace reader over the log's event records (verify the log first: this does not check the chain). */
    public static TraceReader open(Path log, TraceReader.Mode mode) throws IOException {
        return new TraceReader(new EventLines(Files.newBufferedReader(log, StandardCharsets.UTF_8)), log.getFileName().toString(), mode);
    }

    /**
     * {@code value} as a segment's event records write a {@code subject}: itself in a {@code clear} segment, its salted
     * digest in a {@code salted-sha256} one ({@code saltHex}: the header's {@code salt}); null in an {@code hmac-sha256}
     * segment, whose digests need the key.
     */
    public static String subjectAsLogged(String personalData, String saltHex, String value) {
        return subjectAsLogged(personalData, saltHex, null, value);
    }

    /**
     * As {@link #subjectAsLogged(String, String, String)}, and for a keyed log ({@code hmac-sha256}) the digest under
     * {@code hmacKey} (the agent's audit.hmac-key as UTF-8 bytes); null for a keyed log without a key.
     */
    public static String subjectAsLogged(String personalData, String saltHex, byte[] hmacKey, String value) {
        if (personalData == null || personalData.equals("clear")) return value;
        if (personalData.equals("hmac-sha256")) return hmacKey == null ? null : Pseudonymiser.keyed(hmacKey).digest('s', Pseudonymiser.subjectForm(value));
        if (!personalData.equals("salted-sha256") || saltHex == null || saltHex.length() % 2 != 0) return null;
        byte[] salt = new byte[saltHex.length() / 2];
        for (int i = 0; i < salt.length; i++) salt[i] = (byte) Integer.parseInt(saltHex, 2 * i, 2 * i + 2, 16);
        return Pseudonymiser.salted(salt).digest('s', Pseudonymiser.subjectForm(value));   // as the writer digests a subject
    }

    /** The key id a keyed log's header names for this key (first 8 hex digits of its SHA-256), to tell a wrong key. */
    public static String keyId(byte[] hmacKey) {
        return Pseudonymiser.keyId(hmacKey);
    }

    /** Whether a line of the log is an event record (the canonical form puts {@code rec} right after {@code prev}). */
    static boolean isEvent(String line) {
        return line.startsWith(",\"rec\":\"event\"", 9 + 64 + 1);
    }

    /** Passes event lines through and turns every other line into an empty one. */
    private static final class EventLines extends Reader {
        private final BufferedReader in;
        private String current = "";
        private int pos;
        private boolean eof;

        EventLines(BufferedReader in) { this.in = in; }

        @Override public int read(char[] cbuf, int off, int len) throws IOException {
            if (len == 0) return 0;
            while (pos == current.length()) {
                if (eof) return -1;
                String line = in.readLine();
                if (line == null) { eof = true; return -1; }
                current = isEvent(line) ? line + "\n" : "\n";
                pos = 0;
            }
            int n = Math.min(len, current.length() - pos);
            current.getChars(pos, pos + n, cbuf, off);
            pos += n;
            return n;
        }

        @Override public void close() throws IOException { in.close(); }
    }
}
