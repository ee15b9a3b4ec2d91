package dev.tracegate.agent.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A start that fails after the libraries loaded (instrumentation that cannot be installed, an option the bridge
 * refuses): with {@code fail: open} the application runs unsupervised, says so loudly, and the audit log's segment
 * ends with an {@code unsupervised} record giving the reason; with {@code fail: closed} the start is refused with one
 * paragraph (exit status 78) and the record says the start was refused. The host imports nothing of tracegate.
 */
class StartFailureTest {
    @TempDir Path dir;

    private Path log() {
        return dir.resolve("audit.jsonl");
    }

    /** The JVM refuses the agent's transformer: the manifest does not say Can-Retransform-Classes. */
    private ForkedAgent.Run withoutRetransformation(String fail) throws Exception {
        return ForkedAgent.run(ForkedAgent.agentJar(dir, false), dir, "libraries=sop-refund,fail=" + fail + ",audit.path=" + log(),
                "example.warmup.Host", null, null);
    }

    @Test
    void instrumentationThatCannotBeInstalledUnderFailOpenRunsTheHostUnsupervisedAndTheLogSaysWhy() throws Exception {
        ForkedAgent.Run run = withoutRetransformation("open");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("lookup: found order 4711").contains("host ran");
        assertThat(run.err()).contains("agent could not start and runs UNSUPERVISED because fail=open")
                .contains("adding retransformable transformers is not supported");
        assertThat(traceBetween(run.err(), "runs UNSUPERVISED because fail=open", null)).as("the trace a bug report needs, without debug: true").isTrue();
        JsonNode u = onlyUnsupervisedRecord();
        assertThat(u.path("fail").asText()).isEqualTo("open");
        assertThat(u.path("reason").asText()).isEqualTo("the agent could not start: java.lang.UnsupportedOperationException: "
                + "adding retransformable transformers is not supported in this environment");
    }

    @Test
    void instrumentationThatCannotBeInstalledUnderFailClosedRefusesTheStartWithOneParagraphAndTheLogSaysSo() throws Exception {
        ForkedAgent.Run run = withoutRetransformation("closed");
        assertThat(run.code()).as(run.err()).isEqualTo(78);
        assertThat(run.out()).doesNotContain("host ran");
        assertThat(run.err()).contains("tracegate: the agent cannot start:\nthe agent could not start: java.lang.UnsupportedOperationException")
                .contains("(this is not a configuration mistake: report it with the trace above, or set fail: open to run the application unsupervised)")
                .doesNotContain("FATAL ERROR");
        assertThat(traceBetween(run.err(), "internal error while starting", "report it with the trace above"))
                .as("the trace the paragraph points to is printed above it").isTrue();
        JsonNode u = onlyUnsupervisedRecord();
        assertThat(u.path("fail").asText()).isEqualTo("closed");
        assertThat(u.path("reason").asText()).contains("adding retransformable transformers is not supported");
    }

    /** Whether standard error holds the start failure's stack trace (its exception line, then frames) after {@code from} and before {@code to} (null: the end). */
    private static boolean traceBetween(String err, String from, String to) {
        int start = err.indexOf(from);
        int exception = err.indexOf("\njava.lang.UnsupportedOperationException: adding retransformable transformers", start);
        int frame = err.indexOf("\n\tat ", exception);
        int end = to == null ? err.length() : err.indexOf(to, start);
        return start >= 0 && exception > start && frame > exception && frame < end;
    }

    @Test
    void anOptionTheBridgeRefusesAfterTheLibrariesLoadedIsRecordedAsTheReasonUnderFailOpen() throws Exception {
        ForkedAgent.Run run = ForkedAgent.run(dir, "libraries=sop-refund,fail=open,onBlock=sideways,audit.path=" + log(),
                "example.warmup.Host", null, null);
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("host ran");
        assertThat(run.err()).contains("runs UNSUPERVISED because fail=open:\ntracegate: option onBlock=sideways is unknown");
        JsonNode u = onlyUnsupervisedRecord();
        assertThat(u.path("fail").asText()).isEqualTo("open");
        assertThat(u.path("reason").asText()).startsWith("tracegate: option onBlock=sideways is unknown; use onBlock=substitute");
    }

