package dev.tracegate.agent.cli;

import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code audit verify FILE...}: checks the hash chain of each file and the links between a rotated log's files. Exit 0 intact, 1 tampered or truncated, 2 unreadable. */
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
                    "Several files are checked in the order given: a file whose header continues a moved one (its 'continues'"
                            + " field, written when the log was rotated) must continue the file before it.",
                    "With --live, a last line without its line end (a file still being written, or a copy of it) is not"
                            + " checked and does not count as truncated.",
                    "Exit status: 0 intact, 1 tampered or truncated (or a broken link between files), 2 not readable."})
    static final class Verify implements Callable<Integer> {
        @Parameters(index = "0..*", arity = "1..*", paramLabel = "FILE",
                description = "the audit log (JSONL, as written by the agent); a rotated log's files oldest first")
        List<Path> files;

        @Option(names = "--live", description = "the files are still being written (the running service's log, or a copy of it):"
                + " a last line without its line end is a line being written, not checked, and does not fail the check")
        boolean live;

        private static final Pattern CONTINUES = Pattern.compile("\"continues\":\"([0-9a-f]{64})\"");

        @Override
        public Integer call() {
            int status = 0;
            AuditVerification before = null;
            Path previous = null;
            for (Path file : files) {
                if (!Files.isRegularFile(file)) {
                    System.err.println("tracegate audit verify: " + file + " is not a file");
                    return 2;
                }
                AuditVerification v;
                String continues;
                try {
                    v = AuditVerifier.verify(file);
                    continues = continues(file);
                } catch (IOException e) {
                    System.err.println("tracegate audit verify: cannot read " + file + ": " + e.getMessage());
                    return 2;
                }
                // a live file's last line may be half written: the writer hands a batch to the OS as one write() (trial23)
                boolean writing = live && v.status() == AuditVerification.Status.TRUNCATED;
                System.out.println(file + ": " + (writing ? v.describeLive() : v.describe()));
                if (!v.ok() && !writing) status = 1;
                // a file moved away during a disk-full outage ends in a line the full disk cut: its chain up to that line is
                // what a file that continues it names (trial44 02), so the link is checked, the cut line reported above
                if (before != null && linkable(before) && linkable(v)) {
                    if (continues == null) {
                        System.out.println(file + ": starts a chain of its own (its header continues no moved file), so it is not linked to "
                                + previous);
                    } else if (continues.equals(before.head())) {
                        System.out.println(file + ": continues " + previous + " (link intact)");
                    } else {
                        System.out.println(file + ": link broken: its header continues a file whose head is " + continues + ", but "
                                + previous + " ends at " + before.head() + " (a file missing between them, or the files out of order)");
                        status = 1;
                    }
                }
                before = v;
                previous = file;
            }
            return status;
        }

        private static boolean linkable(AuditVerification v) {
            return v.ok() || v.status() == AuditVerification.Status.TRUNCATED;
        }

        /** The head of the moved file that this one's first header continues, or null. */
        private static String continues(Path file) throws IOException {
            try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                String first = r.readLine();
                if (first == null || !first.contains("\"rec\":\"header\"")) return null;
                Matcher m = CONTINUES.matcher(first);
                return m.find() ? m.group(1) : null;
            }
        }
    }
}
