package dev.tracegate.matchers.predicate;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Consents and erasures of data subjects shared by the sessions of a runtime ({@link SubjectRegister}): multi-session
 * traces stepped online (one {@link SessionMonitor}) and replayed (one {@link Replay} per session, stepped in the
 * recorded global order, on a grounding of its own) against a plain-code oracle that keeps a set of erased subjects and
 * a map of consents, and does not share the grounding's predicates; with {@code SESSION} scope the oracle keeps them per
 * session, as before the register.
 */
class SubjectRegisterTest {
    private static final String[] SESSIONS = {"conv-A", "conv-B", "web"};
    /** Some ids contain others: erasing C7 must not block C70, nor ada@example.com xada@example.com. */
    private static final String[] SUBJECTS = {"ada@example.com", "bob@example.com", "Cy Young", "C7", "C70", "xada@example.com"};
    private static final ContractSet SET = ContractSet.compile(List.of(
            Contract.of("p1", Parser.parse("G(call(send) -> consent(marketing))")),
            Contract.of("p4", Parser.parse("G((call(send) | call(lookup)) -> !mentions_erased)"))), new DfaCompiler(10_000));

    private static Policy policy(Policy.SubjectScope scope) {
        return Policy.builder().purpose("marketing", "email").subjectField("email").subjectField("cc")
                .consentTool("record_consent", "customer", "purpose", "granted").erasureTool("forget", "customer")
                .subjectScope(scope).build();
    }

    // ------------------------------------------------------------------------------- the oracle

    /** The decisions the register's semantics call for, in plain code: PASS or BLOCK per event. */
    private static List<String> oracle(List<Event> trace, boolean global) {
        Map<String, Set<String>> erased = new HashMap<>();            // scope key -> erased subjects, lower case
        Map<String, Map<String, Boolean>> consent = new HashMap<>();  // scope key -> subject (lower case) -> granted
        Map<String, Boolean> sessionWide = new HashMap<>();           // session -> consent without a subject
        // session -> the consent tool's call in flight (its granted flag), AMBIGUOUS when two were (no call ids here)
        Map<String, Object> inFlight = new HashMap<>();
        List<String> out = new ArrayList<>();
        final Object ambiguous = "two calls in flight";
        for (Event e : trace) {
            String key = global ? "*" : e.session();
            Set<String> er = erased.computeIfAbsent(key, k -> new HashSet<>());
            Map<String, Boolean> co = consent.computeIfAbsent(key, k -> new HashMap<>());
            String decision = "PASS";
            switch (e.kind()) {
                case CONSENT -> {
                    if (e.subject() == null) sessionWide.put(e.session(), e.granted());
                    else co.put(e.subject().toLowerCase(Locale.ROOT), e.granted());
                }
                case ERASURE -> er.add(e.subject().toLowerCase(Locale.ROOT));
                case CALL -> {
                    StringBuilder values = new StringBuilder();   // the arguments' values, one a line
                    for (int i = 0; i < e.args().leafCount(); i++) values.append(e.args().leafValue(i).asText()).append('\n');
                    String args = values.toString().toLowerCase(Locale.ROOT);
                    boolean subjectCall = e.tool().equals("send") || e.tool().equals("lookup");
                    String who = e.args().get(Args.Path.of(subjectCall ? "email" : "customer")).asText();
                    boolean mentions = er.stream().anyMatch(x -> MentionSpellingTest.Oracle.names(args, x));   // as a whole token, in any spelling
                    switch (e.tool()) {
                        case "send" -> {
                            // every recipient (email, and cc when given) needs consent (trial26 08); for each, the
                            // subject's own last word decides, and a subject that said nothing has the session's consent
                            List<String> recipients = new ArrayList<>(List.of(who));
                            if (e.args().get(Args.Path.of("cc")) != null) recipients.add(e.args().get(Args.Path.of("cc")).asText());
                            boolean consented = true;
                            for (String r : recipients) {
                                Boolean own = co.get(r.toLowerCase(Locale.ROOT));
                                consented &= own != null ? own : sessionWide.getOrDefault(e.session(), false);
                            }
                            if (!consented || mentions) decision = "BLOCK";
                        }
                        case "lookup" -> {
                            if (mentions) decision = "BLOCK";
                        }
                        case "record_consent" -> {
                            boolean granted = e.args().get(Args.Path.of("granted")).asBoolean();
                            if (!granted) co.put(who.toLowerCase(Locale.ROOT), false);
                            inFlight.merge(e.session(), new String[] {who.toLowerCase(Locale.ROOT), String.valueOf(granted)}, (a, b) -> ambiguous);
                        }
                        case "forget" -> er.add(who.toLowerCase(Locale.ROOT));
                        default -> throw new AssertionError(e.tool());
                    }
                }
                case RETURN -> {
                    // the consent tool's grant counts at its call's successful RETURN; a withdrawal counted at the call
                    Object call = inFlight.remove(e.session());
                    if (call instanceof String[] c && c[1].equals("true") && !e.error()) co.put(c[0], true);
                }
                default -> throw new AssertionError(e.kind());
            }
            out.add(decision);
        }
        return out;
    }

