package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.Dfa;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Steps sessions of one {@link ContractSet} event by event, applying an event only when it passes
 * and deciding which contracts it freshly violates.
 *
 * <p>Concurrency: any thread may call any method; each thread passes its own {@link Worker}. A step
 * is lock-free and linearizable: it copies the session's published state (packed automaton states,
 * counters, context) into the worker, validates the copy against the head word (version + slot; a
 * load-load fence between, as a seqlock reader does), grounds and steps on the private copy, and
 * publishes the worker's spare with one CAS of the head. A failed CAS means another step won; the
 * step is redone on the new state. A refused event publishes nothing, so it leaves no trace. The
 * steady path allocates nothing. (Reading the automaton states straight from the published state
 * after grounding, validated a second time, lost updates under the multi-long stress test; it was
 * dropped.) Eviction, the rare path, ends a session holding the session's monitor (see {@link #evict}).
 *
 * <p>The automata are stepped in the packed form of {@link FlatTransitions}: the letters of all
 * formulas gathered by per-byte tables, then one lookup per group of formulas in their joint
 * transition table. When the packed state is one long and every automaton is tabulated (most
 * contract sets of up to a dozen or so contracts), {@link #step} takes a short path that reads that
 * long and steps it in straight-line code ({@link FlatTransitions#stepWord}); a packed state of several
 * longs (sets of a few dozen contracts and more) is stepped long by long with the same per-long code
 * ({@link FlatTransitions#stepWords}), each long's letters gathered and its groups looked up in a
 * register; everything rare (a fresh violation, unevaluable atoms, decision diagrams) lives in
 * methods of its own.
 * {@link Replay} steps the same automata one by one with {@link
 * dev.tracegate.engine.automaton.Dfa#step}; tests hold the two to the same states and decisions.
 *
 * @param <E> the event type understood by the {@link Grounder}
 */
public final class SessionMonitor<E> {
    /** Options read once at construction. */
    public record Options(int maxSessions, boolean refuseUnevaluable) {
        public static final Options DEFAULT = new Options(1_000_000, true);
    }

    private final ContractSet set;
    private final Grounder<E> grounder;
    private final Options options;
    private final Dfa[] dfas;
    private final int[][] atomIndex;
    private final int[] assume;
    private final int[] guarantee;
    private final boolean[][] pv;
    private final int[] initialStates;
    private final long[] initialPacked;
    private final FlatTransitions flat;
    private final int words;
    private final int refs;
    /** Whether the grounder keeps counters or context (copied on every step). */
    private final boolean context;
    /** Whether {@link FlatTransitions#stepWord} steps the whole set (see {@link FlatTransitions#oneWord}). */
    private final boolean oneWord;
    /** Whether {@link FlatTransitions#stepWords} steps the whole set (see {@link FlatTransitions#manyWords}). */
    private final boolean manyWords;

    private final StateArena arena;
    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final Consumer<EndReport> onEvict;

    public SessionMonitor(ContractSet set, Grounder<E> grounder) {
        this(set, grounder, Options.DEFAULT, r -> {});
    }

    /**
     * @param onEvict receives the end report of every session closed because the session bound was
     *                reached or it was idle too long ({@link #evictIdle}); it runs holding the session's
     *                monitor, before the session leaves the map (see {@link #evict})
     */
    public SessionMonitor(ContractSet set, Grounder<E> grounder, Options options, Consumer<EndReport> onEvict) {
        this.set = set;
        this.grounder = grounder;
        this.options = options;
        this.onEvict = onEvict;
        this.dfas = set.formulas().toArray(new Dfa[0]);
        this.atomIndex = set.atomIndexTable();
        this.assume = set.assumeArray();
        this.guarantee = set.guaranteeArray();
        this.pv = set.permanentlyViolatedTable();
        this.initialStates = new int[dfas.length];
        for (int f = 0; f < dfas.length; f++) initialStates[f] = dfas[f].initialState();
        this.flat = set.flatTransitions();
        this.words = grounder.words();
        this.refs = grounder.refs();
        this.context = words != 0 || refs != 0;
        this.oneWord = flat.oneWord;
        this.manyWords = flat.manyWords;
        this.initialPacked = new long[flat.packedWords];
        flat.pack(initialStates, initialPacked);
        this.arena = new StateArena(flat.packedWords, words, refs);
    }

    public ContractSet contracts() { return set; }

    /** A new worker for the calling thread. */
    public Worker newWorker() {
        return new Worker(arena.take(), set.valuationWords(), dfas.length, flat);
    }

    /**
     * The live session with this id, created if absent (evicting the least recently used beyond the bound); a
     * session being evicted just now (closed: a step returns CLOSED) until its eviction listener has returned.
     */
    public Session session(String id) {
        Session s = sessions.get(id);
        if (s != null) return s;
        return createSession(id);
    }

    /** The live session with this id, or null. */
    public Session find(String id) { return sessions.get(id); }

    /** Number of live sessions. */
    public int sessionCount() { return sessions.size(); }

    /** Live sessions (a weakly consistent view). */
    public Collection<Session> sessions() { return sessions.values(); }

    private Session createSession(String id) {
        if (sessions.size() >= options.maxSessions()) evictOldest();
        SessionState st = arena.take();
        System.arraycopy(initialPacked, 0, st.packed, 0, st.packed.length);
        Arrays.fill(st.words, 0L);
        Arrays.fill(st.refs, null);
        st.applied = 0;
        grounder.init(st);
        Session fresh = new Session(id, st.slot, arena);
        fresh.touch(System.currentTimeMillis());   // rare path: a session created just before an idle sweep is not idle
        Session raced = sessions.putIfAbsent(id, fresh);
        if (raced != null) {
            arena.release(st);
            return raced;
        }
        return fresh;
    }

    /**
     * Checks one event against the session's history and applies it if it passes.
     *
     * @param agent   whether the agent controls the event (CALL, ASSISTANT) or its environment does
     * @param enforce false for shadow mode: refused events are applied anyway (the decision still says
     *                what enforcement would have done)
     */
    public Decision step(Session session, E event, boolean agent, boolean enforce, Worker w) {
        if (!oneWord) return stepWide(session, event, agent, enforce, w);
        final long[] val = w.valuation;
        w.lastHead = Session.CLOSED;   // undo applies to this step only if it is applied
        while (true) {
            final long head = session.lvHead();
            if (head == Session.CLOSED) return Decision.CLOSED;
            final SessionState published = arena.get(Session.slotOf(head));
            final SessionState mine = w.spare;
            // Copied into the worker (a store), not kept in a local: the JIT may schedule a load whose
            // value only a later statement uses below the fence, where the state may already be another
            // worker's private copy (the slow-grounding stress test caught that after a deoptimization).
            w.packedBefore[0] = published.packed[0];
            if (context) copyContext(published, mine);
            VarHandle.loadLoadFence();
            if (session.lpHead() != head) continue; // torn copy: another step published meanwhile
            final long before = w.packedBefore[0];
            final int u = ground(event, mine, w);
            final long next = flat.stepWord(before, val);
            final long after = next & Long.MAX_VALUE;
            mine.packed[0] = after;
            w.packedNext[0] = after;
            Decision d = Decision.PASS;
            // A fresh FAIL or IDLE needs some formula to become permanently violated now (it is absorbing).
            if (next < 0 || u != 0) {
                d = decide(next < 0, u, agent, enforce, w);
                if (!d.applied()) return d;
            }
            if (publish(session, head, published, mine, event, w)) return d;
        }
    }

    /**
     * The read half of the seqlock for the several-longs paths: copies the published packed state into
     * {@code before} (the worker's array: a store, see {@link #step}) and the context into {@code mine},
     * and says whether the copy is whole, i.e. no other step published since {@code head} was read.
     */
    private boolean copyWhole(Session session, long head, SessionState published, SessionState mine, long[] before) {
        final long[] from = published.packed;
        for (int i = 0; i < before.length; i++) before[i] = from[i];
        if (context) copyContext(published, mine);
        VarHandle.loadLoadFence();
        return session.lpHead() == head;
    }

    /**
     * The write half shared by every step: applies the event's counters and context to the worker's
     * copy and publishes it with one CAS on the session's head; false when another step published
     * first (the caller retries from the new head). On success the replaced state becomes the
     * worker's spare and undo knows what to take back. The count of applied events is read from
     * {@code published} unvalidated: if it was displaced (and perhaps rewritten) since {@code head}
     * was read, the CAS fails and the count is dropped with the rest.
     */
    private boolean publish(Session session, long head, SessionState published, SessionState mine, E event, Worker w) {
        grounder.apply(event, w.valuation, mine);
        mine.applied = published.applied + 1;
        final long h = Session.next(head, mine.slot);
        if (!session.casHead(head, h)) return false;
        w.spare = published;
        if (w.lastSession != session) w.lastSession = session;
        w.lastHead = h;
        return true;
    }

    /** {@link #step} for contract sets whose packed state takes several longs or holds a decision-diagram automaton. */
    private Decision stepWide(Session session, E event, boolean agent, boolean enforce, Worker w) {
        final FlatTransitions flat = this.flat;
        final int[] table = flat.flat;
        final long[] layout = flat.groups;
        final long[] val = w.valuation;
        final long[] before = w.packedBefore;
        final long[] next = w.packedNext;
        final boolean oneLong = flat.packedWords == 1;
        w.lastHead = Session.CLOSED;
        while (true) {
            final long head = session.lvHead();
            if (head == Session.CLOSED) return Decision.CLOSED;
            final SessionState published = arena.get(Session.slotOf(head));
            final SessionState mine = w.spare;
            if (!copyWhole(session, head, published, mine, before)) continue; // another step published meanwhile
            final int u = ground(event, mine, w);
            final int fresh = manyWords ? flat.stepWords(before, val, mine.packed, next)
                    : oneLong ? stepOneWord(before, mine.packed, next, val, table, layout)
                    : stepWords(before, mine.packed, next, val, w.fields, table, layout);
            Decision d = Decision.PASS;
            if (fresh < 0 || u != 0) {
                d = decide(fresh < 0, u, agent, enforce, w);
                if (!d.applied()) return d;
            }
            if (publish(session, head, published, mine, event, w)) return d;
        }
    }

    /**
     * {@link #step} for an event that an approver has excused for the contracts {@code excused}
     * (indices into {@link ContractSet#contracts()}), typically the contracts whose escalation the
     * approver answered. The event is applied to the session as any other (the grounder's counters
     * and context, and every other contract's automata, move on), but each excused contract keeps
     * the states its assumption and guarantee had before the event: it reads the trace without
     * this event, so it is not FAIL afterwards and a later event that violates it is refused (or
     * escalated) again. The approval covers this event and these contracts only.
     *
     * <p>The step is checked like any other against the current state, which may have moved since
     * the escalation (concurrent calls): if the event freshly makes a contract that is not excused
     * FAIL (an agent event) or IDLE (an environment event), the decision says so and, when
     * {@code enforce}, nothing is applied. Atoms that cannot be evaluated are judged as in
     * {@link #step}, for the contracts that are not excused. Lock-free and linearizable with
     * {@link #step}; undo takes it back like a step. Not on the hot path: it allocates.
     *
     * @throws IllegalArgumentException when an index names no contract of the set
     */
    public Decision stepExcusing(Session session, E event, boolean agent, int[] excused, boolean enforce, Worker w) {
        final boolean[] kept = keptFormulas(excused);
        final int n = dfas.length;
        final long[] val = w.valuation;
        final long[] before = w.packedBefore;
        final int[] from = new int[n];
        final int[] to = new int[n];
        w.lastHead = Session.CLOSED;
        while (true) {
            final long head = session.lvHead();
            if (head == Session.CLOSED) return Decision.CLOSED;
            final SessionState published = arena.get(Session.slotOf(head));
            final SessionState mine = w.spare;
            if (!copyWhole(session, head, published, mine, before)) continue; // another step published meanwhile
            final int u = ground(event, mine, w);
            flat.unpack(before, from);
            boolean fresh = false;
            for (int f = 0; f < n; f++) {
                int s0 = from[f];
                int s1 = kept[f] ? s0 : dfas[f].step(s0, val, atomIndex[f]);
                to[f] = s1;
                fresh |= pv[f][s1] && !pv[f][s0];
            }
            flat.pack(to, mine.packed);
            System.arraycopy(mine.packed, 0, w.packedNext, 0, w.packedNext.length);
            Decision d = Decision.PASS;
            if (fresh || u != 0) {
                d = fresh ? judge(from, to, agent, enforce) : Decision.PASS;
                if (u > 0 && agent && options.refuseUnevaluable()) d = withUnevaluable(d, from, w, enforce, kept);
                if (!d.applied()) return d;
            }
            if (publish(session, head, published, mine, event, w)) return d;
        }
    }

    /** The automata that the excused contracts' assumptions and guarantees use, checked against the set. */
    private boolean[] keptFormulas(int[] excused) {
        boolean[] kept = new boolean[dfas.length];
        for (int c : excused) {
            if (c < 0 || c >= assume.length) {
                throw new IllegalArgumentException("excused contract index " + c + " is out of range: the contract set has "
                        + assume.length + " contracts (pass indices from Decision.contracts() or ContractSet.indexOf)");
            }
            kept[assume[c]] = true;
            kept[guarantee[c]] = true;
        }
        return kept;
    }

    /** Copies the grounder's counters and context of the published state into the worker's private one. */
    private void copyContext(SessionState published, SessionState mine) {
        if (words != 0) System.arraycopy(published.words, 0, mine.words, 0, words);
        if (refs != 0) System.arraycopy(published.refs, 0, mine.refs, 0, refs);
    }

    /** Grounds the event on the worker's private state into its zeroed valuation; returns the number of unevaluable atoms. */
    private int ground(E event, SessionState mine, Worker w) {
        final long[] val = w.valuation;
        final long[] unev = w.unevaluable;
        clear(val);
        clear(unev);
        final int u = grounder.ground(event, mine, val, unev);
        w.unevaluableCount = u;
        return u;
    }

    /**
     * The decision for a step that freshly made some formula permanently violated ({@code fresh}) or
     * read {@code u > 0} unevaluable atoms; the worker holds the states before and after.
     */
    private Decision decide(boolean fresh, int u, boolean agent, boolean enforce, Worker w) {
        Decision d = fresh ? judge(w.statesBefore(), w.nextStates(), agent, enforce) : Decision.PASS;
        if (u > 0 && agent && options.refuseUnevaluable()) d = withUnevaluable(d, w.statesBefore(), w, enforce, null);
        return d;
    }

    /**
     * The decision {@code d} (the step with the unevaluable atoms read as false) widened by the other values of
     * those atoms: a pass becomes a refusal when some value would freshly FAIL a contract; a block also names every
     * contract that some other value would FAIL, so the refusal is attributed, and the strategies weighed, the same
     * whichever other contracts the library holds.
     */
    private Decision withUnevaluable(Decision d, int[] states, Worker w, boolean enforce, boolean[] kept) {
        if (d.kind() == Decision.Kind.PASS) return judgeUnevaluable(states, w, enforce, kept);
        if (d.kind() != Decision.Kind.BLOCK) return d;
        Decision more = judgeUnevaluable(states, w, enforce, kept);
        if (more.kind() == Decision.Kind.PASS) return d;
        return new Decision(Decision.Kind.BLOCK, d.applied(), union(d.contracts(), more.contracts(), assume.length));
    }

    /** The sorted union of two sorted sets of contract indices below {@code n}. */
    private static int[] union(int[] a, int[] b, int n) {
        boolean[] in = new boolean[n];
        for (int c : a) in[c] = true;
        for (int c : b) in[c] = true;
        int[] out = new int[a.length + b.length];
        int k = 0;
        for (int c = 0; c < n; c++) if (in[c]) out[k++] = c;
        return Arrays.copyOf(out, k);
    }

    /**
     * Steps every automaton of a contract set whose packed state is one long, one lookup per group of
     * formulas; returns the OR of the entries (negative: some formula is freshly permanently violated).
     */
    private int stepOneWord(long[] before, long[] to, long[] next, long[] val, int[] table, long[] groups) {
        final long state = before[0];
        final long fields = state | flat.gather(val);
        long out = 0;
        int fresh = 0;
        for (int g = 0; g < groups.length; g++) {
            final long l = groups[g];
            final int base = (int) l;
            final int field = (int) (fields >>> (l >>> 32) & ((1L << (l >>> 38)) - 1));
            final int e = base >= 0 ? table[base + field] : diagramStep(-1 - base, field, val);
            fresh |= e;
            out |= (long) (e & FlatTransitions.STATE) << (l >>> 32);
        }
        to[0] = out;
        next[0] = out;
        return fresh;
    }

    /** {@link #stepOneWord} for contract sets whose packed state takes several longs. */
    private int stepWords(long[] before, long[] to, long[] next, long[] val, long[] fields, int[] table,
                          long[] groups) {
        final int n = fields.length;
        for (int i = 0; i < n; i++) {
            fields[i] = before[i];
            to[i] = 0L;
        }
        flat.gather(val, fields);
        int fresh = 0;
        for (int g = 0; g < groups.length; g++) {
            final long l = groups[g];
            final int base = (int) l;
            final int word = (int) (l >>> 50);
            final int field = (int) (fields[word] >>> (l >>> 32) & ((1L << (l >>> 38)) - 1));
            final int e = base >= 0 ? table[base + field] : diagramStep(-1 - base, field, val);
            fresh |= e;
            to[word] |= (long) (e & FlatTransitions.STATE) << (l >>> 32);
        }
        System.arraycopy(to, 0, next, 0, n);
        return fresh;
    }

    /**
     * A step of a decision-diagram automaton, flagged like a {@link FlatTransitions} entry. A state
     * out of range cannot come from a validated copy; it steps as state 0 rather than fail.
     */
    private int diagramStep(int f, int s0, long[] val) {
        if (s0 >= dfas[f].stateCount()) s0 = 0;
        int s1 = dfas[f].step(s0, val, atomIndex[f]);
        return pv[f][s1] && !pv[f][s0] ? s1 | FlatTransitions.FRESH : s1;
    }

    private static void clear(long[] a) {
        if (a.length == 1) a[0] = 0L;
        else Arrays.fill(a, 0L);
    }

    /** Fresh violations of this transition; allocates only when there are some. */
    private Decision judge(int[] before, int[] after, boolean agent, boolean enforce) {
        final int[] assume = this.assume;
        final int[] guarantee = this.guarantee;
        final boolean[][] pv = this.pv;
        boolean freshFail = false;
        boolean freshIdle = false;
        for (int c = 0; c < assume.length; c++) {
            int a = assume[c];
            int g = guarantee[c];
            boolean idle0 = pv[a][before[a]];
            boolean idle1 = pv[a][after[a]];
            freshIdle |= idle1 & !idle0;
            freshFail |= !idle1 & pv[g][after[g]] & (idle0 | !pv[g][before[g]]);
        }
        if (!freshFail && !freshIdle) return Decision.PASS;
        return rareDecision(before, after, agent, enforce, freshFail, freshIdle);
    }

    private Decision rareDecision(int[] before, int[] after, boolean agent, boolean enforce,
                                  boolean freshFail, boolean freshIdle) {
        if (agent) {
            if (!freshFail) return Decision.PASS; // the agent may break an assumption: not its guarantee's business
            return new Decision(Decision.Kind.BLOCK, !enforce, freshly(before, after, true));
        }
        if (freshIdle) return new Decision(Decision.Kind.SUPPRESS, !enforce, freshly(before, after, false));
        return new Decision(Decision.Kind.VIOLATION, true, freshly(before, after, true));
    }

    private int[] freshly(int[] before, int[] after, boolean fail) {
        int[] out = new int[assume.length];
        int n = 0;
        for (int c = 0; c < assume.length; c++) {
            Verdict v0 = verdictOf(c, before);
            Verdict v1 = verdictOf(c, after);
            Verdict target = fail ? Verdict.FAIL : Verdict.IDLE;
            if (v1 == target && v0 != target) out[n++] = c;
        }
        return Arrays.copyOf(out, n);
    }

    private Verdict verdictOf(int c, int[] states) {
        int a = assume[c];
        if (pv[a][states[a]]) return Verdict.IDLE;
        return pv[guarantee[c]][states[guarantee[c]]] ? Verdict.FAIL : Verdict.ACTIVE;
    }

    /**
     * Some atoms of an agent event could not be evaluated. Refuse when some assignment of them would
     * freshly FAIL a contract (up to 2^12 assignments are tried; beyond that, refuse). The automata
     * {@code kept} (null: none) stay where they are (see {@link #stepExcusing}).
     */
    private Decision judgeUnevaluable(int[] states, Worker w, boolean enforce, boolean[] kept) {
        final long[] unev = w.unevaluable;
        final long[] probe = w.probe;
        int[] bits = new int[w.unevaluableCount];
        int n = 0;
        for (int i = 0; i < unev.length; i++) {
            long m = unev[i];
            while (m != 0 && n < bits.length) {
                bits[n++] = (i << 6) + Long.numberOfTrailingZeros(m);
                m &= m - 1;
            }
        }
        int[] trial = new int[dfas.length];
        boolean[] failing = new boolean[assume.length];
        boolean any = false;
        if (n > 12) {
            for (int c = 0; c < failing.length; c++) {
                failing[c] = kept == null || !(kept[assume[c]] && kept[guarantee[c]]);
                any |= failing[c];
            }
        } else {
            for (long mask = 1; mask < (1L << n); mask++) {
                System.arraycopy(w.valuation, 0, probe, 0, probe.length);
                for (int b = 0; b < n; b++) {
                    if ((mask >>> b & 1) != 0) probe[bits[b] >>> 6] |= 1L << bits[b];
                }
                for (int f = 0; f < dfas.length; f++) {
                    trial[f] = kept != null && kept[f] ? states[f] : dfas[f].step(states[f], probe, atomIndex[f]);
                }
                for (int c = 0; c < assume.length; c++) {
                    if (verdictOf(c, trial) == Verdict.FAIL && verdictOf(c, states) != Verdict.FAIL) {
                        failing[c] = true;
                        any = true;
                    }
                }
            }
        }
        if (!any) return Decision.PASS;
        int[] out = new int[assume.length];
        int k = 0;
        for (int c = 0; c < failing.length; c++) if (failing[c]) out[k++] = c;
        return new Decision(Decision.Kind.UNEVALUABLE, !enforce, Arrays.copyOf(out, k));
    }

    /** The prefix verdict of every contract in the session's current state. */
    public Verdict[] verdicts(Session session) {
        SessionState st = snapshot(session);
        Verdict[] out = new Verdict[assume.length];
        if (st == null) return out;
        for (int c = 0; c < out.length; c++) out[c] = set.verdict(c, st.states);
        return out;
    }

    /**
     * Takes back the step this worker applied last to the session, for a caller that then refuses the
     * event for a reason of its own (its audit log could not take the record): the session is again
     * exactly as before that step, counters and context included. Valid only before the worker steps
     * again and only if nothing else was applied to the session since; returns false (and changes
     * nothing) otherwise. The previous state is the worker's spare, which no other thread writes, and
     * the head's version moves on, so concurrent readers and steppers revalidate.
     */
    public boolean undo(Session session, Worker w) {
        final long head = session.lvHead();
        if (w.lastSession != session || head != w.lastHead || head == Session.CLOSED) return false;
        final SessionState previous = w.spare;   // its count of applied events is the one before the step
        if (!session.casHead(head, Session.next(head, previous.slot))) return false;
        w.spare = arena.get(Session.slotOf(head));
        w.lastSession = null;
        w.lastHead = Session.CLOSED;
        return true;
    }

    /** A consistent private copy of the session's state, or null when it is closed. */
    public SessionState snapshot(Session session) {
        SessionState copy = new SessionState(dfas.length, flat.packedWords, words, refs, -1);
        while (true) {
            long head = session.lvHead();
            if (head == Session.CLOSED) return null;
            copy.copyFrom(arena.get(Session.slotOf(head)));
            VarHandle.loadLoadFence();
            if (session.lpHead() == head) {
                flat.unpack(copy.packed, copy.states);
                return copy;
            }
        }
    }

    /** Ends the session: the finite-trace verdicts and the unmet obligations. Null if it had already ended. */
    public EndReport end(Session session) {
        EndReport r = close(session);
        if (r != null) sessions.remove(session.id(), session);
        return r;
    }

    /** Closes the session (a step from now on returns CLOSED) and reads its end; it stays in the map. Null if it had already ended. */
    private EndReport close(Session session) {
        while (true) {
            long head = session.lvHead();
            if (head == Session.CLOSED) return null;
            if (session.casHead(head, Session.CLOSED)) {
                SessionState last = arena.get(Session.slotOf(head));
                int[] states = new int[dfas.length];
                flat.unpack(last.packed, states);
                EndReport e = endReport(session.id(), states, session.offered());
                arena.release(last);
                int held = session.holds();   // exact for a caller that holds the session's monitor (evict does, the agent does)
                return held == 0 ? e : new EndReport(e.sessionId(), e.verdicts(), e.unmet(), e.events(), held);
            }
        }
    }

    /** The end-of-session reading of a state vector (used by {@link #end}). */
    public EndReport endReport(String sessionId, int[] states, long events) {
        List<Verdict> verdicts = new ArrayList<>(assume.length);
        List<EndReport.Obligation> unmet = new ArrayList<>();
        for (int c = 0; c < assume.length; c++) {
            Verdict v = set.endVerdict(c, states);
            verdicts.add(v);
            int g = guarantee[c];
            if (v == Verdict.FAIL && !pv[g][states[g]]) {
                unmet.add(new EndReport.Obligation(c, set.contracts().get(c).id(), dfas[g].pending(states[g])));
            }
        }
        return new EndReport(sessionId, List.copyOf(verdicts), List.copyOf(unmet), events);
    }

    /**
     * Ends every session not used since {@code olderThanMillis} and not {@link Session#held() held} (both checked again
     * under the session's monitor, see {@link #evict}); reports each to the eviction listener. A held session counts as
     * idle from its next use after its holds are released.
     */
    public int evictIdle(long olderThanMillis) {
        return evictIdle(olderThanMillis, Long.MIN_VALUE);
    }

    /**
     * As {@link #evictIdle(long)}, except that a {@link Session#held() held} session not used since
     * {@code heldOlderThanMillis} is ended too (work that never finishes, such as a call whose thread died, must not keep
     * its session for ever); its end report says how much was still {@link EndReport#held() held}.
     */
    public int evictIdle(long olderThanMillis, long heldOlderThanMillis) {
        long heldBefore = Math.min(olderThanMillis, heldOlderThanMillis);
        int n = 0;
        for (Session s : sessions.values()) {
            if (s.lastAccess() < olderThanMillis && evict(s, olderThanMillis, heldBefore)) n++;
        }
        return n;
    }

    private void evictOldest() {
        // Rare path, O(live sessions): evict the least recently used ~1% at once so it stays rare. Threads that
        // create sessions at the same time pick the same victims and may all add theirs: each goes on down the list
        // until it has ended its share itself and the map is below the bound, else every such race would leave the
        // map fuller than the bound for good (each later creation ending one and adding one).
        // Sessions with work running (held: the agent's tool calls in flight) are passed over while others can make
        // the room: ending one sends its work's result to a successor that has forgotten the history. Only when the
        // map is still at the bound after every other session was tried are they ended, least recently used first.
        int excess = Math.max(1, sessions.size() / 100);
        List<Session> all = new ArrayList<>(sessions.values());
        all.sort((x, y) -> Long.compare(x.lastAccess(), y.lastAccess()));
        int ended = 0;
        for (int i = 0; i < all.size() && (ended < excess || sessions.size() >= options.maxSessions()); i++) {
            if (evict(all.get(i), Long.MAX_VALUE, Long.MIN_VALUE)) ended++;
        }
        for (int i = 0; i < all.size() && sessions.size() >= options.maxSessions(); i++) {
            evict(all.get(i), Long.MAX_VALUE, Long.MAX_VALUE);
        }
    }

    /**
     * Ends an evicted session holding its monitor ({@code synchronized (session)}) and reports it to the eviction
     * listener before the session leaves the map. So a caller that runs each event of a session under the
     * session's monitor (the agent does, to keep its audit log in decision order) sees an eviction only between
     * two events: an event that found the session before it was evicted finds it closed once it holds the monitor
     * (and looks the id up again; the session is gone from the map by then), and one that looks the id up after the
     * listener returned gets a new session, so what the listener records about the end comes before anything about
     * the successor. While the listener runs, a look-up of the id returns the closed session (a step returns
     * CLOSED). The rare path: it waits for an event in progress under the monitor; steps stay lock-free.
     *
     * @param idleBefore evicted only if still not used since then (read under the monitor: an event may have used
     *                   it while this waited)
     * @param heldBefore a {@link Session#held() held} session (work still running in it) only if not used since then
     *                   either ({@code Long.MIN_VALUE}: never; {@code Long.MAX_VALUE}: held or not)
     * @return whether this call ended the session
     */
    private boolean evict(Session session, long idleBefore, long heldBefore) {
        synchronized (session) {
            long used = session.lastAccess();
            if (used >= idleBefore) return false;
            if (used >= heldBefore && session.held()) return false;   // work still running in it
            EndReport r = close(session);
            if (r == null) return false;
            try {
                onEvict.accept(r);
            } finally {
                sessions.remove(session.id(), session);
            }
            return true;
        }
    }

    /**
     * The first byte of a session's byte form since version 1. The form before it (version 0) began with the number of
     * automata as a big-endian int, whose first byte is below 0x80 for any number of automata a monitor can have, so a
     * first byte of 0x80 or more tells the two apart.
     */
    private static final int BYTES_MARK = 0xF7;
    /**
     * The version of the session's byte form that {@link #toBytes} writes, the byte after {@link #BYTES_MARK}. Version 0
     * (no mark) is the form before e86bd60 (session 18), whose counters kept a {@code sum(T, f)} as the bits of a double;
     * version 1 keeps it in millionths. {@link #fromBytes} reads both (the grounder converts the older counters:
     * {@link Grounder#readWords}).
     */
    public static final int BYTES_VERSION = 1;

    /** The session's state in a compact byte form (a version, automaton states, counters, context). */
    public byte[] toBytes(Session session) throws IOException {
        SessionState st = snapshot(session);
        if (st == null) throw new IllegalStateException("session " + session.id() + " has ended");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(BYTES_MARK);
        out.writeByte(BYTES_VERSION);
        out.writeInt(st.states.length);
        for (int s : st.states) writeVarInt(out, s);
        out.writeInt(st.words.length);
        for (long v : st.words) out.writeLong(v);
        grounder.writeRefs(st.refs, out);
        out.flush();
        return bytes.toByteArray();
    }

    /** What to do with a byte form this monitor cannot read (the end of its errors). */
    private static final String OTHER_CONTRACTS = ", so it was written with other contracts (or another version of them or of"
            + " tracegate) and cannot be read here; a session's byte form moves only between monitors of the same contracts and"
            + " tracegate version: start the session anew, or replay its trace or audit log with these contracts to rebuild it";

    /**
     * Creates (or replaces) a live session from {@link #toBytes} output of a monitor of the same contract set (and
     * tracegate version; the grounder reads its own older layouts where it can). Input of other contracts, or cut, is an
     * {@link IOException} that says so, and leaves the monitor as it was.
     */
    public Session fromBytes(String id, byte[] data) throws IOException {
        try {
            return restore(id, data);
        } catch (java.io.EOFException e) {
            throw new IOException("the session's byte form ends early (" + data.length + " bytes): it was cut, or is not a"
                    + " session's byte form", e);
        }
    }

    private Session restore(String id, byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        int version = 0;   // no mark: the form before versions, which starts with the number of automata
        if (data.length > 0 && (data[0] & 0x80) != 0) {
            if ((data[0] & 0xFF) != BYTES_MARK) {
                throw new IOException("the session's byte form starts with byte 0x" + Integer.toHexString(data[0] & 0xFF)
                        + ", which no version of tracegate writes first: it is not a session's byte form (or was damaged);"
                        + " start the session anew, or replay its trace or audit log with these contracts to rebuild it");
            }
            in.readUnsignedByte();
            version = in.readUnsignedByte();
            if (version < 1 || version > BYTES_VERSION) {
                throw new IOException("the session's byte form is version " + version + " and this tracegate reads versions 0 to "
                        + BYTES_VERSION + (version > BYTES_VERSION ? ", so it was written by a newer tracegate" : "")
                        + "; move sessions only between replicas of the same tracegate version (or upgrade this one), or start"
                        + " the session anew, or replay its trace or audit log with these contracts to rebuild it");
            }
        }
        int nf = in.readInt();
        if (nf != dfas.length) throw new IOException("the session's state has " + nf + " automata and these contracts have " + dfas.length + OTHER_CONTRACTS);
        int[] states = new int[nf];
        for (int f = 0; f < nf; f++) {
            int s = readVarInt(in);
            if (s < 0 || s >= dfas[f].stateCount()) throw new IOException("automaton " + f + " has no state " + s + OTHER_CONTRACTS);
            states[f] = s;
        }
        int nw = in.readInt();
        if (nw != words) throw new IOException("the session's state has " + nw + " counters and these contracts keep " + words + OTHER_CONTRACTS);
        long[] counters = new long[nw];
        for (int i = 0; i < nw; i++) counters[i] = in.readLong();
        if (version < BYTES_VERSION) grounder.readWords(version, counters);
        Object[] context = new Object[refs];
        grounder.readRefs(in, context);
        // Read everything before taking a state, so that malformed input leaves the arena as it was.
        SessionState st = arena.take();
        flat.pack(states, st.packed);
        System.arraycopy(counters, 0, st.words, 0, nw);
        System.arraycopy(context, 0, st.refs, 0, refs);
        st.applied = 0;
        Session s = new Session(id, st.slot, arena);
        Session old = sessions.put(id, s);
        if (old != null) end(old);
        return s;
    }

    private static void writeVarInt(DataOutputStream out, int v) throws IOException {
        while ((v & ~0x7F) != 0) {
            out.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }

    private static int readVarInt(DataInputStream in) throws IOException {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) return v;
        }
        throw new IOException("malformed varint");
    }
}
