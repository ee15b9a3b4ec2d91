package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.monitor.Grounder;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.event.ToolName;
import dev.tracegate.matchers.number.NumberText;
import dev.tracegate.matchers.pii.DataCategory;
import dev.tracegate.matchers.pii.DataCategoryExtractor;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.tracegate.matchers.predicate.Nodes.*;

/**
 * A library's atoms compiled against its {@link Policy}: grounds each event into the atoms' truth
 * values and keeps the session counters and context in {@link SessionState}. Build it with
 * {@link #compile}. Thread-safe and shared: per-thread scratch lives in a thread-local frame, and
 * {@link #ground} only reads the state it is given and the {@link SubjectRegister}.
 *
 * <p>With {@link Policy.SubjectScope#GLOBAL} (the default) consents and erasures of data subjects are
 * facts of the runtime, not of a session: {@link #apply} of an accepted consent or erasure (an event,
 * an erasure tool's call or a consent tool's withdrawal, or the successful RETURN of a consent tool's granting call) writes them to this grounding's {@link #register()}, which every
 * session grounded here reads, and which a hot reload hands on ({@link #shareRegister}). This is the one
 * effect of {@code apply} outside the session's state. It is idempotent (an erasure recorded twice, the
 * same consent given twice), so a step that the engine redoes after losing a race records nothing new; but
 * it is not taken back: a consent or an erasure whose step is undone afterwards ({@code SessionMonitor.undo}),
 * or whose redone step is refused, stays recorded (the agent serialises each session's steps, and undoes one
 * only when the audit log refused its record or an internal error followed it under {@code fail: closed}).
 * A consent without a subject is a consent for the whole session and stays in the session.
 */
public final class Grounding implements Grounder<Event> {
    /** Created on first use: a mapper pulls ~280 databind classes into every agent start that may never read JSON here. */
    private static final class Json { static final ObjectMapper MAPPER = new ObjectMapper(); }
    private static final int W_EVENTS = 0;
    /** Category bit for declared categories that the library does not name. */
    private static final long OTHER_CATEGORY = 1L << 63;
    private static final long OTHER_PURPOSE = 1L << 63;
    private static final String PERMISSIONS = "permissions";

    private final List<Atom> atoms;
    private final Policy policy;
    private final Pred[] preds;
    /*
     * The atoms an event can make true or unevaluable: those of its kind that name no tool, kindAtoms[kind], and those
     * of its kind and tool, toolAtoms[kind * tools + tool]. The others are false on it by their guard (Pred.onlyKind,
     * Pred.onlyTool), so an event grounds the atoms of its own tool and the tool-less ones, not every tool's. Neither
     * holds the atoms that kindTrue/toolTrue decide, nor a counter atom (countedAtom) but at a call of its tool.
     */
    private final int[][] kindAtoms;
    private final int[][] toolAtoms;
    private final int toolCount;
    /*
     * Atoms that an event's kind and tool decide (kind atoms such as user or call, and call(T) without an argument
     * pattern): not in kindAtoms or toolAtoms; an event ORs in kindTrue[kind] and toolTrue[kind * tools + tool] (null:
     * none) instead of evaluating them.
     */
    private final long[][] kindTrue;
    private final long[][] toolTrue;
    /*
     * count(T), run(T) and sum(T, f) compared with a number: at any event but a call of T the value is the session's
     * counter as apply left it (run: 0 at a call of another tool), so ground reads it from the state words in one flat
     * loop over these primitive arrays instead of evaluating the atom's Compare and Source; at a call of T the atom is
     * in toolAtoms and evaluated in full. countedSource is COUNTER_COUNT, COUNTER_RUN or COUNTER_SUM.
     */
    private final int[] countedAtom, countedTool, countedSource, countedWord, countedOp;
    private final double[] countedBound;
    private static final int COUNTER_COUNT = 0, COUNTER_RUN = 1, COUNTER_SUM = 2;
    /** Every atom, for an event whose full and bare tool names are two different tools of the library. */
    private final int[] everyAtom;
    private static final int[] NO_ATOMS = {};
    final Pattern[] patterns;
    /** The patterns with their literal prefilters (analysed once, when the library loads). */
    final TextPattern[] textPatterns;
    /**
     * The library's folded tool names in an open-addressing table keyed by length, first and last char
     * ({@link #toolSlot}): an event's tool name is a fresh string, and this spares hashing all of it.
     */
    private final String[] toolSlotNames;
    private final int[] toolSlotIds;
    private final int words;
    private final int refs;

    // counters
    private final int[] countTool, countWord, runTool, runWord, sumTool, sumWord;
    private final Args.Path[] sumPath;
    private final int[] counterWhich, counterWord;
    private final Pred[] sinceInner;
    private final int[] sinceWord;
    // context
    private final Map<String, Integer> ctxSlots;
    private final Latch[] latches;
    /*
     * A RETURN latch reading arg(f) keeps two refs: latchPending, the value of the last accepted CALL of its tool (for a
     * RETURN without a call id), and latchById, a PendingCalls of the accepted CALLs with an id still in flight (a RETURN
     * with an id reads the CALL it answers); -1 for other latches.
     */
    private final int[] latchSlot, latchPending, latchById, latchTool;
    private final int erasedSlot, consentSlot, introducedSlot, namedSlot, permissionSlot;
    /**
     * The consent tools' accepted CALLs still in flight (a {@link PendingCalls} keyed by tool and call id, valued by the
     * call's arguments): a grant counts at the successful RETURN of its call, read from the CALL's arguments; -1 without
     * consent tools.
     */
    private final int consentCallsSlot;
    // GDPR
    private final Map<String, Long> categoryBits;
    private final Map<String, Long> purposeBits;
    private final long[] necessaryPurpose;
    private final long[] necessaryMask;
    private final long[] toolPurposeMask;
    private final String[][] toolPurposeNames;
    private final Args.Path[][] toolFieldPaths;
    private final long[][] toolFieldBits;
    private final Policy.ConsentTool[] consentTools;
    private final Args.Path[] erasureTools;
    private final Args.Path[][] sideEffectTargets;
    /**
     * Per tool: 0 until a call of it was let through by the consent given for the whole session, then 1 if that call had
     * a data subject (the subject mapping reaches the tool: never looked at again), 2 if it had none (said once to
     * {@link #subjectNotes}). Read on that path only, so the cost there is this one array read.
     */
    private final byte[] sessionConsentSeen;
    /** Where a tool whose call had no data subject and ran on the session's consent is said (the agent's log); null: nowhere. */
    private volatile java.util.function.Consumer<String> subjectNotes;
    private final boolean detectCategories;
    /** This thread's frame (lent, on a virtual thread: see Scratch). */
    private final dev.tracegate.engine.monitor.Scratch<Frame> frames;
    // provenance (when the policy has one)
    private final Provenance provenance;
    private final int sightingsSlot;
    private final int[] requestAtoms;     // top-level user_matches atoms, credited on delegated outputs
    private final int[] requestPatterns;
    // consents and erasures of data subjects shared by the runtime's sessions (GLOBAL scope)
    private final boolean sharedSubjects;
    private final boolean subjectTools;
    /** Written only by {@link #shareRegister}, before the grounding steps events (published with the runtime). */
    private SubjectRegister register;

    private Grounding(Compiler c, List<Atom> atoms, Policy policy) {
        this.atoms = List.copyOf(atoms);
        this.policy = policy;
        this.preds = c.preds.toArray(new Pred[0]);
        this.toolCount = c.toolIds.size();   // the tools the atoms name (compiled before this constructor adds a latch's)
        this.everyAtom = new int[preds.length];
        for (int g = 0; g < preds.length; g++) everyAtom[g] = g;
        this.kindAtoms = new int[EventKind.values().length][];
        this.toolAtoms = new int[EventKind.values().length * toolCount][];
        this.kindTrue = new long[EventKind.values().length][];
        this.toolTrue = new long[EventKind.values().length * toolCount][];
        guardedAtoms(preds, toolCount, kindAtoms, toolAtoms, kindTrue, toolTrue);
        List<Integer> counters = new ArrayList<>();
        for (int g = 0; g < preds.length; g++) if (counterTool(preds[g]) >= 0) counters.add(g);
        this.countedAtom = ints(counters);
        this.countedTool = new int[countedAtom.length];
        this.countedSource = new int[countedAtom.length];
        this.countedWord = new int[countedAtom.length];
        this.countedOp = new int[countedAtom.length];
        this.countedBound = new double[countedAtom.length];
        for (int i = 0; i < countedAtom.length; i++) {
            Compare cmp = (Compare) preds[countedAtom[i]];
            countedTool[i] = counterTool(cmp);
            countedOp[i] = cmp.op;
            countedBound[i] = cmp.num;
            if (cmp.left instanceof Count n) { countedSource[i] = COUNTER_COUNT; countedWord[i] = n.word; }
            else if (cmp.left instanceof Run r) { countedSource[i] = COUNTER_RUN; countedWord[i] = r.word; }
            else { countedSource[i] = COUNTER_SUM; countedWord[i] = ((Sum) cmp.left).word; }
        }
        this.patterns = c.patterns.toArray(new Pattern[0]);
        this.textPatterns = new TextPattern[patterns.length];
        for (int i = 0; i < patterns.length; i++) textPatterns[i] = TextPattern.of(patterns[i]);
        int slots = Integer.highestOneBit(Math.max(4, c.toolIds.size() * 4) - 1) << 1;
        this.toolSlotNames = new String[slots];
        this.toolSlotIds = new int[slots];
        c.toolIds.forEach((name, id) -> {
            int h = toolSlot(name, slots - 1);
            while (toolSlotNames[h] != null) h = (h + 1) & (slots - 1);
            toolSlotNames[h] = name.intern();   // an interned tool name (the agent's configured ones are) is found by reference
            toolSlotIds[h] = id;
        });
        this.countTool = c.countTool.stream().mapToInt(i -> i[0]).toArray();
        this.countWord = c.countTool.stream().mapToInt(i -> i[1]).toArray();
        this.runTool = c.runTool.stream().mapToInt(i -> i[0]).toArray();
        this.runWord = c.runTool.stream().mapToInt(i -> i[1]).toArray();
        this.sumTool = c.sums.stream().mapToInt(s -> s.tool).toArray();
        this.sumWord = c.sums.stream().mapToInt(s -> s.word).toArray();
        this.sumPath = c.sums.stream().map(s -> s.path).toArray(Args.Path[]::new);
        this.counterWhich = c.counters.stream().mapToInt(i -> i[0]).toArray();
        this.counterWord = c.counters.stream().mapToInt(i -> i[1]).toArray();
        this.sinceInner = c.sinceInner.toArray(new Pred[0]);
        this.sinceWord = c.sinceWord.stream().mapToInt(Integer::intValue).toArray();
        this.ctxSlots = Map.copyOf(c.ctxSlots);
        this.latches = policy.latches.toArray(new Latch[0]);
        this.latchSlot = new int[latches.length];
        this.latchPending = new int[latches.length];
        this.latchById = new int[latches.length];
        this.latchTool = new int[latches.length];
        for (int i = 0; i < latches.length; i++) {
            latchSlot[i] = c.ctxSlot(latches[i].key);
            latchTool[i] = latches[i].tool == null ? -1 : c.tool(latches[i].tool);
            boolean fromCall = latches[i].kind == EventKind.RETURN && latches[i].source == Latch.Source.ARG;
            latchPending[i] = fromCall ? c.refs++ : -1;
            latchById[i] = fromCall ? c.refs++ : -1;
        }
        this.sharedSubjects = policy.subjectScope == Policy.SubjectScope.GLOBAL;
        this.register = new SubjectRegister(policy.registerCapacity);
        this.subjectTools = !policy.consentTools.isEmpty() || !policy.erasureTools.isEmpty();
        this.erasedSlot = c.erased && !sharedSubjects ? c.refs++ : -1;
        this.consentSlot = c.consent ? c.refs++ : -1;
        this.consentCallsSlot = policy.consentTools.isEmpty() ? -1 : c.refs++;
        this.introducedSlot = c.flow ? c.refs++ : -1;
        this.namedSlot = c.flow ? c.refs++ : -1;
        this.permissionSlot = c.ctxSlots.containsKey(PERMISSIONS) ? c.ctxSlots.get(PERMISSIONS) : -1;
        this.provenance = policy.provenance;
        this.sightingsSlot = provenance != null ? c.refs++ : -1;
        List<int[]> req = new ArrayList<>();
        for (int g = 0; provenance != null && provenance.delegation && g < preds.length; g++) {
            if (preds[g] instanceof TextMatches t && t.kind == EventKind.USER) req.add(new int[] {g, t.pattern});
        }
        this.requestAtoms = req.stream().mapToInt(x -> x[0]).toArray();
        this.requestPatterns = req.stream().mapToInt(x -> x[1]).toArray();
        this.words = c.words;
        this.refs = c.refs;
        this.categoryBits = Map.copyOf(c.categoryBits);
        this.purposeBits = Map.copyOf(c.purposeBits);
        this.necessaryPurpose = new long[policy.necessary.size()];
        this.necessaryMask = new long[policy.necessary.size()];
        int k = 0;
        for (Map.Entry<String, Set<String>> e : policy.necessary.entrySet()) {
            long m = 0;
            for (String cat : e.getValue()) m |= c.categoryBit(cat);
            necessaryPurpose[k] = c.purposeBit(e.getKey());
            necessaryMask[k++] = m;
        }
        int tools = c.toolIds.size();
        this.toolPurposeMask = new long[tools];
        this.toolPurposeNames = new String[tools][];
        this.toolFieldPaths = new Args.Path[tools][];
        this.toolFieldBits = new long[tools][];
        this.consentTools = new Policy.ConsentTool[tools];
        this.erasureTools = new Args.Path[tools];
        this.sideEffectTargets = new Args.Path[tools][];
        this.sessionConsentSeen = new byte[tools];
        policy.toolPurposes.forEach((t, ps) -> {
            int id = c.toolIds.get(t);
            long m = 0;
            for (String p : ps) m |= c.purposeBit(p);
            toolPurposeMask[id] = m;
            toolPurposeNames[id] = ps.toArray(new String[0]);
        });
        policy.toolFieldCategories.forEach((t, fields) -> {
            int id = c.toolIds.get(t);
            toolFieldPaths[id] = fields.keySet().toArray(new Args.Path[0]);
            toolFieldBits[id] = fields.values().stream().mapToLong(c::categoryBit).toArray();
        });
        policy.consentTools.forEach((t, ct) -> consentTools[c.toolIds.get(t)] = ct);
        policy.erasureTools.forEach((t, p) -> erasureTools[c.toolIds.get(t)] = p);
        policy.sideEffects.forEach((t, ps) -> sideEffectTargets[c.toolIds.get(t)] = ps.toArray(new Args.Path[0]));
        this.detectCategories = c.categories;
        this.frames = new dev.tracegate.engine.monitor.Scratch<>(() -> new Frame(this));
    }

