package dev.tracegate.matchers.event;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.matchers.pii.DataCategory;
import dev.tracegate.matchers.predicate.Identifiers;
import dev.tracegate.matchers.pii.DataCategoryExtractor;
import dev.tracegate.matchers.pii.SpanSink;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One step of an agent session as contracts see it: who acted (kind), which tool with which
 * arguments, what came back, what was said, and the GDPR facts (subject, purposes, categories).
 * Immutable; its arguments are parsed once when it is built.
 */
public final class Event {
    private static final String[] NO_STRINGS = new String[0];

    private final String session;
    private final long seq;
    private final long ts;
    private final EventKind kind;
    /**
     * The tool name as given, folded and bare ({@link #tool}, {@link #toolKey}, {@link #toolBare}): null for none; the
     * name itself when all three are the same String (a folded name without an MCP prefix, as a configured tool's is);
     * else a {@code String[3]} shared by the events of that name ({@link #NAMES}). One field instead of three: each of
     * an intercepted call's two events is 8 B smaller for it (88 B to 80 B, session 22).
     */
    private final Object toolNames;
    /** The {@link #toolNames} of the tool names seen that are not folded or have an MCP prefix, up to {@link #MAX_NAMES}. */
    private static final java.util.concurrent.ConcurrentHashMap<String, String[]> NAMES = new java.util.concurrent.ConcurrentHashMap<>();
    /** Beyond this many such names (a model that invents them), an event makes its own array. */
    static final int MAX_NAMES = 1024;
    /** The framework's id of the call, or null: then {@link #callNumber} may give it. */
    private final String callId;
    /**
     * The number N of an id the agent generated ({@code tg-N}, {@link #GENERATED_ID}) for a call whose framework gives none,
     * kept as the number and spelled only where it is read ({@link #callId()}; the audit line writes its digits): 0 for none
     * (then {@link #callId} is the id). An int, in the event's padding: a String of the id cost 88 B a call (session 24);
     * a number beyond an int's range is spelled as {@link #callId} when the event is made.
     */
    private final int callNumber;
    /** How an id the agent generates begins ({@code tg-N}, N counting the JVM's generated ids from 1): the agent's Dispatcher's. */
    public static final String GENERATED_ID = "tg-";
    private final Args args;
    private final String result;
    private final boolean error;
    /**
     * The fields a tool call or result never has (text, subject, purposes, categories, consent, tokens, depth), in an
     * object of their own; null when all are absent, as for every event an intercepted call makes: each of its two
     * events is 32 B smaller for it (120 B to 88 B, session 20).
     */
    private final More more;
    /**
     * The categories detected in text and result once known, and those found by scans that stopped early (present, but
     * maybe not all: grows): a {@link CategoryMemo}, 0 before (idempotent memo). One int for two longs: 8 B less an event
     * (80 B to 72 B, session 23).
     */
    private volatile int categories;
    /** {@link Identifiers#values} of the result; null before first use (idempotent memo). */
    private volatile long[] resultValues;

    /** The fields of {@link #more}; an event without it reads them as absent. */
    private static final class More {
        final String text;
        final String subject;
        final String[] purposes;
        final String[] categories;
        final boolean granted;
        final long tokens;
        final int depth;
        /** {@link Identifiers#values} of the text; null before first use (idempotent memo). */
        volatile long[] textValues;

        More(String text, String subject, String[] purposes, String[] categories, boolean granted, long tokens, int depth) {
            this.text = text;
            this.subject = subject;
            this.purposes = purposes;
            this.categories = categories;
            this.granted = granted;
            this.tokens = tokens;
            this.depth = depth;
        }
    }

    private Event(Builder b) {
        this.session = b.session == null ? "" : b.session;
        this.seq = b.seq;
        this.ts = b.ts;
        this.kind = Objects.requireNonNull(b.kind, "kind");
        this.toolNames = toolNames(b.tool);
        this.callId = b.callId;
        this.callNumber = 0;
        this.args = b.args == null ? Args.NONE : b.args;
        this.result = b.result;
        String subject = b.subject == null || b.subject.isBlank() ? null : b.subject.trim();
        String[] purposes = fold(b.purposes);
        String[] categories = fold(b.categories);
        this.more = b.text == null && subject == null && purposes.length == 0 && categories.length == 0 && b.granted
                && b.tokens == -1 && b.depth == 0 ? null : new More(b.text, subject, purposes, categories, b.granted, b.tokens, b.depth);
        this.error = b.error;
    }