    // ------------------------------------------------------------------------------- the two drivers

    private static List<String> online(List<Event> trace, Grounding g) {
        SessionMonitor<Event> m = new SessionMonitor<>(SET, g);
        Worker w = m.newWorker();
        List<String> out = new ArrayList<>();
        for (Event e : trace) out.add(m.step(m.session(e.session()), e, e.controlledByAgent(), true, w).kind().name());
        return out;
    }

    private static List<String> replay(List<Event> trace, Grounding g) {
        Map<String, Replay<Event>> sessions = new LinkedHashMap<>();
        List<String> out = new ArrayList<>();
        for (Event e : trace) {
            Replay<Event> r = sessions.computeIfAbsent(e.session(), id -> new Replay<>(SET, g, true, id));
            out.add(r.next(e, e.controlledByAgent(), true).decision().name());
        }
        return out;
    }

    // ------------------------------------------------------------------------------- traces

    private static long seq;

    private static Event consent(String session, String subject, boolean granted) {
        return Event.builder(EventKind.CONSENT).session(session).seq(++seq).subject(subject).purposes("marketing").granted(granted).build();
    }

    private static Event erasure(String session, String subject) {
        return Event.builder(EventKind.ERASURE).session(session).seq(++seq).subject(subject).build();
    }

    private static Event send(String session, String subject) {
        return Event.call(session, ++seq, "send", "{\"email\":\"" + subject + "\"}");
    }

    private static Event sendCc(String session, String subject, String cc) {
        return Event.call(session, ++seq, "send", "{\"email\":\"" + subject + "\",\"cc\":\"" + cc + "\"}");
    }

    private static Event lookup(String session, String subject, String note) {
        return Event.call(session, ++seq, "lookup", "{\"email\":\"" + subject + "\",\"note\":\"" + note + "\"}");
    }

    private static Event grantTool(String session, String subject, boolean granted) {
        return Event.call(session, ++seq, "record_consent", "{\"customer\":\"" + subject + "\",\"purpose\":\"marketing\",\"granted\":" + granted + "}");
    }

    /** The RETURN of a consent tool's call: a success ({@code ok}) or an error (the tool threw, or answered an error result). */
    private static Event grantReturn(String session, boolean ok) {
        return Event.builder(EventKind.RETURN).session(session).seq(++seq).tool("record_consent").result(ok ? "recorded" : "store down").error(!ok).build();
    }

    private static Event forgetTool(String session, String subject) {
        return Event.call(session, ++seq, "forget", "{\"customer\":\"" + subject + "\"}");
    }

    /** {@code subject} as a text may write it: upper case, spaced, hyphenated, or followed by more of another id. */
    private static String spelled(String subject, int how) {
        return switch (how) {
            case 0 -> subject.toUpperCase(Locale.ROOT);
            case 1 -> String.join(" ", subject.split(""));
            case 2 -> subject.charAt(0) + "-" + subject.substring(1);
            case 3 -> subject + "-1";
            default -> "(" + subject.toLowerCase(Locale.ROOT) + ")";
        };
    }

