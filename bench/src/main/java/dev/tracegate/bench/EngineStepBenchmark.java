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
 * One engine step per operation on one long-lived session: pre-grounded events (the valuation is
 * precomputed, grounding is an array copy) cycling through a recorded sequence, with 1, 10 or 100
 * contracts. {@code passing}: every event passes, as most production traffic does (the target is
 * ≤ 30 ns and 0 B/op at 10 contracts). {@code withRefusals}: about 6% of the events are refused
 * (blocked calls, withheld results), which allocates the refusal's {@link Decision}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class EngineStepBenchmark {

    /** Events replayed per cycle; a power of two so the cursor wraps with a mask. */
    static final int CYCLE = 1024;

    /** A monitor with one session, this thread's worker and the event cycle. */
    public abstract static class Stepping {
        SessionMonitor<long[]> monitor;
        Worker worker;
        Session session;
        long[][] events;
        boolean[] agent;
        int cursor;

        void init(int contracts, double refusalShare) {
            ContractSet set = Workload.compile(contracts);
            Workload.Traffic t = Workload.ordered(set, CYCLE, refusalShare, 42);
            monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
            worker = monitor.newWorker();
            session = monitor.session("bench-session");
            events = t.valuations();
            agent = t.agent();
        }

        /** The decision for the next event of the cycle. */
        public final Decision next() {
            final int i = cursor;
            cursor = (i + 1) & (CYCLE - 1);
            return monitor.step(session, events[i], agent[i], true, worker);
        }
    }

    /** Every event passes. */
    @State(Scope.Thread)
    public static class Passing extends Stepping {
        @Param({"1", "10", "100"})
        public int contracts;

        @Setup(Level.Trial)
        public void setUp() { init(contracts, 0); }
    }

    /** About {@code share} of the events are refused. */
    @State(Scope.Thread)
    public static class WithRefusals extends Stepping {
        @Param({"10", "100"})
        public int contracts;

        @Param({"0.06"})
        public double share;

        @Setup(Level.Trial)
        public void setUp() { init(contracts, share); }
    }

    @Benchmark
    public Decision passing(Passing s) {
        return s.next();
    }

    @Benchmark
    public Decision withRefusals(WithRefusals s) {
        return s.next();
    }
}
