package dev.tracegate.agent.instrumentation.configured;

import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.core.AgentArguments;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.Consent;
import dev.tracegate.agent.core.Erasure;
import dev.tracegate.agent.core.JsonCodec;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.core.ResultDecision;
import dev.tracegate.agent.core.Supervisor;
import dev.tracegate.agent.core.SupervisorBridge;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import net.bytebuddy.description.method.MethodDescription;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a configured method's subject, purpose and session parameters are read (trial17): a grant counts once its method
 * returned normally, a withdrawal and an erasure at the call; a null, blank or object subject records nothing; an enum
 * purpose counts by its name; the session parameter is not tool data; a removed Optional is passed empty.
 */
class SubjectParametersTest {

    enum Purpose {
        MARKETING, SUPPORT;

        @Override public String toString() { return "label of " + name(); }   // what a consent form shows
    }

    record Customer(String email, String name) { }

    static final class Req {   // no toString() of its own
    }

    record Ctx(String conversation) { }

    @SuppressWarnings("unused")
    static final class Privacy {
        void forget(String session, Customer c) { }
        void forgetId(String session, Long id) { }
        void grant(String session, CharSequence subject, Purpose p) { }
        String search(Req req, String q) { return q; }
        String find(Ctx ctx, String q) { return q; }
        String plain(String session, String q) { return q; }
    }

    private static final String GRANT = "example.Privacy.grant(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)V";
    private static final String WITHDRAW = "example.Privacy.withdraw(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)V";
    private static final String FORGET = "example.Privacy.forget(Ljava/lang/String;Ljava/lang/Object;)V";

    private final List<Consent> consents = new ArrayList<>();
    private final List<Erasure> erasures = new ArrayList<>();
    private final List<ToolCall> calls = new ArrayList<>();
    /** What the supervisor was told of the agent's own failures: where, and whether the event was refused. */
    private final List<String> internalErrors = new ArrayList<>();
    private String redacted;

    private final Supervisor recording = new Supervisor() {
        @Override public ToolDecision onToolCall(ToolCall call) {
            calls.add(call);
            return redacted == null ? ToolDecision.proceed() : ToolDecision.redact("c1", "not needed", redacted);
        }
        @Override public ResultDecision onToolResult(ToolResult result) { return null; }
        @Override public MessageDecision onUserMessage(Message message) { return null; }
        @Override public MessageDecision onAssistantMessage(Message message) { return null; }
        @Override public void endSession(String sessionId) { }
        @Override public void onConsent(Consent consent) { consents.add(consent); }
        @Override public void onErasure(Erasure erasure) { erasures.add(erasure); }
        @Override public void onInternalError(String where, Throwable error, boolean refused) {
            internalErrors.add(where + (refused ? " refused" : " let through"));
        }
    };

    private ConfiguredMethods privacy() {
        return ConfiguredMethods.parse("m.txt", List.of(
                "consent example.Privacy#grant session=0 subject=1 purpose=2",
                "consent example.Privacy#withdraw session=0 subject=1 purpose=2 granted=false",
                "erasure example.Privacy#forget session=0 subject=1",
                "tool example.Shop#* name=$method session=0"));
    }

    /** The host's consent method threw (form not signed, database down): it stored no consent, so none counts. */
    @Test
    void aGrantCountsOnlyOnceItsMethodReturnedNormally() {
        ConfiguredMethods m = privacy();
        SupervisorBridge bridge = new SupervisorBridge(recording, AgentArguments.parse(""), new JsonCodec(), m);
        Object[] bob = {"web-1", "bob@example.com", "marketing"};
        assertThat(m.onCall(GRANT, bob, bridge)).as("the method runs; its return is reported").isSameAs(Ruling.AT_RETURN);
        assertThat(consents).as("nothing counts at the call").isEmpty();
        m.onThrown(GRANT, bob, new IllegalStateException("form not signed"), bridge);
        assertThat(consents).as("the method threw: no consent").isEmpty();

        Object[] ada = {"web-1", "ada@example.com", "marketing"};
        assertThat(m.onCall(GRANT, ada, bridge)).isSameAs(Ruling.AT_RETURN);
        assertThat(m.onResult(GRANT, ada, null, bridge)).isNull();
        assertThat(consents).containsExactly(new Consent("web-1", "ada@example.com", List.of("marketing"), true));

        // a withdrawal counts at the call, whatever the method then does: processing stops when the person asked
        assertThat(m.onCall(WITHDRAW, ada, bridge)).isNull();
        assertThat(consents).hasSize(2);
        assertThat(consents.get(1).granted()).isFalse();
        m.onThrown(WITHDRAW, ada, new IllegalStateException("database down"), bridge);
        m.onResult(WITHDRAW, ada, null, bridge);
        assertThat(consents).as("reported once").hasSize(2);
    }

