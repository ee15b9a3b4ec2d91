package dev.tracegate.agent.audit;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * The audit line encoder as it was before the writer was made allocation-free (commit 49ceada), kept
 * as the oracle of {@link AuditLinesEquivalenceTest}: the production encoder must write the same bytes
 * for every record. Deliberate changes since, each made here in the plainest way: format
 * {@code tracegate-audit/2} chains a line to the previous line's {@code hash} instead of the SHA-256 of
 * its whole bytes; format {@code tracegate-audit/3} writes a record given against a {@link LibraryTable}
 * as {@code lib}, a hex string of held atoms and one verdict letter per contract, after a {@code library}
 * record, an approved escalation's {@code approved}, and leaves out a {@code time} equal to {@code ts}; a hashed log digests
 * a {@code subject} in the form subjects compare ({@link Pseudonymiser#subjectForm}). {@code new ReferenceAuditLines(1)} and {@code (2)}
 * still write the older formats, for the tests that logs of every format (and files mixing them) verify.
 */
final class ReferenceAuditLines {
    static final String FORMAT_3 = "tracegate-audit/3";
    static final String FORMAT_2 = "tracegate-audit/2";
    static final String FORMAT_1 = "tracegate-audit/1";
    /** The {@code prev} of a log's first line: 64 zeros. */
    static final String GENESIS = "0".repeat(64);
    static final String HASH_FIELD = ",\"hash\":\"";
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final MessageDigest sha;
    private final int format;
    private final boolean format1;
    private final byte[] prevHex = new byte[64];
    private byte[] buf = new byte[1024];
    private int len;
    private Pseudonymiser pseudonymiser; // null: personal data in clear
    private final java.util.List<LibraryTable> libraries = new java.util.ArrayList<>();   // index + 1 = lib number

    ReferenceAuditLines() {
        this(3);
    }

    /** @param format 1 (prev = SHA-256 of the previous line's whole bytes), 2 or 3 */
    ReferenceAuditLines(int format) {
        this.format = format;
        this.format1 = format == 1;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        chainFrom(null);
    }

    /** The lib number of {@code table}'s library record, or 0 before one was written. */
    int libraryNumber(LibraryTable table) {
        for (int i = libraries.size() - 1; i >= 0; i--) if (libraries.get(i) == table) return i + 1;
        return 0;
    }

    /** Format 3's library record for {@code table}, numbered one past the last. */
    void library(LibraryTable table) {
        libraries.add(table);
        begin("library");
        key("lib"); num(libraries.size());
        key("contracts"); strings(table.contracts);
        key("atoms"); strings(table.atoms);
        if (table.digest != null) { key("digest"); str(table.digest); }
        end();
    }

    byte[] buffer() { return buf; }

    int length() { return len; }

    /** Continues the chain after {@code lastLine} (its exact bytes without LF), or from genesis if null. */
    void chainFrom(byte[] lastLine) {
        if (lastLine == null) {
            Arrays.fill(prevHex, (byte) '0');
        } else if (format1) {
            hexInto(sha.digest(lastLine), prevHex, 0);
        } else {
            // format 2: the last line's hash field, read from its JSON
            String line = new String(lastLine, StandardCharsets.UTF_8);
            byte[] hash = line.substring(line.lastIndexOf(HASH_FIELD) + HASH_FIELD.length(), line.length() - 2)
                    .getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(hash, 0, prevHex, 0, 64);
        }
    }

    /** The hex SHA-256 of the last line encoded (what the next line's {@code prev} will be). */
    String head() { return new String(prevHex, StandardCharsets.US_ASCII); }

    /**
     * A segment header: starts a log or a run appended to an existing one, and says how personal data
     * in the lines after it is written.
     *
     * @param salt the segment's salt (salted mode), or null
     * @param key the HMAC key (keyed mode), or null; with both null personal data is written in clear
     */
    void header(long timeMillis, byte[] salt, byte[] key) {
        begin("header");
        key("format"); str(format == 1 ? FORMAT_1 : format == 2 ? FORMAT_2 : FORMAT_3);
        key("created"); str(Instant.ofEpochMilli(timeMillis).toString());
        if (key != null) {
            pseudonymiser = Pseudonymiser.keyed(key);
            key("personalData"); str("hmac-sha256");
            key("keyId"); str(Pseudonymiser.keyId(key));
        } else if (salt != null) {
            pseudonymiser = Pseudonymiser.salted(salt);
            key("personalData"); str("salted-sha256");
            key("salt"); str(Pseudonymiser.hex(salt, salt.length));
        } else {
            pseudonymiser = null;
            key("personalData"); str("clear");
        }
        key("digestBytes"); num(Pseudonymiser.DIGEST_BYTES);
        end();
    }

    /** A note that {@code count} records were not written, and why. */
    void dropped(long timeMillis, long count, String reason, long truncatedBytes) {
        begin("dropped");
        key("time"); str(Instant.ofEpochMilli(timeMillis).toString());
        key("count"); num(count);
        key("reason"); str(reason);
        if (truncatedBytes > 0) { key("truncatedBytes"); num(truncatedBytes); }
        end();
    }

    void event(AuditRecord r) {
        r.eventPart();
        begin("event");
        if (format < 3 || r.timeMillis() != r.ts()) { key("time"); str(Instant.ofEpochMilli(r.timeMillis()).toString()); }
        // the event part, in the shape of a trace line
        key("session"); str(r.session());
        key("seq"); num(r.seq());
        if (r.ts() != Long.MIN_VALUE) { key("ts"); num(r.ts()); }
        key("kind"); str(r.kind().toLowerCase(Locale.ROOT));
        AuditRecord.Part part = r.partOrNone();
        if (part.tool != null) { key("tool"); str(part.tool); }
        if (part.id != null) { key("id"); str(part.id); }
        if (part.args != null) {
            key("args");
            if (r.rareOrNone().clearFields != null && part.args instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
                // a consent tool's purpose and grant fields stay in clear, every other top-level field is personal data
                put('{');
                boolean first = true;
                for (Map.Entry<String, JsonNode> f : o.properties()) {
                    if (!first) put(',');
                    str(f.getKey());
                    put(':');
                    node(f.getValue(), !Arrays.asList(r.rareOrNone().clearFields).contains(f.getKey()), 1);
                    first = false;
                }
                put('}');
            } else {
                value(part.args, true, 0);
            }
        }
        if (part.result != null) { key("result"); value(part.result, true, 0); }
        if (part.text != null) { key("text"); personal(part.text); }
        if (part.subject != null) { key("subject"); personal(pseudonymiser == null ? part.subject : Pseudonymiser.subjectForm(part.subject)); }
        if (part.purposes != null) { key("purposes"); strings(part.purposes); }
        if (part.categories != null) { key("categories"); strings(part.categories); }
        if (part.granted >= 0) { key("granted"); raw(part.granted == 1 ? "true" : "false"); }
        if (part.error) { key("error"); raw("true"); }
        if (part.tokens >= 0) { key("tokens"); num(part.tokens); }
        if (part.depth != 0) { key("depth"); num(part.depth); }
        // what the supervisor saw and did
        if (format == 3 && r.table != null) {
            key("lib"); num(libraryNumber(r.table));
            StringBuilder hex = new StringBuilder();
            for (int k = 0; 4 * k < r.table.atoms.length; k++) {
                int d = 0;
                for (int j = 0; j < 4 && 4 * k + j < r.table.atoms.length; j++) if (held(r, 4 * k + j)) d |= 1 << j;
                hex.append(Character.forDigit(d, 16));
            }
            while (hex.length() > 0 && hex.charAt(hex.length() - 1) == '0') hex.setLength(hex.length() - 1);
            key("atoms"); str(hex.toString());
            StringBuilder letters = new StringBuilder();
            if (r.verdictIds() != null) {
                for (int i = 0; i < r.table.contracts.length; i++) {
                    int c = r.rareOrNone().verdictCodes != null ? r.rareOrNone().verdictCodes[i] : (int) (r.verdictWord() >>> (2 * i) & 3);
                    letters.append(c >= 0 && c < 3 ? "IAF".charAt(c) : '?');
                }
            }
            key("verdicts"); str(letters.toString());
        } else {
            spelledOut(r);
        }
        key("decision"); str(r.decision().wire());
        if (r.rareOrNone().fired != null) { key("fired"); strings(r.rareOrNone().fired); }
        if (r.rareOrNone().approved) { key("approved"); raw("true"); }
        if (r.rareOrNone().message != null) { key("message"); str(r.rareOrNone().message); }
        if (r.rareOrNone().streamed != null) { key("streamed"); str(r.rareOrNone().streamed.wire()); }
        if (r.latencyNs() >= 0) { key("latencyNs"); num(r.latencyNs()); }
        if (r.rareOrNone().unmet != null) { key("unmet"); strings(r.rareOrNone().unmet); }
        end();
    }

    private static boolean held(AuditRecord r, int i) {
        long word = r.rareOrNone().atomBits != null ? (i / 64 < r.rareOrNone().atomBits.length ? r.rareOrNone().atomBits[i / 64] : 0) : i < 64 ? r.atomWord() : 0;
        return (word >>> (i % 64) & 1) != 0;
    }

    private void spelledOut(AuditRecord r) {
        key("atoms");
        if (r.rareOrNone().atomList != null) {
            strings(r.rareOrNone().atomList);
        } else {
            put('[');
            boolean first = true;
            if (r.atomTable() != null) {
                for (int i = 0; i < r.atomTable().length; i++) {
                    if (held(r, i)) {
                        if (!first) put(',');
                        str(r.atomTable()[i]);
                        first = false;
                    }
                }
            }
            put(']');
        }
        key("verdicts"); put('{');
        if (r.verdictIds() != null) {
            for (int i = 0; i < r.verdictIds().length; i++) {
                if (i > 0) put(',');
                str(r.verdictIds()[i]);
                put(':');
                byte c = r.rareOrNone().verdictCodes != null ? r.rareOrNone().verdictCodes[i] : (byte) (r.verdictWord() >>> (2 * i) & 3);
                str(c >= 0 && c < AuditRecord.VERDICT_NAMES.length ? AuditRecord.VERDICT_NAMES[c] : "UNKNOWN(" + c + ")");
            }
        }
        put('}');
    }

    private void begin(String rec) {
        len = 0;
        raw("{\"prev\":\"");
        ensure(64);
        System.arraycopy(prevHex, 0, buf, len, 64);
        len += 64;
        raw("\",\"rec\":");
        str(rec);
    }

    /** Appends the self hash over everything so far, closes the object and advances the chain. */
    private void end() {
        int prefix = len;
        sha.update(buf, 0, prefix);
        // the line's hash extends the self hash's input: hash the prefix once and fork the state
        byte[] self = fork(sha).digest();
        raw(HASH_FIELD);
        ensure(64 + 2);
        hexInto(self, buf, len);
        len += 64;
        buf[len++] = '"';
        buf[len++] = '}';
        if (format1) {
            sha.update(buf, prefix, len - prefix);
            hexInto(sha.digest(), prevHex, 0);
        } else {
            sha.reset();
            System.arraycopy(buf, prefix + HASH_FIELD.length(), prevHex, 0, 64);
        }
    }

    /** A copy of the digest's running state (SHA-256 of every JDK provider is cloneable). */
    static MessageDigest fork(MessageDigest d) {
        try {
            return (MessageDigest) d.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the SHA-256 provider cannot copy its state", e);
        }
    }

    private static void hexInto(byte[] digest, byte[] out, int at) {
        for (int i = 0; i < 32; i++) {
            out[at + 2 * i] = HEX[(digest[i] >> 4) & 15];
            out[at + 2 * i + 1] = HEX[digest[i] & 15];
        }
    }

    private void key(String k) {
        put(',');
        str(k);
        put(':');
    }

    private void personal(String s) {
        str(pseudonymiser == null ? s : pseudonymiser.digest('s', s));
    }

    private void strings(String[] a) {
        put('[');
        for (int i = 0; i < a.length; i++) {
            if (i > 0) put(',');
            if (a[i] == null) raw("null"); else str(a[i]);
        }
        put(']');
    }

    /** Values nested deeper than this (or a structure that contains itself) are written as a note. */
    static final int MAX_DEPTH = 64;
    static final String TOO_DEEP = "(nested more than 64 levels: not written)";

    /** Writes a JSON-like value; with {@code personal}, scalars are pseudonymised and structure is kept. */
    private void value(Object v, boolean personal, int depth) {
        if (v == null) { raw("null"); return; }
        if (depth > MAX_DEPTH) { str(TOO_DEEP); return; }
        if (v instanceof JsonNode) { node((JsonNode) v, personal, depth); return; }
        if (v instanceof CharSequence) {
            String s = v.toString();
            str(personal && pseudonymiser != null ? pseudonymiser.digest('s', s) : s);
            return;
        }
        if (v instanceof Number) { number(numberText((Number) v), personal); return; }
        if (v instanceof Boolean) { bool((Boolean) v, personal); return; }
        if (v instanceof Map) {
            put('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) put(',');
                str(String.valueOf(e.getKey()));
                put(':');
                value(e.getValue(), personal, depth + 1);
                first = false;
            }
            put('}');
            return;
        }
        if (v instanceof Iterable) {
            put('[');
            boolean first = true;
            for (Object o : (Iterable<?>) v) {
                if (!first) put(',');
                value(o, personal, depth + 1);
                first = false;
            }
            put(']');
            return;
        }
        if (v.getClass().isArray()) {
            put('[');
            int n = Array.getLength(v);
            for (int i = 0; i < n; i++) {
                if (i > 0) put(',');
                value(Array.get(v, i), personal, depth + 1);
            }
            put(']');
            return;
        }
        // anything else (an enum, a domain object): its text, which is what a model would see
        String s = v.toString();
        str(personal && pseudonymiser != null ? pseudonymiser.digest('s', s) : s);
    }

    private void node(JsonNode n, boolean personal, int depth) {
        if (depth > MAX_DEPTH) { str(TOO_DEEP); return; }
        if (n.isObject()) {
            put('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                if (!first) put(',');
                str(e.getKey());
                put(':');
                node(e.getValue(), personal, depth + 1);
                first = false;
            }
            put('}');
        } else if (n.isArray()) {
            put('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) put(',');
                node(n.get(i), personal, depth + 1);
            }
            put(']');
        } else if (n.isNumber()) {
            number(numberText(n.numberValue()), personal);
        } else if (n.isBoolean()) {
            bool(n.booleanValue(), personal);
        } else if (n.isNull() || n.isMissingNode()) {
            raw("null");
        } else {
            String s = n.asText();
            str(personal && pseudonymiser != null ? pseudonymiser.digest('s', s) : s);
        }
    }

    private void number(String text, boolean personal) {
        if (text == null) { raw("null"); return; }
        if (personal && pseudonymiser != null) str(pseudonymiser.digest('n', text));
        else raw(text);
    }

    private void bool(boolean b, boolean personal) {
        if (personal && pseudonymiser != null) str(pseudonymiser.digest('b', b ? "true" : "false"));
        else raw(b ? "true" : "false");
    }

    /** The JSON text of a number: integers in decimal, decimals without trailing zeros; NaN/infinite: null. */
    static String numberText(Number n) {
        if (n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte
                || n instanceof BigInteger) {
            return n.toString();
        }
        if (n instanceof Double || n instanceof Float) {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) return null;
            if (d == Math.rint(d) && Math.abs(d) < 1e15) return Long.toString((long) d);
            return new BigDecimal(Double.toString(d)).stripTrailingZeros().toString();
        }
        BigDecimal b = n instanceof BigDecimal ? (BigDecimal) n : new BigDecimal(n.toString());
        b = b.stripTrailingZeros();
        return b.scale() <= 0 && b.precision() - b.scale() < 19 ? b.toBigInteger().toString() : b.toString();
    }

    private void num(long v) { raw(Long.toString(v)); }

    private void raw(String ascii) {
        int n = ascii.length();
        ensure(n);
        for (int i = 0; i < n; i++) buf[len++] = (byte) ascii.charAt(i);
    }

    private void put(char c) {
        ensure(1);
        buf[len++] = (byte) c;
    }

    /** A JSON string: escapes {@code " \} and controls, everything else as UTF-8; lone surrogates become U+FFFD. */
    private void str(String s) {
        int n = s.length();
        ensure(2 + 6 * n);
        buf[len++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                if (c == '"' || c == '\\') { buf[len++] = '\\'; buf[len++] = (byte) c; }
                else if (c >= 0x20) buf[len++] = (byte) c;
                else if (c == '\n') { buf[len++] = '\\'; buf[len++] = 'n'; }
                else if (c == '\r') { buf[len++] = '\\'; buf[len++] = 'r'; }
                else if (c == '\t') { buf[len++] = '\\'; buf[len++] = 't'; }
                else if (c == '\b') { buf[len++] = '\\'; buf[len++] = 'b'; }
                else if (c == '\f') { buf[len++] = '\\'; buf[len++] = 'f'; }
                else {
                    buf[len++] = '\\'; buf[len++] = 'u'; buf[len++] = '0'; buf[len++] = '0';
                    buf[len++] = HEX[(c >> 4) & 15]; buf[len++] = HEX[c & 15];
                }
            } else if (c < 0x800) {
                buf[len++] = (byte) (0xC0 | (c >> 6));
                buf[len++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    buf[len++] = (byte) (0xF0 | (cp >> 18));
                    buf[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    buf[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    buf[len++] = (byte) (0x80 | (cp & 0x3F));
                } else {
                    buf[len++] = (byte) 0xEF; buf[len++] = (byte) 0xBF; buf[len++] = (byte) 0xBD;
                }
            } else {
                buf[len++] = (byte) (0xE0 | (c >> 12));
                buf[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buf[len++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        buf[len++] = '"';
    }

    private void ensure(int more) {
        if (len + more > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }
}
