package dev.tracegate.bench;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.reference.Progression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openjdk.jmh.infra.Blackhole;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs each benchmark's state setup and body a few times outside JMH: the bodies do what their
 * names say (the passing step passes, refusals are refused, the DFA and the progression reference
 * agree on the workload), and the passing step allocates nothing.
 */
class BenchmarkBodiesTest {
    private static final Blackhole BH =
            new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 100})
    void passingStepPasses(int contracts) {
        EngineStepBenchmark.Passing s = new EngineStepBenchmark.Passing();
        s.contracts = contracts;
        s.setUp();
        EngineStepBenchmark b = new EngineStepBenchmark();
        for (int i = 0; i < 3 * EngineStepBenchmark.CYCLE; i++) assertThat(b.passing(s)).isSameAs(Decision.PASS);
    }

    @Test
    void refusalVariantRefusesItsShare() {
        EngineStepBenchmark.WithRefusals s = new EngineStepBenchmark.WithRefusals();
        s.contracts = 10;
        s.share = 0.06;
        s.setUp();
        EngineStepBenchmark b = new EngineStepBenchmark();
        int refused = 0;
        for (int i = 0; i < EngineStepBenchmark.CYCLE; i++) if (b.withRefusals(s).refused()) refused++;
        assertThat((double) refused / EngineStepBenchmark.CYCLE).isBetween(0.03, 0.09);
    }

    @Test
    void passingStepAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        EngineStepBenchmark.Passing s = new EngineStepBenchmark.Passing();
        s.contracts = 10;
        s.setUp();
        for (int i = 0; i < 50_000; i++) s.next();
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        int passed = 0;
        for (int i = 0; i < 100_000; i++) if (s.next() == Decision.PASS) passed++;
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertThat(passed).isEqualTo(100_000);
        // A single allocation per event would show as at least 1.6 MB here; allow the probe's own few bytes.
        assertThat(allocated).as("bytes allocated by 100,000 passing steps").isLessThan(1_000);
    }

    @Test
    void traceLengthStateStartsEachShotAtItsLength() {
        TraceLengthBenchmark.Trace t = new TraceLengthBenchmark.Trace();
        t.traceLength = 100;
        t.contracts = 10;
        t.compile();
        for (int shot = 0; shot < 3; shot++) {
            t.freshSession();
            assertThat(t.session.applied()).isEqualTo(100);
            for (int i = 0; i < TraceLengthBenchmark.SHOT; i++) assertThat(new TraceLengthBenchmark().step(t)).isSameAs(Decision.PASS);
            assertThat(t.session.applied()).as("a shot is whole turns of the cycle").isEqualTo(100 + TraceLengthBenchmark.SHOT);
        }
        assertThat(TraceLengthBenchmark.SHOT % TraceLengthBenchmark.WINDOW).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 100})
    void dfaAndProgressionAgreeOnTheWorkload(int contracts) {
        DfaVsProgressionBenchmark.Formulas s = new DfaVsProgressionBenchmark.Formulas();
        s.contracts = contracts;
        s.setUp();
        DfaVsProgressionBenchmark b = new DfaVsProgressionBenchmark();
        int events = contracts == 100 ? 200 : 2 * DfaVsProgressionBenchmark.CYCLE;
        for (int i = 0; i < events; i++) {
            int cursor = s.cursor;
            assertThat(b.dfa(s)).isZero();
            s.cursor = cursor;
            assertThat(b.progression(s)).isZero();
            for (int f = 0; f < s.dfas.length; f++) {
                Dfa d = s.dfas[f];
                assertThat(d.accepting(s.states[f])).as("formula %s after %d events", d.formula(), i + 1)
                        .isEqualTo(Progression.acceptsAtEnd(s.residuals[f]));
            }
        }
    }

    @Test
    void concurrencyStepPassesOnEverySession() {
        ConcurrencyBenchmark.Shared shared = new ConcurrencyBenchmark.Shared();
        shared.sessions = 1000;
        shared.contracts = 10;
        shared.setUp();
        ConcurrencyBenchmark.PerThread t = new ConcurrencyBenchmark.PerThread();
        t.worker = shared.monitor.newWorker();
        t.random = 12345;
        ConcurrencyBenchmark b = new ConcurrencyBenchmark();
        for (int i = 0; i < 20_000; i++) assertThat(b.oneThread(shared, t)).isSameAs(Decision.PASS);
        assertThat(shared.monitor.sessionCount()).isEqualTo(1000);
    }

    @Test
    void replayRunsTheRecordedSession() {
        ReplayBenchmark.Recorded r = new ReplayBenchmark.Recorded();
        r.contracts = 10;
        r.setUp();
        assertThat(r.trace.refusals()).isPositive();
        new ReplayBenchmark().replay(r, BH);
    }
}
