package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's start says what {@code check} notes (trial19 finding 04): which guarantee an event tracegate cannot refuse
 * (a tool result, a user message) can make fail, a purpose's category that no detector has... An operator who never ran
 * {@code check} learned of them only by their effect in a session (a contract violated for good, every e-mail address
 * removed from the calls as excess data).
 */
class LibraryNotesAtStartTest {
    @TempDir Path dir;

    @Test
    void theStartWarnsAboutAGuaranteeAResultCanMakeFailAndNotAboutAGuardedOne() throws Exception {
        Path lib = Files.writeString(dir.resolve("pii.yaml"), """
                library: pii
                contracts:
                  - id: pii.no-iban
                    guarantee: G(returned(lookup_customer) -> !category(iban))
                    strategy: redact
                    message: No IBAN to the model.
                  - id: pii.no-iban-sent
                    guarantee: G(call(send_email) -> !category(iban))
                    strategy: redact
                    message: No IBAN in an e-mail.
                """);
        String said = startAndWaitForTheAnalysis(lib.toString());
        String warned = "[tracegate] WARN library analysis: " + lib + ":3: contract pii.no-iban's guarantee"
                + " (G(returned(lookup_customer) -> !category(iban))) can be made to fail by an event the agent does not control";
        assertThat(said.lines().filter(l -> l.startsWith(warned)).count()).as(said).isEqualTo(1);
        assertThat(said).as("with the fix, as check gives it").contains("assume: G(returned(lookup_customer) -> !category(iban)), strategy: suppress")
                .as("a guard on the agent's own call is not noted").doesNotContain("contract pii.no-iban-sent's guarantee");
    }

    @Test
    void theStartNamesAPurposesCategoryThatNoDetectorHasWithTheDidYouMean() throws Exception {
        Path lib = Files.writeString(dir.resolve("bank.yaml"), """
                library: bank
                gdpr:
                  purposes:
                    support: [emial]
                  consent-purposes: none
                  tools:
                    lookupAccount: [support]
                """);
        String said = startAndWaitForTheAnalysis("gdpr;" + lib);
        assertThat(said.lines().filter(l -> l.startsWith("[tracegate] WARN library analysis: " + lib + ": gdpr.purposes.support names category 'emial'")
                && l.contains("Did you mean 'email'?")).count()).as(said).isEqualTo(1);
        assertThat(said).as("the gdpr library reads the section: no unread-section warning").doesNotContain("none of the loaded libraries has one");
    }

    /** A reload that brings a note says it too (agent/README.md: "again after each hot reload"); a clean reload says none. */
    @Test
    void aReloadThatBringsANoteSaysIt() throws Exception {
        String clean = """
                library: bank
                gdpr:
                  purposes:
                    support: [email]
                  consent-purposes: none
                  tools:
                    lookupAccount: [support]
                """;
        Path lib = Files.writeString(dir.resolve("bank.yaml"), clean);
        String[] atStart = new String[1];
        String said = startAndWaitForTheAnalysis("gdpr;" + lib, (s, soFar) -> {
            atStart[0] = soFar.get();
            Files.writeString(lib, clean.replace("[email]", "[emial]"));
            assertThat(s.reload()).as("the changed library loads").isTrue();
            Thread analysis = s.analysisThread();
            analysis.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(analysis.isAlive()).as("the reload's analysis ended").isFalse();
        });
        String afterReload = said.substring(atStart[0].length());
        assertThat(atStart[0]).as("the clean library: no note").doesNotContain("WARN library analysis");
        assertThat(afterReload.lines().filter(l -> l.startsWith("[tracegate] WARN library analysis: " + lib + ": gdpr.purposes.support names category 'emial'"))
                .count()).as(afterReload).isEqualTo(1);
    }

    /** What a test does with the started supervisor, while stderr is still captured; {@code soFar} is what was said by then. */
    private interface AfterStart {
        void run(ContractSupervisor s, java.util.function.Supplier<String> soFar) throws Exception;
    }

    /** Starts a supervisor on {@code libraries} (separated by ';'), waits for its background analysis, and returns what the agent said on stderr. */
    private String startAndWaitForTheAnalysis(String libraries) throws Exception {
        return startAndWaitForTheAnalysis(libraries, (s, soFar) -> { });
    }

    /** As above, then runs {@code then} before the supervisor closes. */
    private String startAndWaitForTheAnalysis(String libraries, AfterStart then) throws Exception {
        Path log = Files.createTempFile(dir, "audit", ".jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + libraries + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        // the background analyses of supervisors earlier tests started (ContractSupervisorTest's) log through the same
        // AgentLog: let them end before capturing, or their notes read as this library's
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("tracegate-analysis")) t.join(TimeUnit.SECONDS.toMillis(60));
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        ContractSupervisor s = null;
        try {
            s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
            Thread analysis = s.analysisThread();
            analysis.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(analysis.isAlive()).as("the background analysis ended").isFalse();
            then.run(s, () -> err.toString(StandardCharsets.UTF_8));
        } finally {
            AgentLog.captureForTest(null);
            if (s != null) s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
        return err.toString(StandardCharsets.UTF_8);
    }
}