    /** A null or blank subject would make a consent of the whole session; an object's toString() names no one. */
    @Test
    void aNullBlankOrObjectSubjectRecordsNothingAndSaysSoOnce() {
        ConfiguredMethods m = privacy();
        SupervisorBridge bridge = new SupervisorBridge(recording, AgentArguments.parse(""), new JsonCodec(), m);
        String err = captured(() -> {
            assertThat(m.onCall(GRANT, new Object[] {"web", null, "marketing"}, bridge)).as("the method runs").isNull();
            assertThat(m.onCall(GRANT, new Object[] {"web", null, "marketing"}, bridge)).isNull();
            assertThat(m.onCall(GRANT, new Object[] {"web", "  ", "marketing"}, bridge)).isNull();
            assertThat(m.onCall(WITHDRAW, new Object[] {"web", null, "marketing"}, bridge)).isNull();
            assertThat(m.onCall(FORGET, new Object[] {"web", new Customer("cy@example.com", "Cy")}, bridge)).isNull();
            assertThat(m.onCall(FORGET, new Object[] {"web", null}, bridge)).isNull();
        });
        assertThat(consents).isEmpty();
        assertThat(erasures).isEmpty();
        assertThat(err).contains("ERROR configured consent method example.Privacy#grant (m.txt:1): subject-param 1 was null;"
                + " no consent was recorded for this call");
        assertThat(err.split("subject-param 1 was null; no consent", -1)).as("logged once per method and problem").hasSize(2);
        assertThat(err).contains("subject-param 1 was blank; no consent was recorded")
                .contains("no withdrawal of consent was recorded")
                .contains("ERROR configured erasure method example.Privacy#forget (m.txt:3): subject-param 1 is a "
                        + Customer.class.getName() + ", not text")
                .contains("subject-param 1 was null; no erasure was recorded");

        // a number, an enum and text read as the subject's id
        m.onCall(FORGET, new Object[] {"web", 42L}, bridge);
        m.onCall(FORGET, new Object[] {"web", Purpose.SUPPORT}, bridge);
        m.onCall(FORGET, new Object[] {"web", new StringBuilder("di@example.com")}, bridge);
        assertThat(erasures).extracting(Erasure::subject).containsExactly("42", "SUPPORT", "di@example.com");
    }

    /** A consent form's enum: its name is the purpose (MARKETING counts as marketing), never the label its toString() shows. */
    @Test
    void anEnumPurposeCountsByItsName() {
        assertThat(ConfiguredMethods.purposes(Purpose.MARKETING)).containsExactly("MARKETING");
        assertThat(ConfiguredMethods.purposes(List.of(Purpose.MARKETING, Purpose.SUPPORT))).containsExactly("MARKETING", "SUPPORT");
        assertThat(ConfiguredMethods.purposes(new Purpose[] {Purpose.SUPPORT})).containsExactly("SUPPORT");
        ConfiguredMethods m = privacy();
        SupervisorBridge bridge = new SupervisorBridge(recording, AgentArguments.parse(""), new JsonCodec(), m);
        m.onCall(WITHDRAW, new Object[] {"web", "bob@example.com", Purpose.MARKETING}, bridge);
        assertThat(consents.get(0).purposes()).containsExactly("MARKETING");
    }

    /**
     * The session parameter is the conversation's key: the contracts never see it as an argument (an e-mail as
     * conversation id made P2 block every call and P3 redact it to null), and a redaction passes it unchanged.
     */
    @Test
    void theSessionParameterIsNoToolDataAndARedactionKeepsIt() {
        ConfiguredMethods m = privacy();
        SupervisorBridge bridge = new SupervisorBridge(recording, AgentArguments.parse(""), new JsonCodec(), m);
        String origin = "example.Shop.note(Ljava/lang/String;Ljava/lang/String;Ljava/util/Optional;)Ljava/lang/String;";
        m.learnParameterNames("example.Shop", java.util.Map.of("note(Ljava/lang/String;Ljava/lang/String;Ljava/util/Optional;)Ljava/lang/String;",
                new String[] {"session", "email", "memo"}));
        Object[] args = {"ada@example.com", "ada@example.com", Optional.of("pay to DE89370400440532013000")};
        assertThat(m.onCall(origin, args, bridge)).isNull();
        assertThat(calls.get(0).session()).isEqualTo("ada@example.com");
        assertThat(calls.get(0).argumentsJson()).isEqualTo("{\"email\":\"ada@example.com\",\"memo\":\"pay to DE89370400440532013000\"}");

        redacted = "{\"email\":\"ada@example.com\"}";
        Ruling ruling = m.onCall(origin, args, bridge);
        assertThat(ruling.kind).isEqualTo(Ruling.REWRITE);
        assertThat(ruling.values).as("the session kept, the removed Optional passed empty, not null")
                .containsExactly("ada@example.com", "ada@example.com", Optional.empty());
    }

