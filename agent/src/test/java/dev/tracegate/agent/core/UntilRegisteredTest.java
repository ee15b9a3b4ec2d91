package dev.tracegate.agent.core;

import dev.tracegate.agent.bootstrap.DispatchTarget;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JMX MBean is registered after premain returns, a moment later or when the first supervised event asks:
 * that event waits for the registration (so its counters are readable), then every event reaches the bridge as before.
 */
class UntilRegisteredTest {

    @AfterEach
    void uninstall() {
        Dispatcher.install(null);
    }

    @Test
    void theFirstEventWaitsUntilTheMBeanIsRegisteredAndThenReachesTheBridge() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<String> state = new AtomicReference<>("not registered");
        Recording bridge = new Recording(state);
        AgentCore.Registration registration = new AgentCore.Registration(() -> {
            await(release);
            state.set("registered");
        }, System.nanoTime(), TimeUnit.HOURS.toMillis(1));
        Dispatcher.install(new AgentCore.UntilRegistered(bridge, registration));
        registration.start();

        Thread host = new Thread(() -> Dispatcher.onToolCall("test", "s1", "refund", "{}", null));
        host.start();
        host.join(300);
        assertThat(host.isAlive()).as("the first event waits for the registration").isTrue();
        assertThat(bridge.seen).isEmpty();

        release.countDown();
        host.join(10_000);
        assertThat(host.isAlive()).isFalse();
        assertThat(bridge.seen).containsExactly("onToolCall refund when registered");

        // the dispatcher now holds the bridge itself
        Dispatcher.onToolCall("test", "s1", "pay", "{}", null);
        assertThat(bridge.seen).containsExactly("onToolCall refund when registered", "onToolCall pay when registered");
    }

    @Test
    void withoutAnyEventTheMBeanIsRegisteredAfterTheDelay() throws Exception {
        CountDownLatch registered = new CountDownLatch(1);
        AgentCore.Registration registration = new AgentCore.Registration(registered::countDown, System.nanoTime(), 50);
        registration.start();

        assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();
        registration.join(10_000);
        assertThat(registration.ended()).isTrue();
    }

    @Test
    void beginStartsTheRegistrationBeforeItsDelayAndACancelledOneRegistersNothing() throws Exception {
        // a delay no test waits for: only begin() can have started it (the warm-up calls it when it ends)
        CountDownLatch registered = new CountDownLatch(1);
        AgentCore.Registration early = new AgentCore.Registration(registered::countDown, System.nanoTime(), TimeUnit.HOURS.toMillis(1));
        early.start();
        early.begin();
        assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();

        // a start given up after the registration was set up: it must not register an MBean for a supervisor that is gone
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        AgentCore.Registration cancelled = new AgentCore.Registration(runs::incrementAndGet, System.nanoTime(), TimeUnit.HOURS.toMillis(1));
        cancelled.start();
        cancelled.cancel();
        cancelled.join(10_000);
        assertThat(cancelled.ended()).isTrue();
        assertThat(runs.get()).isZero();
    }

    @Test
    void aRegistrationThatFailsLetsEventsThrough() throws Exception {
        AtomicReference<String> state = new AtomicReference<>("not registered");
        Recording bridge = new Recording(state);
        AgentCore.Registration registration = new AgentCore.Registration(() -> {
            throw new IllegalStateException("no MBean server today");
        }, System.nanoTime(), TimeUnit.HOURS.toMillis(1));
        Dispatcher.install(new AgentCore.UntilRegistered(bridge, registration));
        registration.start();

        Thread host = new Thread(() -> Dispatcher.onUserMessage("test", "s1", "hello"));
        host.start();
        host.join(10_000);

        assertThat(host.isAlive()).isFalse();
        assertThat(bridge.seen).containsExactly("onUserMessage hello when not registered");
    }

    @Test
    void everyMethodOfTheDispatchTargetIsForwardedNotLeftToADefault() {
        List<String> missing = new ArrayList<>();
        for (Method m : DispatchTarget.class.getMethods()) {
            try {
                AgentCore.UntilRegistered.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.toString());
            }
        }
        assertThat(missing).as("DispatchTarget methods UntilRegistered does not forward").isEmpty();
    }

    @Test
    void eachForwardedMethodReachesTheBridge() {
        AtomicReference<String> state = new AtomicReference<>("done");
        Recording bridge = new Recording(state);
        AgentCore.Registration registration = new AgentCore.Registration(() -> { }, System.nanoTime(), 0);
        registration.run(); // ended on this thread
        DispatchTarget target = new AgentCore.UntilRegistered(bridge, registration);

        target.onToolCall("f", "s", "t", "{}", "id");
        target.onToolResult("f", "s", "t", "id", "r", false);
        target.onToolResultObject("f", "s", "t", "id", "r");
        target.onUserMessage("f", "s", "u");
        target.onAssistantMessage("f", "s", "a");
        target.onMethodCall("C#m", new Object[0], "id");
        target.onMethodResult("C#m", new Object[0], "r", "id");
        target.onMethodThrown("C#m", new Object[0], new RuntimeException(), "id");
        assertThat(target.toJson("x")).isEqualTo("json");
        assertThat(target.fromJson("x")).isEqualTo("value");
        target.onInternalError("here", new RuntimeException());
        target.onAdviceFailure("advice", new RuntimeException(), false);

        assertThat(bridge.seen).containsExactly("onToolCall t when done", "onToolResult t when done", "onToolResultObject t when done",
                "onUserMessage u when done", "onAssistantMessage a when done", "onMethodCall C#m when done",
                "onMethodResult C#m when done", "onMethodThrown C#m when done", "toJson when done", "fromJson when done",
                "onInternalError here when done", "onAdviceFailure advice when done");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A bridge that records each call and the registration state it was made in. */
    private static final class Recording implements DispatchTarget {
        final List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        private final AtomicReference<String> state;

        Recording(AtomicReference<String> state) {
            this.state = state;
        }

        private void note(String what) {
            seen.add(what + " when " + state.get());
        }

        @Override
        public Ruling onToolCall(String framework, String session, String tool, String argumentsJson, String callId) {
            note("onToolCall " + tool);
            return null;
        }

        @Override
        public String onToolResult(String framework, String session, String tool, String callId, String resultText, boolean error) {
            note("onToolResult " + tool);
            return null;
        }

        @Override
        public Object onToolResultObject(String framework, String session, String tool, String callId, Object result) {
            note("onToolResultObject " + tool);
            return null;
        }

        @Override
        public String onUserMessage(String framework, String session, String text) {
            note("onUserMessage " + text);
            return null;
        }

        @Override
        public String onAssistantMessage(String framework, String session, String text) {
            note("onAssistantMessage " + text);
            return null;
        }

        @Override
        public Ruling onMethodCall(String origin, Object[] arguments, String callId) {
            note("onMethodCall " + origin);
            return null;
        }

        @Override
        public Object onMethodResult(String origin, Object[] arguments, Object result, String callId) {
            note("onMethodResult " + origin);
            return null;
        }

        @Override
        public void onMethodThrown(String origin, Object[] arguments, Throwable thrown, String callId) {
            note("onMethodThrown " + origin);
        }

        @Override
        public String toJson(Object value) {
            note("toJson");
            return "json";
        }

        @Override
        public Object fromJson(String json) {
            note("fromJson");
            return "value";
        }

        @Override
        public Ruling onInternalError(String where, Throwable error) {
            note("onInternalError " + where);
            return null;
        }

        @Override
        public Ruling onAdviceFailure(String where, Throwable error, boolean repeated) {
            note("onAdviceFailure " + where);
            return null;
        }
    }
}
