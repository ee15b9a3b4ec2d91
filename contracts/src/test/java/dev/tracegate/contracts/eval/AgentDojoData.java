package dev.tracegate.contracts.eval;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the AgentDojo dataset is for tests: -Dtracegate.agentdojo=DIR, else ../shared/datasets/agentdojo next to the checkout. */
final class AgentDojoData {
    private AgentDojoData() {}

    /** The dataset directory; skips the calling test, with a visible message, when it is absent. */
    static Path dir() {
        String p = System.getProperty("tracegate.agentdojo");
        // the module directory is <checkout>/contracts; the dataset lies beside the checkout
        Path d = p != null ? Path.of(p) : Path.of("..", "..", "shared", "datasets", "agentdojo");
        boolean present = Files.isDirectory(d.resolve("runs")) && Files.isRegularFile(d.resolve("side_effect_tools.json"));
        if (!present) {
            System.out.println("SKIPPED: AgentDojo dataset not found at " + d.toAbsolutePath().normalize()
                    + "; pass -Dtracegate.agentdojo=DIR to run the AgentDojo evaluation tests");
        }
        Assumptions.assumeTrue(present, "AgentDojo dataset not found at " + d.toAbsolutePath().normalize()
                + " (pass -Dtracegate.agentdojo=DIR)");
        return d;
    }

    /** The repository checkout (the module's parent directory). */
    static Path checkout() { return Path.of("..").toAbsolutePath().normalize(); }
}