    /** A tool call or its return with what the builder would leave unset at its defaults (see {@link #toolEvent}). */
    private Event(EventKind kind, String session, long seq, long ts, String tool, String callId, long callNumber, Args args,
                  String result, boolean error) {
        this.session = session == null ? "" : session;
        this.seq = seq;
        this.ts = ts;
        this.kind = Objects.requireNonNull(kind, "kind");
        this.toolNames = toolNames(tool);
        if (callId == null && callNumber > Integer.MAX_VALUE) {
            this.callId = generatedId(callNumber);   // beyond 2^31 generated ids in one JVM: spelled now
            this.callNumber = 0;
        } else {
            this.callId = callId;
            this.callNumber = callId == null && callNumber > 0 ? (int) callNumber : 0;
        }
        this.args = args == null ? Args.NONE : args;
        this.result = result;
        this.more = null;   // no text, subject, purposes, categories; granted, tokens -1, depth 0
        this.error = error;
    }

    /** {@link #toolNames} for a tool name as given. */
    private static Object toolNames(String tool) {
        if (tool == null) return null;
        String key = ToolName.fold(tool);   // the name itself when it is folded: no allocation
        if (key == tool && ToolName.bare(key) == key) return tool;
        String[] names = NAMES.get(tool);
        if (names != null) return names;
        names = new String[] {tool, key, ToolName.bare(key)};
        if (NAMES.size() < MAX_NAMES) {
            String[] raced = NAMES.putIfAbsent(tool, names);
            if (raced != null) names = raced;
        }
        return names;
    }

    /**
     * The event {@code builder(kind).session(session).seq(seq).ts(ts).tool(tool).callId(callId).args(args)
     * .result(result).error(error).build()} gives, made without a builder: a CALL or RETURN as the agent
     * reports one per intercepted call.
     */
    public static Event toolEvent(EventKind kind, String session, long seq, long ts, String tool, String callId, Args args,
                                  String result, boolean error) {
        return new Event(kind, session, seq, ts, tool, callId, 0, args, result, error);
    }

    /**
     * As {@link #toolEvent(EventKind, String, long, long, String, String, Args, String, boolean)}, for a call whose id the
     * agent generated: {@code tg-callNumber} ({@code callNumber >= 1}), which {@link #callId()} spells when read.
     */
    public static Event toolEvent(EventKind kind, String session, long seq, long ts, String tool, long callNumber, Args args,
                                  String result, boolean error) {
        if (callNumber <= 0) throw new IllegalArgumentException("a generated call id's number is at least 1, not " + callNumber);
        return new Event(kind, session, seq, ts, tool, null, callNumber, args, result, error);
    }

    /**
     * {@code tg-n} ({@link #GENERATED_ID} and the decimal digits of {@code n >= 1}), as the agent's Dispatcher spells a
     * generated call id: the digits written into the bytes the String copies once.
     */
    public static String generatedId(long n) {
        int digits = 1;
        for (long t = n; t >= 10; t /= 10) digits++;
        byte[] b = new byte[3 + digits];
        b[0] = 't';
        b[1] = 'g';
        b[2] = '-';
        for (int i = b.length - 1; i >= 3; i--, n /= 10) b[i] = (byte) ('0' + n % 10);
        return new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /**
     * N of an id spelled {@code tg-N} as {@link #generatedId} spells it (no sign, no leading zero, N at least 1 and at most
     * {@code Long.MAX_VALUE}), else 0: the number a generated id given as text stands for, so that its CALL and RETURN pair
     * up whichever form each carries.
     */
    public static long generatedNumber(String id) {
        if (id == null || id.length() < 4 || id.length() > 22 || id.charAt(0) != 't' || id.charAt(1) != 'g' || id.charAt(2) != '-'
                || id.charAt(3) == '0') {
            return 0;
        }
        long n = 0;
        for (int i = 3; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c < '0' || c > '9') return 0;
            int d = c - '0';
            if (n > (Long.MAX_VALUE - d) / 10) return 0;
            n = n * 10 + d;
        }
        return n;
    }

    private static String[] fold(Collection<String> in) {
        if (in == null || in.isEmpty()) return NO_STRINGS;
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (String s : in) {
            if (s != null && !s.isBlank()) out.add(s.trim().toLowerCase(Locale.ROOT));
        }
        return out.toArray(NO_STRINGS);
    }

    /** A builder for an event of the given kind. */
    public static Builder builder(EventKind kind) { return new Builder(kind); }

    /** A tool call with arguments as JSON text (LangChain4j, Spring AI); malformed JSON is kept raw, see {@link Args}. */
    public static Event call(String session, long seq, String tool, String argsJson) {
        return builder(EventKind.CALL).session(session).seq(seq).tool(tool).args(Args.ofJson(argsJson)).build();
    }

    /** A tool call with arguments as a Java map (MCP). */
    public static Event call(String session, long seq, String tool, Map<String, ?> args) {
        return builder(EventKind.CALL).session(session).seq(seq).tool(tool).args(Args.of(args)).build();
    }

