package dev.tracegate.agent.instrumentation;

import org.junit.jupiter.api.Test;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retransformation sweep's discovery ({@link Weaver.BoundedSweep}) over a JVM whose loaded classes are scripted per
 * call of {@code getAllLoadedClasses}: after its first pass over all and a second over those new since, it goes over the
 * classes its own thread defined (what the passes' retransformations loaded), not over those other threads define
 * meanwhile (the transformer saw them),
 * until a pass finds none or its bound. Byte Buddy's {@code Reiterating} went over every class new since its last pass,
 * which in a JVM that defines classes all the time never ended.
 */
class BoundedSweepTest {

    private static final Class<?>[] POOL = {String.class, Integer.class, Long.class, Short.class, Byte.class, Double.class,
        Float.class, Character.class, Boolean.class, Object.class, Number.class, StringBuilder.class, Thread.class,
        Runnable.class, List.class, ArrayList.class, Arrays.class, Math.class, System.class, Runtime.class};

    /** An Instrumentation whose n-th call (from 0) of getAllLoadedClasses returns {@code loaded.apply(n)}. */
    private static Instrumentation loading(IntFunction<Class<?>[]> loaded) {
        int[] calls = {0};
        return (Instrumentation) Proxy.newProxyInstance(BoundedSweepTest.class.getClassLoader(), new Class<?>[] {Instrumentation.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getAllLoadedClasses")) return loaded.apply(calls[0]++);
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static List<List<Class<?>>> passes(Weaver.BoundedSweep sweep, Instrumentation instrumentation) {
        List<List<Class<?>>> out = new ArrayList<>();
        for (Iterable<Class<?>> pass : sweep.resolve(instrumentation)) {
            List<Class<?>> classes = new ArrayList<>();
            pass.forEach(classes::add);
            out.add(classes);
        }
        return out;
    }

    /** What the sweep's own thread defines during pass n (noted as the weaver's transformer notes it). */
    private static void definedBySweep(Weaver.BoundedSweep sweep, Class<?>... classes) {
        for (Class<?> c : classes) sweep.noteDefined(c.getName().replace('.', '/'));
    }

    @Test
    void theSweepGoesOverWhatItsOwnRetransformationsLoadedUntilTheyLoadNoMore() {
        Weaver.BoundedSweep sweep = new Weaver.BoundedSweep(10);
        List<List<Class<?>>> passes = passes(sweep, loading(n -> {
            // the first pass's retransformations define two classes on the sweep's thread, the second's one more; another
            // thread defines a class at every pass (POOL[10 + n]): the transformer saw it, so no pass goes over it
            if (n == 1) definedBySweep(sweep, POOL[5], POOL[6]);
            if (n == 2) definedBySweep(sweep, POOL[7]);
            List<Class<?>> loaded = new ArrayList<>(Arrays.asList(POOL).subList(0, 5));
            if (n >= 1) loaded.addAll(List.of(POOL[5], POOL[6]));
            if (n >= 2) loaded.add(POOL[7]);
            for (int i = 0; i < n && i < 8; i++) loaded.add(POOL[10 + i]);
            return loaded.toArray(new Class<?>[0]);
        }));
        assertThat(passes).hasSize(3);
        assertThat(passes.get(0)).containsExactly(Arrays.copyOf(POOL, 5));
        assertThat(passes.get(1)).as("the second pass: every class new since the first").containsExactly(POOL[5], POOL[6], POOL[10]);
        assertThat(passes.get(2)).containsExactly(POOL[7]);
        assertThat(sweep.stopped()).isFalse();
        assertThat(sweep.summary()).isEqualTo("retransformation sweep: 3 passes over 5 loaded classes and 4 loaded during the"
                + " sweep (classes the application loads meanwhile and later are woven as they load)");
    }

    @Test
    void aJvmThatDefinesClassesAllTheTimeOnOtherThreadsEndsTheSweepAfterItsSecondPass() {
        Weaver.BoundedSweep sweep = new Weaver.BoundedSweep(10);
        // every call finds one more class, defined by another thread: Reiterating never ended
        List<List<Class<?>>> passes = passes(sweep, loading(n -> Arrays.copyOf(POOL, Math.min(POOL.length, 3 + n))));
        assertThat(passes).hasSize(2);
        assertThat(sweep.summary()).startsWith("retransformation sweep: 2 passes over 3 loaded classes and 1 loaded during the sweep (");
    }

    @Test
    void aSweepWhoseOwnRetransformationsLoadClassesPassAfterPassStopsAtItsBound() {
        Weaver.BoundedSweep sweep = new Weaver.BoundedSweep(4);
        List<List<Class<?>>> passes = passes(sweep, loading(n -> {
            if (n >= 1) definedBySweep(sweep, POOL[2 + n]);
            return Arrays.copyOf(POOL, Math.min(POOL.length, 3 + n));
        }));
        assertThat(passes).hasSize(4);
        assertThat(sweep.passes()).isEqualTo(4);
        assertThat(sweep.stopped()).isTrue();
        assertThat(sweep.summary()).isEqualTo("retransformation sweep: 4 passes over 3 loaded classes and 3 loaded during the"
                + " sweep, then stopped with 1 more that its last pass loaded not gone over: a chain of"
                + " retransformations that loads classes for more than 4 passes is not expected; those classes are not woven");
    }

    @Test
    void aSweepThatNeverRanSaysNothing() {
        assertThat(new Weaver.BoundedSweep(10).summary()).isNull();
    }
}
