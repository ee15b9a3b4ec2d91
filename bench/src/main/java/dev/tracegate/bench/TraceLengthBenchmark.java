package dev.tracegate.bench;

import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Does a step cost more late in a long session? Each iteration starts a fresh session, steps it
 * {@code traceLength} events outside the timed region, then times the next {@value #SHOT} events
 * ({@value #SHOT} / {@value #WINDOW} turns of the cycle) as one shot. The history is the session's prelude followed by a cycle of {@value #WINDOW} events
 * that pass in any state after it; trace lengths are multiples of the cycle, so the timed window is
 * the same events, in the same order, for every trace length (a shot after L events covers the session's lengths
 * L to L + {@value #SHOT}), and the branch predictors and caches
 * have seen the same stream: only the length of the session's history differs. After the history,
 * {@value #SETTLE} events are stepped on a separate scratch session (untimed), because the first
 * events timed right after a long loop cost up to three times more whatever session they go to
 * (measured: the same transient appears on a fresh session stepped right after another session's
 * 10^6 events), which would otherwise show as a fake dependence on trace length. For the same reason every row steps
 * the same untimed events before its shot, in one loop of {@value #MAX_HISTORY} events that spreads the
 * session's history evenly among the rest (on the scratch session) and ends on the measured session,
 * so the rows differ only in the length of the measured session's history. (Stepping the history
 * first and the rest after it left the 10^6 row, whose session alone had just run the long loop,
 * measured right after it, a different case from the shorter rows.) The score is nanoseconds per shot: divide by {@value #SHOT} for ns
 * per event (the report divides by the JMH batch size recorded in the JSON). Until shots were {@value #SHOT} events they were
 * one cycle of {@value #WINDOW} (about 2 µs), whose shot-to-shot spread was far wider than the ±10% the rows are read
 * against (trial11 cpu-window-clock). The JIT is warmed on a scratch session first, so every trace length is
 * measured with compiled code. Target: the cost at 10^6 within 10% of the cost at 10^2.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 20, batchSize = TraceLengthBenchmark.SHOT)
@Measurement(iterations = 200, batchSize = TraceLengthBenchmark.SHOT)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class TraceLengthBenchmark {

    /** Events of the cycle the history repeats; trace lengths are multiples of it. */
    public static final int WINDOW = 100;
    /** Events timed per shot, right after the session has seen {@code traceLength} events: whole turns of the cycle. */
    public static final int SHOT = 10_000;

    static final int JIT_WARMUP_EVENTS = 300_000;
    static final int SETTLE = 1_000;
    /** The longest trace length measured: every shot is preceded by this many untimed steps in total. */
    static final int MAX_HISTORY = 1_000_000;

    /** A monitor and a session that has seen exactly {@code traceLength} events when the shot starts. */
    @State(Scope.Thread)
    public static class Trace {
        @Param({"100", "10000", "1000000"})
        public int traceLength;

        @Param({"10"})
        public int contracts;

        SessionMonitor<long[]> monitor;
        Worker worker;
        Session session;
        Session scratch;
        Workload.Traffic prelude;
        long[][] window;
        boolean[] windowAgent;
        int windowCursor;
        int sessions;

        @Setup(Level.Trial)
        public void compile() {
            ContractSet set = Workload.compile(contracts);
            if (traceLength % WINDOW != 0) throw new IllegalArgumentException("traceLength must be a multiple of " + WINDOW);
            monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
            worker = monitor.newWorker();
            prelude = Workload.prelude(set);
            Workload.Traffic w = Workload.commutative(set, WINDOW, 11);
            window = w.valuations();
            windowAgent = w.agent();
            scratch = monitor.session("scratch");
            for (int i = 0; i < prelude.length(); i++) monitor.step(scratch, prelude.valuations()[i], prelude.agent()[i], true, worker);
            session = scratch;
            for (int i = 0; i < JIT_WARMUP_EVENTS; i++) next();
        }

        @Setup(Level.Iteration)
        public void freshSession() {
            if (session != scratch) monitor.end(session);
            Session measured = monitor.session("trace-" + sessions++);
            windowCursor = 0;
            for (int i = 0; i < prelude.length(); i++) monitor.step(measured, prelude.valuations()[i], prelude.agent()[i], true, worker);
            // Equal untimed work before every shot, whatever the trace length, in one loop of the same
            // shape: MAX_HISTORY events, of which the measured session's history is spread evenly among
            // the rest (on the scratch session), the last one on the measured session. So each row has
            // just stepped the same events with the same switches of session, the measured session
            // always the one stepped last, and only the length of its history differs.
            final int mine = traceLength - prelude.length();
            final int total = MAX_HISTORY - prelude.length();
            for (int i = 0; i < total; i++) {
                session = (long) (i + 1) * mine / total > (long) i * mine / total ? measured : scratch;
                next();
            }
            session = scratch;
            for (int i = 0; i < SETTLE; i++) next();
            session = measured;
        }

        /** The decision for the next event of the cycle. */
        public Decision next() {
            final int i = windowCursor;
            windowCursor = i + 1 == WINDOW ? 0 : i + 1;
            return monitor.step(session, window[i], windowAgent[i], true, worker);
        }
    }

    @Benchmark
    public Decision step(Trace t) {
        return t.next();
    }
}