    @Provide Arbitrary<List<Event>> traces() {
        Arbitrary<Event> event = Combinators.combine(Arbitraries.integers().between(0, 10), Arbitraries.integers().between(0, SESSIONS.length - 1),
                Arbitraries.integers().between(0, SUBJECTS.length - 1), Arbitraries.of(true, false), Arbitraries.integers().between(0, 4)).as((kind, s, subj, flag, spelling) -> {
            String session = SESSIONS[s];
            String subject = SUBJECTS[subj];
            return switch (kind) {
                case 0 -> consent(session, flag ? subject : null, !flag || subj != 2);   // a subject's grant or withdrawal; session-wide grants
                case 1 -> erasure(session, subject);
                case 2 -> grantTool(session, subject, flag);
                case 3 -> forgetTool(session, subject);
                case 4 -> lookup(session, "carol@example.com", flag ? "about " + spelled(subject, spelling) : "nobody");   // a mention in a longer text
                case 5, 6 -> grantReturn(session, flag || kind == 5);   // mostly successes
                case 7 -> sendCc(session, subject, SUBJECTS[(subj + spelling + 1) % SUBJECTS.length]);   // two recipients
                default -> send(session, subject);
            };
        });
        return event.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 300)
    void onlineAndReplayInGlobalOrderAgreeWithTheOracleAcrossSessions(@ForAll("traces") List<Event> trace) {
        List<String> want = oracle(trace, true);
        assertThat(online(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL)))).as("online %s", trace).isEqualTo(want);
        assertThat(replay(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL)))).as("replay %s", trace).isEqualTo(want);
    }

    @Property(tries = 200)
    void withSessionScopeEachConversationKeepsItsOwn(@ForAll("traces") List<Event> trace) {
        List<String> want = oracle(trace, false);
        assertThat(online(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.SESSION)))).as("online %s", trace).isEqualTo(want);
        assertThat(replay(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.SESSION)))).as("replay %s", trace).isEqualTo(want);
    }

    // ------------------------------------------------------------------------------- examples

    @Test void anErasureInOneConversationBlocksALaterDisclosureInAnother() {
        List<Event> trace = List.of(
                lookup("conv-A", "ada@example.com", ""),
                erasure("conv-B", "ada@example.com"),
                lookup("conv-A", "ada@example.com", ""),
                lookup("conv-A", "bob@example.com", "Ada@Example.com asked for it"),
                lookup("conv-C", "bob@example.com", ""));
        assertThat(online(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL))))
                .containsExactly("PASS", "PASS", "BLOCK", "BLOCK", "PASS");
        assertThat(online(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.SESSION))))
                .containsExactly("PASS", "PASS", "PASS", "PASS", "PASS");
    }

    @Test void anErasureBlocksTheSubjectButNotAnotherSubjectWhoseIdContainsIt() {
        for (Policy.SubjectScope scope : Policy.SubjectScope.values()) {
            List<Event> trace = List.of(
                    erasure("web", "C7"),
                    erasure("web", "ada@example.com"),
                    lookup("web", "C7", ""),
                    lookup("web", "C70", ""),
                    lookup("web", "C71", "orders of C700"),
                    lookup("web", "xada@example.com", ""),
                    lookup("web", "bob@example.com", "forwarded to ADA@example.com."),
                    lookup("web", "bob@example.com", "see C7's file"));
            assertThat(online(trace, Grounding.compile(SET.atoms(), policy(scope)))).as("%s", scope)
                    .containsExactly("PASS", "PASS", "BLOCK", "PASS", "PASS", "PASS", "BLOCK", "BLOCK");
        }
    }

    @Test void aConsentGivenOutsideTheConversationCountsAndAWithdrawalAnywhereEndsIt() {
        List<Event> trace = List.of(
                send("conv-A", "ada@example.com"),
                consent("web", "ada@example.com", true),          // a web request, a session of its own
                send("conv-A", "ada@example.com"),
                send("conv-B", "ada@example.com"),
                send("conv-B", "bob@example.com"),
                grantTool("conv-B", "ada@example.com", false),     // withdrawn through the consent tool elsewhere
                send("conv-A", "ada@example.com"));
        assertThat(online(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL))))
                .containsExactly("BLOCK", "PASS", "PASS", "PASS", "BLOCK", "PASS", "BLOCK");
        assertThat(online(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.SESSION))))
                .containsExactly("BLOCK", "PASS", "BLOCK", "BLOCK", "BLOCK", "PASS", "BLOCK");
    }

    /** trial26 08: with subject-fields [email, cc] a marketing e-mail needs the consent of both recipients, in either order. */
    @Test void everyDataSubjectACallNamesNeedsConsent() {
        for (Policy.SubjectScope scope : Policy.SubjectScope.values()) {
            List<Event> trace = List.of(
                    consent("a", "ada@example.com", true),
                    sendCc("a", "ada@example.com", "bob@example.com"),     // bob never consented
                    sendCc("a", "bob@example.com", "ada@example.com"),
                    send("a", "ada@example.com"),
                    consent("a", "bob@example.com", true),
                    sendCc("a", "ada@example.com", "bob@example.com"),
                    consent("a", "bob@example.com", false),                // bob withdraws
                    sendCc("a", "ada@example.com", "bob@example.com"));
            assertThat(online(trace, Grounding.compile(SET.atoms(), policy(scope)))).as("%s", scope)
                    .containsExactly("PASS", "BLOCK", "BLOCK", "PASS", "PASS", "PASS", "PASS", "BLOCK");
            assertThat(oracle(trace, scope == Policy.SubjectScope.GLOBAL)).as("the oracle agrees").isEqualTo(
                    online(trace, Grounding.compile(SET.atoms(), policy(scope))));
        }
    }

    @Test void aSubjectsWithdrawalOutweighsTheSessionsConsentWithoutASubject() {
        // trial10 gdpr-session-consent-overrides-withdrawal: bob's granted:false lost to the session's subject-less consent
        for (Policy.SubjectScope scope : Policy.SubjectScope.values()) {
            List<Event> trace = List.of(
                    consent("a", null, true),                      // the whole session
                    consent("a", "bob@example.com", false),        // bob withdraws (never granted himself)
                    send("a", "bob@example.com"),
                    send("a", "ada@example.com"),                  // said nothing: the session's consent
                    grantTool("a", "bob@example.com", true),       // bob grants again: his last word
                    grantReturn("a", true),                        // once the consent tool returned
                    send("a", "bob@example.com"),
                    grantTool("a", "bob@example.com", false),
                    send("a", "bob@example.com"));
            assertThat(online(trace, Grounding.compile(SET.atoms(), policy(scope)))).as("%s", scope)
                    .containsExactly("PASS", "PASS", "BLOCK", "PASS", "PASS", "PASS", "PASS", "PASS", "BLOCK");
            assertThat(oracle(trace, scope == Policy.SubjectScope.GLOBAL)).as("the oracle agrees").isEqualTo(
                    online(trace, Grounding.compile(SET.atoms(), policy(scope))));
        }
        SubjectRegister r = new SubjectRegister(10);
        r.consent("bob", "marketing", false);
        assertThat(r.withdrew("bob", "marketing")).isTrue();
        assertThat(r.consented("bob", "marketing")).isFalse();
        r.consent("bob", "Marketing", true);
        assertThat(r.withdrew("bob", "marketing")).isFalse();
        assertThat(r.consented("bob", "marketing")).isTrue();
    }

    @Test void aConsentWithoutASubjectStaysInItsSession() {
        List<Event> trace = List.of(consent("conv-A", null, true), send("conv-A", "ada@example.com"), send("conv-B", "ada@example.com"));
        assertThat(online(trace, Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL)))).containsExactly("PASS", "PASS", "BLOCK");
    }

    @Test void aReloadedGroundingSharesTheRegisterBothWays() {
        Grounding before = Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL));
        SessionMonitor<Event> old = new SessionMonitor<>(SET, before);
        Worker wo = old.newWorker();
        old.step(old.session("conv-A"), erasure("conv-A", "ada@example.com"), false, true, wo);
        old.step(old.session("conv-A"), consent("conv-A", "bob@example.com", true), false, true, wo);

        Grounding after = Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL));   // the reloaded library
        after.shareRegister(before.register());
        SessionMonitor<Event> next = new SessionMonitor<>(SET, after);
        Worker wn = next.newWorker();
        assertThat(next.step(next.session("conv-B"), lookup("conv-B", "ada@example.com", ""), true, true, wn).kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(next.step(next.session("conv-B"), send("conv-B", "bob@example.com"), true, true, wn).kind()).isEqualTo(Decision.Kind.PASS);
        // a session still on the old version records an erasure: the new version's sessions see it
        old.step(old.session("conv-A"), forgetTool("conv-A", "bob@example.com"), true, true, wo);
        assertThat(next.step(next.session("conv-B"), send("conv-B", "bob@example.com"), true, true, wn).kind()).isEqualTo(Decision.Kind.BLOCK);
        // the sessions ended: the register does not end with them
        old.end(old.session("conv-A"));
        next.end(next.session("conv-B"));
        assertThat(next.step(next.session("conv-C"), lookup("conv-C", "ada@example.com", ""), true, true, wn).kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(after.register().erasures()).isEqualTo(2);
    }

    @Test void aRegisterIsSharedOnlyBeforeTheGroundingRecordsAnything() {
        Grounding g = Grounding.compile(SET.atoms(), policy(Policy.SubjectScope.GLOBAL));
        online(List.of(erasure("conv-A", "ada@example.com")), g);
        assertThatThrownBy(() -> g.shareRegister(new SubjectRegister(10))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1 erased").hasMessageContaining("before the grounding steps any event");
    }

    @Test void aFullErasureRegisterRefusesTheNewErasureAndKeepsTheOldOnes() {
        Grounding g = Grounding.compile(SET.atoms(), Policy.builder().purpose("marketing", "email").subjectField("email").registerCapacity(2).build());
        SessionMonitor<Event> m = new SessionMonitor<>(SET, g);
        Worker w = m.newWorker();
        m.step(m.session("a"), erasure("a", "ada@example.com"), false, true, w);
        m.step(m.session("a"), erasure("a", "bob@example.com"), false, true, w);
        m.step(m.session("a"), erasure("a", "ADA@example.com"), false, true, w);   // already erased: no new entry
        assertThatThrownBy(() -> m.step(m.session("b"), erasure("b", "carol@example.com"), false, true, w))
                .isInstanceOf(SubjectRegister.Full.class).hasMessageContaining("full (2 subjects)");
        assertThat(g.register().erased("ada@example.com")).isTrue();
        assertThat(g.register().erased("bob@example.com")).isTrue();
        assertThat(g.register().erased("carol@example.com")).isFalse();
        // the refused event left the session as it was: its next event is its first one applied
        assertThat(m.session("b").applied()).isZero();
    }

    @Test void aFullConsentRegisterForgetsTheOldestConsent() {
        SubjectRegister r = new SubjectRegister(2);
        r.consent("ada", "marketing", true);
        r.consent("bob", "marketing", true);
        r.consent("ada", "marketing", true);   // standing already: nothing changes
        r.consent("cy", "marketing", true);
        assertThat(r.consented("ada", "marketing")).isFalse();
        assertThat(r.consented("bob", "marketing")).isTrue();
        assertThat(r.consented("cy", "Marketing ")).isTrue();
        r.consent("bob", "marketing", false);
        assertThat(r.consented("bob", "marketing")).isFalse();
        assertThat(r.consents()).isEqualTo(1);
    }

    @Test void concurrentWritersLoseNoChangeAndReadersSeeOnlyWholeSnapshots() throws Exception {
        SubjectRegister r = new SubjectRegister(10_000);
        int threads = 4, each = 100;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads + 1);
        try {
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                writers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        r.erase("subject-" + id + "-" + i + "@example.com");
                        r.consent("subject-" + id + "-" + i + "@example.com", "marketing", true);
                    }
                    return null;
                }));
            }
            java.util.concurrent.Future<Integer> reader = pool.submit(() -> {
                start.await();
                int seen = 0;
                while (seen < threads * each) {
                    SubjectRegister.State s = r.state();
                    // one snapshot: its newest erased text is also found by the index built with it
                    if (s.erased.textCount() > 0) assertThat(s.mentions.foundIn(s.erased.text(s.erased.textCount() - 1))).isTrue();
                    seen = s.erased.size();
                    Thread.onSpinWait();
                }
                return seen;
            });
            start.countDown();
            for (java.util.concurrent.Future<?> w : writers) w.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(reader.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(threads * each);
        } finally {
            pool.shutdownNow();
        }
        assertThat(r.erasures()).isEqualTo(threads * each);
        assertThat(r.consents()).isEqualTo(threads * each);
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < each; i++) {
                assertThat(r.erased("subject-" + t + "-" + i + "@example.com")).isTrue();
                assertThat(r.consented("subject-" + t + "-" + i + "@example.com", "marketing")).isTrue();
            }
        }
    }

    // ------------------------------------------------------------------------------- the mention index

    /** Pieces of texts and words: cases that fold oddly, white space, digits, the joining marks, a combining mark, scripts without spaces, surrogate pairs. */
    private static final List<String> PIECES = List.of("a", "A", "b", "B", "\u017F", "\u0130", "i", "I", "s", "S", "\u212A", "k", "\u00DF",
            " ", "\t", "\n", "\u00A0", "0", "7", ".", "-", "_", "+", "@", "'", "\u0301", "\u738B", "\uAC00", "\u00E9",
            "\uD83D\uDE00", "\uD840\uDC00");

    @Provide Arbitrary<String> fragments() {
        return Arbitraries.of(PIECES).list().ofMaxSize(12).map(l -> String.join("", l));
    }

    @Provide Arbitrary<List<String>> wordLists() {
        return Arbitraries.of(PIECES).list().ofMaxSize(4).map(l -> String.join("", l)).list().ofMaxSize(6);
    }

    @Property(tries = 1000)
    void theMentionIndexFindsWhatTheWholeTokenOracleFinds(@ForAll("fragments") String text, @ForAll("wordLists") List<String> words) {
        boolean want = false;
        for (String w : words) {
            boolean named = MentionSpellingTest.Oracle.names(text, w);
            assertThat(new MentionIndex(List.of(w)).foundIn(text)).as("%s in %s", w, text).isEqualTo(named);
            want |= named;
        }
        assertThat(new MentionIndex(words).foundIn(text)).as("%s in %s", words, text).isEqualTo(want);
    }

    @Test void aSubjectIsNamedAsAWholeTokenNotInsideAnotherSubjectsId() {
        MentionIndex index = new MentionIndex(List.of("C7", "ada@example.com", "Cy Young", "C7-2", "\uAE40\uBBFC\uC218", "Jos\u00E9"));
        // another subject whose id contains an erased one
        for (String other : List.of("C70", "C71", "C7-1", "C7(1)", "XC7", "C7x", "C7\u0301", "xada@example.com", "nevada@example.com", "x.ada@example.com",
                "x-ada@example.com", "x+ada@example.com", "ada@example.com.au", "ada@example.com-mail.org", "Cy Youngs",
                "Jos\u00E9e", "lookup C70 and C71, then xada@example.com"))
            assertThat(index.foundIn(other)).as(other).isFalse();
        // the subject itself, in any text around it
        for (String named : List.of("C7", "c7", "order of C7.", "C7's order", "(C7)", "/customers/C7/orders", "id=C7&x=1", "C7 -1", "c-7", "C 7", "c\u00AD7",
                "customer_C7", "C7.pdf", "ADA@example.com", "mail ada@example.com.", "<ada@example.com>", "\"ada@example.com\"",
                "Cy Young", "cy\nyoung", "Cy\u00A0Young", "by Cy Young, 1911", "C7-2", "ref C7-2.",
                "\uAE40\uBBFC\uC218\uAC00", "\u738BC7\u7684", "Jos\u00E9!"))
            assertThat(index.foundIn(named)).as(named).isTrue();
        assertThat(new MentionIndex(List.of("Jose")).foundIn("Jose\u0301")).as("a combining mark continues the word").isFalse();
        assertThat(new MentionIndex(List.of("C7-2")).foundIn("C7-2-1")).as("a mark the subject has inside joins").isFalse();
        assertThat(new MentionIndex(List.of("C7")).foundIn("C7-2-1")).as("a hyphen, left out, joins: C7-2-1 spells c721").isFalse();
        assertThat(new MentionIndex(List.of("C7")).foundIn("C7.2")).as("a mark the subject has not separates").isTrue();
        assertThat(new MentionIndex(List.of(" \u00A0 ", "")).foundIn("a b")).as("a blank word names nothing").isFalse();
    }

}
