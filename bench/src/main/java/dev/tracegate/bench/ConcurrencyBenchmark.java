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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

import java.util.concurrent.TimeUnit;

/**
 * Throughput of one monitor stepped by 1 or 2 threads, each event going to a session picked at
 * random among 1, 1,000 or 100,000 live sessions (with 1 session and 2 threads, every step races
 * for the same head word). Each thread keeps its own {@link Worker}. Events are drawn from traffic
 * that passes in any order, so concurrent interleavings do not change the decisions.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ConcurrencyBenchmark {

    static final int CYCLE = 1024;

    /** The monitor, its sessions (each past its prelude) and the event pool, shared by all threads. */
    @State(Scope.Benchmark)
    public static class Shared {
        @Param({"1", "1000", "100000"})
        public int sessions;

        @Param({"10"})
        public int contracts;

        SessionMonitor<long[]> monitor;
        Session[] all;
        long[][] events;
        boolean[] agent;

        @Setup(Level.Trial)
        public void setUp() {
            ContractSet set = Workload.compile(contracts);
            monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
            Workload.Traffic prelude = Workload.prelude(set);
            Workload.Traffic pool = Workload.commutative(set, CYCLE, 7);
            events = pool.valuations();
            agent = pool.agent();
            Worker w = monitor.newWorker();
            all = new Session[sessions];
            for (int i = 0; i < sessions; i++) {
                all[i] = monitor.session("session-" + i);
                for (int e = 0; e < prelude.length(); e++) {
                    monitor.step(all[i], prelude.valuations()[e], prelude.agent()[e], true, w);
                }
            }
        }
    }

    /** This thread's worker, random session picker and event cursor. */
    @State(Scope.Thread)
    public static class PerThread {
        Worker worker;
        long random;
        int cursor;

        @Setup(Level.Trial)
        public void setUp(Shared shared, ThreadParams thread) {
            worker = shared.monitor.newWorker();
            random = 0x9E3779B97F4A7C15L * (thread.getThreadIndex() + 1);
            cursor = (thread.getThreadIndex() * (CYCLE / 2)) & (CYCLE - 1);
        }
    }

    static Decision step(Shared s, PerThread t) {
        long x = t.random;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        t.random = x;
        final int session = (int) (((x >>> 32) * s.all.length) >>> 32);
        final int i = t.cursor;
        t.cursor = (i + 1) & (CYCLE - 1);
        return s.monitor.step(s.all[session], s.events[i], s.agent[i], true, t.worker);
    }

    @Benchmark
    @Threads(1)
    public Decision oneThread(Shared s, PerThread t) {
        return step(s, t);
    }

    @Benchmark
    @Threads(2)
    public Decision twoThreads(Shared s, PerThread t) {
        return step(s, t);
    }
}
