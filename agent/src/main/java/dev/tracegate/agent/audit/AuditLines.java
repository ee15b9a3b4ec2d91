package dev.tracegate.agent.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * Encodes audit records into chained lines of the log's canonical byte form (see package doc):
 * one JSON object per line, fields in a fixed order, {@code prev} first and {@code hash} last.
 *
 * <p>Not thread-safe: owned by the audit writer thread. After {@link #header}, {@link #event} or
 * {@link #dropped}, {@link #buffer()} holds the line (without its LF) in {@code [0, length())}, and the
 * chain has advanced past it.
 *
 * <p>Encoding an event allocates nothing on the usual path: field names, event kinds, decisions and
 * verdict names are pre-encoded; a record given against a {@link LibraryTable} names its atoms and
 * verdicts by position (format 3), after one {@code library} record per table; the session id, recent tool
 * names, the time text and the digits of the second of {@code ts} are encoded again only when they change; numbers and digests are written straight into
 * the line, and the digest of a short value seen recently is reused (equal values have equal digests
 * within a segment). Cloning the running SHA-256 state for the self hash is the one allocation per line.
 */
final class AuditLines {
    static final String FORMAT = "tracegate-audit/3";
    /**
     * The format before: the same chain, but each event record spells out every held atom's key and every
     * contract's id and verdict (about 1 KB a line with ten contracts) where format 3 writes a {@code lib}
     * number, a hex bit string and one letter per contract against a {@code library} record written once.
     */
    static final String FORMAT_2 = "tracegate-audit/2";
    /**
     * The format before: the same lines, but {@code prev} is the SHA-256 of the previous line's whole bytes (its
     * hash field included), which costs a copy of the digest state and two more compressions per line. The
     * verifier still reads it, also in a file where old and new segments follow each other.
     */
    static final String FORMAT_1 = "tracegate-audit/1";
    /** The {@code prev} of a log's first line: 64 zeros. */
    static final String GENESIS = "0".repeat(64);
    static final String HASH_FIELD = ",\"hash\":\"";
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    // pre-encoded pieces of an event line, in the order they are written
    private static final byte[] BEGIN = ascii("{\"prev\":\"");
    private static final byte[] REC_EVENT = ascii("\",\"rec\":\"event\"");
    private static final byte[] K_TIME = keyText("time");
    private static final byte[] K_SESSION = keyText("session");
    private static final byte[] K_SEQ = keyText("seq");
    private static final byte[] K_TS = keyText("ts");
    private static final byte[] K_KIND = keyText("kind");
    private static final byte[] K_TOOL = keyText("tool");
    private static final byte[] K_ID = keyText("id");
    private static final byte[] K_ARGS = keyText("args");
    private static final byte[] K_RESULT = keyText("result");
    private static final byte[] K_TEXT = keyText("text");
    private static final byte[] K_SUBJECT = keyText("subject");
    private static final byte[] K_PURPOSES = keyText("purposes");
    private static final byte[] K_CATEGORIES = keyText("categories");
    private static final byte[] K_GRANTED = keyText("granted");
    private static final byte[] K_ERROR = keyText("error");
    private static final byte[] K_TOKENS = keyText("tokens");
    private static final byte[] K_DEPTH = keyText("depth");
    private static final byte[] K_ATOMS = keyText("atoms");
    private static final byte[] K_VERDICTS = keyText("verdicts");
    private static final byte[] K_DECISION = keyText("decision");
    private static final byte[] K_FIRED = keyText("fired");
    private static final byte[] K_MESSAGE = keyText("message");
    private static final byte[] K_LATENCY = keyText("latencyNs");
    private static final byte[] K_UNMET = keyText("unmet");
    private static final byte[] K_LIB = keyText("lib");
    private static final byte[] K_APPROVED = keyText("approved");
    private static final byte[] K_STREAMED = keyText("streamed");
    private static final byte[] K_TRACE_ID = keyText("trace_id");
    private static final byte[] K_SPAN_ID = keyText("span_id");
    /** Format 3's one letter per contract verdict: IDLE, ACTIVE, FAIL. */
    static final byte[] VERDICT_LETTERS = ascii("IAF");
    private static final byte[] TRUE = ascii("true");
    private static final byte[] FALSE = ascii("false");
    private static final byte[] NULL = ascii("null");
    private static final byte[] HASH = ascii(HASH_FIELD);
    private static final byte[][] VERDICTS = new byte[AuditRecord.VERDICT_NAMES.length][];
    private static final byte[][] DECISIONS = new byte[Decision.values().length][];
    private static final String[] KINDS = {"USER", "ASSISTANT", "CALL", "RETURN", "CONSENT", "ERASURE", "END"};
    private static final byte[][] KIND_TEXT = new byte[KINDS.length][];
    // a key and its value in one piece where the value is one of a few: one copy instead of two
    private static final byte[][] KIND_FIELDS = new byte[KINDS.length][];
    private static final byte[][] DECISION_FIELDS = new byte[Decision.values().length][];
    private static final byte[][] STREAMED_FIELDS = new byte[Streamed.values().length][];

    static {
        for (int i = 0; i < VERDICTS.length; i++) VERDICTS[i] = quoted(AuditRecord.VERDICT_NAMES[i]);
        for (Decision d : Decision.values()) DECISIONS[d.ordinal()] = quoted(d.wire());
        for (int i = 0; i < KINDS.length; i++) KIND_TEXT[i] = quoted(KINDS[i].toLowerCase(Locale.ROOT));
        for (int i = 0; i < KINDS.length; i++) KIND_FIELDS[i] = concat(K_KIND, KIND_TEXT[i]);
        for (Decision d : Decision.values()) DECISION_FIELDS[d.ordinal()] = concat(K_DECISION, DECISIONS[d.ordinal()]);
        for (Streamed v : Streamed.values()) STREAMED_FIELDS[v.ordinal()] = concat(K_STREAMED, quoted(v.wire()));
    }

    private final MessageDigest sha;
    private final byte[] prevHex = new byte[64];
    private final byte[] digest = new byte[32];
    private byte[] buf = new byte[1024];
    private int len;
    private Pseudonymiser pseudonymiser; // null: personal data in clear
    private byte[] text = new byte[256]; // UTF-8 of a personal value, for its digest

    // Recent digests, so that a value repeated from line to line (a session id passed as an argument, a
    // language code, a small number) is hashed once per segment: direct-mapped, short values only,
    // cleared with each header (a new salt or key). Writer thread only.
    private static final int RECENT = 256;
    private static final int RECENT_MAX_CHARS = 64;
    private final String[] recentValue = new String[RECENT];
    private final char[] recentTag = new char[RECENT];
    private final long[] recentNumber = new long[RECENT];
    private final boolean[] recentNumberSet = new boolean[RECENT];
    private final byte[][] recentText = new byte[RECENT][];
    private final byte[][] recentNumberText = new byte[RECENT][];

    // the last session id and its quoted text; recent tool names and theirs; the digits of the last ts's second
    private String lastSession;
    private byte[] lastSessionText;
    private static final int TOOLS = 16;
    private final String[] toolName = new String[TOOLS];
    private final byte[][] toolNameText = new byte[TOOLS][];
    private String lastTool;
    private byte[] lastToolText;
    /**
     * The tool names written, as given, up to {@link #TOOLS_SEEN_MAX}: added where {@link #toolText} encodes a name anew
     * (its cache missed), so a line whose tool is cached costs nothing more. Read at shutdown, possibly by another
     * thread than the writer's (a writer stuck on its file is not waited for): concurrent.
     */
    private final java.util.Set<String> toolsSeen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private int toolsSeenCount;
    static final int TOOLS_SEEN_MAX = 1024;
    private static final int NAMES = 64;
    private final String[] fieldName = new String[NAMES];
    private final byte[][] fieldNameText = new byte[NAMES][];
    private final Args.Path[] fieldPath = new Args.Path[NAMES];
    private long tsSecond = Long.MIN_VALUE;
    private final byte[] tsSecondText = new byte[32];
    private int tsSecondLength;
    // the quoted time text of the second last written, and that second
    private long timeSecond = Long.MIN_VALUE;
    private byte[] timeText = new byte[0];
    // one library's string tables, quoted and encoded once (keyed by identity: the tables are shared)
    private String[] verdictTable;
    private byte[][] verdictTableText;
    private String[] atomTable;
    private byte[][] atomTableText;
    // library tables written in a library record since the chain was last (re)started, and their numbers
    private final java.util.IdentityHashMap<LibraryTable, Integer> libraries = new java.util.IdentityHashMap<>();
    private LibraryTable lastLibrary;
    private int libFieldNumber;   // the lib number whose field text libField holds (0: none)
    private byte[] libField;
    private int lastLibraryNumber;
    private int librariesWritten;
    // the number each table got when its first library record was written: a table keeps it for the writer's run, so
    // that the record written again after a reopen (chainFrom) carries the same number and a new number always means
    // another library version (trial38 02: after an outage the same library came back as lib 2)
    private final java.util.IdentityHashMap<LibraryTable, Integer> numbers = new java.util.IdentityHashMap<>();

    AuditLines() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        chainFrom(null);
    }

    byte[] buffer() { return buf; }

    /** The tool names of the lines written so far (at most {@link #TOOLS_SEEN_MAX}), as the events gave them; a live view. */
    java.util.Set<String> toolsSeen() { return java.util.Collections.unmodifiableSet(toolsSeen); }

    int length() { return len; }

    /**
     * Continues the chain after {@code lastLine} (its exact bytes without LF), or from genesis if null: the next
     * line's {@code prev} is the last line's {@code hash} (whichever format wrote it). A last line without a
     * well-formed hash (which {@code audit verify} reports on that line anyway) is chained by the SHA-256 of its
     * bytes.
     */
    void chainFrom(byte[] lastLine) {
        // the library records written before may be among lines that never reached the file: write them again
        libraries.clear();
        lastLibrary = null;
        lastLibraryNumber = 0;
        if (lastLine == null) {
            Arrays.fill(prevHex, (byte) '0');
            return;
        }
        int at = hashAt(lastLine, lastLine.length);
        if (at >= 0) {
            System.arraycopy(lastLine, at, prevHex, 0, 64);
        } else {
            hexInto(sha.digest(lastLine), prevHex, 0);
        }
    }

    /** The hash the line after {@code line} (its exact bytes without LF) chains from, as {@link #chainFrom} takes it. */
    static String headOf(byte[] line) {
        int at = hashAt(line, line.length);
        if (at >= 0) return new String(line, at, 64, StandardCharsets.US_ASCII);
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(line);
            byte[] hex = new byte[64];
            hexInto(d, hex, 0);
            return new String(hex, StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Where the 64 lower-case hex digits of a line's closing {@code ,"hash":"<hex>"}} begin, or -1 when it does not end so. */
    static int hashAt(byte[] line, int len) {
        int at = len - 2 - 64;
        int field = at - HASH.length;
        if (field < 0 || line[len - 1] != '}' || line[len - 2] != '"'
                || !Arrays.equals(line, field, at, HASH, 0, HASH.length)) {
            return -1;
        }
        for (int i = at; i < at + 64; i++) {
            byte b = line[i];
            if (!(b >= '0' && b <= '9' || b >= 'a' && b <= 'f')) return -1;
        }
        return at;
    }

    /** The hash of the last line encoded (what the next line's {@code prev} will be), in hex. */
    String head() { return new String(prevHex, StandardCharsets.US_ASCII); }

    /**
     * A segment header: starts a log or a run appended to an existing one, says how the agent started
     * ({@link AgentStart}: {@code premain} or {@code attach}, left out when unknown) and how personal data
     * in the lines after it is written.
     *
     * @param salt the segment's salt (salted mode), or null
     * @param key the HMAC key (keyed mode), or null; with both null personal data is written in clear
     * @param continues the head of the file this one continues (the writer's file was moved away), or null
     */
    void header(long timeMillis, byte[] salt, byte[] key, String continues) {
        Arrays.fill(recentValue, null);
        Arrays.fill(recentNumberSet, false);
        begin("header");
        key("format"); str(FORMAT);
        key("created"); str(Instant.ofEpochMilli(timeMillis).toString());
        String start = AgentStart.how();
        if (start != null) { key("start"); str(start); }   // readers that predate it skip a field they do not know
        if (continues != null) { key("continues"); str(continues); }
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

    /** A header that continues no other file. */
    void header(long timeMillis, byte[] salt, byte[] key) {
        header(timeMillis, salt, key, null);
    }

    /**
     * The number of the {@code library} record written for {@code table} since the chain was last started, or
     * 0 when none was: the writer then writes one ({@link #library}) before the event that needs it.
     */
    int libraryNumber(LibraryTable table) {
        if (table == lastLibrary) return lastLibraryNumber;
        Integer n = libraries.get(table);
        if (n == null) return 0;
        lastLibrary = table;
        lastLibraryNumber = n;
        return n;
    }

    /**
     * A library record: the contract ids and atom keys that the compact {@code verdicts} and {@code atoms}
     * of the event records after it index, under a number ({@code lib}) that stands for {@code table} for the whole of
     * this writer's run: 1, 2, ... in the order the tables were first written, and the same number when the record is
     * written again after the chain was restarted (a reopen after an I/O error).
     */
    void library(LibraryTable table) {
        Integer known = numbers.get(table);
        int n = known != null ? known : ++librariesWritten;
        if (known == null) numbers.put(table, n);
        begin("library");
        key("lib"); num(n);
        key("contracts"); strings(table.contracts);
        key("atoms"); strings(table.atoms);
        if (table.digest != null) { key("digest"); str(table.digest); }
        end();
        libraries.put(table, n);
        lastLibrary = table;
        lastLibraryNumber = n;
    }

    /**
     * A register record: the agent seeded its GDPR register from the first {@code lines} lines of the file {@code path},
     * whose bytes have SHA-256 {@code sha256}.
     */
    void register(String path, long lines, String sha256) {
        begin("register");
        key("path"); str(path);
        key("lines"); num(lines);
        key("sha256"); str(sha256);
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

    /**
     * The last record of a run the agent does not supervise: it could not start (a library or setting it
     * cannot use), so no event of this run follows; {@code fail} is the policy that then applied
     * ({@code open}: the application runs without supervision; {@code closed}: the start was refused).
     */
    void unsupervised(long timeMillis, String fail, String reason) {
        begin("unsupervised");
        key("time"); str(Instant.ofEpochMilli(timeMillis).toString());
        key("fail"); str(fail);
        key("reason"); str(reason);
        end();
    }

    void event(AuditRecord r) {
        AuditRecord.Rare x = r.rareOrNone();   // the fields a passed event's record leaves unset
        if (x.registerRead != null) {   // not an event: the register the agent started with (AuditRecord.registerRead)
            register(x.registerRead[0], Long.parseLong(x.registerRead[1]), x.registerRead[2]);
            return;
        }
        len = 0;
        ensure(0);   // SLACK bytes of room: enough for every fixed-size piece of the line (see putc)
        putc(BEGIN);
        System.arraycopy(prevHex, 0, buf, len, 64);
        len += 64;
        putc(REC_EVENT);
        // format 3 leaves out a decision time equal to the event's own ts (the supervisor decides at ts)
        long ts = r.ts();
        long time = r.timeMillis();
        if (time != ts) { putc(K_TIME); time(time); }
        // the event part, in the shape of a trace line
        put(sessionText(r.session())); numc(r.seq());   // ,"session":"<id>","seq":<n>
        if (ts != Long.MIN_VALUE) tsField(ts);
        kind(r.kind());
        Event e = r.eventToEncode();
        subjects = x.subjectFields;
        if (e != null) eventFields(e, x.clearFields);
        else partFields(r.partOrNone(), x.clearFields);
        // the OpenTelemetry span current where the event was decided (optional: most records have none)
        if (x.traceId != null) { putc(K_TRACE_ID); str(x.traceId); putc(K_SPAN_ID); str(x.spanId); }
        // what the supervisor saw and did
        if (r.table != null) {
            compact(r);
        } else {
            spelledOut(r);
        }
        putc(DECISION_FIELDS[r.decision]);
        if (x.fired != null) { putc(K_FIRED); strings(x.fired); }
        if (x.approved) { putc(K_APPROVED); putc(TRUE); }
        if (x.message != null) { putc(K_MESSAGE); str(x.message); }
        if (x.streamed != null) putc(STREAMED_FIELDS[x.streamed.ordinal()]);
        long latency = r.latencyNs();
        if (latency >= 0) { putc(K_LATENCY); numc(latency); }
        if (x.unmet != null) { putc(K_UNMET); strings(x.unmet); }
        end();
    }

    /**
     * The event part of a record made from an event, read from the event itself (no copy into a
     * {@link AuditRecord.Part}): the same fields, in the same order, as {@link #partFields} writes for the copy.
     */
    private void eventFields(Event e, String[] clear) {
        String tool = e.tool();
        if (tool != null) put(toolText(tool));
        long number = e.callNumber();
        if (number > 0) {
            // a generated id kept as its number: "tg-N" written from the digits, as str would write the String (no String)
            ensure(K_ID.length + 26);
            putc(K_ID);
            buf[len++] = '"'; buf[len++] = 't'; buf[len++] = 'g'; buf[len++] = '-';
            numc(number);
            buf[len++] = '"';
        } else {
            String id = e.callId();
            if (id != null) { putc(K_ID); str(id); }
        }
        if (e.hasArgs()) { putc(K_ARGS); args(e.args(), clear); }
        String result = e.result();
        if (result != null) { putc(K_RESULT); scalarText(result, true); }
        String text = e.text();
        if (text != null) { putc(K_TEXT); personal('s', text); }
        String subject = e.subject();
        if (subject != null) { putc(K_SUBJECT); subject(subject); }
        int n = e.purposeCount();
        if (n > 0) {
            putc(K_PURPOSES); put('[');
            for (int i = 0; i < n; i++) { if (i > 0) put(','); nullableStr(e.purpose(i)); }
            put(']');
        }
        n = e.categoryCount();
        if (n > 0) {
            putc(K_CATEGORIES); put('[');
            for (int i = 0; i < n; i++) { if (i > 0) put(','); nullableStr(e.category(i)); }
            put(']');
        }
        if (e.kind() == EventKind.CONSENT) { putc(K_GRANTED); putc(e.granted() ? TRUE : FALSE); }
        if (e.error()) { putc(K_ERROR); putc(TRUE); }
        long tokens = e.tokens();
        if (tokens >= 0) { putc(K_TOKENS); numc(tokens); }
        int depth = e.depth();
        if (depth != 0) { putc(K_DEPTH); numc(depth); }
    }

    private void nullableStr(String s) {
        if (s == null) put(NULL); else str(s);
    }

    /** The event part given field by field (records built with the setters). */
    private void partFields(AuditRecord.Part part, String[] clear) {
        if (part.tool != null) put(toolText(part.tool));
        if (part.id != null) { putc(K_ID); str(part.id); }
        if (part.args != null) {
            putc(K_ARGS);
            if ((clear != null || (subjects != null && pseudonymiser != null)) && part.args instanceof JsonNode && ((JsonNode) part.args).isObject())
                argsKeepingClear((JsonNode) part.args, clear);
            else value(part.args, true, 0);
        }
        if (part.result != null) { putc(K_RESULT); value(part.result, true, 0); }
        if (part.text != null) { putc(K_TEXT); personal('s', part.text); }
        if (part.subject != null) { putc(K_SUBJECT); subject(part.subject); }
        if (part.purposes != null) { putc(K_PURPOSES); strings(part.purposes); }
        if (part.categories != null) { putc(K_CATEGORIES); strings(part.categories); }
        if (part.granted >= 0) { putc(K_GRANTED); putc(part.granted == 1 ? TRUE : FALSE); }
        if (part.error) { putc(K_ERROR); putc(TRUE); }
        if (part.tokens >= 0) { putc(K_TOKENS); numc(part.tokens); }
        if (part.depth != 0) { putc(K_DEPTH); numc(part.depth); }
    }

    /**
     * Format 3's atoms and verdicts against a library record: {@code "lib":N}, {@code "atoms":"<hex>"} (digit k
     * holds atoms 4k..4k+3, bit value 1 for 4k; trailing zero digits left out) and {@code "verdicts":"<letters>"}
     * (one of I, A, F per contract, in the library's order; empty when the record gives none).
     */
    private void compact(AuditRecord r) {
        LibraryTable t = r.table;
        int lib = libraryNumber(t);
        if (lib == 0) throw new IllegalStateException("no library record was written for the table of " + r);
        if (lib != libFieldNumber) {
            // ,"lib":<n>,"atoms":"
            byte[] digits = new byte[20];
            int n = digits(lib, digits, 0);
            libField = concat(concat(K_LIB, Arrays.copyOf(digits, n)), concat(K_ATOMS, new byte[] {'"'}));
            libFieldNumber = lib;
        }
        putc(libField);
        int atoms = t.atoms.length;
        ensure(3 + (atoms + 3) / 4);
        if (r.rareOrNone().atomBits == null && atoms <= 64) {
            // one word: its digits up to the highest non-zero one (bits past the table are not atoms)
            long word = atoms == 64 ? r.atomWord() : r.atomWord() & ((1L << atoms) - 1);
            int digits = (67 - Long.numberOfLeadingZeros(word)) >>> 2;
            for (int k = 0; k < digits; k++) buf[len++] = HEX[(int) (word >>> (k << 2)) & 15];
        } else {
            hexAtoms(r, atoms);
        }
        if (r.verdictIds() != null && r.rareOrNone().verdictCodes == null) {
            put(verdictLetters(t, r.verdictWord()));   // with the atoms' closing quote and the key
        } else {
            buf[len++] = '"';
            putc(K_VERDICTS);
            verdictLetters(r, t);
        }
    }

    /**
     * {@code ","verdicts":"<letters>"} (the atoms' closing quote, the key and format 3's verdict letters) of a
     * packed word, from a small cache (the verdicts change seldom from event to event).
     */
    private byte[] verdictLetters(LibraryTable t, long packed) {
        int slot = (int) (packed ^ packed >>> 29 ^ packed >>> 47) & (LETTERS - 1);
        byte[] text = letterText[slot];
        if (text == null || letterTable[slot] != t || letterWord[slot] != packed) {
            int contracts = t.contracts.length;
            int at = 1 + K_VERDICTS.length;
            text = new byte[at + 2 + contracts];
            text[0] = '"';
            System.arraycopy(K_VERDICTS, 0, text, 1, K_VERDICTS.length);
            text[at] = '"';
            for (int i = 0; i < contracts; i++) {
                int c = (int) (packed >>> (2 * i) & 3);
                text[at + 1 + i] = c < VERDICT_LETTERS.length ? VERDICT_LETTERS[c] : (byte) '?';
            }
            text[at + 1 + contracts] = '"';
            letterText[slot] = text;
            letterTable[slot] = t;
            letterWord[slot] = packed;
        }
        return text;
    }

    private static final int LETTERS = 16;
    private final byte[][] letterText = new byte[LETTERS][];
    private final LibraryTable[] letterTable = new LibraryTable[LETTERS];
    private final long[] letterWord = new long[LETTERS];

    /** The atoms' hex digits given as several words (more than 64 atoms). */
    private void hexAtoms(AuditRecord r, int atoms) {
        int end = len;   // after the last non-zero digit
        for (int k = 0, digits = (atoms + 3) / 4; k < digits; k++) {
            long word = r.rareOrNone().atomBits == null ? (k < 16 ? r.atomWord() : 0) : (k >> 4 < r.rareOrNone().atomBits.length ? r.rareOrNone().atomBits[k >> 4] : 0);
            int d = (int) (word >>> ((k & 15) << 2)) & 15;
            if (4 * k + 4 > atoms) d &= (1 << (atoms - 4 * k)) - 1;   // bits past the table are not atoms
            buf[len++] = HEX[d];
            if (d != 0) end = len;
        }
        len = end;
    }

    /** The verdict letters given as one code per contract, or none. */
    private void verdictLetters(AuditRecord r, LibraryTable t) {
        int contracts = r.verdictIds() == null ? 0 : t.contracts.length;
        ensure(2 + contracts);
        buf[len++] = '"';
        for (int i = 0; i < contracts; i++) {
            byte c = r.verdictCode(i);
            buf[len++] = c >= 0 && c < VERDICT_LETTERS.length ? VERDICT_LETTERS[c] : (byte) '?';
        }
        buf[len++] = '"';
    }

    /** Format 2's atoms and verdicts, for a record given without a library table: held keys, and an object of verdicts by contract id. */
    private void spelledOut(AuditRecord r) {
        put(K_ATOMS);
        if (r.rareOrNone().atomList != null) {
            strings(r.rareOrNone().atomList);
        } else {
            put('[');
            String[] atomTable = r.atomTable();
            if (atomTable != null) {
                byte[][] names = atomText(atomTable);
                boolean first = true;
                for (int i = 0; i < names.length; i++) {
                    long word = r.rareOrNone().atomBits == null ? (i < 64 ? r.atomWord() : 0) : i >> 6 < r.rareOrNone().atomBits.length ? r.rareOrNone().atomBits[i >> 6] : 0;
                    if ((word & (1L << i)) != 0) {
                        if (!first) put(',');
                        put(names[i]);
                        first = false;
                    }
                }
            }
            put(']');
        }
        put(K_VERDICTS); put('{');
        String[] verdictIds = r.verdictIds();
        if (verdictIds != null) {
            byte[][] ids = verdictText(verdictIds);
            for (int i = 0; i < ids.length; i++) {
                if (i > 0) put(',');
                put(ids[i]);
                put(':');
                byte c = r.verdictCode(i);
                if (c >= 0 && c < VERDICTS.length) put(VERDICTS[c]);
                else str("UNKNOWN(" + c + ")");
            }
        }
        put('}');
    }

    private void begin(String rec) {
        len = 0;
        put(BEGIN);
        ensure(64);
        System.arraycopy(prevHex, 0, buf, len, 64);
        len += 64;
        raw("\",\"rec\":");
        str(rec);
    }

    /**
     * Appends the hash of everything so far, closes the object and advances the chain: the next line's
     * {@code prev} is this hash. Each byte is hashed once; the hash field itself is covered by the rule that
     * it must equal the hash of the bytes before it.
     */
    private void end() {
        sha.update(buf, 0, len);
        try {
            sha.digest(digest, 0, 32);
        } catch (DigestException e) {
            throw new IllegalStateException("SHA-256 refused a 32-byte buffer", e);
        }
        putc(HASH);
        hexInto(digest, buf, len);
        System.arraycopy(buf, len, prevHex, 0, 64);   // the next line's prev: the same 64 digits
        len += 64;
        buf[len++] = '"';
        buf[len++] = '}';
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
        // four digest bytes at a time: their eight digits as one little-endian long store
        for (int i = 0; i < 32; i += 4) {
            long digits = HEX_SHORTS[digest[i] & 0xFF]
                    | (long) HEX_SHORTS[digest[i + 1] & 0xFF] << 16
                    | (long) HEX_SHORTS[digest[i + 2] & 0xFF] << 32
                    | (long) HEX_SHORTS[digest[i + 3] & 0xFF] << 48;
            LONGS.set(out, at + 2 * i, digits);
        }
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** The two hex digits of every byte value as a little-endian pair: the first digit in the low byte. */
    private static final long[] HEX_SHORTS = new long[256];

    /** The two decimal digits of 0..99: {@code DIGIT_PAIRS[2v], DIGIT_PAIRS[2v + 1]}. */
    private static final byte[] DIGIT_PAIRS = new byte[200];
    /** 10^i for i in 0..18. */
    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        for (int b = 0; b < 256; b++) HEX_SHORTS[b] = HEX[b >> 4] | HEX[b & 15] << 8;
        for (int v = 0; v < 100; v++) { DIGIT_PAIRS[2 * v] = (byte) ('0' + v / 10); DIGIT_PAIRS[2 * v + 1] = (byte) ('0' + v % 10); }
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }

    // ------------------------------------------------------------------ pieces written once

    /** The time as {@link Instant#toString()} writes it, with the second's text kept until the second changes. */
    private void time(long millis) {
        long second = Math.floorDiv(millis, 1000);
        int ms = (int) Math.floorMod(millis, 1000);
        if (second != timeSecond) {
            // e.g. "2026-11-29T21:41:07Z": everything up to the seconds, then the fraction if any, then Z
            String whole = Instant.ofEpochSecond(second).toString();
            timeText = quotedOpen(whole.substring(0, whole.length() - 1));
            timeSecond = second;
        }
        put(timeText);
        ensure(6);
        if (ms != 0) {
            buf[len++] = '.';
            buf[len++] = (byte) ('0' + ms / 100);
            buf[len++] = (byte) ('0' + ms / 10 % 10);
            buf[len++] = (byte) ('0' + ms % 10);
        }
        buf[len++] = 'Z';
        buf[len++] = '"';
    }

    /** The quoted session id, encoded again only when it differs from the last line's (one session's records come in runs). */
    private byte[] sessionText(String session) {
        if (session != lastSession && !session.equals(lastSession)) {
            lastSessionText = concat(concat(K_SESSION, quoted(session)), K_SEQ);
            lastSession = session;
        }
        return lastSessionText;
    }

    /** {@code ,"tool":"<name>"}: the last name by identity, else a small cache of recent names (direct-mapped by hash). */
    private byte[] toolText(String tool) {
        // the same instance as the last line's (a configured or registered name): no need to read the string, which
        // the producer's core wrote and this one may not hold in its cache
        if (tool == lastTool) return lastToolText;
        int slot = tool.hashCode() & (TOOLS - 1);
        String known = toolName[slot];
        if (known != tool && !tool.equals(known)) {
            toolNameText[slot] = concat(K_TOOL, quoted(tool));
            toolName[slot] = tool;
            if (toolsSeenCount < TOOLS_SEEN_MAX && toolsSeen.add(tool)) toolsSeenCount++;
        }
        lastTool = tool;
        return lastToolText = toolNameText[slot];
    }

    /** The cache slot of field name {@code name}, taken over (quoted text made, path dropped) when it held another name. */
    private int nameSlot(String name) {
        int slot = name.hashCode() & (NAMES - 1);
        String known = fieldName[slot];
        if (known != name && !name.equals(known)) {
            fieldNameText[slot] = quoted(name);
            fieldName[slot] = name;
            fieldPath[slot] = null;
        }
        return slot;
    }

    /** A quoted argument field name from a small cache (direct-mapped by hash): a tool's field names recur on every call. */
    private byte[] nameText(String name) {
        return fieldNameText[nameSlot(name)];
    }

    /** The path of a top-level argument field, from the same cache as its name's text. */
    private Args.Path namePath(String name) {
        int slot = nameSlot(name);
        Args.Path p = fieldPath[slot];
        if (p == null) fieldPath[slot] = p = Args.Path.field(name);
        return p;
    }

    /** {@code ,"ts":} and epoch milliseconds in decimal, with the digits of the second kept until the second changes (fixed size: written into the slack). */
    private void tsField(long ms) {
        if (ms < 1_000_000) { putc(K_TS); numc(ms); return; }   // the cache needs a second of at least four digits
        long second = ms / 1000;
        if (second != tsSecond) {
            // ,"ts":<the digits of the second>
            System.arraycopy(K_TS, 0, tsSecondText, 0, K_TS.length);
            tsSecondLength = digits(second, tsSecondText, K_TS.length);
            tsSecond = second;
        }
        int rest = (int) (ms - second * 1000);
        System.arraycopy(tsSecondText, 0, buf, len, tsSecondLength);
        len += tsSecondLength;
        buf[len++] = (byte) ('0' + rest / 100);
        int pair = (rest % 100) << 1;
        buf[len++] = DIGIT_PAIRS[pair];
        buf[len++] = DIGIT_PAIRS[pair + 1];
    }

    /** {@code ,"kind":"<kind in lower case>"}. */
    private void kind(String kind) {
        // a record's kind is an EventKind's name or a literal: the same instance as one of KINDS, usually
        for (int i = 0; i < KINDS.length; i++) if (KINDS[i] == kind) { putc(KIND_FIELDS[i]); return; }
        for (int i = 0; i < KINDS.length; i++) {
            if (KINDS[i].equals(kind)) { putc(KIND_FIELDS[i]); return; }
        }
        putc(K_KIND);
        str(kind.toLowerCase(Locale.ROOT));
    }

    private byte[][] verdictText(String[] table) {
        if (table != verdictTable) {
            verdictTableText = quotedAll(table);
            verdictTable = table;
        }
        return verdictTableText;
    }

    private byte[][] atomText(String[] table) {
        if (table != atomTable) {
            atomTableText = quotedAll(table);
            atomTable = table;
        }
        return atomTableText;
    }

    private static byte[][] quotedAll(String[] table) {
        byte[][] out = new byte[table.length][];
        for (int i = 0; i < table.length; i++) out[i] = table[i] == null ? NULL : quoted(table[i]);
        return out;
    }

    private static byte[] quoted(String s) {
        byte[] out = new byte[2 + 6 * s.length()];
        return Arrays.copyOf(out, encode(s, out, 0));
    }

    /** {@code "s} (the opening quote and the text, no closing quote). */
    private static byte[] quotedOpen(String s) {
        byte[] q = quoted(s);
        return Arrays.copyOf(q, q.length - 1);
    }

    private static byte[] keyText(String k) {
        byte[] q = quoted(k);
        byte[] out = new byte[q.length + 2];
        out[0] = ',';
        System.arraycopy(q, 0, out, 1, q.length);
        out[out.length - 1] = ':';
        return out;
    }

    private static byte[] ascii(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    // ------------------------------------------------------------------ values

    private void key(String k) {
        put(',');
        str(k);
        put(':');
    }

    private void strings(String[] a) {
        put('[');
        for (int i = 0; i < a.length; i++) {
            if (i > 0) put(',');
            if (a[i] == null) put(NULL); else str(a[i]);
        }
        put(']');
    }

    /**
     * Bytes of one line after which the elements of an argument or result container still to come are left out, with a
     * marker in their place ({@link #cutHere}): the agent bounds an argument list's text ({@code ValueText.MAX_CHARS}), but
     * a pseudonymised line writes every scalar as a digest of about 40 characters, so a million one-letter cells (4 MB of
     * JSON) became a line of 42 MB (trial47 07; at 9 million cells the writer worked for minutes and records were lost at
     * exit). A long string is one scalar and is not cut here.
     */
    static final int MAX_LINE_BYTES = 8 << 20;
    static final String CUT = "[cut: the audit record reached " + MAX_LINE_BYTES + " bytes; the rest of this value is not written]";

    /** True (the marker then written in the element's place) when the line is past {@link #MAX_LINE_BYTES}. */
    private boolean cutHere(boolean object) {
        if (len <= MAX_LINE_BYTES) return false;
        if (object) {
            str("[cut]");
            put(':');
        }
        str(CUT);
        return true;
    }

    /** Values nested deeper than this (or a structure that contains itself) are written as a note. */
    static final int MAX_DEPTH = 64;
    static final String TOO_DEEP = "(nested more than 64 levels: not written)";

    /** Writes a JSON-like value; with {@code personal}, scalars are pseudonymised and structure is kept. */
    private void value(Object v, boolean personal, int depth) {
        if (v == null) { put(NULL); return; }
        if (depth > MAX_DEPTH) { str(TOO_DEEP); return; }
        if (v instanceof JsonNode) { node((JsonNode) v, personal, depth); return; }
        if (v instanceof CharSequence) {
            scalarText(v.toString(), personal);
            return;
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            integer(((Number) v).longValue(), personal);
            return;
        }
        if (v instanceof Number) { number(numberText((Number) v), personal); return; }
        if (v instanceof Boolean) { bool((Boolean) v, personal); return; }
        if (v instanceof Map) {
            put('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) put(',');
                if (cutHere(true)) break;
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
                if (cutHere(false)) break;
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
                if (cutHere(false)) break;
                value(Array.get(v, i), personal, depth + 1);
            }
            put(']');
            return;
        }
        // anything else (an enum, a domain object): its text, which is what a model would see
        scalarText(v.toString(), personal);
    }

    /**
     * Top-level arguments where the fields named in {@code clear} (a consent tool's purposes and grant, which
     * are not personal data) are written as they are and every other field is personal data.
     */
    private void argsKeepingClear(JsonNode args, String[] clear) {
        put('{');
        boolean first = true;
        for (Map.Entry<String, JsonNode> e : args.properties()) {
            if (!first) put(',');
            if (cutHere(true)) break;
            put(nameText(e.getKey()));
            put(':');
            boolean personal = true;
            if (clear != null) for (String c : clear) if (c.equals(e.getKey())) { personal = false; break; }
            argument(e.getKey(), e.getValue(), personal);
            first = false;
        }
        put('}');
    }

    /** The record's subject fields (see {@link AuditRecord#subjectFields}); null: none. Writer thread only. */
    private String[] subjects;

    /** A top-level argument: a subject field's text or integer as a subject, anything else as {@link #node}. */
    private void argument(String name, JsonNode value, boolean personal) {
        if (personal && pseudonymiser != null && subjects != null && (value.isTextual() || value.isIntegralNumber())) {
            for (String f : subjects) {
                if (f.equals(name)) {
                    subject(value.asText());   // the number 42 is the subject "42", as the contracts read it
                    return;
                }
            }
        }
        node(value, personal, 1);
    }

    /** A data subject: digested in the form subjects compare, so that equal subjects have equal digests; as it is in clear. */
    private void subject(String subject) {
        personal('s', pseudonymiser == null ? subject : Pseudonymiser.subjectForm(subject));
    }

    /**
     * An event's arguments. Arguments that are one flat object of scalars (what a method's parameters or a
     * tool's usual JSON give) are read field by field from their leaves, without the Jackson tree that
     * {@link Args#root()} would build for arguments made from fields; any other shape is written from the tree.
     */
    private void args(Args a, String[] clear) {
        if (!flat(a)) {
            ObjectNode root = a.root();
            if (clear != null || (subjects != null && pseudonymiser != null)) argsKeepingClear(root, clear);
            else node(root, true, 0);
            return;
        }
        put('{');
        for (int i = 0, n = a.leafCount(); i < n; i++) {
            if (i > 0) put(',');
            String name = a.leafName(i);
            put(nameText(name));
            put(':');
            boolean personal = true;
            if (clear != null) for (String c : clear) if (c.equals(name)) { personal = false; break; }
            argument(name, a.leafValue(i), personal);
        }
        put('}');
    }

    /**
     * Whether the arguments are exactly their leaves, in order: as many top-level fields as leaves, leaf names
     * distinct, and each leaf name's top-level field is that very leaf. Then no field is null, an object or an
     * array (n distinct names reach n top-level scalars, which are all the fields), so the leaves are the fields.
     */
    private boolean flat(Args a) {
        int n = a.leafCount();
        if (n > FLAT_MAX || n != a.size()) return false;
        for (int i = 0; i < n; i++) {
            String name = a.leafName(i);
            for (int j = 0; j < i; j++) if (name.equals(a.leafName(j))) return false;
            if (a.get(namePath(name)) != a.leafValue(i)) return false;
        }
        return true;
    }

    private static final int FLAT_MAX = 16;

    private void node(JsonNode n, boolean personal, int depth) {
        if (depth > MAX_DEPTH) { str(TOO_DEEP); return; }
        if (n.isObject()) {
            put('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                if (!first) put(',');
                if (cutHere(true)) break;
                put(nameText(e.getKey()));
                put(':');
                node(e.getValue(), personal, depth + 1);
                first = false;
            }
            put('}');
        } else if (n.isArray()) {
            put('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) put(',');
                if (cutHere(false)) break;
                node(n.get(i), personal, depth + 1);
            }
            put(']');
        } else if (n.isNumber()) {
            if (n.isInt() || n.isLong() || n.isShort()) integer(n.longValue(), personal);
            else number(numberText(n.numberValue()), personal);
        } else if (n.isBoolean()) {
            bool(n.booleanValue(), personal);
        } else if (n.isNull() || n.isMissingNode()) {
            put(NULL);
        } else {
            scalarText(n.asText(), personal);
        }
    }

    private void scalarText(String s, boolean personal) {
        if (personal && pseudonymiser != null) personal('s', s);
        else str(s);
    }

    /** A personal value's digest (or the value itself when the log is clear), as a JSON string. */
    private void personal(char tag, String s) {
        if (pseudonymiser == null) { str(s); return; }
        int n = s.length();
        int slot = -1;
        if (n <= RECENT_MAX_CHARS) {
            slot = (s.hashCode() * 31 + tag) & (RECENT - 1);
            String known = recentValue[slot];
            if (known != null && recentTag[slot] == tag && known.equals(s)) {
                quotedDigest(recentText[slot]);
                return;
            }
        }
        int start = len + 1;
        if (text.length < n) text = new byte[Math.max(n, 2 * text.length)];
        int ascii = 0;
        while (ascii < n && s.charAt(ascii) < 0x80) {
            text[ascii] = (byte) s.charAt(ascii);
            ascii++;
        }
        if (ascii == n) {
            digestText(tag, text, n);
        } else {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8); // the digest is defined over getBytes' UTF-8
            digestText(tag, utf8, utf8.length);
        }
        if (slot >= 0) {
            recentText[slot] = remember(recentText[slot], start);
            recentValue[slot] = s;
            recentTag[slot] = tag;
        }
    }

    /** Copies the digest text just written at {@code start} (before its closing quote) into {@code into}, reused when it fits. */
    private byte[] remember(byte[] into, int start) {
        int n = len - 1 - start;
        if (into == null || into.length != n) into = new byte[n];
        System.arraycopy(buf, start, into, 0, n);
        return into;
    }

    private void quotedDigest(byte[] digestText) {
        ensure(2 + digestText.length);
        buf[len++] = '"';
        System.arraycopy(digestText, 0, buf, len, digestText.length);
        len += digestText.length;
        buf[len++] = '"';
    }

    private void digestText(char tag, byte[] value, int n) {
        ensure(2 + pseudonymiser.textLength());
        buf[len++] = '"';
        len = pseudonymiser.write(tag, value, 0, n, buf, len);
        buf[len++] = '"';
    }

    private void integer(long v, boolean personal) {
        if (personal && pseudonymiser != null) {
            int slot = (Long.hashCode(v) * 31 + 'n') & (RECENT - 1);
            if (recentNumberSet[slot] && recentNumber[slot] == v) {
                quotedDigest(recentNumberText[slot]);
                return;
            }
            int n = digits(v, text, 0);
            int start = len + 1;
            digestText('n', text, n);
            recentNumberText[slot] = remember(recentNumberText[slot], start);
            recentNumber[slot] = v;
            recentNumberSet[slot] = true;
        } else {
            num(v);
        }
    }

    private void number(String text, boolean personal) {
        if (text == null) { put(NULL); return; }
        if (personal && pseudonymiser != null) personal('n', text);
        else raw(text);
    }

    private void bool(boolean b, boolean personal) {
        if (personal && pseudonymiser != null) personal('b', b ? "true" : "false");
        else put(b ? TRUE : FALSE);
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

    private void num(long v) {
        ensure(20);
        len = digits(v, buf, len);
    }

    /** Writes {@code v} in decimal as {@link Long#toString(long)} does; returns the end. */
    static int digits(long v, byte[] out, int at) {
        if (v == Long.MIN_VALUE) {
            byte[] min = ascii(Long.toString(v));
            System.arraycopy(min, 0, out, at, min.length);
            return at + min.length;
        }
        if (v < 0) {
            out[at++] = '-';
            v = -v;
        }
        if (v < 10) {
            out[at] = (byte) ('0' + v);
            return at + 1;
        }
        // the digit count from the bit length (log10 2 ~ 1233 / 4096), then one comparison to settle it
        int t = ((64 - Long.numberOfLeadingZeros(v)) * 1233) >>> 12;
        int end = at + t + (v >= POWERS_OF_TEN[t] ? 1 : 0);
        int i = end;
        while (v >= 100) {   // two digits per division (a multiplication, once compiled)
            long q = v / 100;
            int r = (int) (v - q * 100) << 1;
            out[--i] = DIGIT_PAIRS[r + 1];
            out[--i] = DIGIT_PAIRS[r];
            v = q;
        }
        if (v >= 10) {
            int r = (int) v << 1;
            out[--i] = DIGIT_PAIRS[r + 1];
            out[--i] = DIGIT_PAIRS[r];
        } else {
            out[--i] = (byte) ('0' + v);
        }
        return end;
    }

    private void raw(String ascii) {
        int n = ascii.length();
        ensure(n);
        for (int i = 0; i < n; i++) buf[len++] = (byte) ascii.charAt(i);
    }

    private void put(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, len, bytes.length);
        len += bytes.length;
    }

    private void put(char c) {
        ensure(1);
        buf[len++] = (byte) c;
    }

    /** A JSON string: escapes {@code " \\} and controls, everything else as UTF-8; lone surrogates become U+FFFD. */
    private void str(String s) {
        ensure(2 + 6 * s.length());
        len = encode(s, buf, len);
    }

    /** Writes {@code s} as a JSON string at {@code at} (room for {@code 2 + 6 * s.length()} bytes needed); returns the end. */
    private static int encode(String s, byte[] buf, int len) {
        int n = s.length();
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
        return len;
    }

    /**
     * Makes room for {@code more} bytes and {@link #SLACK} bytes after them. The slack is what the fixed-size pieces
     * of an event line (keys, literals, numbers, the one-word atoms, the hash field) are written into without a check
     * of their own ({@link #putc}, {@link #numc}): all of them together are less than {@code SLACK} bytes, and every
     * piece of variable length (a string, a value, a list) is written through a check that restores the slack.
     */
    private void ensure(int more) {
        if (len + more + SLACK > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more + SLACK));
    }

    private static final int SLACK = 1024;

    /** A fixed-size piece of an event line, written into the slack that the last {@link #ensure} left. */
    private void putc(byte[] bytes) {
        System.arraycopy(bytes, 0, buf, len, bytes.length);
        len += bytes.length;
    }

    /** A number of an event line's fixed part (at most 20 bytes), written into the slack. */
    private void numc(long v) {
        len = digits(v, buf, len);
    }
}
