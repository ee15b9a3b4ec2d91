package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuarantee;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Model-checks {@link SessionMonitor}'s step on ONE session with lincheck: two or three threads, each with its own
 * {@link Worker}, call agent tools that a contract blocks or lets pass, deliver environment results (one applied, one
 * withheld, one applied and reported as a violation), take their last step back ({@link SessionMonitor#undo}), and read
 * the session's verdicts and counters. Lincheck explores the interleavings of the lock-free code (every read and CAS
 * of the head and the published state is a switch point) and requires every outcome to be one of some sequential
 * order of the same operations run against {@link SequentialSession}: the offline {@link Replay} of the same compiled
 * contracts and counters kept in plain code, which shares nothing with the monitor's packed states, arena or CAS. So
 * two calls at the same time get the verdicts of some sequential order, and a refused call (or an undone one) leaves
 * no trace in the automata, the counters or {@link Session#applied()}.
 *
 * <p>The contracts: a refund needs an approval before it (an approver may excuse that, {@link
 * SessionMonitor#stepExcusing}); at most one refund; nothing sent after a read result, assuming no tainted result
 * comes (an environment event that breaks the assumption is withheld).
 */
@Tag("concurrency")
@Param(name = "worker", gen = ThreadIdGen.class)
public class SessionStepLincheckTest {
    static final ContractSet SET = ContractSet.compile(List.of(
            new Contract("refund-after-approval", Parser.parse("true"), Parser.parse("G(refund -> O approve)"), "block", ""),
            new Contract("at-most-once", Parser.parse("true"), Parser.parse("G(refund -> WX G !refund)"), "block", ""),
            new Contract("no-send-after-read", Parser.parse("G !taint"), Parser.parse("G(read -> G !send)"), "block", "")),
            new DfaCompiler(10_000));
    static final long APPROVE = bit("approve");
    static final long REFUND = bit("refund");
    static final long READ = bit("read");
    static final long SEND = bit("send");
    static final long TAINT = bit("taint");
    /** The approver excused a refund for refund-after-approval only. */
    static final int[] EXCUSE_APPROVAL = {SET.indexOf("refund-after-approval")};

    private static long bit(String atom) {
        int g = SET.atoms().indexOf(Parser.parse(atom));
        if (g < 0 || g >= 64) throw new IllegalStateException("atom " + atom + " is not in the first valuation word");
        return 1L << g;
    }

    private final SessionMonitor<BitsGrounder.Ev> monitor = new SessionMonitor<>(SET, new BitsGrounder());
    private final Session session = monitor.session("s");
    /** One worker per lincheck thread: 0 runs the initial part, 1..n the parallel threads, n+1 the post part. */
    private final Worker[] workers = new Worker[6];

    public SessionStepLincheckTest() {
        for (int i = 0; i < workers.length; i++) workers[i] = monitor.newWorker();
    }

    private String step(int worker, long bits, boolean agent, int[] excused) {
        BitsGrounder.Ev e = new BitsGrounder.Ev(0, bits, 0, agent, excused);
        Worker w = workers[worker];
        Decision d = excused == null ? monitor.step(session, e, agent, true, w)
                : monitor.stepExcusing(session, e, agent, excused, true, w);
        return d.toString();
    }

    /** The agent asks for an approval: always passes. */
    @Operation public String approve(@Param(name = "worker") int worker) { return step(worker, APPROVE, true, null); }

    /** The agent calls refund: blocked without an approval before it, and the second time. */
    @Operation public String refund(@Param(name = "worker") int worker) { return step(worker, REFUND, true, null); }

    /** A refund an approver excused for refund-after-approval: passes without an approval, still at most once. */
    @Operation public String approvedRefund(@Param(name = "worker") int worker) { return step(worker, REFUND, true, EXCUSE_APPROVAL); }

    /** The agent calls send: blocked once a read result came. */
    @Operation public String send(@Param(name = "worker") int worker) { return step(worker, SEND, true, null); }

    /** An environment result that read data: applied. */
    @Operation public String readResult(@Param(name = "worker") int worker) { return step(worker, READ, false, null); }

    /** An environment result that sent: applied, and a VIOLATION once a read came (it already happened). */
    @Operation public String sentResult(@Param(name = "worker") int worker) { return step(worker, SEND, false, null); }

    /** A tainted environment result: breaks no-send-after-read's assumption, so it is withheld (SUPPRESS). */
    @Operation public String taintedResult(@Param(name = "worker") int worker) { return step(worker, TAINT, false, null); }

    /** Takes back this thread's last step, if it was applied and nothing was applied (or undone) since. */
    @Operation public boolean undo(@Param(name = "worker") int worker) { return monitor.undo(session, workers[worker]); }

    @Operation public String verdicts() { return Arrays.toString(monitor.verdicts(session)); }

    /** {@link Session#applied()}: events applied so far, those taken back by an undo not counted. */
    @Operation public long applied() { return session.applied(); }

    /** The grounder's counters: applied events and the sum of their letters. */
    @Operation public String counters() {
        SessionState st = monitor.snapshot(session);
        return "events=" + st.words[0] + " sum=" + st.words[1];
    }

    /**
     * The sequential specification: the same operations, one at a time, through the offline {@link Replay} of the same
     * contract set (rebuilt from the applied events after an undo), with the counters and the undo rule in plain code.
     */
    public static final class SequentialSession {
        private final List<BitsGrounder.Ev> applied = new ArrayList<>();
        private Replay<BitsGrounder.Ev> replay = new Replay<>(SET, new BitsGrounder(), true, "spec");
        private long sum;
        /** The worker whose applied step made the current state and has not stepped since (it may undo it); -1: none. */
        private int undoable = -1;

        private String step(int worker, long bits, boolean agent, int[] excused) {
            BitsGrounder.Ev e = new BitsGrounder.Ev(0, bits, 0, agent, excused);
            Replay.Step s = next(replay, e);
            if (s.applied()) {
                applied.add(e);
                sum += bits;
                undoable = worker;
            } else if (undoable == worker) {
                undoable = -1;   // its last step is now this refused one: nothing to take back
            }
            return new Decision(s.decision(), s.applied(), s.contracts()).toString();
        }

        private static Replay.Step next(Replay<BitsGrounder.Ev> r, BitsGrounder.Ev e) {
            return e.excused == null ? r.next(e, e.agent, true) : r.next(e, e.agent, true, e.excused);
        }

        public String approve(int worker) { return step(worker, APPROVE, true, null); }
        public String refund(int worker) { return step(worker, REFUND, true, null); }
        public String approvedRefund(int worker) { return step(worker, REFUND, true, EXCUSE_APPROVAL); }
        public String send(int worker) { return step(worker, SEND, true, null); }
        public String readResult(int worker) { return step(worker, READ, false, null); }
        public String sentResult(int worker) { return step(worker, SEND, false, null); }
        public String taintedResult(int worker) { return step(worker, TAINT, false, null); }

        public boolean undo(int worker) {
            if (undoable != worker) return false;
            BitsGrounder.Ev last = applied.remove(applied.size() - 1);
            sum -= last.bits;
            undoable = -1;
            replay = new Replay<>(SET, new BitsGrounder(), true, "spec");
            for (BitsGrounder.Ev e : applied) next(replay, e);
            return true;
        }

        public String verdicts() { return Arrays.toString(replay.verdicts()); }
        public String counters() { return "events=" + applied.size() + " sum=" + sum; }
        public long applied() { return applied.size(); }
    }

    /**
     * Model checking with no thread switch inside code that reads only the calling thread's private data and immutable
     * tables (the automata's transition tables, the judgement of a transition, the test grounder's reading of its
     * private copy): interleavings there cannot change an outcome, and leaving them out lets the budget go to the
     * switches that matter, around every read of the head and of a published state, the copy, the grounder's writes
     * of its counters and the CAS.
     */
    static ModelCheckingOptions modelChecking() {
        return new ModelCheckingOptions()
                .sequentialSpecification(SequentialSession.class)
                .addGuarantee(atomic("dev.tracegate.engine.monitor.FlatTransitions", "stepWord", "unpack", "pack", "gather"))
                .addGuarantee(atomic("dev.tracegate.engine.automaton.Dfa", "step", "initialState"))
                .addGuarantee(atomic("dev.tracegate.engine.monitor.ContractSet", "verdict"))
                .addGuarantee(atomic("dev.tracegate.engine.monitor.SessionMonitor", "decide", "judge", "rareDecision",
                        "freshly", "verdictOf", "withUnevaluable", "judgeUnevaluable", "union", "keptFormulas"))
                .addGuarantee(atomic("dev.tracegate.engine.monitor.Worker", "statesBefore", "nextStates"))
                .addGuarantee(atomic("dev.tracegate.engine.monitor.BitsGrounder", "ground"));
    }

    private static ManagedStrategyGuarantee atomic(String type, String... methods) {
        return org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses(type).methods(methods).treatAsAtomic();
    }

    private static ModelCheckingOptions options(int threads, int actorsPerThread, int iterations) {
        return modelChecking()
                .threads(threads)
                .actorsPerThread(actorsPerThread)
                .actorsBefore(2)
                .actorsAfter(2)
                .iterations(ConcurrencyBudget.pick(iterations, 10 * iterations))
                .invocationsPerIteration(ConcurrencyBudget.pick(80, 300));
    }

    /** Random scenarios of two threads, three operations each, between two sequential ones before and two after. */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)   // only to stop a hung run
    void twoThreadsStepOneSessionLinearizably() {
        options(2, 3, 4).check(getClass());
    }

    /** Random scenarios of three threads, two operations each. */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void threeThreadsStepOneSessionLinearizably() {
        options(3, 2, 3).check(getClass());
    }

    /**
     * Races chosen by hand, each with a bug it catches in a few hundred interleavings where random scenarios rarely
     * meet it: two refunds after an approval (exactly one passes; the other is blocked by at-most-once and leaves no
     * trace); refunds taken back while the other thread refunds with an approver's excuse; a refund judged while the
     * other thread applies a read result and then has its own refund refused (a step that read the published automaton
     * states after validating its copy would judge on the other thread's private copy: BLOCK[1] instead of BLOCK[0]);
     * a read result taken back racing a send and a sent result (an undo that did not check the head would take back
     * the other thread's later step too); two threads each taking back their step while a third reads
     * {@link Session#applied()} (an undo that failed, or one under way, must not change the count); a tainted result
     * (withheld) racing steps and undos in three threads.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void racesChosenByHandAreLinearizable() {
        ModelCheckingOptions o = modelChecking()
                .iterations(0)
                .invocationsPerIteration(ConcurrencyBudget.pick(150, 2_000));
        o.addCustomScenario(scenario(
                List.of(op("approve", 0)),
                List.of(List.of(op("refund", 1), op("counters")), List.of(op("refund", 2), op("verdicts"))),
                List.of(op("counters"))));
        o.addCustomScenario(scenario(
                List.of(op("approve", 0)),
                List.of(List.of(op("refund", 1), op("undo", 1)), List.of(op("approvedRefund", 2), op("undo", 2))),
                List.of(op("verdicts"), op("counters"))));
        o.addCustomScenario(scenario(
                List.of(),
                List.of(List.of(op("refund", 1)), List.of(op("readResult", 2), op("refund", 2))),
                List.of(op("verdicts"), op("counters"))));
        o.addCustomScenario(scenario(
                List.of(),
                List.of(List.of(op("readResult", 1), op("undo", 1)), List.of(op("send", 2), op("sentResult", 2))),
                List.of(op("verdicts"), op("counters"))));
        o.addCustomScenario(scenario(
                List.of(op("approve", 0)),
                List.of(List.of(op("readResult", 1), op("undo", 1)), List.of(op("refund", 2), op("undo", 2)),
                        List.of(op("applied"), op("applied"))),
                List.of(op("applied"), op("counters"))));
        o.addCustomScenario(scenario(
                List.of(op("readResult", 0)),
                List.of(List.of(op("taintedResult", 1), op("undo", 1)), List.of(op("approve", 2), op("undo", 2)),
                        List.of(op("sentResult", 3), op("counters"))),
                List.of(op("verdicts"), op("counters"), op("undo", 4))));
        o.check(getClass());
    }

    private static ExecutionScenario scenario(List<Actor> init, List<List<Actor>> parallel, List<Actor> post) {
        return new ExecutionScenario(init, parallel, post, null);
    }

    /** An actor of this class's operation {@code name} with the given worker (thread) argument, if any. */
    private static Actor op(String name, int... worker) {
        try {
            if (worker.length == 0) return new Actor(SessionStepLincheckTest.class.getMethod(name), List.of());
            return new Actor(SessionStepLincheckTest.class.getMethod(name, int.class), List.of(worker[0]));
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("no operation " + name, e);
        }
    }
}
