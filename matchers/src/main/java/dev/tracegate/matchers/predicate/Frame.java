package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.pii.SpanSink;

/**
 * Per-thread scratch of one grounding: the event being grounded, its tool ids, and values computed
 * at most once per event (categories, purposes). Reused across events, so the steady path does
 * not allocate. Never shared between threads.
 */
final class Frame {
    final Grounding g;
    Event e;
    SessionState st;
    EventKind kind;
    boolean isCall;
    int toolFull = -1;
    int toolBare = -1;
    /**
     * The folded tool name (by reference) whose ids {@link #toolFull} and {@link #toolBare} hold (null: no tool, ids -1):
     * an event of the same name, as every call of a configured or framework tool is, looks neither up again. Each event
     * is prepared twice (ground and apply), so an intercepted call looked a name up four times (session 23). The ids are
     * the grounding's, which never changes them, and the bare name is a function of the folded one.
     */
    private String idsOf;

    /**
     * Category detection as far as the atoms asked (see Grounding.anyCategory): started, done; found in
     * the declared and mapped categories, the arguments, the text and result; the next text to scan and
     * the end of the texts.
     */
    boolean detectStarted, detectDone;
    long detectBase, detectArgs, detectText;
    int detectNext, detectEnd;
    boolean purposesDone;
    long purposes;
    boolean anyPurpose;

    // output of a value source
    double num;
    JsonNode node;
    CharSequence text;
    Object ref;

    final long[] valueHashes = new long[Identifiers.MAX_PER_TEXT + 1];
    /** Scratch of the erased subjects' search (MentionIndex.foundIn): grown when a longer subject is erased. */
    int[] mentionScratch = new int[64];
    final SpanSink.Mask sink = new SpanSink.Mask();
    final char[] pathBuf = new char[4096];
    /** Scratch of flow(f)'s look for glued values (GluedValues): grown to the longest argument read. */
    char[] gluedBuf = new char[256];
    /** gluedBuf as a CharSequence for TextHash (a URL-shaped span is read through one), made anew when gluedBuf grows. */
    java.nio.CharBuffer gluedView = java.nio.CharBuffer.wrap(gluedBuf);
    private final Matcher[] matchers;
    /** The library's patterns with their literal prefilters, shared by the frames of one grounding. */
    private final TextPattern[] textPatterns;

    Frame(Grounding g) {
        this.g = g;
        this.matchers = new Matcher[g.patterns.length];
        this.textPatterns = g.textPatterns;
    }

    void prepare(Event event, SessionState state) {
        e = event;
        st = state;
        kind = event.kind();
        isCall = kind == EventKind.CALL;
        String key = event.toolKey();
        if (key != idsOf) {
            int full = g.toolId(key);
            toolFull = full;
            toolBare = event.toolBare() == key ? full : g.toolId(event.toolBare());
            idsOf = key;
        }
        detectStarted = false;
        purposesDone = false;
        node = null;
        text = null;
        ref = null;
    }

    /** Releases references to the event and state so a pooled frame does not keep them alive. */
    void release() {
        e = null;
        st = null;
        node = null;
        text = null;
        ref = null;
    }

    boolean tool(int id) { return id >= 0 && (toolFull == id || toolBare == id); }

    /** Unanchored search of pattern {@code p} in {@code s}: the prefilter first, then this thread's RE2/J matcher. */
    boolean find(int p, CharSequence s) {
        TextPattern tp = textPatterns[p];
        int quick = tp.quick(s);
        if (quick != TextPattern.ASK) return quick == TextPattern.YES;
        Matcher m = matchers[p];
        if (m == null) {
            Pattern pattern = tp.regex;
            m = pattern.matcher(s);
            matchers[p] = m;
        } else {
            m.reset(s);
        }
        return m.find();
    }

    /** True when the event carries a category in {@code q} ({@code Grounding.categoriesOf & q}), detecting no further than needed. */
    boolean anyCategory(long q) { return g.anyCategory(this, q); }

    long purposes() {
        if (!purposesDone) {
            purposes = g.purposesOf(this);
            purposesDone = true;
        }
        return purposes;
    }
}
