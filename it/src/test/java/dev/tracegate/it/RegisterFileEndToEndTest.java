package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GDPR register outlives a restart with {@code register.path} (agent/CONFIG.md): a plain application whose privacy
 * and mail methods are configured runs in forked JVMs with the real agent jar, one JVM per run, all appending to one audit
 * log. An erasure of run 1 blocks a disclosure in run 2 (and does not without register.path), a consent of run 1 lets a
 * newsletter of run 2 through, a withdrawal of run 2 refuses one of run 3; replaying the log with {@code --register} gives
 * the online decisions, and without it says that they may differ.
 */
class RegisterFileEndToEndTest {

    /** The application: no import of tracegate; each step prints its number, then whether the method ran. */
    private static final String APP = """
            package keep;

            public final class PrivacyApp {
                public static final class Privacy {
                    public void grant(String session, String subject, String purpose) { System.out.println("METHOD grant ran"); }

                    public void withdraw(String session, String subject, String purpose) { System.out.println("METHOD withdraw ran"); }

                    public void erase(String session, String subject) { System.out.println("METHOD erase ran"); }
                }

                public static final class Mail {
                    public String sendNewsletter(String session, String email) { System.out.println("METHOD sendNewsletter ran"); return "sent"; }

                    public String lookup(String session, String email) { System.out.println("METHOD lookup ran"); return "profile"; }
                }

                public static void main(String[] args) {
                    Privacy privacy = new Privacy();
                    Mail mail = new Mail();
                    int step = 0;
                    for (String a : args) {
                        String[] p = a.split(":");
                        System.out.println("STEP " + ++step + " " + a);
                        try {
                            switch (p[0]) {
                                case "grant" -> privacy.grant(p[1], p[2], p[3]);
                                case "withdraw" -> privacy.withdraw(p[1], p[2], p[3]);
                                case "erase" -> privacy.erase(p[1], p[2]);
                                case "send" -> mail.sendNewsletter(p[1], p[2]);
                                case "lookup" -> mail.lookup(p[1], p[2]);
                                default -> throw new IllegalArgumentException(a);
                            }
                        } catch (RuntimeException e) {
                            System.out.println("THROWN " + e.getMessage());
                        }
                    }
                }
            }
            """;

    private static final String[] RUN_1 = {
        "grant:web-1:ada@example.com:marketing",   // 1
        "send:conv-A:ada@example.com",             // 2: consented
        "erase:conv-B:carl@example.com",           // 3
        "lookup:conv-A:carl@example.com",          // 4: erased (P4)
    };

    private static final String[] RUN_2 = {
        "lookup:conv-C:carl@example.com",           // 1: erased in run 1
        "send:conv-C:ada@example.com",              // 2: consented in run 1
        "withdraw:web-2:ada@example.com:marketing", // 3
        "send:conv-C:ada@example.com",              // 4: withdrawn
        "lookup:conv-C:bob@example.com",            // 5: nobody erased bob
    };

    private static final String[] RUN_3 = {
        "send:conv-D:ada@example.com",              // 1: the withdrawal of run 2 still stands
    };

    @TempDir
    Path dir;

