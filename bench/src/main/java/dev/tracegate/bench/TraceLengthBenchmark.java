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
 * {@code traceLength} events outside the timed region, then times the next {@value #WINDOW} events
 * as one shot. The score is nanoseconds per window: divide by {@value #WINDOW} for ns per event
 * (the report does). The JIT is warmed on a scratch session first, so every trace length is
 * measured with compiled code. Target: the cost at 10^6 within 10% of the cost at 10^2.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 20, batchSize = TraceLengthBenchmark.WINDOW)
@Measurement(iterations = 200, batchSize = TraceLengthBenchmark.WINDOW)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class TraceLengthBenchmark {

    /** Events timed per shot, right after the session has seen {@code traceLength} events. */
    public static final int WINDOW = 100;

    static final int CYCLE = 1024;
    static final int JIT_WARMUP_EVENTS = 300_000;

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
        long[][] events;
        boolean[] agent;
        int cursor;
        int sessions;

        @Setup(Level.Trial)
        public void compile() {
            ContractSet set = Workload.compile(contracts);
            Workload.Traffic t = Workload.ordered(set, CYCLE, 0, 42);
            monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
            worker = monitor.newWorker();
            events = t.valuations();
            agent = t.agent();
            session = monitor.session("jit-warmup");
            for (int i = 0; i < JIT_WARMUP_EVENTS; i++) next();
        }

        @Setup(Level.Iteration)
        public void freshSession() {
            monitor.end(session);
            session = monitor.session("trace-" + sessions++);
            cursor = 0;
            for (int i = 0; i < traceLength; i++) next();
        }

        /** The decision for the next event of the cycle. */
        public Decision next() {
            final int i = cursor;
            cursor = (i + 1) & (CYCLE - 1);
            return monitor.step(session, events[i], agent[i], true, worker);
        }
    }

    @Benchmark
    public Decision step(Trace t) {
        return t.next();
    }
}
