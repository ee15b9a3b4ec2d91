package dev.tracegate.bench;

import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Replay;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * Offline replay throughput on pre-grounded events: one operation is one event of a recorded
 * session of {@value #TRACE} events (6% of them refused) replayed through {@link Replay}, which
 * reports the verdict of every contract at every prefix. Reading JSONL and grounding are not
 * included: {@link JsonlReplayBenchmark} measures them (bench/README.md, "Offline replay from JSONL").
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ReplayBenchmark {

    static final int TRACE = 1024;

    /** One recorded session and its contract set. */
    @State(Scope.Thread)
    public static class Recorded {
        @Param({"10", "100"})
        public int contracts;

        ContractSet set;
        Workload.Traffic trace;

        @Setup(Level.Trial)
        public void setUp() {
            set = Workload.compile(contracts);
            trace = Workload.ordered(set, TRACE, 0.06, 42);
        }
    }

    @Benchmark
    @OperationsPerInvocation(TRACE)
    public void replay(Recorded r, Blackhole bh) {
        Replay<long[]> replay = new Replay<>(r.set, PregroundedEvents.INSTANCE, true, "recorded");
        final long[][] v = r.trace.valuations();
        final boolean[] agent = r.trace.agent();
        for (int i = 0; i < v.length; i++) bh.consume(replay.next(v[i], agent[i], true));
        bh.consume(replay.end());
    }
}
