package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * trial23 06: with hot reload on, a changed configuration file is not applied (its keys are read at start), and the agent
 * says so once per change, naming the file and that a restart applies it, instead of saying nothing while the libraries
 * it lists are reloaded. The checks are driven here one by one, as the housekeeping thread runs them every interval.
 */
class ConfigFileChangeNoticeTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void back() {
        AgentLog.captureForTest(null);
    }

    private String said() {
        String s = err.toString(StandardCharsets.UTF_8);
        err.reset();
        return s;
    }

    @Test
    void aChangedConfigurationFileIsSaidOncePerChangeAndNotApplied() throws Exception {
        Files.writeString(dir.resolve("shop.yaml"), "library: shop\ncontracts:\n  - id: shop.max\n    guarantee: G(count(search) <= 3)\n"
                + "    message: max3\n");
        Path yaml = dir.resolve("tracegate.yaml");
        String original = "libraries: [shop.yaml]\nhot-reload: 1d\nmode: enforce\naudit.path: " + dir.resolve("audit.jsonl") + "\n";
        Files.writeString(yaml, original);
        AgentConfig config = AgentConfig.load("config=" + yaml, Map.of(), Map.of(), Set.of());
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        AuditWriter audit = AuditWriter.start(config.auditPath(), AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        try {
            said();
            s.checkConfigFile();
            assertThat(said()).as("nothing changed").doesNotContain("configuration file");

            Files.writeString(yaml, original.replace("mode: enforce", "mode: shadow").replace("[shop.yaml]", "[shop.yaml, extra.yaml]"));
            s.checkConfigFile();   // seen once: it may still be being written
            assertThat(said()).doesNotContain("configuration file");
            s.checkConfigFile();
            assertThat(said()).contains("WARN the configuration file " + yaml.toAbsolutePath() + " changed, but its keys are read only at start")
                    .contains("restart the service to apply it");
            s.checkConfigFile();
            s.checkConfigFile();
            assertThat(said()).as("once per change").isEmpty();
            assertThat(s.library().names()).isEqualTo("shop");

            Files.writeString(yaml, original.replace("mode: enforce", "fail: open"));
            s.checkConfigFile();
            s.checkConfigFile();
            assertThat(said()).as("a second change is said again").contains("WARN the configuration file").contains("restart");

            Files.writeString(yaml, original);
            s.checkConfigFile();
            s.checkConfigFile();
            assertThat(said()).contains("is back to what was read at start, which is in force").doesNotContain("WARN");
        } finally {
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }
}
