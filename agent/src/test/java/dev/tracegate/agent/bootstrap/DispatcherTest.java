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

    /** A thread tracegate runs for itself (an approver) supervises nothing, not even a method whose rule says nested: true. */
    @Test
    void onItsOwnThreadNothingIsSupervised() {
        Dispatcher.ownThread(true);
        try {
            assertThat(Dispatcher.enter()).isFalse();
            Dispatcher.exit();
            assertThat(Dispatcher.enterModel()).isFalse();
            Dispatcher.exitModel();
        } finally {
            Dispatcher.ownThread(false);
        }
        assertThat(Dispatcher.enter()).as("an ordinary thread again").isTrue();
        Dispatcher.exit();
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

    /**
     * trial9 fail-open-orphan-return: a configured method whose call could not be supervised (its argument cannot be
     * written) ran under fail: open and its RETURN was still reported and applied. The dispatcher says "unsupervised"
     * (the advice then reports no RETURN); under fail: closed the refusal stands.
     */
    @Test
    void aConfiguredCallThatCouldNotBeSupervisedRunsUnsupervisedOrIsRefused() {
        try {
            Dispatcher.install(new Failing(null));   // fail: open
            Ruling open = Dispatcher.onMethodCall("example.Tools.verify(Ljava/lang/Object;)Ljava/lang/String;", new Object[] {"x"}, "tg-1");
            assertThat(open).isSameAs(Ruling.LET_THROUGH);
            assertThat(open.kind).isEqualTo(Ruling.UNSUPERVISED);
            assertThat(open.skips()).as("the method runs").isFalse();
            Ruling closed = Ruling.substitute("refused: internal error");
            Dispatcher.install(new Failing(closed));
            assertThat(Dispatcher.onMethodCall("example.Tools.verify(Ljava/lang/Object;)Ljava/lang/String;", new Object[] {"x"}, "tg-1")).isSameAs(closed);
        } finally {
            Dispatcher.install(null);
        }
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

    @Test
    void anAdviceFailureIsCountedAndMappedByThePolicyLikeAnInternalError() {
        long before = Dispatcher.internalErrors();
        Dispatcher.install(new Failing(Ruling.substitute("refused")));   // fail: closed (default onAdviceFailure)
        assertThat(Dispatcher.adviceFailed("fw", "closed call", new IllegalStateException("x"), null).text).isEqualTo("refused");
        Dispatcher.install(new Failing(null));                            // fail: open
        assertThat(Dispatcher.adviceFailed("fw", "open call", new IllegalStateException("x"), null)).isNull();
        Dispatcher.install(null);                                         // no core yet: every hook proceeds
        assertThat(Dispatcher.adviceFailed("fw", "early call", new IllegalStateException("x"), null)).isNull();
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(3);
    }

    @Test
    void theCoreIsToldWhetherTheSameAdviceFailureWasReportedBefore() {
        java.util.List<String> seen = new java.util.ArrayList<>();
        Dispatcher.install(new Failing(null) {
            @Override
            public Ruling onAdviceFailure(String where, Throwable error, boolean repeated) {
                seen.add(where + " " + error.getClass().getSimpleName() + (repeated ? " again" : " first"));
                return null;
            }
        });
        Dispatcher.adviceFailed("fw", "repeat call", new IllegalStateException("a"), null);
        Dispatcher.adviceFailed("fw", "repeat call", new IllegalStateException("another message"), null);
        Dispatcher.adviceFailed("fw", "repeat call", new ClassCastException(), null);
        Dispatcher.adviceFailed("fw", "repeat answer", new IllegalStateException("a"), null);
        assertThat(seen).containsExactly("fw repeat call IllegalStateException first", "fw repeat call IllegalStateException again",
                "fw repeat call ClassCastException first", "fw repeat answer IllegalStateException first");
    }

    @Test
    void aRulingTheAdviceCouldNotCarryOutIsNeverRunAsTheOriginalCall() {
        Ruling redirect = new Ruling(Ruling.REDIRECT, "blocked by contract c", "safe_tool", "{}", null);
        Ruling redact = new Ruling(Ruling.REWRITE, null, null, "{\"card\":\"[redacted]\"}", null);
        Dispatcher.install(new Failing(null));   // fail: open lets an unchecked call run, but not one the supervisor changed
        Ruling r = Dispatcher.adviceFailed("fw", "redirect", new IllegalStateException("x"), redirect);
        assertThat(r.skips()).isTrue();
        assertThat(r.text).isEqualTo("blocked by contract c");
        r = Dispatcher.adviceFailed("fw", "redact", new ClassCastException(), redact);
        assertThat(r.skips()).isTrue();
        assertThat(r.text).contains("could not apply its decision").contains("did not run");
        Ruling block = new Ruling(Ruling.THROW, "blocked", null, null, null);
        assertThat(Dispatcher.adviceFailed("fw", "block", new IllegalStateException("x"), block)).isSameAs(block);
        Dispatcher.install(new Failing(new Ruling(Ruling.THROW, "refused", null, null, null)));   // fail: closed, block.style: exception
        r = Dispatcher.adviceFailed("fw", "redirect", new IllegalStateException("x"), redirect);
        assertThat(r.kind).isEqualTo(Ruling.THROW);
        assertThat(r.text).isEqualTo("refused");
    }

    @Test
    void aCoreThatFailsToMapAnAdviceFailureNeverThrowsIntoTheHost() {
        Dispatcher.install(new Failing(null) {
            @Override
            public Ruling onAdviceFailure(String where, Throwable error, boolean repeated) {
                throw new IllegalStateException("metrics broken");
            }
        });
        assertThat(Dispatcher.adviceFailed("fw", "broken core", new IllegalStateException("x"), null)).isNull();
        Ruling redirect = new Ruling(Ruling.REDIRECT, "blocked", "safe_tool", "{}", null);
        assertThat(Dispatcher.adviceFailed("fw", "broken core", new IllegalStateException("x"), redirect).skips()).isTrue();
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
        public Ruling onMethodCall(String o, Object[] a, String id) { throw new IllegalStateException("x"); }
        public Object onMethodResult(String o, Object[] a, Object r, String id) { throw new IllegalStateException("x"); }
        public String toJson(Object v) { throw new IllegalStateException("x"); }
        public Object fromJson(String j) { throw new IllegalStateException("x"); }
        public Ruling onInternalError(String where, Throwable error) { return policy; }
    }

    /** The generated id spells tg-N as the concatenation would, at every digit count (its own digit loop replaces it). */
    @Test
    void aGeneratedCallIdIsTgAndTheCountInDecimal() {
        java.util.Random r = new java.util.Random(7);
        for (long n : new long[] {1, 9, 10, 11, 99, 100, 101, 999_999, 1_000_000, Integer.MAX_VALUE, 1L + Integer.MAX_VALUE, Long.MAX_VALUE}) {
            assertThat(Dispatcher.callId(n)).isEqualTo("tg-" + n);
        }
        for (int i = 0; i < 10_000; i++) {
            long n = 1 + (r.nextLong() >>> (1 + r.nextInt(63)));
            assertThat(Dispatcher.callId(n)).isEqualTo("tg-" + n);
        }
        String a = Dispatcher.newCallId(), b = Dispatcher.newCallId();
        assertThat(Dispatcher.generatedId(a)).isTrue();
        assertThat(Long.parseLong(b.substring(3))).isEqualTo(Long.parseLong(a.substring(3)) + 1);
        // a hook that keeps the id as its number counts in the same sequence, and the event spells it as the Dispatcher does
        long c = Dispatcher.newCallNumber();
        assertThat(c).isEqualTo(Long.parseLong(b.substring(3)) + 1);
        assertThat(Dispatcher.newCallId()).isEqualTo("tg-" + (c + 1));
        assertThat(dev.tracegate.matchers.event.Event.GENERATED_ID).isEqualTo(Dispatcher.GENERATED_ID);
        for (int i = 0; i < 10_000; i++) {
            long n = 1 + (r.nextLong() >>> (1 + r.nextInt(63)));
            assertThat(dev.tracegate.matchers.event.Event.generatedId(n)).isEqualTo(Dispatcher.callId(n));
            assertThat(dev.tracegate.matchers.event.Event.generatedNumber(Dispatcher.callId(n))).isEqualTo(n);
        }
    }

    /** A generated id is told by its first three characters, as startsWith(GENERATED_ID) tells it (null, short, other case, UTF-16). */
    @Test
    void aGeneratedIdIsToldByItsPrefixAlone() {
        for (String id : new String[] {null, "", "t", "tg", "tg-", "tg-1", "tg-42", "Tg-1", "tg_1", "xtg-1", "call_1", "tg\u20141", "tg-\u20ac", "\u20actg-1"}) {
            assertThat(Dispatcher.generatedId(id)).as(String.valueOf(id)).isEqualTo(id != null && id.startsWith(Dispatcher.GENERATED_ID));
        }
    }

    @Test
    void aJsonStringResultIsReadAsTheTextItEncodesAndOnlyAWellFormedOne() {
        assertThat(Dispatcher.jsonStringText("\"flights ZRH-LIS\"")).isEqualTo("flights ZRH-LIS");
        assertThat(Dispatcher.jsonStringText("\"a\\u0041\\n\\\"b\"")).isEqualTo("aA\n\"b");
        // a \\u escape's digits are ASCII hex digits, as JSON says: full-width or Arabic-Indic digits make no escape
        assertThat(Dispatcher.jsonStringText("\"\\u\uFF10\uFF10\uFF14\uFF11\"")).isNull();
        assertThat(Dispatcher.jsonStringText("\"\\u\u0660\u0660\u0664\u0661\"")).isNull();
        assertThat(Dispatcher.jsonStringText("{\"a\":1}")).isNull();
        assertThat(Dispatcher.jsonStringText("\"a\" \"b\"")).isNull();
    }

    /**
     * An IMMEDIATE tool's result checked as the answer as the tool ended: the listeners' ToolExecutedEvent and the AI
     * service's return take that decision later (after the round's other tools ran). Meanwhile other conversations'
     * immediate tools are checked and their decisions taken; the decision waiting must still be there. Before, the table
     * was a ring of 64 that overwrote its next slot whether taken or not: after 64 more decisions (here 100, only one
     * waiting at a time) the listener found none and got the result unchecked.
     */
    @Test
    void aDecisionWaitingForItsEventOutlivesOthersNotedAndTakenMeanwhile() {
        Object waiting = new Object();
        Dispatcher.answerChecked(waiting, "[tracegate] withheld", false);
        for (int i = 0; i < 100; i++) {
            Object other = new Object();
            Dispatcher.answerChecked(other, i % 2 == 0 ? null : "notice " + i, i % 3 == 0);
            assertThat(Dispatcher.checkedAnswerForEvent(other)).isNotNull();
            Dispatcher.checkedAnswer(other, true);   // the blocking loop's return; a stream's event took it already
        }
        assertThat(Dispatcher.checkedAnswerForEvent(waiting)).as("the listeners' event").isEqualTo("[tracegate] withheld");
        assertThat(Dispatcher.checkedAnswer(waiting, true)).as("the AI service's return").isEqualTo("[tracegate] withheld");
        assertThat(Dispatcher.checkedAnswer(waiting, false)).as("taken").isNull();
    }

    /** A stream's decision is used last by its listeners' event: it is forgotten there, a blocking loop's is not. */
    @Test
    void aStreamsDecisionIsForgottenByItsEventABlockingOnesByTheReturn() {
        Object streamed = new Object(), blocking = new Object();
        Dispatcher.answerChecked(streamed, null, true);
        Dispatcher.answerChecked(blocking, "notice", false);
        assertThat(Dispatcher.checkedAnswerForEvent(streamed)).isSameAs(Dispatcher.KEPT);
        assertThat(Dispatcher.checkedAnswerForEvent(streamed)).isNull();
        assertThat(Dispatcher.checkedAnswerForEvent(blocking)).isEqualTo("notice");
        assertThat(Dispatcher.checkedAnswer(blocking, true)).isEqualTo("notice");
        assertThat(Dispatcher.checkedAnswer(blocking, true)).isNull();
    }

    /**
     * A tool provider's immediate tool marked where its round starts is found where it runs, also after other rounds
     * marked and ran 100 such tools meanwhile (before: the ring of 64 had overwritten the mark, and the tool's callbacks got
     * its result unchecked). Past 64 marks waiting at once, the oldest is given up.
     */
    @Test
    void aMarkWaitingForItsToolOutlivesOthersMarkedAndTakenMeanwhile() {
        Object waiting = new Object();
        Dispatcher.markImmediateRequest(waiting);
        for (int i = 0; i < 100; i++) {
            Object other = new Object();
            Dispatcher.markImmediateRequest(other);
            assertThat(Dispatcher.takeImmediateRequest(other)).isTrue();
        }
        assertThat(Dispatcher.takeImmediateRequest(waiting)).isTrue();
        assertThat(Dispatcher.takeImmediateRequest(waiting)).as("taken").isFalse();

        Object[] atOnce = new Object[65];
        for (int i = 0; i < atOnce.length; i++) {
            atOnce[i] = new Object();
            Dispatcher.markImmediateRequest(atOnce[i]);
        }
        assertThat(Dispatcher.takeImmediateRequest(atOnce[0])).as("the oldest of 65 waiting at once").isFalse();
        for (int i = 1; i < atOnce.length; i++) {
            assertThat(Dispatcher.takeImmediateRequest(atOnce[i])).isTrue();
        }
    }

    /**
     * Review of 11937e2: the replaced user messages were a JVM-wide ring of the newest 64, so that with more than 64
     * conversations whose user message was replaced, an early conversation's next tool round (or chat memory turn) sent the
     * withheld text to the model again. Now they are kept per conversation until its session ends.
     */
    @Test
    void aReplacedUserMessageStaysReplacedWhateverOtherConversationsReplacedUntilItsSessionEnds() {
        int conversations = 200;
        try {
            for (int i = 0; i < conversations; i++) {
                Dispatcher.userReplaced("ring-" + i, "my password is hunter" + i, "[withheld " + i + "]");
            }
            for (int i = 0; i < conversations; i++) {
                assertThat(Dispatcher.replacedUser("ring-" + i, "my password is hunter" + i)).as("conversation " + i)
                        .isEqualTo("[withheld " + i + "]");
            }
            assertThat(Dispatcher.replacedUser("ring-1", "my password is hunter0")).as("another conversation's text").isNull();
            assertThat(Dispatcher.replacedUsers("ring-none")).as("a conversation with none: nothing to scan").isNull();
            Dispatcher.sessionEnded("ring-0");
            assertThat(Dispatcher.replacedUser("ring-0", "my password is hunter0")).as("its session ended: kept for a resumption")
                    .isEqualTo("[withheld 0]");
            assertThat(Dispatcher.replacedUser("ring-1", "my password is hunter1")).isEqualTo("[withheld 1]");
        } finally {
            for (int i = 0; i < conversations; i++) {
                Dispatcher.forgetReplacedUsers("ring-" + i);
            }
        }
        assertThat(Dispatcher.replacedUser("ring-7", "my password is hunter7")).isNull();
    }

    /** One conversation keeps its newest {@value Dispatcher#REPLACED_PER_SESSION}; a text replaced again takes its newest replacement. */
    @Test
    void aConversationKeepsItsNewestReplacedUserMessages() {
        int n = Dispatcher.REPLACED_PER_SESSION + 8;
        try {
            for (int i = 0; i < n; i++) {
                Dispatcher.userReplaced("one", "text " + i, "[withheld " + i + "]");
            }
            for (int i = 0; i < n; i++) {
                assertThat(Dispatcher.replacedUser("one", "text " + i)).as("text " + i)
                        .isEqualTo(i < 8 ? null : "[withheld " + i + "]");
            }
            Dispatcher.userReplaced("one", "text 8", "[masked 8]");   // the oldest kept, replaced again: now the newest
            Dispatcher.userReplaced("one", "text 40", "[withheld 40]");   // one more: text 9 goes, text 8 stays
            assertThat(Dispatcher.replacedUser("one", "text 8")).isEqualTo("[masked 8]");
            assertThat(Dispatcher.replacedUser("one", "text 9")).isNull();
            assertThat(Dispatcher.replacedUser("one", "text 40")).isEqualTo("[withheld 40]");
            assertThat(Dispatcher.replacedUser("one", "text 39")).isEqualTo("[withheld 39]");
        } finally {
            Dispatcher.forgetReplacedUsers("one");
        }
    }

    /**
     * The entries are the core's sessions' (in a JVM of several applications "appb/alice"): the END of that session drops
     * what a framework noted under its conversation id there, and another application's "alice" is another conversation.
     */
    @Test
    void replacedUserMessagesAreKeptUnderTheCoresSessionId() {
        String[] app = {"appb/"};
        Dispatcher.install(new Failing(null) {
            @Override
            public String sessionId(String session) {
                return app[0] + session;
            }
        });
        try {
            Dispatcher.userReplaced("alice", "my password is hunter2", "[withheld]");
            assertThat(Dispatcher.replacedUser("alice", "my password is hunter2")).isEqualTo("[withheld]");
            app[0] = "appa/";
            assertThat(Dispatcher.replacedUser("alice", "my password is hunter2")).as("another application's alice").isNull();
            Dispatcher.sessionEnded("appb/alice");
            assertThat(Dispatcher.replacedUser("alice", "my password is hunter2")).as("appa/alice, after appb/alice ended").isNull();
            app[0] = "appb/";
            assertThat(Dispatcher.replacedUser("alice", "my password is hunter2")).as("appb/alice resumed").isEqualTo("[withheld]");
        } finally {
            Dispatcher.forgetReplacedUsers("appb/alice");
            Dispatcher.install(null);
        }
    }

    /**
     * A conversation resumed after its session ended (sessions.idle-timeout) whose chat memory kept the original user
     * message gets the replacement it got before (before session 20 the END dropped it, and the resumed conversation's
     * next request sent the withheld text to the model). A replacement in the resumed session adds to the earlier ones;
     * ending it again keeps both.
     */
    @Test
    void aConversationResumedAfterItsSessionEndedKeepsItsReplacements() {
        try {
            Dispatcher.userReplaced("resumed", "my password is hunter2", "[withheld]");
            Dispatcher.sessionEnded("resumed");
            assertThat(Dispatcher.endedSessionsWithReplacedUsers()).isGreaterThanOrEqualTo(1);
            assertThat(Dispatcher.replacedUser("resumed", "my password is hunter2")).isEqualTo("[withheld]");
            Dispatcher.userReplaced("resumed", "my card is 4111 1111 1111 1111", "[masked]");
            assertThat(Dispatcher.replacedUser("resumed", "my password is hunter2")).isEqualTo("[withheld]");
            assertThat(Dispatcher.replacedUser("resumed", "my card is 4111 1111 1111 1111")).isEqualTo("[masked]");
            Dispatcher.sessionEnded("resumed");
            Dispatcher.sessionEnded("resumed");   // a resumed session that replaced nothing: what it had stays
            assertThat(Dispatcher.replacedUser("resumed", "my password is hunter2")).isEqualTo("[withheld]");
            assertThat(Dispatcher.replacedUser("resumed", "my card is 4111 1111 1111 1111")).isEqualTo("[masked]");
            assertThat(Dispatcher.replacedUser("another", "my password is hunter2")).isNull();
        } finally {
            Dispatcher.forgetReplacedUsers("resumed");
        }
    }

    /** The ended conversations' replacements are bounded: the newest {@value Dispatcher#ENDED_MAX} ended, oldest end first out. */
    @Test
    void endedConversationsAreKeptWithinABound() {
        int n = Dispatcher.ENDED_MAX + 10;
        try {
            for (int i = 0; i < n; i++) {
                Dispatcher.userReplaced("ended-" + i, "secret " + i, "[withheld]");
                Dispatcher.sessionEnded("ended-" + i);
            }
            assertThat(Dispatcher.endedSessionsWithReplacedUsers()).isLessThanOrEqualTo(Dispatcher.ENDED_MAX);
            assertThat(Dispatcher.replacedUser("ended-0", "secret 0")).as("the oldest ended").isNull();
            assertThat(Dispatcher.replacedUser("ended-" + (n - 1), "secret " + (n - 1))).isEqualTo("[withheld]");
            // by characters too: one conversation's long texts push out the oldest ended
            String big = "x".repeat((int) (Dispatcher.ENDED_CHARS / 2));
            Dispatcher.userReplaced("big-1", big + 1, "[withheld]");
            Dispatcher.sessionEnded("big-1");
            Dispatcher.userReplaced("big-2", big + 2, "[withheld]");
            Dispatcher.sessionEnded("big-2");
            assertThat(Dispatcher.replacedUser("big-1", big + 1)).as("over the character bound").isNull();
            assertThat(Dispatcher.replacedUser("big-2", big + 2)).isEqualTo("[withheld]");
        } finally {
            for (int i = 0; i < n; i++) {
                Dispatcher.forgetReplacedUsers("ended-" + i);
            }
            Dispatcher.forgetReplacedUsers("big-1");
            Dispatcher.forgetReplacedUsers("big-2");
        }
    }

    /** A model call's look-up takes no lock and allocates nothing, with replaced messages in its conversation or not. */
    @Test
    void lookingUpReplacedUserMessagesAllocatesNothing() {
        try {
            for (int i = 0; i < 100; i++) {
                Dispatcher.userReplaced("alloc-" + i, "my password is hunter" + i, "[withheld]");
            }
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long thread = Thread.currentThread().getId();
            String text = new String("my password is hunter7");   // equal, not the same object
            Runnable work = () -> {
                for (int i = 0; i < 100_000; i++) {
                    if (Dispatcher.replacedUser(Dispatcher.replacedUsers("alloc-7"), text) == null
                            || Dispatcher.replacedUsers("alloc-none") != null) {
                        throw new AssertionError();
                    }
                }
            };
            work.run();
            long before = threads.getThreadAllocatedBytes(thread);
            work.run();
            assertThat(threads.getThreadAllocatedBytes(thread) - before).as("bytes allocated by 100000 model calls' look-ups")
                    .isLessThan(64 * 1024);
        } finally {
            for (int i = 0; i < 100; i++) {
                Dispatcher.forgetReplacedUsers("alloc-" + i);
            }
        }
    }
}
