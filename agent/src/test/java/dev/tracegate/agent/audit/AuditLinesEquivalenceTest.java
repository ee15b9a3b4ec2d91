package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The allocation-free line encoder writes, byte for byte, what the encoder before it wrote
 * ({@link ReferenceAuditLines}), for random records in all three personal-data modes: logs written
 * before and after the change verify and pseudonymise alike. The changes on purpose, made in both (see the
 * reference's comment): format 2 chains a line to the previous line's hash field; format 3 writes records
 * given against a library table in the compact form, after a library record.
 */
class AuditLinesEquivalenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] CONTRACTS = {"sop-refund.approval-first", "gdpr.p4 \"quoted\"", "ünïcode-контракт"};
    private static final String[] ATOMS = {"call:refund", "count(refund)<=3", "arg(amount)>100", "tool_in(\u2028)", "x"};
    private static final String[] CONTRACTS_2 = {"sop-refund.approval-first", "other"};
    private static final String[] ATOMS_2 = {"call:refund", "y", "count(refund)<=3"};
    private static final LibraryTable TABLE = new LibraryTable(CONTRACTS, ATOMS);
    private static final LibraryTable TABLE_2 = new LibraryTable(CONTRACTS_2, ATOMS_2);
    private static final LibraryTable WIDE = wide();   // more than 64 atoms and 32 contracts: the array forms
    private static final String[] KINDS = {"CALL", "RETURN", "USER", "ASSISTANT", "CONSENT", "ERASURE", "END", "call", "Custom"};

    @Test
    void everyRandomRecordEncodesToTheSameBytesAsBefore() throws Exception {
        Random rnd = new Random(20261129);
        for (int mode = 0; mode < 3; mode++) {
            AuditLines now = new AuditLines();
            ReferenceAuditLines before = new ReferenceAuditLines();
            byte[] salt = mode == 1 ? bytes(rnd, 16) : null;
            byte[] key = mode == 2 ? bytes(rnd, 32) : null;
            long t = 1_795_988_467_000L;
            now.header(t, salt, key);
            before.header(t, salt, key);
            assertSame(now, before, "header, mode " + mode);
            for (int i = 0; i < 3000; i++) {
                long time = switch (rnd.nextInt(6)) {
                    case 0 -> t + 1000L * rnd.nextInt(5);          // whole seconds: no fraction
                    case 1 -> -rnd.nextInt(5000);                     // before 1970
                    case 2 -> 253_402_300_799_000L + rnd.nextInt(3000); // around year 10000
                    default -> t + rnd.nextInt(3_000_000);
                };
                long seed = rnd.nextLong();
                AuditRecord r = record(new Random(seed), time, i);
                if (r.table != null && now.libraryNumber(r.table) == 0) {
                    // as the writer does: a library record before the first record that indexes its table
                    assertThat(before.libraryNumber(r.table)).isZero();
                    now.library(r.table);
                    before.library(r.table);
                    assertSame(now, before, "library record before event " + i);
                }
                now.event(r);
                before.event(record(new Random(seed), time, i));
                assertSame(now, before, "event " + i + " in mode " + mode + ": " + record(new Random(seed), time, i));
                if (rnd.nextInt(50) == 0) {
                    long truncated = rnd.nextInt(3);
                    now.dropped(time, i, "queue-full", truncated);
                    before.dropped(time, i, "queue-full", truncated);
                    assertSame(now, before, "dropped note after event " + i);
                }
            }
        }
    }

    /**
     * The fixed-size pieces after a long field are written without a bounds check of their own, into room the
     * encoder keeps: a message of escaped characters (as many bytes as the encoder reserves for it) that ends the
     * variable part at every distance from the end of a fresh encoder's buffer must still give the same bytes.
     */
    @Test
    void aLineEndingAtEveryDistanceFromTheBufferEndIsWrittenWhole() throws Exception {
        for (int m = 0; m < 420; m++) {
            for (boolean fromEvent : new boolean[] {false, true}) {
                AuditLines now = new AuditLines();
                ReferenceAuditLines before = new ReferenceAuditLines();
                now.header(1_795_988_467_000L, null, null);
                before.header(1_795_988_467_000L, null, null);
                now.library(TABLE);
                before.library(TABLE);
                String message = "\u0001".repeat(m);
                now.event(lineOf(message, fromEvent));
                before.event(lineOf(message, fromEvent));
                assertSame(now, before, "message of " + m + " escaped characters");
            }
        }
    }

    private static AuditRecord lineOf(String message, boolean fromEvent) {
        AuditRecord r = fromEvent
                ? AuditRecord.of(Event.builder(EventKind.RETURN).session("s").seq(1).ts(2).tool("t").result(message).tokens(Long.MAX_VALUE).depth(Integer.MIN_VALUE).build(), Decision.PASS)
                : AuditRecord.of("s", Long.MIN_VALUE, "CALL", Decision.SHADOW_WOULD_BLOCK).message(message);
        return r.time(Long.MAX_VALUE).atoms(TABLE, new long[] {-1}).verdicts(TABLE, -1L).latencyNs(Long.MAX_VALUE).approved(true).streamed(Streamed.SHOWN_THEN_ERROR);
    }

    /**
     * The digest written in place is the documented one (CONFIG.md, "Personal data"), computed here with the JDK's
     * SHA-256 and HMAC directly: the first 16 bytes of SHA-256(salt, tag, UTF-8 value) or of HMAC-SHA256(key; tag,
     * UTF-8 value), in hex after {@code sha256:} or {@code hmac:}; also after a long value made the encoder's input grow.
     */
    @Test
    void theKeyedAndSaltedDigestWrittenInPlaceIsTheDigestOfTheValuesText() throws Exception {
        byte[] saltBytes = new byte[16];
        new Random(7).nextBytes(saltBytes);
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        Pseudonymiser salted = Pseudonymiser.salted(saltBytes);
        Pseudonymiser keyed = Pseudonymiser.keyed(key);
        for (String v : new String[] {"", "a", "refund policy", "Zoë", "😀 emoji", "x".repeat(300), "after a long one", "y".repeat(47)}) {
            for (char tag : new char[] {'s', 'n'}) {
                byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
                java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
                sha.update(saltBytes);
                sha.update((byte) tag);
                String expectSalted = "sha256:" + java.util.HexFormat.of().formatHex(sha.digest(utf8), 0, 16);
                javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
                mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
                mac.update((byte) tag);
                String expectKeyed = "hmac:" + java.util.HexFormat.of().formatHex(mac.doFinal(utf8), 0, 16);
                for (Pseudonymiser p : new Pseudonymiser[] {salted, keyed}) {
                    byte[] out = new byte[p.textLength() + 3];
                    int end = p.write(tag, utf8, 0, utf8.length, out, 1);
                    String written = new String(out, 1, end - 1, StandardCharsets.US_ASCII);
                    assertThat(written).as(v).isEqualTo(p == salted ? expectSalted : expectKeyed).isEqualTo(p.digest(tag, v));
                }
            }
        }
    }

    @Test
    void numbersAreWrittenAsLongToStringWritesThem() {
        byte[] out = new byte[40];
        java.util.List<Long> values = new ArrayList<>(List.of(0L, 9L, 10L, 99L, 100L, 101L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1));
        for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10; p *= 10) values.addAll(List.of(p - 1, p, p + 1, -p, 10 * p - 1));
        Random rnd = new Random(3);
        for (int i = 0; i < 10_000; i++) values.add(rnd.nextLong() >> rnd.nextInt(64));
        for (long v : values) {
            int end = AuditLines.digits(v, out, 3);
            assertThat(new String(out, 3, end - 3, StandardCharsets.US_ASCII)).isEqualTo(Long.toString(v));
        }
    }

    private static void assertSame(AuditLines now, ReferenceAuditLines before, String what) {
        String a = new String(now.buffer(), 0, now.length(), StandardCharsets.UTF_8);
        String b = new String(before.buffer(), 0, before.length(), StandardCharsets.UTF_8);
        assertThat(a).as(what).isEqualTo(b);
        assertThat(now.head()).as(what).isEqualTo(before.head());
    }

    private static AuditRecord record(Random rnd, long time, int i) throws Exception {
        if (rnd.nextInt(3) == 0) return fromEvent(rnd, time);
        String kind = KINDS[rnd.nextInt(KINDS.length)];
        Decision decision = Decision.values()[rnd.nextInt(Decision.values().length)];
        AuditRecord r = AuditRecord.of(text(rnd), rnd.nextInt(3) == 0 ? -rnd.nextInt(100) : rnd.nextInt(1_000_000), kind, decision)
                .time(time);
        if (rnd.nextBoolean()) r.ts(rnd.nextBoolean() ? time : rnd.nextLong());
        if (rnd.nextBoolean()) r.tool(text(rnd));
        if (rnd.nextInt(3) == 0) r.id(text(rnd));
        switch (rnd.nextInt(4)) {
            case 0 -> r.args(value(rnd, 0));
            case 1 -> r.args(JSON.valueToTree(jsonSafe(rnd, 0)));
            case 2 -> r.args(JSON.readTree("{\"big\":123456789012345678901234567890,\"d\":1.50,\"l\":9007199254740993,\"n\":null}"));
            default -> { }
        }
        if (rnd.nextInt(3) == 0) r.result(rnd.nextBoolean() ? text(rnd) : value(rnd, 0));
        if (rnd.nextInt(3) == 0) r.text(text(rnd));
        if (rnd.nextInt(4) == 0) r.subject(text(rnd));
        if (rnd.nextInt(4) == 0) r.purposes(text(rnd), null, "billing");
        if (rnd.nextInt(4) == 0) r.categories("email", text(rnd));
        if (rnd.nextInt(4) == 0) r.granted(rnd.nextBoolean());
        if (rnd.nextBoolean()) r.error(rnd.nextBoolean());
        if (rnd.nextInt(3) == 0) r.tokens(rnd.nextInt(3) == 0 ? Long.MAX_VALUE : rnd.nextInt(100_000));
        if (rnd.nextInt(3) == 0) r.depth(rnd.nextInt(5) - 2);
        if (rnd.nextBoolean()) return compact(rnd, r);
        switch (rnd.nextInt(3)) {
            case 0 -> r.atoms(rnd.nextInt(10) == 0 ? ATOMS_2 : ATOMS, new long[] {rnd.nextBoolean() ? rnd.nextLong() : rnd.nextInt(4)});
            case 1 -> r.atoms(text(rnd), ATOMS[rnd.nextInt(ATOMS.length)]);
            default -> { }
        }
        if (rnd.nextInt(4) != 0) {
            String[] table = rnd.nextInt(10) == 0 ? CONTRACTS_2 : CONTRACTS;   // a library swap: the encoder's cached sections must not outlive it
            byte[] codes = new byte[table.length];
            for (int c = 0; c < codes.length; c++) codes[c] = (byte) (rnd.nextInt(20) == 0 ? 7 : rnd.nextInt(3));
            r.verdicts(table, codes);
        }
        if (rnd.nextInt(3) == 0) r.fired(CONTRACTS[rnd.nextInt(CONTRACTS.length)]);
        if (rnd.nextInt(3) == 0) r.message(text(rnd));
        if (rnd.nextBoolean()) r.latencyNs(rnd.nextInt(3) == 0 ? Long.MIN_VALUE + 1 : rnd.nextInt(Integer.MAX_VALUE));
        if (rnd.nextInt(5) == 0) r.unmet(text(rnd), "x: " + text(rnd));
        return r;
    }

    /**
     * A record as the supervisor makes it: from an event (whose fields the encoder reads from the event itself), with
     * arguments of every shape an event carries: flat fields as a method's parameters give them (JSON nulls among
     * them), trees from maps and JSON text (nested, and flat ones whose leaves could pass for fields), malformed text.
     */
    private static AuditRecord fromEvent(Random rnd, long time) throws Exception {
        EventKind kind = EventKind.values()[rnd.nextInt(EventKind.values().length)];
        Event.Builder b = Event.builder(kind).session(text(rnd)).seq(rnd.nextInt(1_000_000));
        if (rnd.nextBoolean()) b.ts(rnd.nextBoolean() ? time : Math.abs(rnd.nextLong()));
        if (rnd.nextInt(4) != 0) b.tool(rnd.nextBoolean() ? "search_kb" : text(rnd));
        if (rnd.nextInt(3) == 0) b.callId(text(rnd));
        if (rnd.nextInt(4) != 0) b.args(args(rnd));
        if (rnd.nextInt(3) == 0) b.result(text(rnd));
        if (rnd.nextInt(4) == 0) b.text(text(rnd));
        if (rnd.nextInt(4) == 0) b.subject(text(rnd));
        if (rnd.nextInt(4) == 0) b.purposes(text(rnd), "billing");
        if (rnd.nextInt(4) == 0) b.categories("email", text(rnd));
        if (rnd.nextBoolean()) b.granted(rnd.nextBoolean());
        if (rnd.nextInt(4) == 0) b.error(true);
        if (rnd.nextInt(3) == 0) b.tokens(rnd.nextInt(100_000));
        if (rnd.nextInt(4) == 0) b.depth(rnd.nextInt(5) - 2);
        Decision decision = Decision.values()[rnd.nextInt(Decision.values().length)];
        AuditRecord r = AuditRecord.of(b.build(), decision).time(rnd.nextBoolean() ? time : time + 1);
        if (rnd.nextInt(4) == 0) r.clearFields(FIELD_NAMES[rnd.nextInt(FIELD_NAMES.length)], "purposes");
        return compact(rnd, r);
    }

    private static final String[] FIELD_NAMES = {"session", "query", "limit", "lang", "a", "b", "purposes", "granted", "ü\"\n"};
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static Args args(Random rnd) throws Exception {
        switch (rnd.nextInt(6)) {
            case 0, 1 -> {   // flat fields, as a configured method's parameters give them
                int n = rnd.nextInt(6);
                List<String> names = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    String name = rnd.nextInt(4) == 0 ? text(rnd) : FIELD_NAMES[rnd.nextInt(FIELD_NAMES.length)];
                    if (!names.contains(name)) names.add(name);
                }
                JsonNode[] values = new JsonNode[names.size()];
                for (int k = 0; k < values.length; k++) values[k] = scalar(rnd);
                return Args.ofFields(names.toArray(new String[0]), values, values.length);
            }
            case 2 -> {   // a tree from a map: nested, flat, or with nulls
                Map<String, Object> m = new LinkedHashMap<>();
                for (int k = rnd.nextInt(5); k > 0; k--) m.put(FIELD_NAMES[rnd.nextInt(FIELD_NAMES.length)], jsonSafe(rnd, 1));
                return Args.of(m);
            }
            case 3 -> {   // leaves that look like the fields of a flat object, but are not
                String[] shapes = {"{\"a\":[1],\"b\":2}", "{\"a\":{\"b\":2},\"b\":2}", "{\"a\":{\"x\":\"en\"},\"b\":true}",
                        "{\"a\":[\"en\",\"en\"]}", "{\"a\":null,\"b\":1}", "{\"a\":{}}", "{\"a\":[]}", "{}", "{\"a\":1,\"b\":[]}"};
                return Args.ofJson(shapes[rnd.nextInt(shapes.length)]);
            }
            case 4 -> {
                return Args.ofJson(rnd.nextBoolean() ? "not json " + text(rnd) : JSON.writeValueAsString(jsonSafe(rnd, 0)));
            }
            default -> {
                return Args.ofJson("{\"session\":\"s-1\",\"query\":\"refund policy for damaged items\",\"limit\":5,\"lang\":\"en\"}");
            }
        }
    }

    private static JsonNode scalar(Random rnd) {
        return switch (rnd.nextInt(7)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.numberNode(rnd.nextInt(10) - 3);
            case 2 -> NODES.numberNode(rnd.nextLong());
            case 3 -> NODES.numberNode(rnd.nextDouble() * 1000);
            case 4 -> NODES.booleanNode(rnd.nextBoolean());
            default -> NODES.textNode(text(rnd));
        };
    }

    /** The rest of a record as the supervisor gives it: atoms and verdicts against a library table (format 3's compact form). */
    private static AuditRecord compact(Random rnd, AuditRecord r) {
        LibraryTable t = switch (rnd.nextInt(10)) {
            case 0 -> TABLE_2;
            case 1 -> WIDE;
            default -> TABLE;
        };
        if (rnd.nextInt(4) != 0) {
            long[] valuation = new long[(t.atomCount() + 63) / 64];
            for (int w = 0; w < valuation.length; w++) valuation[w] = rnd.nextBoolean() ? rnd.nextLong() : rnd.nextInt(4);
            r.atoms(t, valuation);
        }
        if (rnd.nextInt(4) != 0) {
            if (t.contractCount() <= 32 && rnd.nextBoolean()) {
                long packed = 0;
                for (int c = 0; c < t.contractCount(); c++) packed = AuditRecord.pack(packed, c, (byte) rnd.nextInt(3));
                r.verdicts(t, packed);
            } else {
                byte[] codes = new byte[t.contractCount()];
                for (int c = 0; c < codes.length; c++) codes[c] = (byte) (rnd.nextInt(20) == 0 ? 7 : rnd.nextInt(3));
                r.verdicts(t, codes);
            }
        }
        if (rnd.nextInt(3) == 0) r.fired(t.contracts[rnd.nextInt(t.contractCount())]);
        if (rnd.nextInt(4) == 0) r.approved(true);
        if (rnd.nextInt(4) == 0) r.streamed(Streamed.values()[rnd.nextInt(Streamed.values().length)]);
        if (rnd.nextInt(3) == 0) r.message(text(rnd));
        if (rnd.nextBoolean()) r.latencyNs(rnd.nextInt(Integer.MAX_VALUE));
        if (rnd.nextInt(5) == 0) r.unmet(text(rnd));
        if (r.table == null) r.atoms(t, new long[(t.atomCount() + 63) / 64]);   // every compact record names its table
        return r;
    }

    private static LibraryTable wide() {
        String[] contracts = new String[40];
        for (int i = 0; i < contracts.length; i++) contracts[i] = "c" + i;
        String[] atoms = new String[130];
        for (int i = 0; i < atoms.length; i++) atoms[i] = "atom " + i;
        return new LibraryTable(contracts, atoms);
    }

    /** Any value the audit log accepts: maps, lists, arrays, text, every kind of number, booleans, null, other objects. */
    private static Object value(Random rnd, int depth) {
        int k = rnd.nextInt(depth > 3 ? 12 : 16);
        return switch (k) {
            case 0 -> null;
            case 1 -> text(rnd);
            case 2 -> rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(4) - 1;
            case 3 -> rnd.nextLong();
            case 4 -> (short) rnd.nextInt();
            case 5 -> (byte) rnd.nextInt();
            case 6 -> rnd.nextDouble() * Math.pow(10, rnd.nextInt(40) - 20);
            case 7 -> new double[] {Double.NaN, 3.0, -0.0, 1e300, Double.NEGATIVE_INFINITY}[rnd.nextInt(5)];
            case 8 -> rnd.nextFloat();
            case 9 -> new BigDecimal(BigInteger.valueOf(rnd.nextLong()), rnd.nextInt(30) - 15);
            case 10 -> rnd.nextBoolean();
            case 11 -> new StringBuilder(text(rnd));
            case 12 -> {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (int i = rnd.nextInt(4); i > 0; i--) m.put(rnd.nextBoolean() ? text(rnd) : (Object) rnd.nextInt(9), value(rnd, depth + 1));
                yield m;
            }
            case 13 -> {
                List<Object> l = new ArrayList<>();
                for (int i = rnd.nextInt(4); i > 0; i--) l.add(value(rnd, depth + 1));
                yield l;
            }
            case 14 -> new int[] {rnd.nextInt(), 5};
            default -> Thread.State.values()[rnd.nextInt(3)];
        };
    }

    /** A value Jackson turns into a tree (for JsonNode arguments). */
    private static Object jsonSafe(Random rnd, int depth) {
        Object v = value(rnd, depth);
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) out.put(String.valueOf(e.getKey()), jsonSafe(rnd, depth + 1));
            return out;
        }
        if (v instanceof Double d && (d.isNaN() || d.isInfinite())) return 1.25;
        if (v instanceof Float || v instanceof StringBuilder || v instanceof Thread.State || v instanceof List || v instanceof int[]) {
            return text(rnd);
        }
        return v;
    }

    /** Values that recur from record to record (the encoder reuses their digests). */
    private static final String[] RECURRING = {"en", "session-1", "", "Zoë", "refund policy for damaged items", "x".repeat(64), "x".repeat(65)};

    private static String text(Random rnd) {
        if (rnd.nextInt(3) == 0) return new String(RECURRING[rnd.nextInt(RECURRING.length)]); // equal, not the same instance
        // now and then a long one, so that lines end at every distance from the end of the encoder's buffer
        int n = rnd.nextInt(40) == 0 ? rnd.nextInt(3000) : rnd.nextInt(12);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            switch (rnd.nextInt(10)) {
                case 0 -> b.append((char) rnd.nextInt(0x20));            // controls
                case 1 -> b.append(new char[] {'"', '\\', '/'}[rnd.nextInt(3)]);
                case 2 -> b.append((char) (0x80 + rnd.nextInt(0x780)));  // two-byte UTF-8
                case 3 -> b.append((char) (0x800 + rnd.nextInt(0xD000))); // three-byte UTF-8
                case 4 -> b.append(rnd.nextBoolean() ? "\uD83D\uDE00" : String.valueOf((char) (0xD800 + rnd.nextInt(0x800)))); // pairs and lone surrogates
                default -> b.append((char) ('a' + rnd.nextInt(26)));
            }
        }
        return b.toString();
    }

    private static byte[] bytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }
}
