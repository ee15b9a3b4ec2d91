package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configured Kotlin {@code suspend fun} methods (trial33 01-04, 09): the JVM method is {@code name(params...,
 * Continuation): Object}; when it suspends it returns the marker {@code COROUTINE_SUSPENDED}, and a function with a state
 * machine is re-entered at each resume as {@code name(null, ..., itsOwnContinuation)}. A call is ONE call however often
 * it suspends: one CALL with the parameters (the continuation left out) in the session of its entry, one RETURN with the
 * value the caller gets, checked when it arrives; a consent counts only when the function completes normally. The app
 * (it/src/test/kotlin/demoapp/ksuspend, Kotlin 2.4.21, kotlinx-coroutines 1.11.0) runs under the real agent jar.
 */
class KotlinSuspendMethodsTest {
    private static final String APP = "demoapp.ksuspend.SuspendAppKt";

    @TempDir Path dir;

    private ForkedJvm.Result run(String entries, String libraries, String... args) throws IOException {
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s}
                audit.personal-data: clear
                configured-methods:
                %s
                """.formatted(libraries, dir.resolve("audit.jsonl"), entries.indent(2)));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), KotlinApps.classpath("ksuspend"), APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stderr()).as("no ERROR (a resume is no call with null arguments): " + r).doesNotContain("ERROR");
        return r;
    }

    private Path library(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private List<String> events(String kind) throws IOException {
        return Files.readAllLines(dir.resolve("audit.jsonl")).stream()
                .filter(l -> l.contains("\"rec\":\"event\"") && l.contains("\"kind\":\"" + kind + "\"")).collect(Collectors.toList());
    }

    private void noMarkerNoDefault() throws IOException {
        String audit = Files.readString(dir.resolve("audit.jsonl"));
        assertThat(audit).as("COROUTINE_SUSPENDED is never a result").doesNotContain("COROUTINE_SUSPENDED");
        assertThat(audit).as("no resume is a call of the session default").doesNotContain("\"session\":\"default\"");
    }

    private Path countLibrary() throws IOException {
        return library("count.yaml", """
                library: ks
                contracts:
                  - {id: ks.one-profile, guarantee: "G(count(fetchProfile) <= 1)", message: One profile per conversation.}
                """);
    }

    @Test
    void aToolThatSuspendsOnTheCallersThreadIsOneCallWithItsValue() throws IOException {
        ForkedJvm.Result r = run("- {class: demoapp.ksuspend.Tools, method: fetchProfile, kind: tool, session-param: 0, args-param: 1}",
                countLibrary().toString(), "one");
        assertThat(r.stdout()).as(r.toString()).contains("app: resumed on main").contains("app: fetchProfile(s1, ada) -> value=profile of ada");
        List<String> calls = events("call");
        List<String> returns = events("return");
        assertThat(calls).as("one CALL").hasSize(1);
        assertThat(calls.get(0)).contains("\"session\":\"s1\"").contains("\"args\":{\"value\":\"ada\"}");
        assertThat(returns).as("one RETURN, with the value the caller got").hasSize(1);
        assertThat(returns.get(0)).contains("\"session\":\"s1\"").contains("\"result\":\"profile of ada\"").contains("\"decision\":\"pass\"");
        noMarkerNoDefault();
    }

    @Test
    void fiveConversationsOnDispatchersDefaultAreFiveCalls() throws IOException {
        ForkedJvm.Result r = run("- {class: demoapp.ksuspend.Tools, method: fetchProfile, kind: tool, session-param: 0, args-param: 1}",
                countLibrary().toString(), "many");
        for (int i = 1; i <= 5; i++) {
            assertThat(r.stdout()).as(r.toString()).contains("app: fetchProfile(c" + i + ", user" + i + ") -> value=profile of user" + i);
        }
        assertThat(events("call").stream().map(l -> l.replaceAll(".*\"session\":\"([^\"]*)\".*", "$1")).sorted())
                .containsExactly("c1", "c2", "c3", "c4", "c5");
        assertThat(events("return")).hasSize(5).allMatch(l -> l.contains("\"result\":\"profile of user") && l.contains("\"decision\":\"pass\""));
        noMarkerNoDefault();
    }

    @Test
    void theContinuationIsNoArgument() throws IOException {
        ForkedJvm.Result r = run("- {class: demoapp.ksuspend.Tools, method: lookup, kind: tool, session-param: 0}",
                library("named.yaml", """
                        library: ks
                        contracts:
                          - {id: ks.named, guarantee: "G(call(lookup) -> arg(lookup, customer) != \\"mallory\\")", message: Not that one.}
                        """).toString(), "lookup");
        assertThat(r.stdout()).as(r.toString()).contains("app: lookup(s1, ada) -> value=customer ada: gold");
        assertThat(events("call")).hasSize(1).allMatch(l -> l.contains("\"args\":{\"customer\":\"ada\"}"));
        assertThat(events("return")).hasSize(1).allMatch(l -> l.contains("\"result\":\"customer ada: gold\""));
    }

    @Test
    void aTailCallResumedOnAnotherThreadResumesTheCallerOnItsDispatcher() throws IOException {
        ForkedJvm.Result r = run("- {class: demoapp.ksuspend.Tools, method: remote, kind: tool, session-param: 0, args-param: 1}",
                countLibrary().toString(), "remote");
        assertThat(r.stdout()).as("the caller's dispatcher still runs it after the call: " + r)
                .contains("app: resumed on agent-loop").contains("app: remote(s1, weather) -> value=answer to weather");
        assertThat(events("call")).hasSize(1);
        assertThat(events("return")).hasSize(1).allMatch(l -> l.contains("\"result\":\"answer to weather\""));
        noMarkerNoDefault();
    }

    private ForkedJvm.Result blockedTwice(String entryStyle) throws IOException {
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s}
                block.style: substitute
                configured-methods:
                  - {class: demoapp.ksuspend.Tools, method: lookup, kind: tool, session-param: 0, args-param: 1%s}
                """.formatted(library("once.yaml", """
                        library: ks
                        contracts:
                          - {id: ks.one-lookup, guarantee: "G(count(lookup) <= 1)", message: One lookup per conversation., next: Use the one you have.}
                        """), dir.resolve("audit.jsonl"), entryStyle));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), KotlinApps.classpath("ksuspend"), APP, "twice");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("app: lookup(s1, ada) -> value=customer ada: gold");
        return r;
    }

    @Test
    void underSubstituteABlockedSuspendStringFunctionReturnsTheRefusalText() throws IOException {
        ForkedJvm.Result r = blockedTwice("");
        assertThat(r.stdout()).as("the String value the loop hands back to the model: " + r)
                .contains("app: lookup(s1, bob) -> value=tracegate blocked the call to lookup (contract ks.one-lookup): One lookup per conversation. Instead: Use the one you have.");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK configured session=s1 tool=lookup contract=ks.one-lookup (substitute)");
    }

    @Test
    void anEntrysBlockStyleExceptionThrowsIntoTheCoroutine() throws IOException {
        ForkedJvm.Result r = blockedTwice(", block-style: exception");
        assertThat(r.stdout()).as(r.toString())
                .contains("app: lookup(s1, bob) -> threw TracegateViolation: tracegate blocked the call to lookup (contract ks.one-lookup)");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK configured session=s1 tool=lookup contract=ks.one-lookup (throw)");
    }

    @Test
    void aCallCancelledWhileSuspendedIsAnErrorReturnAndTheCancellationReachesTheCaller() throws IOException {
        ForkedJvm.Result r = run("- {class: demoapp.ksuspend.Tools, method: slow, kind: tool, session-param: 0, args-param: 1}",
                countLibrary().toString(), "cancel");
        assertThat(r.stdout()).as("cancelling the caller's job cancels the suspended call as without the agent: " + r)
                .contains("app: slow(s1, q) -> threw JobCancellationException: DeferredCoroutine was cancelled");
        assertThat(events("call")).hasSize(1).allMatch(l -> l.contains("\"session\":\"s1\""));
        assertThat(events("return")).as("one error RETURN, in the session of the call").hasSize(1)
                .allMatch(l -> l.contains("\"session\":\"s1\"") && l.contains("\"error\":true") && l.contains("CancellationException"));
        noMarkerNoDefault();
    }

    private Path gdprPolicy() throws IOException {
        return library("policy.yaml", """
                library: kspolicy
                gdpr:
                  purposes:
                    support: [email]
                    marketing: [email]
                  consent-purposes: [marketing]
                  subject-fields: [id, email]
                  tools:
                    profileById: [support]
                    newsletter: [marketing]
                """);
    }

    @Test
    void aSuspendDispatchersValueIsCheckedWhenItArrives() throws IOException {
        ForkedJvm.Result r = run("""
                - {class: demoapp.ksuspend.ToolRegistry, method: dispatch, kind: tool, tool-name: 0, args-param: 1, session-param: 2}
                - {class: demoapp.ksuspend.Privacy, method: erase, kind: erasure, subject-param: 1, session-param: 0}
                """, "gdpr, " + gdprPolicy(), "dispatch");
        assertThat(r.stdout()).as("P4 withholds the erased person's data: " + r)
                .contains("app: erased bob@example.com")
                .contains("app: dispatch(profileById, C2) -> threw TracegateViolation")
                .doesNotContain("tier gold");
        assertThat(events("erasure")).as("one erasure").hasSize(1).allMatch(l -> l.contains("\"subject\":\"bob@example.com\"") && l.contains("\"session\":\"s1\""));
        assertThat(events("return")).hasSize(1)
                .allMatch(l -> l.contains("\"result\":\"profile C2: email bob@example.com, tier gold\"") && l.contains("\"decision\":\"suppress\""));
        noMarkerNoDefault();
    }

    @Test
    void aWithheldValueOfASuspendStringFunctionIsTheNotice() throws IOException {
        ForkedJvm.Result r = run("""
                - {class: demoapp.ksuspend.Tools, method: profileById, kind: tool, session-param: 0, args-param: 1}
                - {class: demoapp.ksuspend.Privacy, method: erase, kind: erasure, subject-param: 1, session-param: 0}
                """, "gdpr, " + gdprPolicy(), "dispatch");
        assertThat(r.stdout()).as("the String function's value is the notice, after it suspended: " + r)
                .contains("app: dispatch(profileById, C2) -> value=[tracegate] This tool result was withheld (gdpr.P4-erasure)")
                .doesNotContain("tier gold");
        assertThat(events("return")).hasSize(1).allMatch(l -> l.contains("\"decision\":\"suppress\""));
        noMarkerNoDefault();
    }

    private ForkedJvm.Result consent(String outcome) throws IOException {
        return run("""
                - {class: demoapp.ksuspend.Tools, method: newsletter, kind: tool, session-param: 0}
                - {class: demoapp.ksuspend.Privacy, method: "grant*", kind: consent, subject-param: 1, purpose-param: 2, session-param: 0}
                """, "gdpr, " + gdprPolicy(), "consent", outcome);
    }

    @Test
    void aSuspendConsentThatFailsAfterSuspendingRecordsNoConsent() throws IOException {
        ForkedJvm.Result r = consent("fail");
        assertThat(r.stdout()).as(r.toString()).contains("app: grant -> threw IllegalStateException: form not signed")
                .contains("app: tracegate blocked the call to newsletter (contract gdpr.P1-consent)").doesNotContain("app: sent to");
        assertThat(events("consent")).isEmpty();
    }

    @Test
    void aSuspendConsentThatCompletesCountsOnce() throws IOException {
        ForkedJvm.Result r = consent("ok");
        assertThat(r.stdout()).as(r.toString()).contains("app: grant -> value=kotlin.Unit").contains("app: sent to ada@example.com");
        assertThat(events("consent")).hasSize(1).allMatch(l -> l.contains("\"subject\":\"ada@example.com\"") && l.contains("\"session\":\"s1\""));
    }

    /** The agent's run with these entries, whatever its exit. */
    private ForkedJvm.Result runAnyway(String entries, String... args) throws IOException {
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s}
                audit.personal-data: clear
                configured-methods:
                %s
                """.formatted("gdpr, " + gdprPolicy(), dir.resolve("audit.jsonl"), entries.indent(2)));
        return ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), KotlinApps.classpath("ksuspend"), APP, args);
    }

    @Test
    void aParamIndexNamingTheContinuationStopsTheStart() throws IOException {
        // erase(sessionId, subject) is erase(String, String, Continuation) on the JVM: index 2 is the continuation
        ForkedJvm.Result r = runAnyway("- {class: demoapp.ksuspend.Privacy, method: erase, kind: erasure, subject-param: 1, session-param: 2}", "dispatch");
        assertThat(r.exit()).as("refused before the application runs: " + r).isEqualTo(78);
        assertThat(r.stdout()).as(r.toString()).doesNotContain("app:");
        assertThat(r.stderr()).as("which entry and method, which key, why, the fix: " + r)
                .contains("configured-methods entry", "(erasure, class demoapp.ksuspend.Privacy, method erase): session-param '2' names"
                        + " parameter 2 of the Kotlin suspend fun demoapp.ksuspend.Privacy#erase, and that parameter is Kotlin's Continuation")
                .contains("the source-level parameters are 0..1 (sessionId, subject): give session-param the index (or name) of the one that"
                        + " holds the conversation id");
        assertThat(dir.resolve("audit.jsonl")).as("no audit log opened").doesNotExist();
    }

    @Test
    void theContinuationsNameStopsTheStart() throws IOException {
        ForkedJvm.Result r = runAnyway("- {class: demoapp.ksuspend.Privacy, method: erase, kind: erasure, subject-param: $completion, session-param: 0}",
                "dispatch");
        assertThat(r.exit()).as(r.toString()).isEqualTo(78);
        assertThat(r.stderr()).as(r.toString()).contains("subject-param '$completion' names the parameter kotlinc adds last to a Kotlin"
                + " suspend fun, its Continuation ($completion)");
    }

    @Test
    void aClassGlobsParamNamingTheContinuationIsAnErrorWhenWoven() throws IOException {
        // a class glob: not checked at start-up, said as the class is woven
        ForkedJvm.Result r = runAnyway("""
                - {class: "demoapp.ksuspend.Priv*", method: erase, kind: erasure, subject-param: 1, session-param: 2}
                """, "dispatch");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stderr()).as(r.toString())
                .contains("ERROR configured-methods entry", "session-param '2' names parameter 2 of the Kotlin suspend fun"
                        + " demoapp.ksuspend.Privacy#erase, and that parameter is Kotlin's Continuation")
                .contains("reads the setting as the literal text it is for each call of the method: correct the entry and restart")
                .doesNotContain("is a kotlin.coroutines.Continuation");
        assertThat(events("erasure")).as("the literal session the ERROR announced").hasSize(1).allMatch(l -> l.contains("\"session\":\"2\""));
    }

    @Test
    void aSuspendLambdasInvokeIsOneCall() throws IOException {
        // kotlinc's class for `val lookupLambda: suspend (String, String) -> String = { ... }`, named as javap shows it
        ForkedJvm.Result r = run("- {class: \"demoapp.ksuspend.Streams$lookupLambda$1\", method: invoke, kind: tool, tool-name: lookupLambda, session-param: 0}",
                countLibrary().toString(), "lambda");
        assertThat(r.stdout()).as(r.toString()).contains("app: lookupLambda(s1, ada) -> value=customer ada: gold");
        assertThat(events("call")).as("one CALL, its parameters as kotlinc names them").hasSize(1)
                .allMatch(l -> l.contains("\"tool\":\"lookupLambda\"") && l.contains("\"session\":\"s1\"") && l.contains("\"args\":{\"p2\":\"ada\"}"));
        assertThat(events("return")).hasSize(1).allMatch(l -> l.contains("\"result\":\"customer ada: gold\""));
        noMarkerNoDefault();
    }

    @Test
    void aSuspendLambdasStateMachineIsNeverWovenAndTheEntrySaysSo() throws IOException {
        ForkedJvm.Result r = run("- {class: \"demoapp.ksuspend.Streams$lookupLambda$1\", method: invokeSuspend, kind: tool, tool-name: lookupLambda}",
                countLibrary().toString(), "lambda");
        assertThat(r.stdout()).as("the lambda runs as without the agent: " + r).contains("app: lookupLambda(s1, ada) -> value=customer ada: gold");
        assertThat(r.stderr()).as("said when its class is woven, with what to configure instead: " + r)
                .contains("WARN configured-methods entry", "(tool, class demoapp.ksuspend.Streams$lookupLambda$1, method invokeSuspend) can never"
                        + " match: demoapp.ksuspend.Streams$lookupLambda$1 is a class kotlinc generates for a suspend lambda")
                .contains("So its calls are NOT supervised")
                .contains("Name method: invoke, one call of the lambda");
        assertThat(events("call")).as("no call per resume (before: two, the first with the result COROUTINE_SUSPENDED)").isEmpty();
        assertThat(Files.readString(dir.resolve("audit.jsonl"))).doesNotContain("COROUTINE_SUSPENDED");
    }

    @Test
    void aToolReturningAFlowIsSaidToLeaveItsElementsUnsupervised() throws IOException {
        ForkedJvm.Result r = run("- {class: demoapp.ksuspend.Streams, method: results, kind: tool, session-param: 0, args-param: 1}",
                countLibrary().toString(), "flow");
        assertThat(r.stdout()).as(r.toString()).contains("app: results(s1, weather) -> value=[first result for weather, second result for weather]");
        assertThat(r.stderr()).as("said when the method is woven: " + r)
                .contains("WARN configured method demoapp.ksuspend.Streams#results (")
                .contains("returns a kotlinx.coroutines.flow.Flow: a call makes the flow and returns it before any element exists")
                .contains("the elements its collector receives later are NOT supervised")
                .contains("Configure the suspend fun that produces each element");
        assertThat(events("call")).as("the call itself is checked").hasSize(1).allMatch(l -> l.contains("\"args\":{\"value\":\"weather\"}"));
    }

    private ForkedJvm.Result erasureThenProfile(String mode) throws IOException {
        return run("""
                - {class: demoapp.ksuspend.Tools, method: profileById, kind: tool, session-param: 0, args-param: 1}
                - {class: demoapp.ksuspend.Privacy, method: "erase*", kind: erasure, subject-param: 1, session-param: 0}
                """, "gdpr, " + gdprPolicy(), mode);
    }

    @Test
    void aSuspendErasureThatFailsAfterSuspendingCountsAtItsCall() throws IOException {
        ForkedJvm.Result r = erasureThenProfile("erase-fails");
        assertThat(r.stdout()).as("as from a plain method that throws: the erasure counts, P4 withholds: " + r)
                .contains("app: eraseFails -> threw IllegalStateException: store down")
                .contains("app: profileById(s1, C2) -> value=[tracegate] This tool result was withheld (gdpr.P4-erasure)")
                .doesNotContain("tier gold");
        assertThat(events("erasure")).hasSize(1).allMatch(l -> l.contains("\"subject\":\"bob@example.com\"") && l.contains("\"session\":\"s1\""));
    }

    @Test
    void aSuspendErasureCancelledWhileSuspendedCountsAtItsCall() throws IOException {
        ForkedJvm.Result r = erasureThenProfile("erase-cancel");
        assertThat(r.stdout()).as(r.toString())
                .contains("app: eraseSlow -> threw JobCancellationException")
                .contains("app: profileById(s1, C2) -> value=[tracegate] This tool result was withheld (gdpr.P4-erasure)")
                .doesNotContain("tier gold");
        assertThat(events("erasure")).hasSize(1).allMatch(l -> l.contains("\"subject\":\"bob@example.com\""));
    }

    @Test
    void aSuspendGrantCancelledWhileSuspendedRecordsNoConsent() throws IOException {
        ForkedJvm.Result r = run("""
                - {class: demoapp.ksuspend.Tools, method: newsletter, kind: tool, session-param: 0}
                - {class: demoapp.ksuspend.Privacy, method: "grant*", kind: consent, subject-param: 1, purpose-param: 2, session-param: 0}
                """, "gdpr, " + gdprPolicy(), "grant-cancel");
        assertThat(r.stdout()).as(r.toString()).contains("app: grantSlow -> threw JobCancellationException")
                .contains("app: tracegate blocked the call to newsletter (contract gdpr.P1-consent)").doesNotContain("app: sent to");
        assertThat(events("consent")).isEmpty();
    }

    @Test
    void aSuspendWithdrawalThatFailsAfterSuspendingCountsAtItsCall() throws IOException {
        ForkedJvm.Result r = run("""
                - {class: demoapp.ksuspend.Tools, method: newsletter, kind: tool, session-param: 0}
                - {class: demoapp.ksuspend.Privacy, method: grantOk, kind: consent, subject-param: 1, purpose-param: 2, session-param: 0}
                - {class: demoapp.ksuspend.Privacy, method: withdrawFails, kind: consent, subject-param: 1, purpose-param: 2, session-param: 0, granted-param: false}
                """, "gdpr, " + gdprPolicy(), "withdraw-fails");
        assertThat(r.stdout()).as("as from a plain method that throws: the withdrawal counts: " + r)
                .contains("app: grantOk -> value=kotlin.Unit")
                .contains("app: withdrawFails -> threw IllegalStateException: store down")
                .contains("app: tracegate blocked the call to newsletter (contract gdpr.P1-consent)").doesNotContain("app: sent to");
        assertThat(events("consent")).as("the grant, then the withdrawal").hasSize(2);
    }
}
