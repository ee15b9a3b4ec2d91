package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.cli.Main;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.contracts.library.LibraryException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** check, replay and the agent's start alike refuse a library that reads the end atom, which never holds (trial7 repro 10). */
class EndAtomRefusedTest {
    @TempDir Path dir;

    private static final String PROBLEM = "lib.yaml:4:18: atom `end`: `end` never holds, so a contract over it never acts";

    private static String[] run(String... args) {
        dev.tracegate.agent.cli.CliRun r = dev.tracegate.agent.cli.CliRun.of(args);
        return new String[] {String.valueOf(r.code()), r.out() + r.err()};
    }

    @Test
    void checkReplayAndTheStartRefuseIt() throws Exception {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), "library: en\ncontracts:\n  - id: en.g\n    guarantee: G(end -> O call(notify))\n");
        Path trace = Files.writeString(dir.resolve("t.jsonl"), "{\"session\":\"a\",\"kind\":\"call\",\"tool\":\"x\",\"args\":{}}\n"
                + "{\"session\":\"a\",\"kind\":\"end\"}\n");
        String[] check = run("check", lib.toString());
        assertThat(check[0]).isEqualTo("2");
        assertThat(check[1]).contains(PROBLEM).contains("F call(notify)");
        String[] replay = run("replay", lib.toString(), trace.toString(), "--no-progress");
        assertThat(replay[0]).isEqualTo("2");
        assertThat(replay[1]).contains(PROBLEM);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        try {
            LibraryException e = catchThrowableOfType(LibraryException.class,
                    () -> new ContractSupervisor(config, audit, new SupervisorMetrics(), null).close());
            assertThat(e).isNotNull();
            assertThat(e.getMessage()).contains(PROBLEM);
        } finally {
            audit.close(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
