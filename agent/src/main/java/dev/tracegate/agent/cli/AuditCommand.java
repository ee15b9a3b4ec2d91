package dev.tracegate.agent.cli;

import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code audit verify FILE}: checks the hash chain. Exit 0 intact, 1 tampered or truncated, 2 unreadable. */
@Command(name = "audit", mixinStandardHelpOptions = true, version = Main.VERSION, description = "Audit log tools.",
        subcommands = AuditCommand.Verify.class)
final class AuditCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    /** No subcommand given: the usage, as a usage error. */
    @Override
    public Integer call() {
        return Main.usage(spec);
    }

    @Command(name = "verify", mixinStandardHelpOptions = true, version = Main.VERSION,
            description = {"Check an audit log's hash chain; report the first bad line (removed, reordered, edited or inserted records).",
                    "Exit status: 0 intact, 1 tampered or truncated, 2 not readable."})
    static final class Verify implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "the audit log (JSONL, as written by the agent)")
        Path file;

        @Override
        public Integer call() {
            if (!Files.isRegularFile(file)) {
                System.err.println("tracegate audit verify: " + file + " is not a file");
                return 2;
            }
            try {
                AuditVerification v = AuditVerifier.verify(file);
                System.out.println(file + ": " + v.describe());
                return v.ok() ? 0 : 1;
            } catch (IOException e) {
                System.err.println("tracegate audit verify: cannot read " + file + ": " + e.getMessage());
                return 2;
            }
        }
    }
}