    /**
     * Compiles atoms, in the global order of the contract set, against a policy.
     *
     * @throws VocabularyException for the first atom that is unknown or has the wrong arguments
     */
    public static Grounding compile(List<Atom> atomsInGlobalOrder, Policy policy) {
        Compiler c = new Compiler(policy);
        for (Atom a : atomsInGlobalOrder) c.preds.add(c.top(a));
        return new Grounding(c, atomsInGlobalOrder, policy);
    }

    /** Checks one atom against the vocabulary (for loaders that report every bad atom). */
    public static void check(Atom atom) {
        new Compiler(Policy.EMPTY).top(atom);
    }

    /** The atoms, in global order. */
    public List<Atom> atoms() { return atoms; }

    /** The policy compiled in. */
    public Policy policy() { return policy; }

    /**
     * The consents and erasures of data subjects that the sessions grounded here share (with
     * {@link Policy.SubjectScope#SESSION} it stays empty: each session keeps its own).
     */
    public SubjectRegister register() { return register; }

    /**
     * A CONSENT or ERASURE event that belongs to no session (a configured consent or erasure method without a session
     * id, called outside any conversation: its audit record's session is empty): what a session's step would do with
     * it beyond that session, so the register learns it (scope: global) and no session's trace holds it. The agent
     * online and {@code replay} both apply such a record this way. False when the policy keeps consents and erasures in
     * their sessions (scope: session): the event then has no effect.
     */
    public boolean applyOutsideSessions(Event e) {
        if (!sharedSubjects) return false;
        String subject = e.subject();
        if (subject == null || subject.isBlank()) return true;
        if (e.kind() == EventKind.CONSENT) {
            for (int i = 0; i < e.purposeCount(); i++) register.consent(subject, e.purpose(i), e.granted());
        } else if (e.kind() == EventKind.ERASURE) {
            register.erase(subject);
        }
        return true;
    }

    /**
     * Makes this grounding read and write {@code shared} instead of its own register: a runtime that replaces
     * another (a hot reload) passes the old grounding's register, so that consents and erasures given before
     * the reload, and those the old version's sessions still record, count in the new version's sessions.
     * Call it before this grounding grounds any event, and publish the grounding to other threads afterwards
     * (as a runtime is published: through a volatile field or a concurrent collection).
     *
     * @throws IllegalStateException when this grounding has already recorded consents or erasures of its own
     */
    public void shareRegister(SubjectRegister shared) {
        if (shared == null) throw new IllegalArgumentException("the shared register must not be null");
        SubjectRegister own = register;
        if (own == shared) return;
        if (own.erasures() > 0 || own.consents() > 0) {
            throw new IllegalStateException("this grounding has already recorded " + own + " of its own; share a register"
                    + " before the grounding steps any event");
        }
        register = shared;
    }

    @Override public int words() { return words; }

    @Override public int refs() { return refs; }

    @Override public void init(SessionState state) {
        if (permissionSlot >= 0) {
            ValueSet s = ValueSet.empty(policy.setCapacity);
            for (String p : policy.permissions) s = s.withText(p);
            state.refs[permissionSlot] = s;
        }
    }

    @Override public int ground(Event event, SessionState state, long[] valuation, long[] unevaluable) {
        return ground(event, state, valuation, unevaluable, false);
    }

    private static final int CALL_INDEX = EventKind.CALL.ordinal(), RETURN_INDEX = EventKind.RETURN.ordinal();

    /**
     * {@code kind.ordinal()}, a call's and a result's by reference: constants, so grounding them does not read the enum
     * constant, an object on a page of its own that a cold call would walk to (session 18).
     */
    static int kindIndex(EventKind kind) {
        return kind == EventKind.CALL ? CALL_INDEX : kind == EventKind.RETURN ? RETURN_INDEX : kind.ordinal();
    }

    private int ground(Event event, SessionState state, long[] valuation, long[] unevaluable, boolean everyAtom) {
        Frame f = frames.take();
        f.prepare(event, state);
        int unev = 0;
        try {
            if (everyAtom) {
                unev = groundAtoms(this.everyAtom, f, valuation, unevaluable);
            } else {
                int full = f.toolFull, bare = f.toolBare;
                int tool = bare < 0 || bare == full ? full : full < 0 ? bare : -2;
                if (tool == -2) {
                    unev = groundAtoms(this.everyAtom, f, valuation, unevaluable);
                } else {
                    int k = kindIndex(f.kind);
                    or(kindTrue[k], valuation);
                    unev = groundAtoms(kindAtoms[k], f, valuation, unevaluable);
                    // a tool id from toolCount on was added after the atoms (a latch's tool): no atom names it
                    if (tool >= 0 && tool < toolCount) {
                        or(toolTrue[k * toolCount + tool], valuation);
                        unev += groundAtoms(toolAtoms[k * toolCount + tool], f, valuation, unevaluable);
                    }
                    if (countedAtom.length > 0) {
                        unev += groundCounters(f.isCall ? tool : Integer.MIN_VALUE, f.isCall, state.words, valuation, unevaluable);
                    }
                }
            }
            if (requestAtoms.length > 0 && f.kind == EventKind.RETURN && event.result() != null
                    && Sightings.of(state.refs[sightingsSlot]).delegatedReturn(event.callId())) {
                // the output of a source the user handed the task to counts as the user's request
                for (int i = 0; i < requestAtoms.length; i++) {
                    int g = requestAtoms[i];
                    if (f.find(requestPatterns[i], event.result())) valuation[g >>> 6] |= 1L << g;
                }
            }
        } finally {
            f.release();
            frames.give(f);
        }
        return unev;
    }

    /** Evaluates the atoms {@code atoms} on the frame's event into the valuation; returns how many were unevaluable. */
    private int groundAtoms(int[] atoms, Frame f, long[] valuation, long[] unevaluable) {
        Pred[] ps = preds;
        int unev = 0;
        for (int i = 0; i < atoms.length; i++) {
            int g = atoms[i];
            int v = ps[g].eval(f);
            if (v == TRUE) valuation[g >>> 6] |= 1L << g;
            else if (v == UNEV) {
                unev++;
                if (unevaluable != null) unevaluable[g >>> 6] |= 1L << g;
            }
        }
        return unev;
    }

    /**
     * The counter atoms ({@link #countedAtom}) at any event but a call of their tool: {@code callTool} is the tool of
     * the CALL being grounded (Integer.MIN_VALUE for an event of another kind), whose own counter atoms were evaluated
     * in full. Same values as {@link Compare} over {@link Count}, {@link Run} and {@link Sum} there.
     */
    private int groundCounters(int callTool, boolean isCall, long[] words, long[] valuation, long[] unevaluable) {
        final int[] atom = countedAtom, tool = countedTool, source = countedSource, word = countedWord, op = countedOp;
        final double[] bound = countedBound;
        int unev = 0;
        for (int i = 0; i < atom.length; i++) {
            if (tool[i] == callTool) continue;
            long w = words[word[i]];
            double x;
            if (source[i] == COUNTER_SUM) {
                if (w == Nodes.OUT_OF_RANGE) {   // a sum beyond its exact range: no number
                    unev++;
                    int g = atom[i];
                    if (unevaluable != null) unevaluable[g >>> 6] |= 1L << g;
                    continue;
                }
                x = w / 1e6;   // millionths, as Sum computes it
            } else {
                x = source[i] == COUNTER_RUN && isCall ? 0 : w;   // a call of another tool ends the run
            }
            if (Nodes.compare(x, op[i], bound[i])) {
                int g = atom[i];
                valuation[g >>> 6] |= 1L << g;
            }
        }
        return unev;
    }

    private static void or(long[] mask, long[] valuation) {
        if (mask == null) return;
        for (int i = 0; i < mask.length; i++) valuation[i] |= mask[i];
    }

    /**
     * The tool of a counter atom (count(T), run(T) or sum(T, f) compared with a number, see {@link #countedAtom}), or -1
     * for any other atom.
     */
    private static int counterTool(Pred p) {
        if (!(p instanceof Compare c) || c.str != null || c.ctxSlot >= 0) return -1;
        if (c.left instanceof Count n) return n.tool;
        if (c.left instanceof Run r) return r.tool;
        if (c.left instanceof Sum s) return s.tool;
        return -1;
    }

    /** The one event kind on which an atom is true, on every event of it (of its tool: see {@link #constantTool}), or null. */
    private static EventKind constantKind(Pred p) {
        if (p instanceof KindIs k && k.onlyKind() != null) return k.kind;   // consent and erasure also hold on some calls
        if (p instanceof CallOf c && c.pattern < 0) return EventKind.CALL;
        return null;
    }

    private static int constantTool(Pred p) { return p instanceof CallOf c ? c.tool : -1; }

    /**
     * Fills {@link #kindAtoms} and {@link #toolAtoms} from the atoms' guards (equal lists shared), and {@link #kindTrue}
     * and {@link #toolTrue} with the atoms the kind and tool decide. A counter atom is evaluated in full only at a call
     * of its tool (elsewhere {@link #groundCounters} reads it).
     */
    private static void guardedAtoms(Pred[] preds, int tools, int[][] kindAtoms, int[][] toolAtoms, long[][] kindTrue, long[][] toolTrue) {
        Map<List<Integer>, int[]> shared = new HashMap<>();
        int valuationWords = (preds.length + 63) >>> 6;
        for (EventKind k : EventKind.values()) {
            List<Integer> any = new ArrayList<>();
            List<List<Integer>> byTool = new ArrayList<>();
            for (int t = 0; t < tools; t++) byTool.add(new ArrayList<>());
            for (int g = 0; g < preds.length; g++) {
                EventKind constant = constantKind(preds[g]);
                if (constant != null) {
                    if (constant != k) continue;
                    int t = constantTool(preds[g]);
                    long[][] masks = t < 0 ? kindTrue : toolTrue;
                    int at = t < 0 ? k.ordinal() : k.ordinal() * tools + t;
                    if (masks[at] == null) masks[at] = new long[valuationWords];
                    masks[at][g >>> 6] |= 1L << g;
                    continue;
                }
                int counterTool = counterTool(preds[g]);
                EventKind only = counterTool >= 0 ? EventKind.CALL : preds[g].onlyKind();
                int tool = counterTool >= 0 ? counterTool : preds[g].onlyTool();
                if (only == null || only == k && tool < 0) any.add(g);
                else if (only == k) byTool.get(tool).add(g);
            }
            kindAtoms[k.ordinal()] = shared.computeIfAbsent(any, Grounding::ints);
            for (int t = 0; t < tools; t++) toolAtoms[k.ordinal() * tools + t] = byTool.get(t).isEmpty() ? NO_ATOMS : shared.computeIfAbsent(byTool.get(t), Grounding::ints);
        }
    }

    private static int[] ints(List<Integer> list) { return list.stream().mapToInt(Integer::intValue).toArray(); }

    /** Grounds every atom, the guards aside: what {@link #ground} must agree with (tests). */
    int groundEveryAtom(Event event, SessionState state, long[] valuation, long[] unevaluable) {
        return ground(event, state, valuation, unevaluable, true);
    }