    /** A tool's result. */
    public static Event returned(String session, long seq, String tool, String result, boolean error) {
        return builder(EventKind.RETURN).session(session).seq(seq).tool(tool).result(result).error(error).build();
    }

    /** A user message. */
    public static Event user(String session, long seq, String text) {
        return builder(EventKind.USER).session(session).seq(seq).text(text).build();
    }

    /** Model output. */
    public static Event assistant(String session, long seq, String text) {
        return builder(EventKind.ASSISTANT).session(session).seq(seq).text(text).build();
    }

    public String session() { return session; }
    public long seq() { return seq; }
    /** Timestamp in epoch milliseconds (0 when unknown). */
    public long ts() { return ts; }
    public EventKind kind() { return kind; }
    /** True for CALL and ASSISTANT, the events the agent controls. */
    public boolean controlledByAgent() { return kind.controlledByAgent(); }
    /** The tool name as given, or null. */
    public String tool() { return name(0); }
    /** The tool name trimmed and lower-cased, or null. */
    public String toolKey() { return name(1); }
    /** The folded tool name without an {@code mcp__server__} prefix, or null. */
    public String toolBare() { return name(2); }

    /** The tool name as given (0), folded (1) or bare (2). */
    private String name(int which) {
        Object n = toolNames;
        return n == null || n instanceof String ? (String) n : ((String[]) n)[which];
    }
    /**
     * The framework's id of the call a RETURN answers, or null; a generated id ({@link #callNumber()}) is spelled
     * {@code tg-N} anew at each read (its hot readers take the number instead).
     */
    public String callId() {
        String id = callId;
        if (id != null) return id;
        int n = callNumber;
        return n == 0 ? null : generatedId(n);
    }

    /** N of a generated id {@code tg-N} that the event keeps as its number, 0 when it has none or keeps the id as text. */
    public long callNumber() { return callNumber; }
    /** The arguments; {@link Args#NONE} when the event has none. */
    public Args args() { return args; }
    /** True when the event carries arguments (a non-empty object or a malformed raw value). */
    public boolean hasArgs() { return args != Args.NONE; }
    public String result() { return result; }
    public String text() { More m = more; return m == null ? null : m.text; }
    /** The data subject the event concerns, trimmed, or null. */
    public String subject() { More m = more; return m == null ? null : m.subject; }
    /** For CONSENT: true when consent is granted, false when withdrawn. */
    public boolean granted() { More m = more; return m == null || m.granted; }
    /** For RETURN: true when the tool failed. */
    public boolean error() { return error; }
    /** Model tokens this event accounts for, or -1 when unknown. */
    public long tokens() { More m = more; return m == null ? -1 : m.tokens; }
    /** Delegation depth: 0 for the top-level agent, 1 for a sub-agent it called, and so on. */
    public int depth() { More m = more; return m == null ? 0 : m.depth; }

    /**
     * Data categories the extractor finds in the text and the result, as {@link DataCategory#bit()}s;
     * computed on first use and remembered. Arguments: {@link Args#categoryMask}.
     *
     * @param scratch the caller's reusable sink (thread-private)
     */
    public long textCategoryMask(SpanSink.Mask scratch) {
        long d = CategoryMemo.known(categories);
        if (d >= 0) return d;
        long m = 0;
        String text = text();
        if (text != null) m |= DataCategoryExtractor.INSTANCE.mask(text, scratch);
        if (result != null) m |= DataCategoryExtractor.INSTANCE.mask(result, scratch, m);
        rememberTextCategoryMask(m);
        return m;
    }

    /** What {@link #textCategoryMask} remembers, or -1 before it (or {@link #rememberTextCategoryMask}) ran. */
    public long knownTextCategoryMask() {
        return CategoryMemo.known(categories);
    }

    /**
     * Remembers {@code mask} as {@link #textCategoryMask} would compute it, for a caller that scanned the
     * text and the result in full the same way (the grounding, which scans only as far as its atoms ask);
     * a mask remembered before stays.
     */
    public void rememberTextCategoryMask(long mask) {
        int c = categories, n = CategoryMemo.withKnown(c, mask);
        if (n != c) categories = n;
    }

    /** Categories a scan that stopped early found in the text or result (all present, maybe not all there are); 0 when none. */
    public long textCategoriesFound() { return CategoryMemo.found(categories); }

    /** Adds categories found in the text or result by a scan that stopped early (a racing update may drop some: they are found again). */
    public void rememberTextCategoriesFound(long bits) {
        int c = categories, n = CategoryMemo.withFound(c, bits);
        if (n != c) categories = n;
    }