    @Test
    void erasuresConsentsAndWithdrawalsOutliveRestartsWithRegisterPath() throws IOException {
        Path register = dir.resolve("state/gdpr-register.jsonl");
        Run one = run(register, RUN_1);
        assertThat(one.ran).containsExactly(true, true, true, false);
        assertThat(one.result.stderr()).contains("GDPR register restored from " + register + ": 0 erasures and 0 consents (0 lines)");
        Run two = run(register, RUN_2);
        assertThat(two.ran).containsExactly(false, true, true, false, true);
        assertThat(two.result.stderr()).contains("GDPR register restored from " + register + ": 1 erasure and 1 consent (2 lines)");
        Run three = run(register, RUN_3);
        assertThat(three.ran).containsExactly(false);
        assertThat(Files.readAllLines(register)).hasSize(3)
                .satisfiesExactly(l -> assertThat(l).startsWith("{\"op\":\"consent\",\"subject\":\"ada@example.com\",\"purpose\":\"marketing\""),
                        l -> assertThat(l).startsWith("{\"op\":\"erase\",\"subject\":\"carl@example.com\""),
                        l -> assertThat(l).startsWith("{\"op\":\"withdraw\",\"subject\":\"ada@example.com\",\"purpose\":\"marketing\""));
        if (register.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(register))).isEqualTo("rw-------");
        }
        ForkedJvm.Result verified = cli("audit", "verify", audit().toString());
        assertThat(verified.exit()).as(verified.toString()).isZero();
    }

    @Test
    void withoutRegisterPathARestartForgetsThem() throws IOException {
        assertThat(run(null, RUN_1).ran).containsExactly(true, true, true, false);
        // 1: carl's erasure is forgotten and the lookup runs; 2: ada's consent is forgotten (P1)
        assertThat(run(null, RUN_2).ran).containsExactly(true, false, true, false, true);
    }

    @Test
    void replayWithTheRegisterGivesTheOnlineDecisionsAndWithoutItSaysTheyMayDiffer() throws IOException {
        Path register = dir.resolve("gdpr-register.jsonl");
        run(register, RUN_1);
        run(register, RUN_2);
        run(register, RUN_3);
        Map<String, Integer> online = onlineBlocks(audit());
        // the oracle is the log's own decisions: run 2 blocked carl's lookup (P4) and ada's newsletter after the withdrawal (P1)
        assertThat(online).containsEntry("conv-C gdpr.P4-erasure", 1).containsKey("conv-D gdpr.P1-consent");

        ForkedJvm.Result with = cli("replay", "gdpr," + library(), audit().toString(), "--format", "json", "--register", register.toString());
        assertThat(with.stderr()).as(with.toString()).contains("the register starts from the first 2 lines of " + register)
                .doesNotContain("no --register is given");
        assertThat(replayedViolations(with)).as(with.toString()).isEqualTo(online);

        ForkedJvm.Result without = cli("replay", "gdpr," + library(), audit().toString(), "--format", "json");
        assertThat(without.stderr()).as(without.toString()).contains("no --register is given").contains("verdicts may differ");
        assertThat(replayedViolations(without)).as(without.toString()).isNotEqualTo(online);

        // a register file that is not the one the agent read: refused, with why
        Path other = Files.writeString(dir.resolve("other.jsonl"), "{\"op\":\"erase\",\"subject\":\"x\"}\n{\"op\":\"erase\",\"subject\":\"y\"}\n");
        ForkedJvm.Result refused = cli("replay", "gdpr," + library(), audit().toString(), "--register", other.toString());
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(2);
        assertThat(refused.stderr()).contains("it is not the file the agent read");
    }

    @Test
    void aKeyedLogReplaysWithTheRegisterWhenTheKeyIsGivenThroughAnEnvironmentVariable() throws IOException {
        // trial17: with audit.hmac-key the register file's subjects could not be digested as the events were, so the
        // replay started from an empty register and its P1/P4 verdicts differed, with no way to give the key
        Path register = dir.resolve("gdpr-register.jsonl");
        String key = "audit.hmac-key: a-long-random-secret-of-this-test\n";
        run(register, key, RUN_1);
        run(register, key, RUN_2);
        run(register, key, RUN_3);
        Map<String, Integer> online = onlineBlocks(audit());
        assertThat(online).containsEntry("conv-C gdpr.P4-erasure", 1).containsKey("conv-D gdpr.P1-consent");
        List<String> replay = List.of("replay", "gdpr," + library(), audit().toString(), "--format", "json", "--register",
                register.toString());

        ForkedJvm.Result keyless = cli(replay.toArray(String[]::new));
        assertThat(keyless.stderr()).as(keyless.toString()).contains("personal data is keyed").contains("--hmac-key-env VAR");
        assertThat(replayedViolations(keyless)).as(keyless.toString()).isNotEqualTo(online);

        List<String> keyed = new ArrayList<>(replay);
        keyed.addAll(List.of("--hmac-key-env", "TG_TEST_AUDIT_KEY"));
        ForkedJvm.Result with = cliWith(Map.of("TG_TEST_AUDIT_KEY", "a-long-random-secret-of-this-test"), keyed);
        assertThat(with.exit()).as("1: violations found, as online; 2 would be bad input\n" + with).isEqualTo(1);
        assertThat(with.stderr()).contains("the register starts from the first 2 lines of " + register).doesNotContain("is keyed");
        assertThat(replayedViolations(with)).as(with.toString()).isEqualTo(online);

        ForkedJvm.Result wrong = cliWith(Map.of("TG_TEST_AUDIT_KEY", "another-key"), keyed);
        assertThat(wrong.exit()).as(wrong.toString()).isEqualTo(2);
        assertThat(wrong.stderr()).contains("the key in TG_TEST_AUDIT_KEY is not the one this log was written with");

        ForkedJvm.Result unset = cliWith(Map.of(), keyed);
        assertThat(unset.exit()).as(unset.toString()).isEqualTo(2);
        assertThat(unset.stderr()).contains("the environment variable TG_TEST_AUDIT_KEY is not set");
    }

    @Test
    void aMalformedRegisterFileStopsTheStartUnlessFailOpen() throws IOException {
        Path register = Files.writeString(dir.resolve("gdpr-register.jsonl"),
                "{\"op\":\"erase\",\"subject\":\"carl@example.com\"}\n{\"op\":\"erase\",\"subjekt\":\"dan@example.com\"}\n");
        Run closed = run(register, "", RUN_2);
        assertThat(closed.result.exit()).as(closed.result.toString()).isNotZero();
        assertThat(closed.result.stderr()).contains(register + ":2:1: no \"subject\" text").contains("Correct or delete that line");
        assertThat(closed.ran).isEmpty();   // the application did not run

        Run open = run(register, "fail: open\n", RUN_2);
        assertThat(open.result.exit()).as(open.result.toString()).isZero();
        assertThat(open.result.stderr()).contains("UNSUPERVISED").contains(register + ":2:1:");
        assertThat(open.ran).containsExactly(true, true, true, true, true);   // nothing supervised
    }

    /** One JVM's run: whether each step's method ran, and the process. */
    private record Run(List<Boolean> ran, ForkedJvm.Result result) {
    }

    private Run run(Path register, String... script) throws IOException {
        return run(register, "", script);
    }

    private Run run(Path register, String extra, String... script) throws IOException {
        Path classes = compile();
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [gdpr, %s]
                audit:
                  path: %s
                %s%sconfigured-methods:
                  - {class: "keep.PrivacyApp$Privacy", method: grant, kind: consent, session-param: 0, subject-param: 1, purpose-param: 2}
                  - {class: "keep.PrivacyApp$Privacy", method: withdraw, kind: consent, session-param: 0, subject-param: 1, purpose-param: 2, granted-param: false}
                  - {class: "keep.PrivacyApp$Privacy", method: erase, kind: erasure, session-param: 0, subject-param: 1}
                  - {class: "keep.PrivacyApp$Mail", method: "*", kind: tool, session-param: 0}
                """.formatted(library(), audit(), register == null ? "" : "register:\n  path: " + register + "\n", extra));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)),
                classes.toString(), "keep.PrivacyApp", script);
        List<Boolean> ran = new ArrayList<>();
        String[] steps = r.stdout().split("STEP ");
        for (int i = 1; i < steps.length; i++) ran.add(steps[i].contains("METHOD "));
        if (r.exit() == 0) assertThat(ran).as(r.toString()).hasSize(script.length);
        return new Run(ran, r);
    }

    private Path audit() {
        return dir.resolve("audit.jsonl").toAbsolutePath();
    }

    private Path library() throws IOException {
        Path lib = dir.resolve("shop.yaml");
        if (!Files.exists(lib)) {
            Files.writeString(lib, """
                    library: shop
                    gdpr:
                      purposes:
                        marketing: [email]
                        support: [email]
                      consent-purposes: [marketing]
                      subject-fields: [email]
                      tools:
                        sendNewsletter: [marketing]
                        lookup: [support]
                    contracts:
                      - id: shop.no-transfer
                        guarantee: G !call(transfer)
                        message: Transfers are not allowed here.
                    """);
        }
        return lib.toAbsolutePath();
    }

    /** Per "session contract": how many events the agent blocked online for that contract (the log's block records). */
    private static Map<String, Integer> onlineBlocks(Path log) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Map<String, Integer> blocks = new TreeMap<>();
        for (String line : Files.readAllLines(log)) {
            JsonNode r = json.readTree(line);
            if (!"event".equals(r.path("rec").asText()) || !"block".equals(r.path("decision").asText())) continue;
            for (JsonNode c : r.path("fired")) blocks.merge(r.path("session").asText() + " " + c.asText(), 1, Integer::sum);
        }
        return blocks;
    }

    /** Per "session contract": the events the replay found violating it (its JSON report, sessions of one id summed). */
    private static Map<String, Integer> replayedViolations(ForkedJvm.Result replay) throws IOException {
        Map<String, Integer> fires = new TreeMap<>();
        for (JsonNode s : new ObjectMapper().readTree(replay.stdout()).path("sessions")) {
            for (JsonNode c : s.path("contracts")) {
                int n = c.path("events").asInt();
                if (n > 0) fires.merge(s.path("session").asText() + " " + c.path("id").asText(), n, Integer::sum);
            }
        }
        return fires;
    }

    private static ForkedJvm.Result cliWith(Map<String, String> environment, List<String> args) {
        List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString()));
        command.addAll(args);
        return ForkedJvm.exec(command, environment);
    }

    private static ForkedJvm.Result cli(String... args) {
        return cliWith(Map.of(), List.of(args));
    }

    private Path compile() throws IOException {
        Path out = dir.resolve("classes");
        if (Files.exists(out.resolve("keep/PrivacyApp.class"))) return out;
        Path src = Files.createDirectories(dir.resolve("src/keep")).resolve("PrivacyApp.java");
        Files.writeString(src, APP);
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = javac.run(null, errors, errors, "--release", "17", "-parameters", "-d", out.toString(), src.toString());
        assertThat(exit).as(errors.toString(StandardCharsets.UTF_8)).isZero();
        return out;
    }
}