    /** Grounds without reporting which atoms were unevaluable. */
    public int ground(Event event, SessionState state, long[] valuation) {
        return ground(event, state, valuation, null);
    }

    @Override public void apply(Event e, long[] valuation, SessionState st) {
        Frame f = frames.take();
        f.prepare(e, st);
        try {
            applyCounters(f, e, st);
            applyLatches(f, e, st);
            applySets(f, e, st);
            if (sightingsSlot >= 0) applySightings(e, st);
            st.words[W_EVENTS]++;
        } finally {
            f.release();
            frames.give(f);
        }
    }

    private void applyCounters(Frame f, Event e, SessionState st) {
        long[] w = st.words;
        if (f.isCall) {
            for (int i = 0; i < countTool.length; i++) if (f.tool(countTool[i])) w[countWord[i]]++;
            for (int i = 0; i < runTool.length; i++) w[runWord[i]] = f.tool(runTool[i]) ? w[runWord[i]] + 1 : 0;
            for (int i = 0; i < sumTool.length; i++) {
                if (!f.tool(sumTool[i])) continue;
                long m = Nodes.micros(e.args().get(sumPath[i]));
                if (m != Nodes.NOT_AMOUNT) w[sumWord[i]] = Nodes.addMicros(w[sumWord[i]], m);
            }
        }
        for (int i = 0; i < counterWhich.length; i++) w[counterWord[i]] += Counter.contribution(e, counterWhich[i]);
        for (int i = 0; i < sinceInner.length; i++) {
            if (sinceInner[i].eval(f) == TRUE) w[sinceWord[i]] = w[W_EVENTS] + 1;
        }
    }

    private void applyLatches(Frame f, Event e, SessionState st) {
        for (int i = 0; i < latches.length; i++) {
            Latch l = latches[i];
            int pending = latchPending[i];
            JsonNode fromCall = null;
            if (pending >= 0 && f.tool(latchTool[i])) {
                String id = e.callId();
                if (f.isCall) {
                    // remembered for the RETURN: the last call (for a RETURN without an id) and, by id, each call in flight
                    JsonNode v = e.args().get(l.path);
                    st.refs[pending] = v;
                    if (id != null) st.refs[latchById[i]] = PendingCalls.of(st.refs[latchById[i]]).call(id, v);
                } else if (e.kind() == EventKind.RETURN) {
                    if (id == null) {
                        fromCall = (JsonNode) st.refs[pending];
                    } else {
                        // the CALL this RETURN answers (nothing when it was refused, forgotten or its id ambiguous)
                        PendingCalls calls = PendingCalls.of(st.refs[latchById[i]]);
                        fromCall = calls.value(id);
                        PendingCalls left = calls.returned(id);
                        if (left != calls) st.refs[latchById[i]] = left == PendingCalls.EMPTY ? null : left;
                    }
                }
            }
            if (e.kind() != l.kind) continue;
            if (l.tool != null && !f.tool(latchTool[i])) continue;
            if (l.kind == EventKind.RETURN && l.successOnly && e.error()) continue;
            int slot = latchSlot[i];
            if (l.action == Latch.Action.CLEAR) {
                st.refs[slot] = null;
                continue;
            }
            JsonNode v = latchValue(l, e, fromCall);
            if (v == null) continue;
            if (l.action == Latch.Action.SET) st.refs[slot] = v;
            else {
                Object cur = st.refs[slot];
                ValueSet s = cur instanceof ValueSet vs ? vs : ValueSet.empty(policy.setCapacity);
                if (cur instanceof JsonNode n) s = s.withText(Nodes.text(n).toString());
                st.refs[slot] = s.withText(Nodes.text(v).toString());
            }
        }
    }