    /**
     * The values the text names, as {@link Identifiers#values} gives them (TextHash hashes: the whole
     * text when short, then each identifier found); empty without text. Computed on first use and
     * remembered, so a retried step, a second library or a replay of this event does not scan again.
     * Read-only by contract: do not modify the array.
     *
     * <p>Any thread may call it: racing first calls compute equal arrays, and the volatile write
     * publishes the array's elements with it.
     */
    public long[] textValues() {
        More m = more;
        if (m == null) return Identifiers.values(null);   // no text: the shared empty array
        long[] v = m.textValues;
        if (v == null) m.textValues = v = Identifiers.values(m.text);
        return v;
    }

    /** The values the result names, like {@link #textValues()}; empty without result. */
    public long[] resultValues() {
        long[] v = resultValues;
        if (v == null) resultValues = v = Identifiers.values(result);
        return v;
    }

    /** Number of declared purposes (lower-cased, distinct). */
    public int purposeCount() { More m = more; return m == null ? 0 : m.purposes.length; }
    public String purpose(int i) { return purposeArray()[i]; }
    /** Declared purposes, lower-cased. */
    public Set<String> purposes() { return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(purposeArray()))); }
    private String[] purposeArray() { More m = more; return m == null ? NO_STRINGS : m.purposes; }

    /** Number of declared data categories (lower-cased, distinct). */
    public int categoryCount() { More m = more; return m == null ? 0 : m.categories.length; }
    public String category(int i) { return categoryArray()[i]; }
    /** Declared data categories, lower-cased (the grounding adds the detected ones). */
    public Set<String> categories() { return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(categoryArray()))); }
    private String[] categoryArray() { More m = more; return m == null ? NO_STRINGS : m.categories; }

    @Override public boolean equals(Object o) {
        return o instanceof Event e && e.seq == seq && e.ts == ts && e.kind == kind && e.granted() == granted()
                && e.error == error && e.tokens() == tokens() && e.depth() == depth() && e.session.equals(session)
                && Objects.equals(e.tool(), tool()) && (e.callNumber == callNumber ? Objects.equals(e.callId, callId) : Objects.equals(e.callId(), callId())) && e.args.equals(args)
                && Objects.equals(e.result, result) && Objects.equals(e.text(), text())
                && Objects.equals(e.subject(), subject()) && Arrays.equals(e.purposeArray(), purposeArray())
                && Arrays.equals(e.categoryArray(), categoryArray());
    }

    @Override public int hashCode() { return Objects.hash(session, seq, kind, tool(), args, result, text()); }

    @Override public String toString() {
        StringBuilder b = new StringBuilder().append(kind).append('#').append(seq).append('@').append(session);
        if (tool() != null) b.append(' ').append(tool());
        if (args != Args.NONE) b.append(' ').append(args.json());
        if (result != null) b.append(" -> ").append(abbreviate(result));
        String text = text();
        if (text != null) b.append(" \"").append(abbreviate(text)).append('"');
        return b.toString();
    }

    private static String abbreviate(String s) { return s.length() <= 60 ? s : s.substring(0, 57) + "..."; }

    /** Builds events, in code or in the agent; only the kind is required. */
    public static final class Builder {
        private final EventKind kind;
        private String session;
        private long seq;
        private long ts;
        private String tool;
        private String callId;
        private Args args;
        private String result;
        private String text;
        private String subject;
        private Collection<String> purposes;
        private Collection<String> categories;
        private boolean granted = true;
        private boolean error;
        private long tokens = -1;
        private int depth;

        private Builder(EventKind kind) { this.kind = Objects.requireNonNull(kind, "kind"); }

        public Builder session(String v) { session = v; return this; }
        public Builder seq(long v) { seq = v; return this; }
        public Builder ts(long v) { ts = v; return this; }
        public Builder tool(String v) { tool = v; return this; }
        public Builder callId(String v) { callId = v; return this; }
        public Builder args(Args v) { args = v; return this; }
        /** Arguments as JSON text; see {@link Args#ofJson}. */
        public Builder args(String json) { args = Args.ofJson(json); return this; }
        public Builder args(Map<String, ?> v) { args = Args.of(v); return this; }
        public Builder args(JsonNode v) { args = Args.of(v); return this; }
        public Builder result(String v) { result = v; return this; }
        public Builder text(String v) { text = v; return this; }
        public Builder subject(String v) { subject = v; return this; }
        public Builder purposes(Collection<String> v) { purposes = v; return this; }
        public Builder purposes(String... v) { purposes = Arrays.asList(v); return this; }
        public Builder categories(Collection<String> v) { categories = v; return this; }
        public Builder categories(String... v) { categories = Arrays.asList(v); return this; }
        public Builder granted(boolean v) { granted = v; return this; }
        public Builder error(boolean v) { error = v; return this; }
        public Builder tokens(long v) { tokens = v; return this; }
        public Builder depth(int v) { depth = v; return this; }

        public Event build() { return new Event(this); }
    }
}