    @Test
    void theDevelopmentShadowKeyWithContractLibrariesIsRefusedBeforeItCanRecordBlocksThatDidNotHappen() throws Exception {
        ForkedAgent.Run run = ForkedAgent.run(dir, "libraries=sop-refund,shadow=true,audit.path=" + log(), "example.warmup.Host", null, null);
        assertThat(run.code()).as(run.err()).isEqualTo(78);
        assertThat(run.out()).doesNotContain("host ran");
        assertThat(run.err()).contains("tracegate: the agent cannot start:\noption shadow=true is a development option of the fixed-rules supervisor")
                .as("the heading says tracegate once; the paragraph does not repeat it").doesNotContain("start:\ntracegate:")
                .contains("Write mode: shadow");
        assertThat(log()).as("refused like a bad configuration: before the audit log is opened").doesNotExist();
    }

    @Test
    void aFileThatIsNotYamlIsNotToldToSetTheFailOpenItAlreadySaysButWhereItIsRead() throws Exception {
        // trial9 fail-open-hint-invalid-yaml: the refusal advised 'set fail: open' to a file that says it on line 2
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [gdpr\nfail: open\n");
        ForkedAgent.Run run = ForkedAgent.run(dir, "config=" + config, "example.warmup.Host", null, null);
        assertThat(run.code()).as(run.err()).isEqualTo(78);
        assertThat(run.out()).doesNotContain("host ran");
        assertThat(run.err()).doesNotContain("set fail: open")
                .contains("(fix the configuration, or run the application unsupervised with -Dtracegate.fail=open, TRACEGATE_FAIL=open"
                        + " or fail=open in the agent argument: the file's 'fail: open' (line 2) is not read either, since the file is not valid YAML)");
        // the advice works: the property is read although the file is not
        ForkedAgent.Run advised = ForkedAgent.run(dir, "config=" + config, "example.warmup.Host", null, null, "-Dtracegate.fail=open");
        assertThat(advised.code()).as(advised.err()).isZero();
        assertThat(advised.out()).contains("host ran");
        assertThat(advised.err()).contains("runs UNSUPERVISED because fail=open");
    }

    @Test
    void aLibraryThatCannotLoadStillEndsTheLogWithExactlyOneUnsupervisedRecord() throws Exception {
        // the supervisor writes this one itself (e0e3805); the start's own clean-up must not add a second
        Path missing = dir.resolve("missing.yaml");
        ForkedAgent.Run run = ForkedAgent.run(dir, "libraries=" + missing + ",fail=open,audit.path=" + log(), "example.warmup.Host", null, null);
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("host ran");
        JsonNode u = onlyUnsupervisedRecord();
        assertThat(u.path("fail").asText()).isEqualTo("open");
        assertThat(u.path("reason").asText()).contains("missing.yaml");
    }

    @Test
    void anEnvironmentVariableThatIsNoKeyIsIgnoredWithAWarningAndTheHostRunsSupervised() throws Exception {
        // every helper script that exported TRACEGATE_JAR stopped each supervised JVM that inherited it
        ForkedAgent.Run run = ForkedAgent.run(ForkedAgent.agentJar(dir, true), dir,
                Map.of("TRACEGATE_JAR", "/opt/tracegate-agent.jar", "TRACEGATE_MODE", "shadow", "TRACEGATE_DEBUG", "true"),
                "libraries=sop-refund,audit.path=" + log(), "example.warmup.Host", null, null);
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("host ran");
        assertThat(run.err()).contains("[tracegate] WARN TRACEGATE_JAR is not a tracegate key and is ignored.")
                .doesNotContain("cannot start").doesNotContain("UNSUPERVISED");
        // the variables that are keys still apply (debug prints each effective value with its source)
        assertThat(run.err()).containsPattern("mode +\\= shadow +\\[TRACEGATE_MODE\\]");
    }

    /** The log holds one segment: its header, then the unsupervised record, nothing else; and it verifies. */
    private JsonNode onlyUnsupervisedRecord() throws Exception {
        List<String> lines = Files.readAllLines(log());
        assertThat(lines).as("the audit log").hasSize(2);
        assertThat(WarmupTest.records(log(), "header")).hasSize(1);
        List<JsonNode> u = WarmupTest.records(log(), "unsupervised");
        assertThat(u).hasSize(1);
        AuditVerification v = AuditVerifier.verify(log());
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(v.unsupervised()).isEqualTo(1);
        return u.get(0);
    }
}