    private static JsonNode latchValue(Latch l, Event e, JsonNode pending) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        return switch (l.source) {
            case ARG -> {
                JsonNode v = e.args().get(l.path);
                yield v != null ? v : e.kind() == EventKind.RETURN ? pending : null;
            }
            case RESULT -> e.result() == null ? null : nodes.textNode(e.result());
            case RESULT_FIELD -> {
                if (e.result() == null) yield null;
                try {
                    JsonNode r = Json.MAPPER.readTree(e.result());
                    yield r instanceof ObjectNode o ? Args.of(o).get(l.path) : null;
                } catch (IOException | RuntimeException ex) {
                    yield null; // a result that is not JSON sets nothing
                }
            }
            case TEXT -> e.text() == null ? null : nodes.textNode(e.text());
            case SUBJECT -> e.subject() == null ? null : nodes.textNode(e.subject());
            case CONSTANT -> nodes.textNode(l.constant);
            case NONE -> null;
        };
    }

    private void applySets(Frame f, Event e, SessionState st) {
        EventKind k = e.kind();
        if (k == EventKind.CONSENT) {
            for (int i = 0; i < e.purposeCount(); i++) recordConsent(st, e.subject(), e.purpose(i), e.granted());
        } else if (k == EventKind.ERASURE) {
            recordErasure(st, e.subject());
        } else if (subjectTools && (f.isCall || k == EventKind.RETURN)) {
            Policy.ConsentTool ct = consentToolOf(f);
            if (ct != null) {
                if (f.isCall) consentCalled(ct, e, st);
                else consentReturned(ct, e, st);
            }
            Args.Path p = f.isCall ? erasureToolOf(f) : null;
            JsonNode v = p == null ? null : e.args().get(p);
            if (v != null) recordErasure(st, Nodes.text(v).toString());
        }
        if (introducedSlot >= 0) {
            if (k == EventKind.RETURN && e.result() != null) st.refs[introducedSlot] = introduce(st.refs[introducedSlot], e.resultValues());
            else if (k == EventKind.USER && e.text() != null) st.refs[namedSlot] = remember(st.refs[namedSlot], e.textValues());
        }
    }

    /** Records what provenance needs: user messages, which calls read a named source, and each output (read once). */
    private void applySightings(Event e, SessionState st) {
        Provenance p = provenance;
        Sightings s = Sightings.of(st.refs[sightingsSlot]);
        EventKind k = e.kind();
        if (k == EventKind.USER && e.text() != null) {
            st.refs[sightingsSlot] = s.user(e.text(), p);
        } else if (k == EventKind.CALL && (p.endorse != Provenance.Endorse.NONE || p.delegation)) {
            st.refs[sightingsSlot] = s.call(e.callId(), namesSource(e, s));
        } else if (k == EventKind.RETURN && e.result() != null && !e.error()) {
            boolean structured = p.wholeFields || p.endorse == Provenance.Endorse.RECORD || !p.fetchTools.isEmpty();
            JsonNode tree = structured ? p.outputs.apply(e.result()) : null;
            st.refs[sightingsSlot] = s.output(e.callId(), e.result(), tree, p);
        }
    }

    /** True when an argument of the call is a value the user named (or, transitively, one an endorsed output gave). */
    private boolean namesSource(Event e, Sightings s) {
        Args a = e.args();
        boolean transitive = provenance.endorse == Provenance.Endorse.TRANSITIVE;
        for (int i = 0; i < a.leafCount(); i++) {
            String v = Sightings.fold(a.leafValue(i).asText());
            if (v.length() >= 3 && s.named(v, transitive)) return true;
        }
        return false;
    }

    /**
     * An accepted CALL of a consent tool: a withdrawal counts now (the safe side, whatever the tool then does); the call
     * is remembered until its RETURN (by tool and call id; two calls of the tool in flight without ids make the RETURN
     * ambiguous, and it records nothing), and a grant counts only then, and counts only if that RETURN is a success ({@link #consentReturned}), as
     * a configured consent method's grant counts once the method returned normally: a tool that throws or answers an
     * error result (the consent store is down, the form was not signed) records no consent.
     */
    private void consentCalled(Policy.ConsentTool ct, Event e, SessionState st) {
        Args a = e.args();
        if (!grants(ct, a)) recordToolConsent(ct, a, st, false);
        // a withdrawal is remembered too: a RETURN without an id after it cannot tell which call it answers
        st.refs[consentCallsSlot] = PendingCalls.of(st.refs[consentCallsSlot]).call(pendingKey(e), a.root());
    }

    /**
     * The RETURN of a consent tool's call: a success records the grant its accepted CALL carried (the arguments of the
     * CALL it answers, by call id, or the tool's call without an id in flight); an error, and a RETURN whose accepted
     * CALL is not known, record nothing. A withdrawal was recorded at the CALL.
     */
    private void consentReturned(Policy.ConsentTool ct, Event e, SessionState st) {
        PendingCalls calls = PendingCalls.of(st.refs[consentCallsSlot]);
        String key = pendingKey(e);
        JsonNode call = calls.value(key);
        PendingCalls left = calls.returned(key);
        if (left != calls) st.refs[consentCallsSlot] = left == PendingCalls.EMPTY ? null : left;
        if (e.error()) return;
        if (call == null) return;   // its CALL was refused, forgotten (beyond PendingCalls.MAX in flight) or its id ambiguous
        Args a = Args.of(call);
        if (grants(ct, a)) recordToolConsent(ct, a, st, true);
    }

    /** The key of a consent tool's call among the pending ones: its tool and its call id (none: the tool's last call). */
    private static String pendingKey(Event e) {
        String id = e.callId();
        return id == null ? e.toolKey() + '\u0000' : e.toolKey() + '\u0000' + id;
    }

    /** Whether a consent tool's call with arguments {@code a} grants (true, also without its granted argument) or withdraws. */
    private static boolean grants(Policy.ConsentTool ct, Args a) {
        if (ct.grantedConstant() != null) return ct.grantedConstant();
        JsonNode granted = ct.granted() == null ? null : a.get(ct.granted());
        return granted == null || !(granted.isBoolean() ? !granted.booleanValue()
                : "false".equalsIgnoreCase(granted.asText()) || "withdraw".equalsIgnoreCase(granted.asText()));
    }

    /** Records the consent (grant or withdrawal) of a consent tool's call with arguments {@code a}, for each purpose. */
    private void recordToolConsent(Policy.ConsentTool ct, Args a, SessionState st, boolean grant) {
        JsonNode subj = a.get(ct.subject());
        String s = subj == null ? null : Nodes.text(subj).toString();
        if (ct.purposeNames() != null) {
            for (String p : ct.purposeNames()) recordConsent(st, s, p, grant);
            return;
        }
        JsonNode purposes = a.get(ct.purposes());
        if (purposes != null && purposes.isArray()) {
            for (JsonNode p : purposes) recordConsent(st, s, Nodes.text(p).toString(), grant);
        } else if (purposes != null) {
            recordConsent(st, s, Nodes.text(purposes).toString(), grant);
        }
    }

    /**
     * A consent given or withdrawn: a subject's goes to the register (GLOBAL scope), a consent without a subject
     * (for the whole session) and every consent in SESSION scope to the session, if any atom reads consent.
     */
    private void recordConsent(SessionState st, String subject, String purpose, boolean grant) {
        if (sharedSubjects && subject != null && !subject.isBlank()) register.consent(subject, purpose, grant);
        else if (consentSlot >= 0) st.refs[consentSlot] = consent(st, subject, purpose, grant);
    }

    /** An erasure request: to the register (GLOBAL scope) or to the session, if any atom reads erasures. */
    private void recordErasure(SessionState st, String subject) {
        if (subject == null || subject.isBlank()) return;
        if (sharedSubjects) register.erase(subject);
        else if (erasedSlot >= 0) {
            ValueSet s = st.refs[erasedSlot] instanceof ValueSet vs ? vs : ValueSet.empty(policy.setCapacity);
            ValueSet next = s.withText(subject);
            next.mentions();   // the index is built here, with the erasure, not by the next event's check
            st.refs[erasedSlot] = next;
        }
    }

    private ValueSet consent(SessionState st, String subject, String purpose, boolean grant) {
        ValueSet s = st.refs[consentSlot] instanceof ValueSet vs ? vs : ValueSet.empty(policy.setCapacity);
        boolean named = subject != null && !subject.isBlank();
        long h = TextHash.pair(named ? subject : "", purpose);
        if (!named) return grant ? s.withHashes(new long[] {h}, 1) : s.without(h);
        // a subject's grant or withdrawal: the last one stands, and a withdrawal outweighs the session's consent
        return grant ? s.without(withdrawal(h)).withHashes(new long[] {h}, 1) : s.without(h).withHashes(new long[] {withdrawal(h)}, 1);
    }

    /** {@code cur} plus the values of a text ({@link Identifiers#values}, remembered on its event). */
    private ValueSet remember(Object cur, long[] values) {
        ValueSet s = cur instanceof ValueSet vs ? vs : ValueSet.empty(policy.setCapacity);
        return s.withHashes(values, values.length);
    }

    /**
     * {@link #remember} for a tool output's values, failing closed: when the output was not read to its end
     * ({@link Identifiers#UNSCANNED}) or the set drops its oldest values to stay within its capacity, the set keeps
     * {@link Identifiers#UNSCANNED} from then on (re-added when its own age would drop it), and {@link #flows} counts every
     * value the user did not write as introduced. Allocates only when the set grows, as before.
     */
    private ValueSet introduce(Object cur, long[] values) {
        ValueSet s = cur instanceof ValueSet vs ? vs : ValueSet.empty(policy.setCapacity);
        ValueSet next = s.withHashes(values, values.length);
        if (next == s) return s;
        boolean cut = s.contains(Identifiers.UNSCANNED) || (!s.isEmpty() && !next.contains(s.oldest()));
        return cut && !next.contains(Identifiers.UNSCANNED) ? next.withHashes(UNSCANNED, 1) : next;
    }

    private static final long[] UNSCANNED = {Identifiers.UNSCANNED};

    // ------------------------------------------------------------------ helpers used by nodes

    int toolId(String folded) {
        if (folded == null) return -1;
        String[] names = toolSlotNames;
        int mask = names.length - 1;
        for (int h = toolSlot(folded, mask); ; h = (h + 1) & mask) {
            String t = names[h];
            if (t == null) return -1;
            if (t.equals(folded)) return toolSlotIds[h];
        }
    }

    private static int toolSlot(String name, int mask) {
        int n = name.length();
        int h = n == 0 ? 0 : (n * 31 + name.charAt(0)) * 31 + name.charAt(n - 1);
        return (h ^ (h >>> 7)) & mask;
    }

    private Policy.ConsentTool consentToolOf(Frame f) {
        if (f.toolFull >= 0 && consentTools[f.toolFull] != null) return consentTools[f.toolFull];
        return f.toolBare >= 0 ? consentTools[f.toolBare] : null;
    }

    private Args.Path erasureToolOf(Frame f) {
        if (f.toolFull >= 0 && erasureTools[f.toolFull] != null) return erasureTools[f.toolFull];
        return f.toolBare >= 0 ? erasureTools[f.toolBare] : null;
    }

    boolean consentCall(Frame f) { return f.isCall && consentToolOf(f) != null; }

    boolean erasureCall(Frame f) { return f.isCall && erasureToolOf(f) != null; }

    /** Categories of personal data in the event, as bits (built-in categories first, then the library's own). */
    long categoriesOf(Frame f) {
        Event e = f.e;
        long m = 0;
        for (int i = 0; i < e.categoryCount(); i++) {
            Long b = categoryBits.get(e.category(i));
            m |= b == null ? OTHER_CATEGORY : b;
        }
        if (!detectCategories) return m;
        if (f.isCall) {
            Args a = e.args();
            m |= mappedFields(f.toolFull, a);
            if (f.toolBare != f.toolFull) m |= mappedFields(f.toolBare, a);
            m |= a.categoryMask(f.sink);
        }
        m |= e.textCategoryMask(f.sink);
        return m;
    }

    /** Bits the extractor can find (field hints and detectors): the built-in categories. */
    private static final long DETECTABLE = (1L << DataCategory.values().length) - 1;

    /**
     * {@code (categoriesOf(f) & q) != 0}, computed only as far as it needs: the declared, mapped and
     * hinted categories first, then the texts (each argument value, the text, the result) one at a
     * time, each scan stopping at the first category of {@code q} it finds. What it found and how far
     * it got stay in the frame for the event's next question; a text whose scan stopped early is
     * scanned again (leaving out the categories found) if a later question needs it.
     */
    boolean anyCategory(Frame f, long q) {
        Event e = f.e;
        if (!f.detectStarted) startDetection(f, e);
        if (((f.detectBase | f.detectArgs | f.detectText) & q) != 0) return true;
        if (f.detectDone || (q & DETECTABLE) == 0) return false;
        Args a = e.args();
        int leaves = a.leafCount();
        DataCategoryExtractor x = DataCategoryExtractor.INSTANCE;
        // each group (arguments; text and result) leaves out what it found itself, as its memo does
        for (int s = f.detectNext; s < f.detectEnd; s++) {
            long got;
            if (s < leaves) {
                JsonNode v = a.leafValue(s);
                if (v.isTextual()) {
                    String t = v.textValue();
                    got = t.isBlank() ? 0 : x.maskUntil(t, f.sink, f.detectArgs, q);
                } else if (v.isIntegralNumber() && Math.abs(v.doubleValue()) >= 1_000_000 && x.fieldHint(a.leafName(s)) == null) {
                    got = x.maskUntil(v.asText(), f.sink, f.detectArgs, q); // as Args.categoryMask: id-sized numbers without a hint
                } else {
                    got = 0;
                }
                f.detectArgs |= got;
            } else {
                got = x.maskUntil(s == leaves ? e.text() : e.result(), f.sink, f.detectText, q);
                f.detectText |= got;
            }
            if ((got & q) != 0) {
                f.detectNext = s; // that scan may have stopped early: a later question scans it again
                if (s < leaves) a.rememberCategoriesFound(f.detectArgs); // so may a retried step or another library
                else e.rememberTextCategoriesFound(f.detectText);
                return true;
            }
        }
        f.detectDone = true;
        // every text scanned in full: the event's and the arguments' memos (a retried step, another library)
        if (f.isCall) a.rememberCategoryMask(f.detectArgs);
        e.rememberTextCategoryMask(f.detectText);
        return false;
    }

    /** The declared, mapped and hinted categories, and what the event's memos already know. */
    private void startDetection(Frame f, Event e) {
        long m = 0;
        for (int i = 0; i < e.categoryCount(); i++) {
            Long b = categoryBits.get(e.category(i));
            m |= b == null ? OTHER_CATEGORY : b;
        }
        Args a = e.args();
        int leaves = a.leafCount();
        long args = 0, text = 0;
        int next = leaves, end = leaves + 2; // argument values are read on calls only
        if (detectCategories && f.isCall) {
            m |= mappedFields(f.toolFull, a);
            if (f.toolBare != f.toolFull) m |= mappedFields(f.toolBare, a);
            long known = a.knownCategoryMask();
            if (known >= 0) {
                args = known;
            } else {
                args = a.categoriesFound(); // present: their detectors are left out, the rest scanned
                DataCategoryExtractor x = DataCategoryExtractor.INSTANCE;
                for (int i = 0; i < leaves; i++) {
                    JsonNode v = a.leafValue(i);
                    if (v.isTextual() && v.textValue().isBlank()) continue;
                    DataCategory hint = x.fieldHint(a.leafName(i));
                    if (hint != null) args |= hint.bit();
                }
                next = 0;
            }
        }
        long knownText = e.knownTextCategoryMask();
        if (knownText >= 0) {
            text = knownText;
            end = leaves;
        } else {
            text = e.textCategoriesFound();
        }
        f.detectBase = m;
        f.detectArgs = args;
        f.detectText = text;
        f.detectNext = next;
        f.detectEnd = end;
        f.detectDone = !detectCategories || next >= end;
        f.detectStarted = true;
    }

    private long mappedFields(int id, Args a) {
        if (id < 0 || toolFieldPaths[id] == null) return 0;
        Args.Path[] ps = toolFieldPaths[id];
        long m = 0;
        for (int i = 0; i < ps.length; i++) if (a.get(ps[i]) != null) m |= toolFieldBits[id][i];
        return m;
    }

    long purposesOf(Frame f) {
        Event e = f.e;
        long m = 0;
        for (int i = 0; i < e.purposeCount(); i++) {
            Long b = purposeBits.get(e.purpose(i));
            m |= b == null ? OTHER_PURPOSE : b;
        }
        if (f.toolFull >= 0) m |= toolPurposeMask[f.toolFull];
        if (f.toolBare >= 0) m |= toolPurposeMask[f.toolBare];
        return m;
    }

    boolean excess(Frame f) {
        long p = f.purposes();
        if (p == 0) return false;
        long need = 0;
        for (int i = 0; i < necessaryPurpose.length; i++) if ((p & necessaryPurpose[i]) != 0) need |= necessaryMask[i];
        return f.anyCategory(~need);
    }

    /**
     * {@code purpose} is folded (trimmed, lower case): events fold theirs, the policy and the compiler theirs. Every data
     * subject the event names needs consent: its own subject, else each subject field of the policy that holds a text,
     * number or boolean (trial26 08: a marketing e-mail to {@code email} with {@code cc} goes to two people). For each,
     * the subject's own last word decides (a grant, or a withdrawal even after a session-wide consent); a subject that has
     * said nothing about the purpose, and a call without a subject, have the consent of the whole session, if one was given.
     */
    boolean consented(Frame f, String purpose) {
        if (!policy.requiresConsentFolded(purpose)) return true;
        Event e = f.e;
        if (e.subject() != null) return consented(f, e.subject(), purpose);
        boolean named = false;
        List<Args.Path> fields = policy.subjectFields();
        for (int i = 0; i < fields.size(); i++) {
            JsonNode v = e.args().get(fields.get(i));
            if (v == null || v.isNull() || v.isContainerNode()) continue;
            named = true;
            if (!consented(f, Nodes.text(v).toString(), purpose)) return false;
        }
        return named || consented(f, null, purpose);
    }

    /** Whether data subject {@code subject} (null: none) has consent for {@code purpose} (folded, resting on consent). */
    private boolean consented(Frame f, String subject, String purpose) {
        int word = consentWord(f.st, subject, purpose);
        if (word != SESSION_CONSENT) return word == OWN_GRANT;
        int t = f.toolFull >= 0 ? f.toolFull : f.toolBare;
        if (t >= 0 && sessionConsentSeen[t] == 0 && f.isCall) sessionConsentFor(f.e, t, purpose, subject != null);
        return true;
    }

    /** {@link #consentWord}: the subject's own grant, own withdrawal, the whole session's consent, or none of them. */
    private static final int OWN_GRANT = 1, OWN_WITHDRAWAL = 2, SESSION_CONSENT = 3, NO_CONSENT = 0;

    /**
     * What decides whether data subject {@code subject} (null: none) has consent for {@code purpose} (folded, resting on
     * consent) in session state {@code st}: the subject's own last word first ({@link #OWN_GRANT}, {@link #OWN_WITHDRAWAL}),
     * else a consent for the whole session ({@link #SESSION_CONSENT}), else {@link #NO_CONSENT}. No side effect: the
     * decision ({@link #consented(Frame, String, String)}) and a refusal's report ({@link #missingConsent}) both read it.
     */
    private int consentWord(SessionState st, String subject, String purpose) {
        Object own = st.refs[consentSlot];
        if (sharedSubjects) {
            SubjectRegister.State r = register.state();
            if (subject != null && (!r.consents.isEmpty() || !r.withdrawn.isEmpty())) {
                long h = TextHash.pair(subject, purpose);
                if (r.consents.contains(h)) return OWN_GRANT;
                if (r.withdrawn.contains(h)) return OWN_WITHDRAWAL;
            }
            return own instanceof ValueSet s && !s.isEmpty() && s.contains(TextHash.pair("", purpose)) ? SESSION_CONSENT : NO_CONSENT;
        }
        if (!(own instanceof ValueSet s) || s.isEmpty()) return NO_CONSENT;
        if (subject != null) {
            long h = TextHash.pair(subject, purpose);
            if (s.contains(h)) return OWN_GRANT;
            if (s.contains(withdrawal(h))) return OWN_WITHDRAWAL;
        }
        return s.contains(TextHash.pair("", purpose)) ? SESSION_CONSENT : NO_CONSENT;
    }

    /**
     * The first call of tool {@code tool} that the session's consent for {@code purpose} let through: with a subject, the
     * mapping reaches the tool and it is not looked at again; without one, {@link #subjectNotes} hears why, once per tool
     * (and library version): gdpr.subject-fields probably names none of its arguments, so a subject's own consent or
     * withdrawal never counts for its calls. Off the path of every later call of the tool.
     */
    private synchronized void sessionConsentFor(Event e, int tool, String purpose, boolean subject) {
        if (sessionConsentSeen[tool] != 0) return;
        sessionConsentSeen[tool] = (byte) (subject ? 1 : 2);
        java.util.function.Consumer<String> to = subjectNotes;
        if (subject || to == null) return;
        to.accept(subjectless(e) + ", so only a consent for the whole session counts for it, and one let it run (its purpose "
                + purpose + " rests on consent): a data subject's own consent or withdrawal never counts for its calls");
    }

    /**
     * Where to say (once per tool) that a call without a data subject ran on the consent given for the whole session
     * (see {@link #sessionConsentFor}); null: nowhere. The agent sets its log; replay and check set none.
     */
    public void onSubjectNote(java.util.function.Consumer<String> notes) { this.subjectNotes = notes; }

    /** The session-scope mark of a subject's withdrawal of consent {@code h} (kept beside the grants in one set). */
    private static long withdrawal(long h) {
        long w = h ^ 0x5DEECE66DL * 0x9E3779B97F4A7C15L;
        return w == TextHash.EMPTY ? 1 : w;
    }

    /** The event's data subject: its own, else the first subject-naming argument of the policy it carries. */
    private String subjectOf(Event e) {
        if (e.subject() != null) return e.subject();
        for (Args.Path p : policy.subjectFields()) {
            JsonNode v = e.args().get(p);
            if (v != null && !v.isNull() && !v.isContainerNode()) return Nodes.text(v).toString();
        }
        return null;
    }

    /** The event serves a purpose the policy does not declare, or (when the policy declares purposes) no purpose at all. */
    boolean undeclaredPurpose(Frame f) {
        long p = f.purposes();
        if ((p & OTHER_PURPOSE) != 0) return true;
        return p == 0 && !policy.purposes().isEmpty();
    }

    boolean consentedAll(Frame f) {
        Event e = f.e;
        for (int i = 0; i < e.purposeCount(); i++) if (!consented(f, e.purpose(i))) return false;
        return boundConsented(f, f.toolFull) && boundConsented(f, f.toolBare);
    }

    private boolean boundConsented(Frame f, int id) {
        if (id < 0 || toolPurposeNames[id] == null) return true;
        for (String p : toolPurposeNames[id]) if (!consented(f, p)) return false;
        return true;
    }

    boolean mentionsErased(Frame f) {
        ValueSet s;
        MentionIndex index;
        if (sharedSubjects) {
            SubjectRegister.State r = register.state();
            s = r.erased;
            index = r.mentions;
        } else {
            if (!(f.st.refs[erasedSlot] instanceof ValueSet vs)) return false;
            s = vs;
            index = vs.mentions();   // built at the session's first check after an erasure, then kept with the set
        }
        if (s.isEmpty()) return false;
        if (f.mentionScratch.length < index.scratch()) f.mentionScratch = new int[index.scratch()];   // a longer subject was erased: rare
        Event e = f.e;
        // The erasure tool's own result (its confirmation) is not a disclosure.
        if (e.kind() == EventKind.RETURN && erasureToolOf(f) != null) return false;
        // Nor is an erasure tool's call for its subject (the erasure carried out, a deletion tool listed under
        // erasure-tools, or the request made again): its subject argument is no use of the data; its other arguments
        // still are (trial26 03).
        Args.Path erasing = f.isCall ? erasureToolOf(f) : null;
        JsonNode exempt = erasing == null ? null : e.args().get(erasing);
        if (e.subject() != null && exempt == null && s.contains(e.subject())) return true;
        Args a = e.args();
        for (int i = 0; i < a.leafCount(); i++) {
            JsonNode v = a.leafValue(i);
            if (v == exempt) continue;
            if (v.isTextual() && mentions(s, index, v.textValue(), f.mentionScratch)) return true;
            if (v.isIntegralNumber() && v.canConvertToLong() && s.contains(TextHash.of(v.longValue()))) return true;
        }
        return mentions(s, index, e.text(), f.mentionScratch) || mentions(s, index, e.result(), f.mentionScratch);
    }

    /**
     * {@code text} is an erased value or names one as a whole token, compared as TextHash compares values (case-folded,
     * white space, format chars and {@code - ( )} left out; {@link MentionIndex}).
     */
    private static boolean mentions(ValueSet s, MentionIndex index, String text, int[] scratch) {
        if (text == null) return false;
        return s.contains(text) || index.foundIn(text, scratch);
    }

    boolean flows(Frame f, CharSequence value, boolean untrusted) {
        if (value == null) return false;
        if (untrusted && provenance != null) return Sightings.of(f.st.refs[sightingsSlot]).untrustedTarget(value.toString(), provenance, false);
        Object in = f.st.refs[introducedSlot];
        if (!(in instanceof ValueSet introduced) || introduced.isEmpty()) return false;
        ValueSet named = f.st.refs[namedSlot] instanceof ValueSet vs ? vs : ValueSet.EMPTY;
        long[] hs = f.valueHashes;
        int n = 0;
        hs[n++] = TextHash.of(value);
        n = Identifiers.scanAll(value, hs, n);
        if (n < 0) return true; // a value longer than the scan reads (65,536 chars, 64 identifiers): not checked, so not trusted
        if (introduced.contains(Identifiers.UNSCANNED)) {
            // an output was not read to its end (or values were forgotten): every value the user did not write counts as
            // introduced. A value the user wrote whole is theirs; one composed of identifiers the user all wrote too
            if (!untrusted || !named.contains(hs[0])) {
                if (!untrusted || n == 1) return true;
                for (int i = 1; i < n; i++) if (!named.contains(hs[i])) return true;
            }
            return false;
        }
        // a target in display-name form ("Bob Smith <bob@corp.example>") is checked by its identifiers alone (its address):
        // its whole value, a short look-up result's line, is not one the user could write apart from the address
        int from = untrusted && n > 1 && Identifiers.displayName(value) ? 1 : 0;
        for (int i = from; i < n; i++) {
            if (introduced.contains(hs[i]) && !(untrusted && named.contains(hs[i]))) return true;
        }
        // flow(f) only: an introduced identifier glued into a longer token (api_key=SECRET, a URL's query) or split by
        // white space; untrusted(f) and untrusted_target keep whole tokens, so a target may carry an output's value
        return !untrusted && GluedValues.found(f, value, introduced);
    }

    int sideEffect(Frame f, boolean requireUntrusted) {
        if (!f.isCall) return FALSE;
        Args.Path[] targets = f.toolFull >= 0 && sideEffectTargets[f.toolFull] != null ? sideEffectTargets[f.toolFull]
                : f.toolBare >= 0 ? sideEffectTargets[f.toolBare] : null;
        if (targets == null) return FALSE;
        if (!requireUntrusted) return TRUE;
        if (provenance != null) {
            if (untrustedTarget(f, targets)) return TRUE;
            // a call without targets is not untrusted, but one whose arguments could not be read may have any (trial43 01)
            return f.e.args().unreadable() ? UNEV : FALSE;
        }
        boolean any = false;
        for (Args.Path p : targets) {
            JsonNode v = f.e.args().get(p);
            if (v == null) continue;
            any = true;
            if (flowsInto(f, v, true)) return TRUE;
        }
        return any ? FALSE : UNEV; // a side effect whose target cannot be read: fail closed
    }

    /**
     * {@link #flows} for a target: a scalar as its text, a list by each element and an object (a record parameter) by
     * each field, at any depth, as provenance reads targets; so the JSON text's keys and quotes are no values. Also
     * flow(f) and untrusted(f) on an object or list argument ({@link Nodes.Flow}).
     */
    boolean flowsInto(Frame f, JsonNode v, boolean untrusted) {
        if (!v.isContainerNode()) return !v.isNull() && flows(f, Nodes.text(v), untrusted);
        for (JsonNode x : v) if (flowsInto(f, x, untrusted)) return true;
        return false;
    }

    /**
     * Provenance's {@code untrusted_target}: a target value (each element of a list), or a link or
     * e-mail address in a declared payload argument, is untrusted. A call without any target is not
     * (its target cannot come from an output).
     */
    private boolean untrustedTarget(Frame f, Args.Path[] targets) {
        Provenance p = provenance;
        Sightings s = Sightings.of(f.st.refs[sightingsSlot]);
        Event e = f.e;
        boolean fetch = !p.fetchTools.isEmpty();
        List<String> links = p.linkPayloads.isEmpty() ? null : p.linkPayloads.get(e.toolKey());
        if (links != null) {
            for (String field : links) {
                JsonNode v = e.args().get(Args.Path.field(field));
                if (v == null || v.isNull()) continue;
                for (String id : Identifiers.find(v.isTextual() ? v.textValue() : v.toString())) {
                    if (link(id) && s.untrusted(id, p)
                            && !(fetch && s.inRecord(id))) {
                        return true;
                    }
                }
            }
        }
        boolean fetchTool = fetch && p.fetchTools.contains(e.toolKey());
        for (Args.Path path : targets) {
            JsonNode v = e.args().get(path);
            if (v != null && untrustedTarget(v, s, p, fetchTool)) return true;
        }
        return false;
    }

    /**
     * True when identifier {@code id} of a link payload ({@code link-payloads}) is a link: it holds {@code ://} or
     * {@code www.}, is an e-mail address ({@code @} after its first character), or is a domain with a path written without a
     * scheme ({@code evil.example/login}: letters, digits, '-' and dots before a first '/', the last dot followed by 2 to 24
     * letters), which mail and chat clients turn into a link. A bare domain ({@code evil.example}) and a file name
     * ({@code report.pdf}) are not. No allocation.
     */
    static boolean link(String id) {
        if (id.contains("://") || id.contains("www.") || id.indexOf('@') > 0) return true;
        int slash = id.indexOf('/');
        if (slash <= 0 || !Character.isLetterOrDigit(id.charAt(0))) return false;
        int dot = -1;
        for (int i = 0; i < slash; i++) {
            char c = id.charAt(i);
            if (c == '.') dot = i;
            else if (!Character.isLetterOrDigit(c) && c != '-') return false;
        }
        int tld = slash - dot - 1;
        if (dot <= 0 || tld < 2 || tld > 24) return false;
        for (int i = dot + 1; i < slash; i++) if (!Character.isLetter(id.charAt(i))) return false;
        return true;
    }

    /**
     * A target's value: a scalar is checked whole, a list by each element and an object (a record parameter:
     * {@code Recipient(address, name)}) by each field, at any depth (the parser bounds it): an object's fields are
     * checked like list elements, so its address is a target.
     */
    private static boolean untrustedTarget(JsonNode v, Sightings s, Provenance p, boolean fetchTool) {
        if (v.isNull() || v.isMissingNode()) return false;
        if (v.isContainerNode()) {
            for (JsonNode x : v) if (untrustedTarget(x, s, p, fetchTool)) return true;
            return false;
        }
        return s.untrustedTarget(v.asText(), p, fetchTool);
    }

    /**
     * A CALL of a fetch tool (provenance {@code fetch-tools}) with at least one target, every one of
     * which (each element of a list) lies inside a record the user, or a delegated source, named.
     */
    boolean namedLink(Frame f) {
        if (!f.isCall || provenance == null || !provenance.fetchTools.contains(f.e.toolKey())) return false;
        Args.Path[] targets = f.toolFull >= 0 && sideEffectTargets[f.toolFull] != null ? sideEffectTargets[f.toolFull]
                : f.toolBare >= 0 ? sideEffectTargets[f.toolBare] : null;
        if (targets == null) return false;
        Sightings s = Sightings.of(f.st.refs[sightingsSlot]);
        int any = 0;
        for (Args.Path path : targets) {
            JsonNode v = f.e.args().get(path);
            if (v == null) continue;
            int r = inRecord(v, s);
            if (r < 0) return false;
            any |= r;
        }
        return any > 0;
    }

    /** 1 when every scalar of {@code v} (each element of a list, each field of an object) lies inside a named record, -1 when one does not, 0 when it has none. */
    private static int inRecord(JsonNode v, Sightings s) {
        if (v.isNull() || v.isMissingNode()) return 0;
        if (!v.isContainerNode()) return s.inRecord(v.asText()) ? 1 : -1;
        int any = 0;
        for (JsonNode x : v) {
            int r = inRecord(x, s);
            if (r < 0) return -1;
            any |= r;
        }
        return any;
    }

    // ------------------------------------------------------------------ reporting (allocates)

    /** The data categories the grounding finds in {@code event} (declared, mapped, hinted, detected), by name. */
    public Set<String> categories(Event event) {
        Frame f = new Frame(this);
        f.prepare(event, null);
        long m = categoriesOf(f);
        Set<String> out = new LinkedHashSet<>();
        for (DataCategory c : DataCategory.values()) if ((m & c.bit()) != 0) out.add(c.key());
        categoryBits.forEach((k, b) -> { if ((m & b) != 0) out.add(k); });
        if ((m & OTHER_CATEGORY) != 0) {
            for (int i = 0; i < event.categoryCount(); i++) out.add(event.category(i));
        }
        return out;
    }

    /** Whether {@code atom} is {@code undeclared_purpose} (gdpr.P2). */
    public boolean isUndeclaredPurposeAtom(int atom) {
        return atom >= 0 && atom < preds.length && preds[atom] instanceof Nodes.UndeclaredPurpose;
    }

    /**
     * Why {@code event}, a call, serves no declared purpose although it carries personal data (gdpr.P2), by category and
     * argument, never by value (the text goes to the model and to stderr): "pay carries iban (in iban) and gdpr.tools binds
     * pay to no purpose; declared purposes: crm"; null when it has a declared purpose or carries none. For reports (a
     * refusal's reason), never on the path of an event that passes (trial41 02: the refusal said only "for no declared
     * purpose", and the operator had to read docs/LIBRARY.md to learn that gdpr.tools lacked the tool).
     */
    public String undeclaredPurposeCause(Event event) {
        if (event == null || event.kind() != EventKind.CALL) return null;
        Frame f = new Frame(this);
        f.prepare(event, null);
        if (!undeclaredPurpose(f)) return null;
        long m = categoriesOf(f);
        if (m == 0) return null;
        Set<String> names = categories(event);
        List<String> paths = new ArrayList<>();
        Map<String, Long> mapped = new HashMap<>();
        for (int id : new int[] {f.toolFull, f.toolBare}) {
            if (id < 0 || toolFieldPaths[id] == null) continue;
            for (int i = 0; i < toolFieldPaths[id].length; i++) mapped.merge(toolFieldPaths[id][i].toString(), toolFieldBits[id][i], (x, y) -> x | y);
        }
        collectPaths(event.args().root(), "", null, m, mapped, paths);
        String data = (names.isEmpty() ? "personal data" : String.join(", ", names)) + (paths.isEmpty() ? "" : " (in " + String.join(", ", paths) + ")");
        List<String> declared = new ArrayList<>(policy.purposes());
        String known = declared.isEmpty() ? "the gdpr section declares no purpose" : "declared purposes: " + String.join(", ", declared);
        if ((f.purposes() & OTHER_PURPOSE) != 0) {
            return event.tool() + " carries " + data + " for a purpose the gdpr section does not declare (" + known + ")";
        }
        return event.tool() + " carries " + data + " and gdpr.tools binds " + event.tool() + " to no purpose (" + known
                + "): bind it there to the purpose it serves, or leave the data out";
    }

    /**
     * What to remove from {@code event} so that it keeps only the categories its purposes need (the
     * data behind {@code excess_data}); empty when the event has no purpose. Allocates: for the rare
     * path where a redact strategy acts.
     */
    public Redaction redaction(Event event) {
        Frame f = new Frame(this);
        f.prepare(event, null);
        long purposes = purposesOf(f);
        if (purposes == 0) return new Redaction(Set.of(), List.of(), List.of(), List.of());
        long need = 0;
        for (int i = 0; i < necessaryPurpose.length; i++) if ((purposes & necessaryPurpose[i]) != 0) need |= necessaryMask[i];
        long excess = categoriesOf(f) & ~need;
        Set<String> names = new LinkedHashSet<>();
        for (Map.Entry<String, Long> en : categoryBits.entrySet()) if ((excess & en.getValue()) != 0) names.add(en.getKey());
        if ((excess & OTHER_CATEGORY) != 0) {
            for (int i = 0; i < event.categoryCount(); i++) if (!categoryBits.containsKey(event.category(i))) names.add(event.category(i));
        }
        List<String> paths = new ArrayList<>();
        if (event.kind() == EventKind.CALL && excess != 0) {
            Map<String, Long> mapped = new HashMap<>();
            for (int id : new int[] {f.toolFull, f.toolBare}) {
                if (id < 0 || toolFieldPaths[id] == null) continue;
                for (int i = 0; i < toolFieldPaths[id].length; i++) mapped.merge(toolFieldPaths[id][i].toString(), toolFieldBits[id][i], (x, y) -> x | y);
            }
            collectPaths(event.args().root(), "", null, excess, mapped, paths);
        }
        return new Redaction(names, paths, spans(event.text(), excess), spans(event.result(), excess));
    }

    private static void collectPaths(JsonNode node, String path, String field, long excess, Map<String, Long> mapped, List<String> out) {
        Long m = mapped.get(path);
        if (m != null && (m & excess) != 0) {
            out.add(path);
            return;
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> en : node.properties()) {
                collectPaths(en.getValue(), path.isEmpty() ? en.getKey() : path + "." + en.getKey(), en.getKey(), excess, mapped, out);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) collectPaths(node.get(i), path + "." + i, field, excess, mapped, out);
        } else if (!node.isNull()) {
            DataCategoryExtractor x = DataCategoryExtractor.INSTANCE;
            long c = 0;
            DataCategory hint = field == null ? null : x.fieldHint(field);
            if (hint != null) c |= hint.bit();
            if (node.isTextual() || (node.isIntegralNumber() && Math.abs(node.doubleValue()) >= 1_000_000)) {
                c |= x.mask(node.asText(), new dev.tracegate.matchers.pii.SpanSink.Mask());
            }
            if ((c & excess) != 0) out.add(path);
        }
    }

    private static List<dev.tracegate.matchers.pii.CategorySpan> spans(String text, long excess) {
        if (text == null || excess == 0) return List.of();
        List<dev.tracegate.matchers.pii.CategorySpan> out = new ArrayList<>();
        for (dev.tracegate.matchers.pii.CategorySpan sp : DataCategoryExtractor.INSTANCE.spans(text)) {
            if ((sp.category().bit() & excess) != 0) out.add(sp);
        }
        return out;
    }

    /**
     * Why atom {@code atom} was unevaluable on {@code event}, when more can be said than "an argument it reads is
     * missing": for {@code untrusted_target} (and {@code side_effect}) on a call of a side-effecting tool, the target
     * arguments the policy names that the call lacks, and the arguments it has ("send_email has none of its target
     * arguments [recipient] (injection.side-effecting in pol.yaml); its arguments are to, subject, body", where the
     * parenthesis is {@code whereDeclared} of the tool, when it gives one). Null otherwise. For reports (a refusal's reason,
     * replay's listing), never on the path of an event that passes.
     */
    public String unevaluableCause(int atom, Event event, java.util.function.Function<String, String> whereDeclared) {
        if (atom < 0 || atom >= preds.length || !(preds[atom] instanceof UntrustedTarget) || event == null
                || event.kind() != EventKind.CALL) {
            return null;
        }
        int full = toolId(event.toolKey());
        int bare = event.toolBare() == event.toolKey() ? full : toolId(event.toolBare());
        Args.Path[] targets = full >= 0 && sideEffectTargets[full] != null ? sideEffectTargets[full]
                : bare >= 0 ? sideEffectTargets[bare] : null;
        if (targets == null) return null;
        List<String> missing = new ArrayList<>();
        for (Args.Path t : targets) {
            JsonNode v = event.args().get(t);
            if (v == null || v.isNull()) missing.add(t.toString());
        }
        if (missing.size() < targets.length) return null;   // a target was there: unevaluable for another reason
        List<String> has = new ArrayList<>();
        for (java.util.Iterator<String> it = event.args().fieldNames(); it.hasNext(); ) has.add(it.next());
        String where = whereDeclared == null ? null : whereDeclared.apply(event.tool());
        return event.tool() + " has none of its target arguments [" + String.join(", ", missing) + "]"
                + (where == null ? "" : " (" + where + ")") + "; "
                + (has.isEmpty() ? "the call has no arguments" : "its arguments are " + String.join(", ", has));
    }

    /**
     * Why {@code untrusted_target} (atom {@code atom}) held on {@code event} in {@code state} (the session before it) only
     * because the default mode's scanning bounds were reached, which fail closed, or null when it held on what was read
     * (some target is a value a tool output introduced), did not hold, or is another atom. Two causes: a target too long or
     * with too many identifiers to read ({@link Identifiers#MAX_SCAN}, {@link Identifiers#MAX_PER_TEXT}), or an earlier output
     * not read to its end (or values the session's set forgot), after which every value the user did not write counts as
     * introduced. With whole-word provenance ({@code provenance:}): a target too long to check, or texts dropped past
     * {@code max-chars} ({@link Sightings#why}). For reports (a refusal's reason), never on the path of an event that passes.
     */
    public String boundCause(int atom, Event event, SessionState state) {
        if (atom < 0 || atom >= preds.length || !(preds[atom] instanceof UntrustedTarget u) || !u.requireUntrusted || event == null
                || event.kind() != EventKind.CALL || state == null) {
            return null;
        }
        Frame f = frames.take();
        f.prepare(event, state);
        try {
            Args.Path[] targets = f.toolFull >= 0 && sideEffectTargets[f.toolFull] != null ? sideEffectTargets[f.toolFull]
                    : f.toolBare >= 0 ? sideEffectTargets[f.toolBare] : null;
            if (targets == null) return null;
            if (provenance != null) return provenanceBoundCause(f, targets);
            String cause = null;
            for (Args.Path p : targets) {
                JsonNode v = event.args().get(p);
                if (v == null) continue;
                String c = boundCause(f, v, p.toString());
                if (c == INTRODUCED) return null;
                if (cause == null) cause = c;
            }
            return cause;
        } finally {
            f.release();
            frames.give(f);
        }
    }

    /** {@link #boundCause} with whole-word provenance: as {@link #untrustedTarget(Frame, Args.Path[])} reads the call. */
    private String provenanceBoundCause(Frame f, Args.Path[] targets) {
        Provenance p = provenance;
        Sightings s = Sightings.of(f.st.refs[sightingsSlot]);
        Event e = f.e;
        boolean fetch = !p.fetchTools.isEmpty();
        int why = Sightings.TRUSTED;
        String at = null;
        List<String> links = p.linkPayloads.isEmpty() ? null : p.linkPayloads.get(e.toolKey());
        if (links != null) {
            for (String field : links) {
                JsonNode v = e.args().get(Args.Path.field(field));
                if (v == null || v.isNull()) continue;
                for (String id : Identifiers.find(v.isTextual() ? v.textValue() : v.toString())) {
                    if (!link(id)) continue;
                    int w = s.why(id, p, fetch, false);
                    if (w == Sightings.INTRODUCED) return null;
                    if (w != Sightings.TRUSTED && why == Sightings.TRUSTED) { why = w; at = "link in " + field; }
                }
            }
        }
        boolean fetchTool = fetch && p.fetchTools.contains(e.toolKey());
        for (Args.Path path : targets) {
            JsonNode v = e.args().get(path);
            if (v == null) continue;
            List<JsonNode> leaves = new ArrayList<>();
            leaves(v, leaves);
            for (JsonNode x : leaves) {
                int w = s.why(x.asText(), p, fetchTool, true);
                if (w == Sightings.INTRODUCED) return null;
                if (w != Sightings.TRUSTED && why == Sightings.TRUSTED) { why = w; at = "target " + path; }
            }
        }
        if (why == Sightings.TOO_LONG) return tooLong("its " + at);
        if (why == Sightings.DROPPED) {
            return "this session's user messages and tool outputs outgrew provenance max-chars (" + String.format(java.util.Locale.ROOT, "%,d",
                    p.maxChars) + " characters), so the oldest were dropped and its " + at + ", which the user did not write, could not be"
                    + " checked against them";
        }
        return null;
    }

    /** The scalars of a target value: itself, or each element or field at any depth. */
    private static void leaves(JsonNode v, List<JsonNode> out) {
        if (v.isNull() || v.isMissingNode()) return;
        if (v.isContainerNode()) for (JsonNode x : v) leaves(x, out);
        else out.add(v);
    }

    private static String tooLong(String what) {
        return what + " is longer than " + String.format(java.util.Locale.ROOT, "%,d", Identifiers.MAX_SCAN)
                + " characters or holds more than " + Identifiers.MAX_PER_TEXT + " distinct identifiers, more than the injection"
                + " check reads (Identifiers.MAX_SCAN, MAX_PER_TEXT), so it could not be checked";
    }

    /** A target value some output did introduce (not a bound's doing). */
    private static final String INTRODUCED = new String("introduced");

    /** {@link #boundCause} of one target value (each element or field of a list or object): null when it is trusted. */
    private String boundCause(Frame f, JsonNode v, String path) {
        if (v.isContainerNode()) {
            String cause = null;
            for (JsonNode x : v) {
                String c = boundCause(f, x, path);
                if (c == INTRODUCED) return c;
                if (cause == null) cause = c;
            }
            return cause;
        }
        if (v.isNull()) return null;
        CharSequence value = Nodes.text(v);
        if (value == null || !flows(f, value, true)) return null;
        long[] hs = f.valueHashes;
        int n = 0;
        hs[n++] = TextHash.of(value);
        n = Identifiers.scanAll(value, hs, n);
        if (n < 0) return tooLong("its target " + path);
        ValueSet introduced = f.st.refs[introducedSlot] instanceof ValueSet vs ? vs : ValueSet.EMPTY;
        ValueSet named = f.st.refs[namedSlot] instanceof ValueSet vs ? vs : ValueSet.EMPTY;
        for (int i = n > 1 && Identifiers.displayName(value) ? 1 : 0; i < n; i++) {
            if (introduced.contains(hs[i]) && !named.contains(hs[i])) return INTRODUCED;
        }
        return "an earlier tool output of this session was not read to its end (longer than "
                + String.format(java.util.Locale.ROOT, "%,d", Identifiers.MAX_SCAN) + " characters, or more than " + Identifiers.MAX_PER_TEXT
                + " distinct values), or the session's values outgrew " + String.format(java.util.Locale.ROOT, "%,d", policy.setCapacity)
                + ", so its target " + path + ", which the user did not write, could not be checked against it";
    }

    /** Whether atom {@code atom} is {@code consented} (the subject's consent for the event's purposes). */
    public boolean isConsentAtom(int atom) {
        return atom >= 0 && atom < preds.length && preds[atom] instanceof Consent;
    }

    /**
     * Why a call whose purpose rests on consent has no data subject, or null when it has one (or no such purpose): none of
     * the policy's subject fields is among its arguments ("sendNewsletter has no data subject: none of the subject fields
     * [cust.email] is among its arguments (customer)", or "no subject-fields are declared"), so a consent recorded for a
     * subject never counts for it (trial19: a refusal said "the data subject has not consented" of a call with no subject).
     * For reports (a refusal's reason), never on the path of an event that passes.
     */
    public String noSubjectCause(Event event) {
        if (event == null || event.kind() != EventKind.CALL || event.subject() != null) return null;
        String consentPurpose = null;
        for (int i = 0; i < event.purposeCount() && consentPurpose == null; i++) {
            if (policy.requiresConsentFolded(event.purpose(i))) consentPurpose = event.purpose(i);
        }
        int full = toolId(event.toolKey());
        int bare = event.toolBare() == event.toolKey() ? full : toolId(event.toolBare());
        for (int id : new int[] {full, bare}) {
            if (consentPurpose != null || id < 0 || toolPurposeNames[id] == null) continue;
            for (String p : toolPurposeNames[id]) if (policy.requiresConsentFolded(p)) { consentPurpose = p; break; }
        }
        if (consentPurpose == null || subjectOf(event) != null) return null;
        return subjectless(event) + ", so a consent recorded for a data subject never counts for it, only a consent for the whole session would"
                + " (its purpose " + consentPurpose + " rests on consent)";
    }

    /**
     * Which data subjects of {@code event}, a call (or a configured method's event) that a consent contract refused in
     * session state {@code state} (the session before the event), lack consent for which of its purposes that rest on
     * consent: "the data subject in cc, for marketing (none recorded); the data subject in email, for marketing
     * (withdrawn)". A subject is named by the argument (subject field) that holds it, or as "its data subject" for an
     * event's own subject (a configured method's {@code subject-param}), never by its value: the text also goes to the
     * model and to the agent's stderr, which name no argument values, and the event's audit record holds the value under
     * that name, as {@code audit.personal-data} writes it (trial26 08's follow-up: with several subjects the refusal did
     * not say whose consent was missing). Null when every subject has consent, or the event names none (then
     * {@link #noSubjectCause} says why). For reports (a refusal's reason), never on the path of an event that passes.
     */
    public String missingConsent(Event event, SessionState state) {
        if (event == null || state == null || consentSlot < 0) return null;
        List<String> purposes = new ArrayList<>();
        for (int i = 0; i < event.purposeCount(); i++) {
            String p = event.purpose(i);
            if (policy.requiresConsentFolded(p) && !purposes.contains(p)) purposes.add(p);
        }
        int full = toolId(event.toolKey());
        int bare = event.toolBare() == event.toolKey() ? full : toolId(event.toolBare());
        for (int id : new int[] {full, bare}) {
            if (id < 0 || toolPurposeNames[id] == null) continue;
            for (String p : toolPurposeNames[id]) if (policy.requiresConsentFolded(p) && !purposes.contains(p)) purposes.add(p);
        }
        if (purposes.isEmpty()) return null;
        List<String> names = new ArrayList<>();
        List<String> subjects = new ArrayList<>();
        if (event.subject() != null) {
            names.add("its data subject");
            subjects.add(event.subject());
        } else {
            for (Args.Path p : policy.subjectFields()) {
                JsonNode v = event.args().get(p);
                if (v == null || v.isNull() || v.isContainerNode()) continue;
                names.add("the data subject in " + p);
                subjects.add(Nodes.text(v).toString());
            }
        }
        if (subjects.isEmpty()) return null;
        List<String> out = new ArrayList<>();
        for (int k = 0; k < subjects.size(); k++) {
            List<String> lacking = new ArrayList<>();
            for (String p : purposes) {
                int word = consentWord(state, subjects.get(k), p);
                if (word == OWN_WITHDRAWAL) lacking.add(p + " (withdrawn)");
                else if (word == NO_CONSENT) lacking.add(p + " (none recorded)");
            }
            if (!lacking.isEmpty()) out.add(names.get(k) + ", for " + String.join(", ", lacking));
        }
        return out.isEmpty() ? null : String.join("; ", out);
    }

    /** "TOOL has no data subject: none of the subject fields [..] is among its arguments (its arguments are ..)", for reports. */
    private String subjectless(Event event) {
        List<String> has = new ArrayList<>();
        for (java.util.Iterator<String> it = event.args().fieldNames(); it.hasNext(); ) has.add(it.next());
        List<String> fields = new ArrayList<>();
        for (Args.Path p : policy.subjectFields()) fields.add(p.toString());
        String args = has.isEmpty() ? "the call has no arguments" : "its arguments are " + String.join(", ", has);
        return event.tool() + " has no data subject: " + (fields.isEmpty()
                ? "no gdpr.subject-fields are declared (" + args + ")"
                : "none of the subject fields [" + String.join(", ", fields) + "] is among its arguments (" + args + ")");
    }

    /** Indices of the atoms set in a bit array (valuation or unevaluable), for reports. */
    public static List<Integer> indices(long[] bits) {
        List<Integer> out = new ArrayList<>();
        BitSet b = BitSet.valueOf(bits);
        for (int i = b.nextSetBit(0); i >= 0; i = b.nextSetBit(i + 1)) out.add(i);
        return out;
    }

    /** Words a valuation array needs for this grounding's atoms. */
    public int valuationWords() { return (preds.length + 63) >>> 6; }

    /** The context keys the state keeps, with their slot in {@code refs}. */
    public Map<String, Integer> contextSlots() { return ctxSlots; }

    /** The value of context {@code key} in {@code state}: a JsonNode, a {@link ValueSet}, or null. */
    public Object context(SessionState state, String key) {
        Integer slot = ctxSlots.get(key.startsWith("ctx.") ? key.substring(4) : key);
        return slot == null ? null : state.refs[slot];
    }

    // ------------------------------------------------------------------ serialisation of refs

    @Override public void writeRefs(Object[] refs, DataOutput out) throws IOException {
        out.writeInt(refs.length);
        for (Object r : refs) {
            if (r == null) out.writeByte(0);
            else if (r instanceof ValueSet s) {
                out.writeByte(1);
                long[] hs = s.hashes();
                out.writeInt(hs.length);
                for (long h : hs) out.writeLong(h);
                out.writeInt(s.textCount());
                for (int i = 0; i < s.textCount(); i++) out.writeUTF(s.text(i));
            } else if (r instanceof Sightings s) {
                out.writeByte(5);
                s.write(out);
            } else if (r instanceof PendingCalls p) {
                out.writeByte(4);
                out.writeInt(p.size());
                for (int k = 0; k < p.size(); k++) {
                    byte[] id = p.id(k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    out.writeInt(id.length);
                    out.write(id);
                    JsonNode v = p.rawValue(k);
                    out.writeByte(p.isAmbiguous(k) ? 2 : v == null ? 0 : 1);
                    if (v != null) {
                        byte[] b = Json.MAPPER.writeValueAsBytes(v);
                        out.writeInt(b.length);
                        out.write(b);
                    }
                }
            } else if (r instanceof JsonNode n) {
                out.writeByte(2);
                byte[] b = Json.MAPPER.writeValueAsBytes(n);
                out.writeInt(b.length);
                out.write(b);
            } else {
                throw new IOException("cannot serialise context value of " + r.getClass().getName());
            }
        }
    }

    /**
     * The byte form without a version (0) was written by two layouts of a {@code sum(T, f)} word: before e86bd60
     * (session 18) the bits of a double, from then until the version mark millionths. They are told apart by size: a
     * word below 2^53 in magnitude (a total within +-9,007,199,254), or OUT_OF_RANGE, is millionths, since as a double it
     * would be a total below 2^-1021 or beyond 10^308 or NaN, which no sum of amounts reached before; any other word is a
     * double, read as the decimal of at most six places nearest to it (as an amount is: {@code 3.3000000000000003}
     * becomes 3.30), and one beyond the range as beyond it (unevaluable, as NaN and infinity were). Millionths of a
     * total beyond +-9,007,199,254 written without the mark cannot be told from a double and are read as one.
     */
    @Override public void readWords(int version, long[] words) {
        if (version != 0) return;
        for (int i : sumWord) {
            long w = words[i];
            if (w == Nodes.OUT_OF_RANGE || w != Long.MIN_VALUE && Math.abs(w) < 1L << 53) continue;
            double total = Double.longBitsToDouble(w);
            words[i] = Double.isNaN(total) || Double.isInfinite(total) ? Nodes.OUT_OF_RANGE : Nodes.micros(total);
        }
    }

    /**
     * Reads {@link #writeRefs}'s form. A session written before a consent tool's grant counted at its RETURN (7b2ca5f,
     * session 15) has no slot for the consent tools' calls in flight: with a library that has consent tools, a context
     * one slot short is read in that layout, with no call in flight (such a tool's grant was recorded at its call then, so
     * its RETURN has nothing left to record). Any other difference in slots is refused with what to do.
     */
    @Override public void readRefs(DataInput in, Object[] refs) throws IOException {
        int n = in.readInt();
        // before 7b2ca5f: the same slots without consentCallsSlot, which came right after consentSlot
        boolean beforeConsentCalls = consentCallsSlot >= 0 && n == refs.length - 1;
        if (n != refs.length && !beforeConsentCalls) {
            throw new IOException("the session's state has " + n + " context slots and these libraries keep " + refs.length
                    + ", so it was written with other libraries (or another version of them or of tracegate) and cannot be read"
                    + " here; a session's byte form moves only between monitors of the same libraries and tracegate version"
                    + " (one written before session 15's consent tools change is read too): start the session anew, or replay"
                    + " its trace or audit log with these libraries to rebuild it");
        }
        if (beforeConsentCalls) refs[consentCallsSlot] = null;
        for (int stored = 0; stored < n; stored++) {
            int i = beforeConsentCalls && stored >= consentCallsSlot ? stored + 1 : stored;
            int tag = in.readByte();
            switch (tag) {
                case 0 -> refs[i] = null;
                case 1 -> {
                    long[] hs = new long[in.readInt()];
                    for (int k = 0; k < hs.length; k++) hs[k] = in.readLong();
                    String[] ts = new String[in.readInt()];
                    for (int k = 0; k < ts.length; k++) ts[k] = in.readUTF();
                    refs[i] = ValueSet.restore(hs, ts, policy.setCapacity);
                }
                case 2 -> {
                    byte[] b = new byte[in.readInt()];
                    in.readFully(b);
                    refs[i] = Json.MAPPER.readTree(b);
                }
                case 3, 5 -> { // 3: written before session 16, without the user's names
                    if (i != sightingsSlot) throw new IOException("provenance context in slot " + i + ", this library keeps it in " + sightingsSlot);
                    refs[i] = Sightings.read(in, tag == 5);
                }
                case 4 -> {
                    if (!byIdSlot(i)) throw new IOException("pending calls in slot " + i + ", which holds no latch's calls in this library");
                    int count = in.readInt();
                    if (count < 0 || count > PendingCalls.MAX) throw new IOException(count + " pending calls in slot " + i + ", at most " + PendingCalls.MAX);
                    String[] ids = new String[count];
                    JsonNode[] values = new JsonNode[count];
                    boolean[] ambiguous = new boolean[count];
                    for (int k = 0; k < count; k++) {
                        ids[k] = new String(bytes(in), java.nio.charset.StandardCharsets.UTF_8);
                        int kind = in.readByte();
                        if (kind < 0 || kind > 2) throw new IOException("unknown pending call value tag " + kind);
                        ambiguous[k] = kind == 2;
                        if (kind == 1) values[k] = Json.MAPPER.readTree(bytes(in));
                    }
                    refs[i] = PendingCalls.restore(ids, values, ambiguous);
                }
                default -> throw new IOException("unknown context tag " + tag);
            }
        }
    }

    private boolean byIdSlot(int slot) {
        if (slot == consentCallsSlot) return true;
        for (int s : latchById) if (s == slot) return true;
        return false;
    }

    private static byte[] bytes(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) throw new IOException("negative length " + n);
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    // ------------------------------------------------------------------ compiler

    /** Turns atoms into nodes and lays out the session state. */
    private static final class Compiler {
        final Policy policy;
        final List<Pred> preds = new ArrayList<>();
        final List<Pattern> patterns = new ArrayList<>();
        final Map<String, Integer> patternIds = new HashMap<>();
        final Map<String, Integer> toolIds = new LinkedHashMap<>();
        final List<int[]> countTool = new ArrayList<>();
        final List<int[]> runTool = new ArrayList<>();
        record SumSlot(int tool, Args.Path path, int word) {}
        final List<SumSlot> sums = new ArrayList<>();
        final List<int[]> counters = new ArrayList<>();
        final List<Pred> sinceInner = new ArrayList<>();
        final List<Integer> sinceWord = new ArrayList<>();
        final Map<String, Integer> ctxSlots = new LinkedHashMap<>();
        final Map<String, Long> categoryBits = new LinkedHashMap<>();
        final Map<String, Long> purposeBits = new LinkedHashMap<>();
        int words = 1; // W_EVENTS
        int refs = 0;
        boolean erased, consent, flow, categories;
        private Atom current;

        Compiler(Policy policy) {
            this.policy = policy;
            for (DataCategory c : DataCategory.values()) categoryBits.put(c.key(), c.bit());
            policy.toolPurposes.keySet().forEach(this::tool);
            policy.toolFieldCategories.keySet().forEach(this::tool);
            policy.consentTools.keySet().forEach(this::tool);
            policy.erasureTools.keySet().forEach(this::tool);
            policy.sideEffects.keySet().forEach(this::tool);
            for (Latch l : policy.latches) {
                if (l.tool != null) tool(l.tool);
                ctxSlot(l.key);
            }
            policy.necessary.forEach((p, cats) -> {
                purposeBit(p);
                cats.forEach(this::categoryBit);
            });
            policy.toolPurposes.values().forEach(ps -> ps.forEach(this::purposeBit));
            policy.toolFieldCategories.values().forEach(m -> m.values().forEach(this::categoryBit));
            if (!policy.permissions.isEmpty()) ctxSlot(PERMISSIONS);
            if (!policy.consentTools.isEmpty()) consent = true;
            if (!policy.erasureTools.isEmpty()) erased = true;
        }

        int tool(String name) {
            String k = ToolName.fold(name);
            Integer id = toolIds.get(k);
            if (id == null) {
                id = toolIds.size();
                toolIds.put(k, id);
            }
            return id;
        }

        int ctxSlot(String key) {
            String k = key.startsWith("ctx.") ? key.substring(4) : key;
            Integer s = ctxSlots.get(k);
            if (s == null) {
                s = refs++;
                ctxSlots.put(k, s);
            }
            return s;
        }

        long categoryBit(String name) {
            String k = Policy.categoryKey(name);
            Long b = categoryBits.get(k);
            if (b == null) {
                if (categoryBits.size() >= 63) throw new IllegalArgumentException("more than 63 data categories");
                b = 1L << categoryBits.size();
                categoryBits.put(k, b);
            }
            return b;
        }

        long purposeBit(String name) {
            String k = Policy.norm(name);
            Long b = purposeBits.get(k);
            if (b == null) {
                if (purposeBits.size() >= 63) throw new IllegalArgumentException("more than 63 purposes");
                b = 1L << purposeBits.size();
                purposeBits.put(k, b);
            }
            return b;
        }

        // ---- errors

        private VocabularyException wrong(String problem) {
            String name = current.name();
            List<String> forms = Vocabulary.syntaxes(name);
            return new VocabularyException(current, problem, forms.isEmpty() ? Vocabulary.allSyntaxes() : forms);
        }

        // ---- entry

        Pred top(Atom a) {
            Atom saved = current;
            current = a;
            try {
                return atom(a);
            } finally {
                current = saved;
            }
        }

        private Pred atom(Atom a) {
            String name = a.name();
            List<Term> args = a.args();
            int n = args.size();
            if (!Vocabulary.names().contains(name)) {
                throw wrong("unknown atom name '" + name + "'");
            }
            Vocabulary.Form form = Vocabulary.form(name, n);
            if (form == null) throw wrong("'" + name + "' does not take " + n + " argument" + (n == 1 ? "" : "s"));
            if (form.type() == Vocabulary.Type.CONDITION && a.comparison() != null) {
                throw wrong("'" + form.syntax() + "' is a condition and takes no comparison");
            }
            if (form.type() == Vocabulary.Type.NUMBER && a.comparison() == null) {
                throw wrong("'" + name + "' is a number: compare it, e.g. " + form.syntax().replace("<op> n", "<= 3").replace("<op> bound", "> 100"));
            }
            if (form.type() == Vocabulary.Type.VALUE && a.comparison() == null && !name.equals("ctx")) {
                throw wrong("'" + name + "' is a value: compare it, e.g. " + name + "(amount) > 100, or use arg_matches / arg_in");
            }
            switch (name) {
                case "user": return new KindIs(EventKind.USER);
                case "assistant": return new KindIs(EventKind.ASSISTANT);
                case "return": return new KindIs(EventKind.RETURN);
                case "erasure": return new KindIs(EventKind.ERASURE);
                case "end": return new KindIs(EventKind.END);
                case "call":
                    if (n == 0) return new KindIs(EventKind.CALL);
                    return new CallOf(tool(toolArg(args.get(0))), n == 2 ? pattern(args.get(1)) : -1);
                case "consent":
                    if (n == 0) return new KindIs(EventKind.CONSENT);
                    consent = true;
                    return new Consent(Policy.norm(nameArg(args.get(0), "purpose")));
                case "returned": return new ReturnOf(tool(toolArg(args.get(0))), false);
                case "failed": return new ReturnOf(tool(toolArg(args.get(0))), true);
                case "arg": return compare(argValue(args, n - 1), a);
                case "arg_matches": return new ArgMatches(argValue(args, n - 2), pattern(args.get(n - 1)));
                case "arg_in": {
                    List<Term> items = list(args.get(n - 1));
                    List<String> texts = new ArrayList<>();
                    List<Double> nums = new ArrayList<>();
                    for (Term t : items) {
                        String v = scalar(t);
                        texts.add(v);
                        double d = NumberText.parse(v);
                        if (!Double.isNaN(d)) nums.add(d);
                    }
                    return new ArgIn(argValue(args, n - 2), texts.toArray(new String[0]),
                            nums.stream().mapToDouble(Double::doubleValue).toArray());
                }
                case "path_within": {
                    List<Term> items = list(args.get(n - 1));
                    String[] prefixes = new String[items.size()];
                    for (int i = 0; i < prefixes.length; i++) {
                        String p = scalar(items.get(i));
                        if (p.isBlank()) throw wrong("empty path prefix");
                        prefixes[i] = Paths.normalise(p);
                    }
                    return new PathWithin(argValue(args, n - 2), prefixes);
                }
                case "len": {
                    Term t = args.get(0);
                    if (t instanceof Term.Call c && c.name().equals("arg") && (c.args().size() == 1 || c.args().size() == 2)) {
                        return compare(new Length(argValue(c.args(), c.args().size() - 1), false), a);
                    }
                    if (t instanceof Term.Name nm && (nm.value().equals("result") || nm.value().equals("text"))) {
                        return compare(new Length(null, nm.value().equals("result")), a);
                    }
                    throw wrong("len takes arg(f), arg(T, f), result or text, not '" + t + "'");
                }
                case "result_matches":
                    return new TextMatches(EventKind.RETURN, n == 2 ? tool(toolArg(args.get(0))) : -1, pattern(args.get(n - 1)));
                case "user_matches": return new TextMatches(EventKind.USER, -1, pattern(args.get(0)));
                case "output_matches": return new TextMatches(EventKind.ASSISTANT, -1, pattern(args.get(0)));
                case "ctx": {
                    int slot = ctxSlot(keyArg(args.get(0)));
                    if (a.comparison() == null) return new CtxHolds(slot);
                    return compare(new CtxValue(slot), a);
                }
                case "arg_eq_ctx": return new ArgEqCtx(argValue(args, n - 2), ctxSlot(keyArg(args.get(n - 1))));
                case "permission":
                    return new InSet(ctxSlot(PERMISSIONS), TextHash.of(Policy.norm(nameArg(args.get(0), "permission"))));
                case "flow":
                case "untrusted":
                    flow = true;
                    return new Flow(argValue(args, n - 1), name.equals("untrusted"));
                case "untrusted_target":
                    flow = true;
                    return new UntrustedTarget(true);
                case "side_effect": return new UntrustedTarget(false);
                case "named_link": return new NamedLink();
                case "category": {
                    categories = true;
                    return new Category(categoryBit(nameArg(args.get(0), "category")));
                }
                case "personal_data":
                    categories = true;
                    return new Category(~0L);
                case "excess_data":
                    categories = true;
                    return new ExcessData();
                case "purpose": return new Purpose(purposeBit(nameArg(args.get(0), "purpose")));
                case "consented":
                    consent = true;
                    return new Consent(null);
                case "mentions_erased":
                    erased = true;
                    return new MentionsErased();
                case "undeclared_purpose":
                    return new UndeclaredPurpose();
                case "count": {
                    int w = words++;
                    int t = tool(toolArg(args.get(0)));
                    countTool.add(new int[] {t, w});
                    return compare(new Count(t, w), a);
                }
                case "run": {
                    int w = words++;
                    int t = tool(toolArg(args.get(0)));
                    runTool.add(new int[] {t, w});
                    return compare(new Run(t, w), a);
                }
                case "sum": {
                    int w = words++;
                    int t = tool(toolArg(args.get(0)));
                    Args.Path p = path(args.get(1));
                    sums.add(new SumSlot(t, p, w));
                    return compare(new Sum(t, p, w), a);
                }
                case "context_len": return compare(counter(Counter.CONTEXT), a);
                case "output_chars": return compare(counter(Counter.OUTPUT), a);
                case "tokens": return compare(counter(Counter.TOKENS), a);
                case "depth": return compare(new Depth(), a);
                case "since": {
                    Term t = args.get(0);
                    Atom inner;
                    if (t instanceof Term.Call c) inner = new Atom(c.name(), c.args(), null, null, a.line(), a.column());
                    else if (t instanceof Term.Name nm) inner = new Atom(nm.value(), List.of(), null, null, a.line(), a.column());
                    else throw wrong("since takes a condition atom such as call(verify), not '" + t + "'");
                    if (!Vocabulary.names().contains(inner.name())) throw wrong("unknown atom name '" + inner.name() + "'");
                    Vocabulary.Form f = Vocabulary.form(inner.name(), inner.args().size());
                    if (f == null || f.type() != Vocabulary.Type.CONDITION && !inner.name().equals("ctx")) {
                        throw wrong("since takes a condition atom such as call(verify); '" + inner.key() + "' is not one");
                    }
                    Pred p = atom(inner);
                    int w = words++;
                    sinceInner.add(p);
                    sinceWord.add(w);
                    return compare(new Since(p, w, W_EVENTS), a);
                }
                default:
                    throw wrong("unknown atom name '" + name + "'");
            }
        }

        private Counter counter(int which) {
            for (int[] c : counters) if (c[0] == which) return new Counter(which, c[1]);
            int w = words++;
            counters.add(new int[] {which, w});
            return new Counter(which, w);
        }

        private Pred compare(Source left, Atom a) {
            int op = Nodes.op(a.comparison());
            if (op < 0) throw wrong("unknown comparison '" + a.comparison() + "'; use < <= > >= == !=");
            Term b = a.bound();
            if (b instanceof Term.Num num) return new Compare(left, op, num.value(), null, -1);
            if (b instanceof Term.Str s) {
                double d = NumberText.parse(s.value());
                if (op != EQ && op != NE) {
                    if (Double.isNaN(d)) throw wrong("only == and != compare with text; \"" + s.value() + "\" is not a number");
                    return new Compare(left, op, d, null, -1);
                }
                if (left instanceof NumberSource && Double.isNaN(d)) {
                    throw wrong("a number cannot equal the text \"" + s.value() + "\"");
                }
                return new Compare(left, op, d, s.value(), -1);
            }
            if (b instanceof Term.Name nm && nm.value().startsWith("ctx.") && nm.value().length() > 4) {
                return new Compare(left, op, Double.NaN, null, ctxSlot(nm.value().substring(4)));
            }
            if (b instanceof Term.Call c && c.name().equals("ctx") && c.args().size() == 1) {
                return new Compare(left, op, Double.NaN, null, ctxSlot(keyArg(c.args().get(0))));
            }
            throw wrong("the bound '" + b + "' must be a number, a quoted string, ctx(key) or ctx.key");
        }

        private ArgValue argValue(List<Term> args, int fieldIndex) {
            int t = fieldIndex == 1 ? tool(toolArg(args.get(0))) : -1;
            return new ArgValue(t, path(args.get(fieldIndex)));
        }

        private String toolArg(Term t) {
            String s = nameArg(t, "tool");
            return ToolName.fold(s);
        }

        private String nameArg(Term t, String what) {
            if (t instanceof Term.Name n) return n.value();
            if (t instanceof Term.Str s && !s.value().isBlank()) return s.value();
            throw wrong("expected a " + what + " name, found '" + t + "'");
        }

        private String keyArg(Term t) {
            String k = nameArg(t, "context key");
            return k.startsWith("ctx.") ? k.substring(4) : k;
        }

        private Args.Path path(Term t) {
            String s = nameArg(t, "argument field");
            try {
                return Args.Path.of(s);
            } catch (IllegalArgumentException e) {
                throw wrong(e.getMessage());
            }
        }

        private int pattern(Term t) {
            if (!(t instanceof Term.Str s)) throw wrong("expected a quoted pattern, found '" + t + "'");
            Integer id = patternIds.get(s.value());
            if (id != null) return id;
            try {
                patterns.add(Pattern.compile(s.value()));
            } catch (PatternSyntaxException e) {
                throw wrong("invalid pattern \"" + s.value() + "\": " + e.getMessage());
            }
            patternIds.put(s.value(), patterns.size() - 1);
            return patterns.size() - 1;
        }

        private List<Term> list(Term t) {
            if (t instanceof Term.ListOf l) {
                if (l.items().isEmpty()) throw wrong("the list is empty");
                return l.items();
            }
            throw wrong("expected a list [a, b, ...], found '" + t + "'");
        }

        private String scalar(Term t) {
            if (t instanceof Term.Str s) return s.value();
            if (t instanceof Term.Num n) return n.text();
            if (t instanceof Term.Name n) return n.value();
            throw wrong("list items must be strings, numbers or names, found '" + t + "'");
        }
    }
}