    @Test
    void aRemovedOptionalIsItsEmptyValueAndAnyOtherReferenceNull() {
        assertThat(ConfiguredMethods.absent(Optional.of("x"))).isEqualTo(Optional.empty());
        assertThat(ConfiguredMethods.absent(OptionalInt.of(3))).isEqualTo(OptionalInt.empty());
        assertThat(ConfiguredMethods.absent(java.util.OptionalLong.of(3))).isEqualTo(java.util.OptionalLong.empty());
        assertThat(ConfiguredMethods.absent(java.util.OptionalDouble.of(3))).isEqualTo(java.util.OptionalDouble.empty());
        assertThat(ConfiguredMethods.absent(7L)).isNull();
    }

    /** When the method is woven: a subject that is an application object, a session whose toString() is Object's. */
    @Test
    void parametersThatDoNotReadAsSubjectOrSessionAreWarnedAboutWhenWoven() throws Exception {
        String cls = Privacy.class.getName();
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of(
                "erasure " + cls + "#forget* session=0 subject=1",
                "consent " + cls + "#grant session=0 subject=1 purpose=2",
                "tool " + cls + "#* name=$method session=0"));
        String err = captured(() -> {
            for (java.lang.reflect.Method method : Privacy.class.getDeclaredMethods()) {
                m.warnAboutParameterTypes(cls, new MethodDescription.ForLoadedMethod(method));
            }
        });
        assertThat(err).contains("WARN configured method " + cls + "#forget (m.txt:1): subject-param 1 is a " + Customer.class.getName()
                + ", not text, so each erasure through it is dropped with an ERROR");
        assertThat(err).contains("WARN configured method " + cls + "#search (m.txt:3): session-param 0 is a " + Req.class.getName()
                + ", whose toString() is Object's (class@hash), so each call would be its own session");
        assertThat(err).as("a Long id, CharSequence text, a record (its own toString) and String are fine")
                .doesNotContain("#forgetId").doesNotContain("#grant").doesNotContain("#find").doesNotContain("#plain");
    }

    @SuppressWarnings("unused")
    static final class Bank {
        String transfer(Req ctx, String json) { return "transferred"; }
        String dispatch(Purpose tool, String json) { return "ran"; }
        String invoke(String name, String json) { return "ran"; }
        String any(Object name, String json) { return "ran"; }
    }

    /**
     * trial30 08: tool-name naming a parameter that holds no tool name was taken silently. An object's toString() became the
     * tool ({@code Ctx@63b1d4fa}, a new tool each call, past {@code G !call(transfer)}); with a swapped index the JSON
     * arguments became the tool's name, in clear in a hashed audit log. Now a declared type that is not text or an enum is an
     * ERROR when the method is woven, and at the call such a value, or JSON text, names the tool after the method (said once,
     * without the value); an enum names it by its name.
     */
    @Test
    void aToolNameParameterThatHoldsNoToolNameIsAnErrorAndTheCallIsNamedAfterTheMethod() throws Exception {
        String cls = Bank.class.getName();
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + cls + "#transfer name=0 args=1",
                "tool " + cls + "#dispatch name=0 args=1", "tool " + cls + "#invoke name=1 args=0", "tool " + cls + "#any name=0 args=1"));
        String woven = captured(() -> {
            for (java.lang.reflect.Method method : Bank.class.getDeclaredMethods()) {
                m.warnAboutParameterTypes(cls, new MethodDescription.ForLoadedMethod(method));
            }
        });
        assertThat(woven).contains("ERROR configured method " + cls + "#transfer (m.txt:1): tool-name 0 is a " + Req.class.getName()
                + ", not text or an enum, so it cannot name the tool").contains("its calls are recorded as the tool transfer (the method's name)"
                + " instead. Give tool-name the 0-based index of the parameter that holds the tool's name (a String, CharSequence or enum), or"
                + " the tool's name itself (tool-name: transfer)");
        assertThat(woven).as("an enum, a String and Object (decided by the value) can name a tool")
                .doesNotContain("#dispatch").doesNotContain("#invoke").doesNotContain("#any");

        SupervisorBridge bridge = new SupervisorBridge(recording, AgentArguments.parse(""), new JsonCodec(), m);
        String d = "(L" + Req.class.getName().replace('.', '/') + ";Ljava/lang/String;)Ljava/lang/String;";
        String called = captured(() -> {
            m.onCall(cls + ".transfer" + d, new Object[] {new Req(), "{\"to\":\"bob\"}"}, bridge);
            m.onCall(cls + ".transfer" + d, new Object[] {new Req(), "{\"to\":\"eve\"}"}, bridge);
            m.onCall(cls + ".dispatch(L" + Purpose.class.getName().replace('.', '/') + ";Ljava/lang/String;)Ljava/lang/String;",
                    new Object[] {Purpose.SUPPORT, "{}"}, bridge);
            m.onCall(cls + ".invoke(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;", new Object[] {"email", "{\"to\":\"a@b.c\"}"}, bridge);
            m.onCall(cls + ".any(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/String;", new Object[] {"email", "{}"}, bridge);
            m.onCall(cls + ".any(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/String;", new Object[] {new Req(), "{}"}, bridge);
        });
        assertThat(calls).extracting(ToolCall::tool).as("never an identity, never the arguments")
                .containsExactly("transfer", "transfer", "SUPPORT", "invoke", "email", "any");
        assertThat(called).as("said once per method, at weave time or at its first such call")
                .doesNotContain("#transfer").doesNotContain("transfer (")
                .contains("ERROR configured method " + cls + ".invoke (m.txt:3): tool-name 1 held JSON text (not shown: it may carry personal"
                        + " data), the arguments rather than a tool's name, so its calls are recorded as the tool invoke")
                .contains("ERROR configured method " + cls + ".any (m.txt:4): tool-name 0 held a " + Req.class.getName() + ", not text")
                .doesNotContain("a@b.c").doesNotContain("$Req@");
        assertThat(called.lines().filter(l -> l.contains(".invoke (")).count()).isEqualTo(1);
        // each such call is an internal error of its own (said once, counted every time): the bridge's count and the
        // MBean's InternalErrors, as let through (open) under the default fail: closed, since the call was not refused
        // (before session 17 none was counted)
        assertThat(bridge.counts()[SupervisorBridge.INTERNAL_ERRORS]).as("transfer twice, invoke, any(Req)").isEqualTo(4);
        assertThat(internalErrors).containsExactly(
                "the tool-name parameter of " + cls + ".transfer let through", "the tool-name parameter of " + cls + ".transfer let through",
                "the tool-name parameter of " + cls + ".invoke let through", "the tool-name parameter of " + cls + ".any let through");
    }

    /** A vendor's context object: the conversation id in a field, no toString() (trial30 01). */
    static final class VendorCtx {
        public final String sessionId;
        private final String user;
        VendorCtx(String sessionId, String user) { this.sessionId = sessionId; this.user = user; }
    }

    static class Request {
        private final VendorCtx ctx;
        Request(VendorCtx ctx) { this.ctx = ctx; }
        public String getTenant() { return "acme"; }
    }

    @SuppressWarnings("unused")
    static final class Crm {
        String lookup(VendorCtx ctx, String id) { return id; }
        String find(Ctx ctx, String q) { return q; }
        String nested(Request r, String q) { return q; }
        String typo(VendorCtx ctx, String q) { return q; }
    }

    /**
     * trial30 01: session-param "0.sessionId" (a field of the vendor's context object) was silently one literal session for
     * every conversation. A field path is read: a field (private too) or a getter, from parameter N or the parameter of that
     * name, steps through nested objects; a step the declared type lacks is an ERROR when woven (with the fields, and the
     * nearest), and such a call is in the session default. A consent's session-param reads the same way.
     */
    @Test
    void aSessionParamFieldPathReadsTheConversationFromAFieldOrGetter() throws Exception {
        String cls = Crm.class.getName();
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + cls + "#lookup session=0.sessionId args=1",
                "tool " + cls + "#find session=ctx.conversation args=1", "tool " + cls + "#nested session=0.ctx.sessionId args=1",
                "tool " + cls + "#typo session=0.sessionI args=1", "consent example.Privacy#grant session=0.sessionId subject=1 purpose=2"));
        String vc = VendorCtx.class.getName().replace('.', '/');
        String d = "(L" + vc + ";Ljava/lang/String;)Ljava/lang/String;";
        String findD = "(L" + Ctx.class.getName().replace('.', '/') + ";Ljava/lang/String;)Ljava/lang/String;";
        String nestedD = "(L" + Request.class.getName().replace('.', '/') + ";Ljava/lang/String;)Ljava/lang/String;";
        m.learnParameterNames(cls, java.util.Map.of("find" + findD, new String[] {"ctx", "q"}));
        String woven = captured(() -> {
            for (java.lang.reflect.Method method : Crm.class.getDeclaredMethods()) {
                m.warnAboutParameterTypes(cls, new MethodDescription.ForLoadedMethod(method));
            }
        });
        assertThat(woven).contains("ERROR configured method " + cls + "#typo (m.txt:4): session-param '0.sessionI' cannot be read: a "
                + VendorCtx.class.getName() + " has no field or getter sessionI (did you mean 'sessionId'?); its fields are sessionId, user, so"
                + " its calls are in the session default").doesNotContain("#lookup").doesNotContain("#find").doesNotContain("#nested");

        SupervisorBridge bridge = new SupervisorBridge(recording, AgentArguments.parse(""), new JsonCodec(), m);
        String called = captured(() -> {
            m.onCall(cls + ".lookup" + d, new Object[] {new VendorCtx("s1", "u1"), "c1"}, bridge);
            m.onCall(cls + ".lookup" + d, new Object[] {new VendorCtx("s2", "u2"), "c2"}, bridge);
            m.onCall(cls + ".lookup" + d, new Object[] {new VendorCtx(null, "u3"), "c3"}, bridge);
            m.onCall(cls + ".lookup" + d, new Object[] {null, "c4"}, bridge);
            m.onCall(cls + ".find" + findD, new Object[] {new Ctx("s3"), "q"}, bridge);
            m.onCall(cls + ".nested" + nestedD, new Object[] {new Request(new VendorCtx("s4", "u")), "q"}, bridge);
            m.onCall(cls + ".typo" + d, new Object[] {new VendorCtx("s5", "u"), "q"}, bridge);
        });
        assertThat(calls).extracting(ToolCall::session).as("the field's value; a null on the way: default")
                .containsExactly("s1", "s2", "default", "default", "s3", "s4", "default");
        assertThat(calls.get(0).argumentsJson()).isEqualTo("{\"value\":\"c1\"}");
        assertThat(called).as("the typo was said when woven; not again").doesNotContain("ERROR");

        Object[] grant = {new VendorCtx("s6", "u"), "ada@example.com", "marketing"};
        String g = "example.Privacy.grant(L" + vc + ";Ljava/lang/String;Ljava/lang/String;)V";
        assertThat(m.onCall(g, grant, bridge)).isSameAs(Ruling.AT_RETURN);
        m.onResult(g, grant, null, bridge);
        assertThat(consents).extracting(Consent::session).containsExactly("s6");
    }

    /** A path that starts at no parameter: said when woven, with what it becomes (the literal) and the fix. */
    @Test
    void aSessionParamPathOnNoParameterIsWarnedAboutWhenWoven() {
        String cls = Crm.class.getName();
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + cls + "#lookup session=ctx.sessionId args=1",
                "tool " + cls + "#find session=5.sessionId args=1"));
        String d = "(L" + VendorCtx.class.getName().replace('.', '/') + ";Ljava/lang/String;)Ljava/lang/String;";
        String log = captured(() -> m.learnParameterNames(cls, java.util.Map.of("lookup" + d, ParameterNames.positional(2),
                "find(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/String;", new String[] {"ctx", "q"})));
        assertThat(log).contains("WARN configured method " + cls + "#lookup (m.txt:1): session-param 'ctx.sessionId' reads as a field path,"
                + " but its class file records no parameter names (compiled without -parameters or -g), so there is no parameter ctx, so every"
                + " call is in the literal session \"ctx.sessionId\": start the path with the 0-based index of the parameter that holds the"
                + " conversation (session-param: 0.sessionId for its first parameter)");
        assertThat(log).contains("WARN configured method " + cls + "#find (m.txt:2): session-param '5.sessionId' reads as a field path, but"
                + " the method has 2 parameters, so every call is in the literal session \"5.sessionId\"");
    }

    static String captured(Runnable r) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            AgentLog.captureForTest(null);
        }
        return err.toString(StandardCharsets.UTF_8);
    }
}
