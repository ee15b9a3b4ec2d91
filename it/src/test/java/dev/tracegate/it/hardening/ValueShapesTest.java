package dev.tracegate.it.hardening;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configured methods given values of awkward shapes, under the built agent jar (trial14): a StackOverflowError that
 * unwinds through woven methods, and arguments and results the agent's JSON writer must bound, refuse or leave alone.
 */
class ValueShapesTest {
    private static final String APP = "demoapp.hardening.ValueShapesApp";

    @TempDir Path dir;

    private Path audit() {
        return dir.resolve("audit.jsonl");
    }

    private Forked.Output app(String fail, String library, String... commands) throws IOException, InterruptedException {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), library);
        Path config = Files.writeString(dir.resolve("tg.yaml"), "libraries: [" + lib + "]\naudit.path: " + audit() + "\nview: off\nfail: " + fail
                + "\nconfigured-methods:\n  - {class: \"" + APP + "$Tools\", method: \"*\", kind: tool, session-param: 0}\n");
        return Forked.run(Forked.command(Forked.java(), "config=" + config, APP, commands));
    }

    private long auditLinesWith(String text) throws IOException {
        return Files.readAllLines(audit()).stream().filter(l -> l.contains(text)).count();
    }

    /**
     * trial14 stackoverflow-disables-supervision: the nesting guard stayed set after the overflow unwound through the
     * advice, so every later call on the thread counted as nested and ran unchecked and unaudited.
     */
    @Test
    void aForbiddenToolIsStillBlockedAndAuditedAfterEveryStackOverflow() throws Exception {
        Forked.Output r = app("closed", "library: so\ncontracts:\n  - id: so.never\n    guarantee: G !call(forbidden)\n    message: never\n", "overflow");
        assertThat(r.stdout()).as(r.toString()).contains("overflow: blocked=60 ran=0");
        assertThat(auditLinesWith("\"tool\":\"forbidden\"")).as("one audit record per forbidden call").isEqualTo(60);
    }
}
