package dev.tracegate.agent.bootstrap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DispatcherTest {

    @AfterEach
    void uninstall() {
        Dispatcher.install(null);
    }

    @Test
    void withoutADelegateEveryHookProceeds() {
        assertThat(Dispatcher.onToolCall("f", "s", "t", "{}", null)).isNull();
        assertThat(Dispatcher.onToolResult("f", "s", "t", null, "r", false)).isNull();
        assertThat(Dispatcher.onUserMessage("f", "s", "hi")).isNull();
        assertThat(Dispatcher.onToolResultObject("f", "s", "t", null, "result")).isEqualTo("result");
    }

    @Test
    void onlyTheOutermostCallOnAThreadIsSupervised() throws InterruptedException {
        assertThat(Dispatcher.enter()).isTrue();
        assertThat(Dispatcher.enter()).isFalse();
        boolean[] otherThread = new boolean[1];
        Thread t = new Thread(() -> {
            otherThread[0] = Dispatcher.enter();
            Dispatcher.exit();
        });
        t.start();
        t.join();
        assertThat(otherThread[0]).isTrue();
        Dispatcher.exit();
        Dispatcher.exit();
        assertThat(Dispatcher.enter()).isTrue();
        Dispatcher.exit();
        Dispatcher.exit(); // an extra exit must not make the depth negative
        assertThat(Dispatcher.enter()).isTrue();
        Dispatcher.exit();
    }

    @Test
    void aFailingDelegateIsMappedByItsFailurePolicyAndNeverThrowsIntoTheHost() {
        long before = Dispatcher.internalErrors();
        Dispatcher.install(new Failing(Ruling.substitute("refused")));
        assertThat(Dispatcher.onToolCall("f", "s", "t", "{}", null).text).isEqualTo("refused");
        assertThat(Dispatcher.onToolResult("f", "s", "t", null, "r", false)).isEqualTo("refused");
        Dispatcher.install(new Failing(null));
        assertThat(Dispatcher.onToolCall("f", "s", "t", "{}", null)).isNull();
        assertThat(Dispatcher.onAssistantMessage("f", "s", "x")).isNull();
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(4);
    }

    @Test
    void aViolationFromTheDelegatePassesThroughForModelOutput() {
        Dispatcher.install(new Failing(null) {
            @Override
            public String onAssistantMessage(String framework, String session, String text) {
                throw new TracegateViolation("blocked");
            }
        });
        assertThatThrownBy(() -> Dispatcher.onAssistantMessage("f", "s", "x")).isInstanceOf(TracegateViolation.class);
    }

    @Test
    void sessionAndToolTableAreScopedPerThread() {
        Object previous = Dispatcher.swapSession("conv-1");
        assertThat(Dispatcher.session("default")).isEqualTo("conv-1");
        Object inner = Dispatcher.swapSession(null);
        assertThat(Dispatcher.session("default")).isEqualTo("conv-1");
        Dispatcher.restoreSession(inner);
        Dispatcher.restoreSession(previous);
        assertThat(Dispatcher.session("default")).isEqualTo("default");
        Object tools = Dispatcher.swapTools("table");
        assertThat(Dispatcher.tools()).isEqualTo("table");
        Dispatcher.swapTools(tools);
        assertThat(Dispatcher.tools()).isNull();
    }

    /** A delegate whose every hook fails. */
    static class Failing implements DispatchTarget {
        private final Ruling policy;

        Failing(Ruling policy) {
            this.policy = policy;
        }

        public Ruling onToolCall(String f, String s, String t, String a, String c) { throw new IllegalStateException("x"); }
        public String onToolResult(String f, String s, String t, String c, String r, boolean e) { throw new IllegalStateException("x"); }
        public Object onToolResultObject(String f, String s, String t, String c, Object r) { throw new IllegalStateException("x"); }
        public String onUserMessage(String f, String s, String t) { throw new IllegalStateException("x"); }
        public String onAssistantMessage(String f, String s, String t) { throw new IllegalStateException("x"); }
        public Ruling onMethodCall(String o, Object[] a) { throw new IllegalStateException("x"); }
        public Object onMethodResult(String o, Object[] a, Object r) { throw new IllegalStateException("x"); }
        public String toJson(Object v) { throw new IllegalStateException("x"); }
        public Object fromJson(String j) { throw new IllegalStateException("x"); }
        public Ruling onInternalError(String where, Throwable error) { return policy; }
    }
}
