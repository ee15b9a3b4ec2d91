package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code check tracegate.yaml} notes a redirect contract whose calls only configured methods see (they are blocked,
 * not redirected), as the agent's start WARNs: before, neither said it, and the first sign was a block record where a
 * redirect was written.
 */
class CheckRedirectNoteTest {
    @TempDir Path dir;

    @Test
    void checkOfTheAgentConfigurationNotesARedirectContractThatCanOnlyBlock() throws Exception {
        Files.writeString(dir.resolve("ops.yaml"), """
                library: ops
                contracts:
                  - id: ops.no-delete
                    guarantee: G !call(delete_account)
                    strategy: redirect
                    redirect-to: archive_account
                    message: Accounts are archived, not deleted.
                """);
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [ops.yaml]
                configured-methods:
                  - {class: acme.Accounts, method: delete_account, kind: tool}
                """);

        CliRun r = CliRun.of("check", config.toString());

        assertThat(r.err()).as(r.err()).contains("note: contract ops.no-delete (").contains("redirects to archive_account, but its"
                + " calls will be blocked, not redirected: every tool it names (delete_account) is a configured method (acme.Accounts#delete_account at ");
        assertThat(r.err().split("note: contract ops.no-delete", -1)).as("once").hasSize(2);
    }
}
