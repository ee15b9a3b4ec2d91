package dev.tracegate.it;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent on Java 25 never touches {@code sun.misc.Unsafe} (JEP 471/498): it starts and supervises a plain application
 * under {@code --sun-misc-unsafe-memory-access=deny}, the announced future default, and under today's default it prints
 * no Unsafe warning. A contract library blocks a nested tool call and the audit log verifies, so the monitor's state
 * pool and the audit writer's queue both ran. The application imports nothing of tracegate.
 */
class Java25UnsafeTest {
    private static final String APP = "demoapp.plain.ShopApp";

    @TempDir Path dir;
    private Path config;

    @BeforeEach
    void configuration() throws IOException {
        Assumptions.assumeTrue(ForkedJvm.java25Present(), "no Java 25 at " + ForkedJvm.JAVA_25 + ": the JEP 471/498 checks need it");
        config = shopConfiguration(dir);
    }

    /**
     * The bank library ({@code G !call(transfer)}) and {@code demoapp.plain.ShopApp}'s configured methods, written to
     * {@code dir}; returns the configuration file (also ClassDataSharingTest's).
     */
    static Path shopConfiguration(Path dir) throws IOException {
        Files.writeString(dir.resolve("bank.yaml"), String.join("\n",
                "library: bank",
                "contracts:",
                "  - id: bank.no-transfer",
                "    guarantee: G !call(transfer)",
                "    message: transfers are not allowed",
                ""));
        return Files.writeString(dir.resolve("tracegate.yaml"), String.join("\n",
                "libraries: [bank.yaml]",
                "audit.path: audit.jsonl",
                "configured-methods:",
                "  - {class: demoapp.plain.ShopApp$Bank, method: payBill, kind: tool, tool-name: payBill, session-param: 0}",
                "  - {class: demoapp.plain.ShopApp$Bank, method: transfer, kind: tool, tool-name: transfer, session-param: 0, nested: true}",
                "  - {class: demoapp.plain.ShopApp$Bank, method: closeAccount, kind: tool, tool-name: closeAccount, session-param: 0}",
                "  - {class: demoapp.plain.ShopApp$Privacy, method: erase, kind: erasure, subject-param: 0, session-param: 0}",
                ""));
    }

    private ForkedJvm.Result bank(String... jvmOptions) {
        List<String> args = new ArrayList<>(List.of(jvmOptions));
        args.add(ForkedJvm.agent("config=" + config));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.JAVA_25, args, ForkedJvm.appClasspath(), APP, "nested");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString())
                .contains("METHOD payBill ran customer=alice bill=B7")
                .doesNotContain("METHOD transfer ran")
                .contains("RESULT: bill B7 paid: tracegate blocked the call to transfer (contract bank.no-transfer): transfers are not allowed")
                .contains("RESULT: closed alice");
        // audit.path: audit.jsonl in the file is written beside the file
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result verify = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "audit", "verify", audit.toString()));
        assertThat(verify.exit()).as(verify.toString()).isZero();
        assertThat(verify.stdout()).contains("chain intact");
        return r;
    }

    @Test
    void theAgentStartsAndSupervisesWhenUnsafeMemoryAccessIsDenied() {
        ForkedJvm.Result r = bank("--sun-misc-unsafe-memory-access=deny");
        assertThat(r.stderr()).as(r.toString())
                .contains("[tracegate] agent started (premain)")
                .doesNotContain("cannot start").doesNotContain("ExceptionInInitializerError").doesNotContain("UNSUPERVISED");
    }

    @Test
    void theDefaultPrintsNoUnsafeWarning() {
        ForkedJvm.Result r = bank();
        assertThat(r.stderr()).as(r.toString()).contains("[tracegate] agent started (premain)").doesNotContain("sun.misc.Unsafe");
    }
}
