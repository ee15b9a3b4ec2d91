package dev.tracegate.agent.audit;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One decision of the supervisor about one event, as it will appear as one line of the audit log.
 *
 * <p>The event part ({@code session, seq, ts, kind, tool, id, args, result, text, subject, purposes,
 * categories, granted, error}) has the shape of a trace line, so an audit log replays as a trace; the
 * rest ({@code atoms, verdicts, decision, fired, message, latencyNs, unmet}) says what the supervisor
 * saw and did. A producer fills one instance on its own thread and hands it to
 * {@link AuditWriter#append}; from then on the instance belongs to the writer thread and the producer
 * must neither read nor change it. Arrays passed in are not copied: pass arrays that nobody writes
 * afterwards (tables shared by a whole library, such as atom keys and contract ids, are fine).
 */
public class AuditRecord {
    /** Verdict code: the contract's assumption is permanently violated. */
    public static final byte IDLE = 0;
    /** Verdict code: neither idle nor failed. */
    public static final byte ACTIVE = 1;
    /** Verdict code: the assumption holds so far and the guarantee is permanently violated. */
    public static final byte FAIL = 2;

    static final String[] VERDICT_NAMES = {"IDLE", "ACTIVE", "FAIL"};

    /**
     * The event the record was made from: its session, seq, kind and ts are the record's (no copy of them in the record,
     * 24 B less, session 20), and the writer thread encodes the event part from it unless {@link Rare#part} holds a copy.
     * Null for a record built field by field, whose session, seq, kind and ts are in {@link Rare#head}.
     */
    final Event event;
    /**
     * The fields a passed event's record never sets, in an object of their own made on first use (null: all absent): the
     * record every intercepted call makes twice is 40 bytes smaller for it (136 B to 96 B, session 19).
     */
    Rare rare;

    /** The fields of {@link #rare}; {@link #NONE} stands for a record that set none of them. */
    static final class Rare {
        static final Rare NONE = new Rare();
        /** Session, seq, kind and ts of a record built field by field, or given a ts of its own; null: the event's. */
        Head head;
        /** With atomBits or the record's atomWord, for atoms given without a library table (with one: the table's). */
        String[] atomTable;
        /** With verdictCodes, for verdicts given without a library table (with one: the table's contracts). */
        String[] verdictIds;
        String[] clearFields;
        String[] subjectFields;
        Part part;          // the event part field by field (null: none, or still in event)
        long[] atomBits;    // with atomTable: atomTable[i] held iff bit i of atomBits is set
        String[] atomList;  // or the held keys directly
        byte[] verdictCodes;
        String[] fired;
        boolean approved;
        /** A streamed answer's record: what its reader saw before and after the check; null for any other record. */
        Streamed streamed;
        String message;
        String[] unmet;
        /** A {@code register} record (path, lines, sha256) instead of an event; null for an event. */
        String[] registerRead;
        /**
         * The verdict word of a record whose verdicts do not share its {@link #atomWord} ({@link #SHARED}) and that is no
         * {@link Wide}: given against another table than its atoms, or a table too large to share the word.
         */
        long verdictWord;
        /**
         * The time (epoch ms) at which the decision was taken, unless {@link #TIME_IS_TS} says it is the event's ts; 0 =
         * "stamp it when appended".
         */
        long timeMillis;
        /** The latency of a decision that took {@link #LATENCY_RARE} ns or longer (an approval's wait). */
        long latencyNs;
        /** The W3C ids of the OpenTelemetry span current where the record was made ({@link #trace}); both null: none. */
        String traceId, spanId;
    }

    /** The record's session, seq, kind and ts where they are not its event's. */
    static final class Head {
        final String session;
        final long seq;
        final String kind;
        long ts = Long.MIN_VALUE; // MIN_VALUE = absent

        Head(String session, long seq, String kind) {
            this.session = Objects.requireNonNull(session, "session");
            this.seq = seq;
            this.kind = Objects.requireNonNull(kind, "kind");
        }
    }

    /** The rare fields, made on first use. The producer's thread only, before the append. */
    private Rare rare() {
        Rare x = rare;
        if (x == null) rare = x = new Rare();
        return x;
    }

    /** The rare fields as read by the encoder: {@link Rare#NONE} when none was set. */
    Rare rareOrNone() { Rare x = rare; return x != null ? x : Rare.NONE; }

    /**
     * The event part beyond session, seq, kind and ts, field by field: for a record built field by field, or a record
     * made from an event one of whose fields a setter overrides (the supervisor's records carry only the event).
     */
    static final class Part {
        static final Part NONE = new Part();
        String tool;
        String id;
        Object args;
        Object result;
        String text;
        String subject;
        String[] purposes;
        String[] categories;
        byte granted = -1; // -1 absent, 0 false, 1 true
        boolean error;
        long tokens = -1;  // -1 absent
        int depth;         // 0 absent
    }

    // compact form against a library table (written as format 3's lib, atoms and verdicts strings); the atom table and
    // the verdicts' contract ids are then the table's (ATOMS and VERDICTS say which were given), else those of Rare
    LibraryTable table;
    /**
     * The valuation when the table has at most 64 atoms (else atomBits); with {@link #SHARED}, also the verdicts' packed
     * word ({@link #verdicts(LibraryTable, long)}: 2 bits per contract) above the table's atoms, when the atoms and twice
     * the contracts fit 64 bits (the bench's 10-contract library: 16 + 20): one long instead of two, a record 48 B to 40 B
     * (session 24). The verdicts of a larger table are in {@link Wide#verdictWord} (or {@link Rare#verdictWord}).
     */
    long atomWord;
    /**
     * The decision's ordinal ({@link #decision()}): a byte, not a reference, and with the latency as an int and the time
     * read from the event, a passed event's record is 48 B instead of 64 (session 22).
     */
    final byte decision;
    private static final Decision[] DECISIONS = Decision.values();
    /**
     * How long the decision took in nanoseconds, -1 absent; {@link #LATENCY_RARE}: longer than an int holds (2.1 s), in
     * {@link Rare#latencyNs}.
     */
    int latencyNs = -1;
    static final int LATENCY_RARE = Integer.MAX_VALUE;
    /**
     * How long the producer waited for room in the audit queue ({@code audit.on-full: block}), 0 if it did not: set by the
     * producer's own thread before the offer that accepted it (or before it was turned away), so that thread may read it
     * after {@link AuditWriter#append} returns. Not written to the log: the record was encoded after the wait. A 16-bit
     * float ({@link #roomWait(long)}: 11 bits of nanoseconds, 5 of scale, so three significant digits, as the latency
     * histogram keeps, up to an hour), because it fits the padding of the record: a long made every record 8
     * bytes larger, 16 B more per passed call.
     */
    char roomWait;
    /**
     * {@link #ATOMS}, {@link #VERDICTS}: which of the atom table and the verdicts' ids are set (in the padding: no byte
     * more); {@link #TIME_IS_TS}: the decision time is the event's ts (as the supervisor sets it), not {@link Rare#timeMillis}.
     */
    byte given;
    /** {@link #SHARED}: the verdicts' packed word is in {@link #atomWord}, above {@link LibraryTable#atomCount} bits of atoms. */
    static final byte ATOMS = 1, VERDICTS = 2, TIME_IS_TS = 4, SHARED = 8;

    /**
     * A record against a table whose atoms and verdicts do not fit one long ({@link LibraryTable#oneWord}): the verdicts'
     * packed word in a field of its own, as every record had it before session 24 (48 B).
     */
    static final class Wide extends AuditRecord {
        long verdictWord;

        Wide(Event e, Decision decision) {
            super(e, decision);
        }
    }

    private AuditRecord(String session, long seq, String kind, Decision decision) {
        this.event = null;
        this.decision = (byte) Objects.requireNonNull(decision, "decision").ordinal();
        this.rare = new Rare();
        this.rare.head = new Head(session, seq, kind);
    }

    private AuditRecord(Event e, Decision decision) {
        this.event = Objects.requireNonNull(e, "event");
        this.decision = (byte) Objects.requireNonNull(decision, "decision").ordinal();
    }

    /**
     * A record of the decision about event {@code seq} of {@code session}.
     *
     * @param kind the event kind as in a trace: USER, ASSISTANT, CALL, RETURN, CONSENT, ERASURE, END (written in lower case)
     */
    public static AuditRecord of(String session, long seq, String kind, Decision decision) {
        return new AuditRecord(session, seq, kind, decision);
    }

    /**
     * A {@code register} record: the agent seeded the GDPR register from the first {@code lines} lines of the file
     * {@code path}, whose bytes have SHA-256 {@code sha256} (hex); written once after the segment's header, before any
     * event, so that {@code replay --register} can start from the same register.
     */
    public static AuditRecord registerRead(String path, long lines, String sha256) {
        AuditRecord r = new AuditRecord("", 0, "REGISTER", Decision.PASS);   // (checks as before: session, kind and decision non-null)
        r.rare().registerRead = new String[] {path, Long.toString(lines), sha256};
        return r;
    }

    /**
     * A record whose event part is a copy of {@code e}'s fields (no copy of its arguments: the event is
     * immutable), written as {@link dev.tracegate.matchers.trace.TraceWriter} would write the event.
     */
    public static AuditRecord of(Event e, Decision decision) {
        // the writer thread encodes the record's session, seq, kind, ts and the rest from the event: the producer only
        // hands the event over
        return new AuditRecord(e, decision);
    }

    /**
     * As {@link #of(Event, Decision)}, for a record whose atoms and packed verdicts will be given against {@code table}:
     * one long holds both when they fit ({@link LibraryTable#oneWord}), else the record has a field for the verdicts.
     */
    public static AuditRecord of(Event e, Decision decision, LibraryTable table) {
        return table == null || table.oneWord ? new AuditRecord(e, decision) : new Wide(e, decision);
    }

    /** The session, seq, kind and ts of a record made from an event, copied so that a setter can override one of them. */
    private Head head() {
        Rare x = rare();
        if (x.head == null) {
            Head h = new Head(event.session(), event.seq(), kindOf(event));
            if (event.ts() != 0) h.ts = event.ts();
            x.head = h;
        }
        return x.head;
    }

    private static String kindOf(Event e) {
        EventKind k = e.kind();
        // CALL and RETURN (every intercepted call's two records) by reference: the kind's name() reads the enum constant,
        // an object on a page of its own that a cold call would walk to (session 19); the literals are those very names
        return k == EventKind.CALL ? "CALL" : k == EventKind.RETURN ? "RETURN" : k.name();
    }

    /** Copies the event part from the event given to {@link #of(Event, Decision)}, before a setter overrides one of its fields. */
    void eventPart() {
        Event e = event;
        if (e == null || rareOrNone().part != null) return;
        Part r = new Part();
        r.tool = e.tool();
        r.id = e.callId();
        if (e.hasArgs()) r.args = e.args().root();
        r.result = e.result();
        r.text = e.text();
        r.subject = e.subject();
        if (e.purposeCount() > 0) {
            String[] p = new String[e.purposeCount()];
            for (int i = 0; i < p.length; i++) p[i] = e.purpose(i);
            r.purposes = p;
        }
        if (e.categoryCount() > 0) {
            String[] c = new String[e.categoryCount()];
            for (int i = 0; i < c.length; i++) c[i] = e.category(i);
            r.categories = c;
        }
        if (e.kind() == EventKind.CONSENT) r.granted = (byte) (e.granted() ? 1 : 0);
        r.error = e.error();
        r.tokens = e.tokens();
        r.depth = e.depth();
        rare().part = r;
    }

    /** The event whose fields the encoder writes as the event part: null when there is none or a setter changed one (then {@link #partOrNone}). */
    Event eventToEncode() { return rareOrNone().part == null ? event : null; }

    /** The event part of a record that has no event (or whose event was copied), for the encoder. */
    Part partOrNone() { Part p = rareOrNone().part; return p != null ? p : Part.NONE; }

    /** The event part to set a field of: the event's copied first, so a setter overrides one field of it. */
    private Part part() {
        eventPart();
        Rare x = rare();
        if (x.part == null) x.part = new Part();
        return x.part;
    }

    /** The wall-clock time of the decision in epoch milliseconds (stamped on append when not set). */
    public AuditRecord time(long epochMillis) {
        if (epochMillis != 0 && event != null && epochMillis == event.ts()) {
            given |= TIME_IS_TS;   // the supervisor's records: no field of their own (8 B)
            if (rare != null) rare.timeMillis = 0;
        } else {
            given &= ~TIME_IS_TS;
            if (epochMillis != 0 || rare != null) rare().timeMillis = epochMillis;
        }
        return this;
    }

    /** The event's own timestamp (the trace's {@code ts}), epoch milliseconds. */
    public AuditRecord ts(long epochMillis) { head().ts = epochMillis; return this; }

    /** The event's own timestamp, {@code Long.MIN_VALUE} when absent. */
    long ts() {
        Rare x = rare;
        if (x != null && x.head != null) return x.head.ts;
        long ts = event.ts();
        return ts != 0 ? ts : Long.MIN_VALUE;
    }

    public AuditRecord tool(String tool) { part().tool = tool; return this; }

    /** The tool-call id the framework gave the call, if any. */
    public AuditRecord id(String id) { part().id = id; return this; }

    /**
     * The call's arguments: a {@code Map<String, ?>}, a {@code List}, an array, a
     * {@link CharSequence}, a {@link Number}, a {@link Boolean}, null, or a Jackson {@code JsonNode};
     * nested freely. Personal data: values are hashed unless the log is configured clear.
     */
    public AuditRecord args(Object args) { part().args = args; return this; }

    /**
     * Top-level argument fields that are not personal data and are written in clear even in a hashed log
     * (a consent tool's purposes and grant, so that consent replays); null: every field is personal data.
     */
    public AuditRecord clearFields(String... fields) { rare().clearFields = fields; return this; }

    /**
     * Top-level argument fields that name the data subject (the policies' {@code subject-fields} and the consent and
     * erasure tools' subject fields): in a hashed log their text and integer values are digested in the form subjects
     * compare ({@link Pseudonymiser#subjectForm}), as a consent's or erasure's subject is; null: none.
     */
    public AuditRecord subjectFields(String... fields) { rare().subjectFields = fields; return this; }

    /** The tool's result (same types as {@link #args}); personal data. */
    public AuditRecord result(Object result) { part().result = result; return this; }

    /** User input or model output; personal data. */
    public AuditRecord text(String text) { part().text = text; return this; }

    /** The data subject of a CONSENT or ERASURE event; personal data. */
    public AuditRecord subject(String subject) { part().subject = subject; return this; }

    public AuditRecord purposes(String... purposes) { part().purposes = purposes; return this; }

    public AuditRecord categories(String... categories) { part().categories = categories; return this; }

    /** Whether a CONSENT event grants (true) or withdraws (false). */
    public AuditRecord granted(boolean granted) { part().granted = (byte) (granted ? 1 : 0); return this; }

    /** Whether the tool failed (a RETURN event); its message is the result. */
    public AuditRecord error(boolean error) { part().error = error; return this; }

    /** Cumulative tokens reported with the event (absent when negative). */
    public AuditRecord tokens(long tokens) { part().tokens = tokens; return this; }

    /** Delegation depth of the event (absent when 0). */
    public AuditRecord depth(int depth) { part().depth = depth; return this; }

    /** The keys of the atoms that held at this event. */
    public AuditRecord atoms(String... held) {
        Rare x = rare(); x.atomList = held; x.atomTable = null; x.atomBits = null; given &= ~ATOMS; unTable(); return this;
    }

    /** The atoms that held, as a bit set over a library's atom table: {@code table[i]} held iff bit i is set. */
    public AuditRecord atoms(String[] table, long[] bits) {
        Rare x = rare(); x.atomTable = table; x.atomBits = bits; x.atomList = null; given |= ATOMS; unTable(); return this;
    }

    /**
     * Each contract's verdict after the event: {@code codes[i]} (one of {@link #IDLE}, {@link #ACTIVE},
     * {@link #FAIL}) for contract {@code ids[i]}.
     */
    public AuditRecord verdicts(String[] ids, byte[] codes) {
        if (ids.length != codes.length) {
            throw new IllegalArgumentException("verdicts: " + ids.length + " contract ids but " + codes.length + " codes");
        }
        Rare x = rare(); x.verdictIds = ids; x.verdictCodes = codes; given |= VERDICTS; unTable(); return this;
    }

    /**
     * Leaves the compact form: what was given against the table (its atom table, its contract ids) is kept in the rare
     * fields, as the spelled-out form reads them.
     */
    private void unTable() {
        LibraryTable t = table;
        if (t == null) return;
        unshare();
        Rare x = rare();
        if ((given & ATOMS) != 0 && x.atomTable == null && x.atomList == null) x.atomTable = t.atoms;
        if ((given & VERDICTS) != 0 && x.verdictIds == null) x.verdictIds = t.contracts;
        table = null;
    }

    /** The atom table the atom bits index: the library table's, or the one given with {@link #atoms(String[], long[])}; null: none. */
    String[] atomTable() {
        if ((given & ATOMS) == 0) return null;
        LibraryTable t = table;
        return t != null ? t.atoms : rareOrNone().atomTable;
    }

    /** The contract ids the verdicts are given for: the library table's or those given with {@link #verdicts(String[], byte[])}; null: none. */
    String[] verdictIds() {
        if ((given & VERDICTS) == 0) return null;
        LibraryTable t = table;
        return t != null ? t.contracts : rareOrNone().verdictIds;
    }

    /**
     * The atoms that held, against a library table: bit i of {@code valuation} (word i / 64) is atom i of
     * {@code table}. Copies the bits (one long for tables of up to 64 atoms, no allocation).
     */
    public AuditRecord atoms(LibraryTable table, long[] valuation) {
        if (this.table != table) unshare();   // verdicts given against another table keep their word apart
        this.table = table;
        Rare x = rare;   // the usual record has none: nothing to clear, and none made
        if (x != null) x.atomList = null;
        if (table.atomCount <= 64) {
            long word = valuation.length == 0 ? 0 : valuation[0];
            // below the verdicts when they share the word (bits past the table are no atoms: the encoder masks them too)
            this.atomWord = (given & SHARED) == 0 ? word : atomWord & ~table.atomMask | word & table.atomMask;
            if (x != null) x.atomBits = null;
        } else {
            rare().atomBits = valuation.clone();
        }
        if (x != null) x.atomTable = null;
        given |= ATOMS;   // the table's atoms (no read of the table's array here: the caller's thread)
        return this;
    }

    /**
     * Each contract's verdict, against a library table with at most 32 contracts: bits {@code 2i, 2i+1}
     * of {@code packed} hold contract i's code ({@link #IDLE}, {@link #ACTIVE}, {@link #FAIL}); see
     * {@link #pack}.
     */
    public AuditRecord verdicts(LibraryTable table, long packed) {
        if (table.contractCount > 32) {
            throw new IllegalArgumentException("verdicts: a packed word holds 32 contracts, the table has " + table.contracts.length);
        }
        if (this.table != table) unTable();
        this.table = table;
        if (table.oneWord && !(this instanceof Wide)
                && ((given & ATOMS) == 0 || rare == null || rare.atomBits == null && rare.atomList == null && rare.atomTable == null)) {
            // the atoms (given or to be given) are this table's, in the low bits: the verdicts go above them
            this.atomWord = atomWord & table.atomMask | packed << table.atomCount;
            given |= SHARED;
        } else {
            given &= ~SHARED;
            setVerdictWord(packed);
        }
        if (rare != null) { rare.verdictCodes = null; rare.verdictIds = null; }
        given |= VERDICTS;
        return this;
    }

    /** The verdicts' packed word ({@link #verdicts(LibraryTable, long)}), wherever it is kept. */
    long verdictWord() {
        if ((given & SHARED) != 0) return atomWord >>> table.atomCount;
        if (this instanceof Wide) return ((Wide) this).verdictWord;
        return rareOrNone().verdictWord;
    }

    /** The atoms' word ({@link #atoms(LibraryTable, long[])}), without the verdicts that may share it. */
    long atomWord() {
        return (given & SHARED) != 0 ? atomWord & table.atomMask : atomWord;
    }

    private void setVerdictWord(long packed) {
        if (this instanceof Wide) ((Wide) this).verdictWord = packed;
        else if (packed != 0 || rare != null) rare().verdictWord = packed;
    }

    /** Moves verdicts that share the atoms' word into a word of their own (the table changes, or is left). */
    private void unshare() {
        if ((given & SHARED) == 0) return;
        long packed = verdictWord();
        atomWord &= table.atomMask;
        given &= ~SHARED;
        setVerdictWord(packed);
    }

    /** Each contract's verdict against a library table of any size: {@code codes[i]} for contract i. */
    public AuditRecord verdicts(LibraryTable table, byte[] codes) {
        verdicts(table.contracts, codes);
        this.table = table;
        rare.verdictIds = null;   // the table's
        return this;
    }

    /** {@code packed} with contract {@code i}'s verdict code set to {@code code} (for {@link #verdicts(LibraryTable, long)}). */
    public static long pack(long packed, int i, byte code) {
        return packed & ~(3L << (2 * i)) | ((long) (code & 3) << (2 * i));
    }

    /** Contract {@code i}'s verdict code, whichever way the verdicts were given. */
    byte verdictCode(int i) {
        byte[] codes = rareOrNone().verdictCodes;
        return codes != null ? codes[i] : (byte) (verdictWord() >>> (2 * i) & 3);
    }

    /**
     * An escalated event that the approver allowed, so that it was applied with the escalating contracts
     * ({@code fired}) excused: {@code replay} applies the same excuse.
     */
    public AuditRecord approved(boolean approved) { if (approved || rare != null) rare().approved = approved; return this; }

    /**
     * An {@code assistant} record of a streamed answer, whose text had reached the application before it was checked:
     * what followed it ({@link Streamed}); null for any other record.
     */
    public AuditRecord streamed(Streamed streamed) { if (streamed != null || rare != null) rare().streamed = streamed; return this; }

    /** The ids of the contracts whose violation this decision acted on. */
    public AuditRecord fired(String... contractIds) { if (contractIds != null || rare != null) rare().fired = contractIds; return this; }

    /** The text given to the agent or the operator (the contract's message, the approver's answer). */
    public AuditRecord message(String message) { if (message != null || rare != null) rare().message = message; return this; }

    /**
     * The W3C trace id (32 hex digits) and span id (16) of the OpenTelemetry span that was current on the thread that made
     * the record ({@link TraceIds}), written as {@code trace_id} and {@code span_id}; a record without them has neither.
     */
    public AuditRecord trace(String traceId, String spanId) {
        Rare x = rare();
        x.traceId = Objects.requireNonNull(traceId, "traceId");
        x.spanId = Objects.requireNonNull(spanId, "spanId");
        return this;
    }

    /** How long the decision took, in nanoseconds. */
    public AuditRecord latencyNs(long nanos) {
        if (nanos >= LATENCY_RARE) {
            this.latencyNs = LATENCY_RARE;
            rare().latencyNs = nanos;
        } else {
            this.latencyNs = nanos < 0 ? -1 : (int) nanos;
        }
        return this;
    }

    /** How long the decision took in nanoseconds; negative: absent. */
    long latencyNs() {
        int l = latencyNs;
        return l == LATENCY_RARE ? rare.latencyNs : l;
    }

    /** How long {@link AuditWriter#append} waited for room in the queue for this record (0: no wait). The appending thread only. */
    public long roomWaitNanos() { return (long) (roomWait & 0x7FF) << (roomWait >>> 11); }

    /**
     * Sets {@link #roomWaitNanos()} to {@code nanos} (>= 0), kept to three significant digits, rounded UP: a wait is
     * never read back shorter than it was, so one that outlasted {@code audit.max-block} still reads as longer (rounded
     * down, 50,000,001 ns read back as 49,971,200).
     */
    void roomWait(long nanos) {
        int scale = Math.max(0, 64 - Long.numberOfLeadingZeros(nanos) - 11);
        if (scale > 31) {
            this.roomWait = (char) 0xFFFF;   // beyond the scale (about 73 minutes): the largest value kept
            return;
        }
        long mantissa = (nanos + (1L << scale) - 1) >>> scale;
        if (mantissa > 0x7FF) {   // rounding up carried into a 12th bit: one scale up (its low bit is 0, so exact)
            scale++;
            mantissa >>>= 1;
        }
        this.roomWait = scale > 31 ? (char) 0xFFFF : (char) ((scale << 11) | (int) mantissa);
    }

    /** For END records: the ids (or descriptions) of obligations still waiting when the session ended. */
    public AuditRecord unmet(String... obligations) { if (obligations != null || rare != null) rare().unmet = obligations; return this; }

    public String session() { Rare x = rare; return x != null && x.head != null ? x.head.session : event.session(); }

    public long seq() { Rare x = rare; return x != null && x.head != null ? x.head.seq : event.seq(); }

    public String kind() { Rare x = rare; return x != null && x.head != null ? x.head.kind : kindOf(event); }

    public Decision decision() { return DECISIONS[decision]; }

    /**
     * Whether this is the record of a tool call that did not run when the log cannot take it: one a contract or the approver
     * refused (a block, an escalation not approved), and, when {@code turnedAway} (the log turned the record away under
     * {@code fail: closed}), also one the contracts let through, which the caller then refuses for the log's sake (not a
     * shadow-mode one, which runs). Every other record's event goes on without it: results, user messages, answers,
     * consents, erasures, session ends. Asked by producers only when a record cannot be written; the writer thread asks
     * it ({@code turnedAway} false) of each record under {@code fail: closed}, where a passed record costs two comparisons.
     */
    boolean refusedCall(boolean turnedAway) {
        Decision decision = decision();
        boolean refusedAnyway = decision == Decision.BLOCK || (decision == Decision.ESCALATE && !rareOrNone().approved);
        if (!refusedAnyway && (!turnedAway || decision == Decision.SHADOW_WOULD_BLOCK)) return false;
        return "CALL".equals(kind());
    }

    /** The time (epoch ms) at which the decision was taken; 0 before the append stamps a record given none. */
    public long timeMillis() { return (given & TIME_IS_TS) != 0 ? event.ts() : rareOrNone().timeMillis; }

    /** The held atom keys, whichever way they were given. */
    public List<String> heldAtoms() {
        String[] atomList = rareOrNone().atomList;
        long[] atomBits = rareOrNone().atomBits;
        if (atomList != null) return List.of(atomList);
        String[] atomTable = atomTable();
        if (atomTable == null) return List.of();
        if (atomBits == null) {
            String[] out = new String[atomTable.length];
            int n = 0;
            long atomWord = atomWord();
            for (int i = 0; i < atomTable.length; i++) if ((atomWord & (1L << i)) != 0) out[n++] = atomTable[i];
            return List.of(Arrays.copyOf(out, n));
        }
        String[] out = new String[atomTable.length];
        int n = 0;
        for (int i = 0; i < atomTable.length; i++) {
            if (i >> 6 < atomBits.length && (atomBits[i >> 6] & (1L << i)) != 0) out[n++] = atomTable[i];
        }
        return List.of(Arrays.copyOf(out, n));
    }

    @Override public String toString() {
        Part part = rareOrNone().part;
        String tool = event != null ? event.tool() : part != null ? part.tool : null;
        return "AuditRecord{" + session() + "#" + seq() + " " + kind() + (tool == null ? "" : " " + tool) + " -> " + decision().wire() + "}";
    }
}
