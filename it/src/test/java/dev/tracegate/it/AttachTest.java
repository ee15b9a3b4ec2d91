package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code tracegate attach PID}: the first-event warm-up happens during the attach, and the audit log says the agent was attached. */
class AttachTest {

    private static final String APP = "demoapp.plain.ShopApp";
    private static final String RULES = String.join("\n",
            "tool     demoapp.plain.ShopApp$Payments#charge        name=charge args=1 session=0",
            "consent  demoapp.plain.ShopApp$Privacy#grantConsent  subject=0 purpose=1 granted=true session=0",
            "erasure  demoapp.plain.ShopApp$Privacy#erase         subject=0 session=0",
            "");
    private static final String LIBRARY = String.join("\n",
            "tracegate: 1",
            "library: shop",
            "contracts:",
            "  - id: shop.no-refunds",
            "    guarantee: G !call(refund)",
            "    message: No refunds here.",
            "");

    @TempDir
    Path dir;

    private String options(Path audit, String more) throws IOException {
        Path rules = Files.writeString(dir.resolve("methods.txt"), RULES);
        Path library = Files.writeString(dir.resolve("shop.yaml"), LIBRARY);
        return "methods=" + rules + ",libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear" + more;
    }

    private static List<String> cli(String... args) {
        List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString()));
        command.addAll(List.of(args));
        return command;
    }

    /** Starts ShopApp waiting for "go", attaches the agent with {@code options}, runs the scenario once, and ends the app. */
    private String attachAndRun(String options) throws Exception {
        Path err = dir.resolve("app-err.txt");
        Process app = new ProcessBuilder(ForkedJvm.java(), "-cp", ForkedJvm.appClasspath(), APP, "wait")
                .redirectError(err.toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
            String ready = out.readLine();
            assertThat(ready).startsWith("READY pid=");
            String pid = ready.substring("READY pid=".length());
            ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", pid, options));
            assertThat(attach.exit()).as(attach.toString()).isZero();
            in.write("go\n");
            in.flush();
            StringBuilder after = new StringBuilder();
            for (String line; (line = out.readLine()) != null && !line.equals("DONE"); ) {
                after.append(line).append('\n');
            }
            assertThat(after.toString()).contains("RESULT: charged alice");
            in.write("quit\n");
            in.flush();
            assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return Files.readString(err);
        } finally {
            app.destroyForcibly();
        }
    }

    /**
     * The host's first call after an attach must not pay for the agent's first-time work (trial5 measured 370 ms): the
     * warm-up runs in the attach itself, before any class of the running application is woven, instead of on a
     * background thread beside the application's first calls.
     */
    @Test
    void anAttachedAgentEndsItsWarmUpBeforeItWeavesTheApplicationsClasses() throws Exception {
        String err = attachAndRun(options(dir.resolve("audit.jsonl"), ",debug=true"));
        List<String> lines = err.lines().toList();
        int warmedUp = indexOf(lines, "start-up: first-event warm-up done");
        int woven = indexOf(lines, "(retransformed)");
        int started = indexOf(lines, "agent started (attached)");
        assertThat(warmedUp).as(err).isNotNegative();
        assertThat(woven).as(err).isNotNegative();
        assertThat(started).as(err).isNotNegative();
        assertThat(warmedUp).as(err).isLessThan(woven).isLessThan(started);
    }

    /**
     * An attach to a JVM that defines classes all the time (two threads, each a new class in a new loader, again and
     * again): Byte Buddy's reiterating sweep (d8c0e00) went over the classes loaded since its previous pass until one found
     * none, which in such a JVM never came, and the attach with it (checked with 915ed57's jar: the attach had not ended
     * after 180 s). Now the sweep goes over again only what its own thread loaded, at most 10 passes, and says what it
     * did; the attach ends, and the application's configured methods are supervised.
     */
    @Test
    void anAttachToAJvmThatDefinesClassesAllTheTimeEndsAndSupervises() throws Exception {
        Path audit = dir.resolve("churn.jsonl");
        Path err = dir.resolve("churn-err.txt");
        Process app = new ProcessBuilder(ForkedJvm.java(), "-cp", ForkedJvm.appClasspath(), "demoapp.plain.ChurnApp")
                .redirectError(err.toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
            assertThat(out.readLine()).isEqualTo("CHURNING");
            String ready = out.readLine();
            assertThat(ready).startsWith("READY pid=");
            // ForkedJvm.exec fails the test if the attach does not end (its bound: minutes, not a timing)
            ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", ready.substring("READY pid=".length()), options(audit, "")));
            assertThat(attach.exit()).as(attach.toString()).isZero();
            in.write("go\n");
            in.flush();
            StringBuilder after = new StringBuilder();
            for (String line; (line = out.readLine()) != null && !line.equals("DONE"); ) {
                after.append(line).append('\n');
            }
            assertThat(after.toString()).contains("RESULT: charged alice");
            in.write("quit\n");
            in.flush();
            assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            app.destroyForcibly();
        }
        String log = Files.readString(err);
        // the classes the churning threads define are woven as they load: the sweep does not go over them again
        assertThat(log).as(log).containsPattern("\\[tracegate\\] retransformation sweep: \\d+ pass(es)? over \\d+ loaded classes")
                .doesNotContain("then stopped");
        assertThat(Files.readString(audit)).as("the charge was supervised").contains("\"tool\":\"charge\"");
    }

    /**
     * trial40 02: an attach into a JVM whose only LangChain4j is a relocated (shaded) copy said "agent attached" and exit 0,
     * and every tool ran unsupervised. It now names the copy with the fix and exits 1 ("cannot do its work").
     */
    @Test
    void anAttachIntoAJvmWithOnlyARelocatedLangChain4jNamesItAndExitsOne() throws Exception {
        Process app = new ProcessBuilder(ForkedJvm.java(), "-cp", ForkedJvm.appClasspath(), "demoapp.shaded.ShadedApp")
                .redirectError(dir.resolve("app-err.txt").toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
            assertThat(out.readLine()).isEqualTo("ran pay");
            String ready = out.readLine();
            assertThat(ready).startsWith("READY pid=");
            Path library = Files.writeString(dir.resolve("shop.yaml"), LIBRARY);
            ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", ready.substring("READY pid=".length()),
                    "libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl")));
            assertThat(attach.exit()).as(attach.toString()).isEqualTo(1);
            assertThat(attach.stderr()).as(attach.toString())
                    .contains("demoapp.shaded.lc4j.service.tool.ToolService was loaded: it is a relocated (shaded) copy of"
                            + " dev.langchain4j.service.tool.ToolService")
                    .contains("configured-methods:")
                    .contains("cannot do its work: the application carries only a relocated (shaded) copy of langchain4j");
            in.write("quit\n");
            in.flush();
            assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            app.destroyForcibly();
        }
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) return i;
        }
        return -1;
    }

    @Test
    void theAuditHeaderSaysWhetherTheAgentWasAttachedAndLogsWithoutTheFieldStillVerifyAndReplay() throws Exception {
        Path attachedLog = dir.resolve("attached.jsonl");
        attachAndRun(options(attachedLog, ""));
        Path premainLog = dir.resolve("premain.jsonl");
        ForkedJvm.Result premain = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options(premainLog, ""))),
                ForkedJvm.appClasspath(), APP, "run");
        assertThat(premain.exit()).as(premain.toString()).isZero();

        ObjectMapper json = new ObjectMapper();
        JsonNode attachedHeader = json.readTree(Files.readAllLines(attachedLog).get(0));
        JsonNode premainHeader = json.readTree(Files.readAllLines(premainLog).get(0));
        assertThat(attachedHeader.path("rec").asText()).isEqualTo("header");
        assertThat(attachedHeader.path("start").asText()).as(attachedHeader.toString()).isEqualTo("attach");
        assertThat(premainHeader.path("start").asText()).as(premainHeader.toString()).isEqualTo("premain");

        // a log as the agent wrote it before the field existed: the same lines without it, chained again by the
        // documented rule (hash = SHA-256 of the bytes before ,"hash":"; prev = the previous line's hash)
        Path oldLog = dir.resolve("old.jsonl");
        Files.write(oldLog, withoutStart(Files.readAllLines(attachedLog)));
        assertThat(Files.readAllLines(oldLog).get(0)).doesNotContain("\"start\"");

        ForkedJvm.Result verified = ForkedJvm.exec(cli("audit", "verify", attachedLog.toString()));
        ForkedJvm.Result verifiedOld = ForkedJvm.exec(cli("audit", "verify", oldLog.toString()));
        assertThat(verified.exit()).as(verified.toString()).isZero();
        assertThat(verifiedOld.exit()).as(verifiedOld.toString()).isZero();
        // the same records and events; only the head differs, the chain having been computed again
        assertThat(verifiedOld.stdout().replaceAll("; head \\w+", "")).contains("chain intact")
                .isEqualTo(verified.stdout().replace(attachedLog.toString(), oldLog.toString()).replaceAll("; head \\w+", ""));

        String library = dir.resolve("shop.yaml").toString();
        ForkedJvm.Result replayed = ForkedJvm.exec(cli("replay", library, attachedLog.toString(), "--format", "json"));
        ForkedJvm.Result replayedOld = ForkedJvm.exec(cli("replay", library, oldLog.toString(), "--format", "json"));
        assertThat(replayed.exit()).as(replayed.toString()).isZero();
        assertThat(replayedOld.exit()).as(replayedOld.toString()).isZero();
        JsonNode now = json.readTree(replayed.stdout());
        JsonNode before = json.readTree(replayedOld.stdout());
        assertThat(now.path("summary").path("events").asLong()).isPositive();
        assertThat(before.get("sessions")).isEqualTo(now.get("sessions"));
        assertThat(before.path("summary").path("events")).isEqualTo(now.path("summary").path("events"));
    }

    /**
     * trial12 attach-inflight-answer-in-default-session: a LangChain4j turn in flight at the attach had its later tool
     * calls recorded in its conversation (the chat memory id) but its answer checked in session "default", where
     * G(assistant -> O returned(get_balance)) blocked it although the balance had been returned in that conversation.
     * The answer now goes to the conversation of the turn's tool calls; a turn started after the attach is unchanged.
     */
    @Test
    void theAnswerOfALangChain4jTurnInFlightAtTheAttachIsCheckedInItsConversation() throws Exception {
        Path library = Files.writeString(dir.resolve("r.yaml"), String.join("\n",
                "library: r",
                "contracts:",
                "  - id: r.no-answer-before-balance",
                "    guarantee: G(assistant -> O returned(get_balance))",
                "    message: Answer only after the balance.",
                ""));
        Path audit = dir.resolve("inflight.jsonl");
        Path err = dir.resolve("inflight-err.txt");
        Process app = new ProcessBuilder(ForkedJvm.java(), "-cp", ForkedJvm.appClasspath(), "demoapp.langchain4j.InFlightAttachApp")
                .redirectError(err.toFile()).start();
        List<String> out = new ArrayList<>();
        try (BufferedReader stdout = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
            String holding = stdout.readLine();
            assertThat(holding).as("the turn is inside its first tool").startsWith("HOLDING pid=");
            ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", holding.substring("HOLDING pid=".length()),
                    "libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear"));
            assertThat(attach.exit()).as(attach.toString()).isZero();
            in.write("go\n");
            in.flush();
            for (String line; (line = stdout.readLine()) != null && !line.equals("DONE"); ) out.add(line);
            assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            app.destroyForcibly();
        }
        assertThat(out).as(Files.readString(err)).containsExactly("ANSWER conv-long: your balance is 12 EUR", "ANSWER conv-next: your balance is 12 EUR");
        ObjectMapper json = new ObjectMapper();
        List<String> events = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode r = json.readTree(line);
            if (!r.path("rec").asText().equals("event") || r.path("kind").asText().equals("end")) continue;
            events.add(r.path("session").asText() + " " + r.path("kind").asText() + " " + r.path("tool").asText("") + " " + r.path("decision").asText());
        }
        assertThat(events).as(Files.readString(err)).containsExactly(
                "conv-long call get_balance pass",
                "conv-long return get_balance pass",
                "conv-long assistant  pass",
                "conv-next user  pass",
                "conv-next call get_balance pass",
                "conv-next return get_balance pass",
                "conv-next assistant  pass");
    }

    /** The lines with the header's {@code start} field removed and the chain recomputed. */
    private static List<String> withoutStart(List<String> lines) throws NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        List<String> out = new ArrayList<>();
        String prev = "0".repeat(64);
        for (String line : lines) {
            String body = line.substring(0, line.lastIndexOf(",\"hash\":\""));
            if (body.contains("\"rec\":\"header\"")) body = body.replaceFirst(",\"start\":\"(attach|premain)\"", "");
            body = "{\"prev\":\"" + prev + "\"" + body.substring("{\"prev\":\"".length() + 64 + 1);
            prev = HexFormat.of().formatHex(sha.digest(body.getBytes(StandardCharsets.UTF_8)));
            out.add(body + ",\"hash\":\"" + prev + "\"}");
        }
        return out;
    }
}
