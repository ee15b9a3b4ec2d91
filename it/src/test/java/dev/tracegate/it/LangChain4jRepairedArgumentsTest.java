package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial43 01: LangChain4j repairs tool arguments that are not strict JSON (a trailing comma; the object given as a JSON
 * string) and runs the tool with them; tracegate kept them as {@code _raw}, so under the injection library's
 * provenance mode an injected send passed ("a call without targets is not untrusted") and an unscoped
 * {@code arg(amount) > 100} bound was false. Now the arguments are read as LangChain4j reads them, and arguments that
 * nobody can read make the atoms that read them unevaluable (refused under {@code fail: closed}). A real LangChain4j
 * AI service in a forked JVM under the built agent jar; its replay gives the same verdicts.
 */
class LangChain4jRepairedArgumentsTest {

    private static final String APP = "demoapp.langchain4j.RepairedArgumentsApp";

    @TempDir
    Path dir;

    @Test
    void repairedArgumentsAreJudgedAsTheToolGetsThemAndUnreadableOnesAreRefused() throws Exception {
        Path audit = dir.resolve("audit.jsonl");
        Path policy = Files.writeString(dir.resolve("pol.yaml"), String.join("\n",
                "library: pol",
                "injection:",
                "  side-effecting:",
                "    send_email: [to]",
                "  provenance:",
                "    whole-fields: true",
                "contracts:",
                "  - id: pol.amount-cap",
                "    guarantee: G(call(pay) -> !(arg(amount) > 100))",
                "    message: Payments above 100 need a person.", ""));
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), String.join("\n",
                "libraries: [injection, pol.yaml]",
                "audit.path: audit.jsonl",
                "audit.personal-data: clear", ""));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), ForkedJvm.appClasspath(), APP,
                "send_email", "{\"to\":\"attacker@evil.example\",\"body\":\"hi\",}",                       // c1: trailing comma
                "send_email", "\"{\\\"to\\\":\\\"attacker@evil.example\\\",\\\"body\\\":\\\"hi\\\"}\"",   // c2: the object as a JSON string
                "pay", "{\"to\":\"bob\",\"amount\":5000,}",                                              // c3: over the bound
                "pay", "{\"to\":\"bob\",\"amount\":50,}",                                                // c4: within it
                "send_email", "{\"to\":\"bob@corp.example\",\"body\":\"hi\",}",                          // c5: a target no output gave
                "send_email", "{\"to\":\"attacker@evil.example\",,\"body\":\"hi\"}");                     // c6: nobody can read it
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString())
                .contains("c1 TOOL read_invoice ran id=7").contains("c6 TOOL read_invoice ran id=7")
                .doesNotContain("c1 TOOL send_email ran").doesNotContain("c2 TOOL send_email ran").doesNotContain("c3 TOOL pay ran")
                .contains("c1 MODEL SAW TOOL RESULT send_email: tracegate blocked the call to send_email (contract injection.untrusted-target)")
                .contains("c2 MODEL SAW TOOL RESULT send_email: tracegate blocked the call to send_email (contract injection.untrusted-target)")
                .contains("c3 MODEL SAW TOOL RESULT pay: tracegate blocked the call to pay (contract pol.amount-cap)")
                // the controls: repaired arguments that keep the contracts run, with what LangChain4j repaired
                .contains("c4 TOOL pay ran to=bob amount=50")
                .contains("c5 TOOL send_email ran to=bob@corp.example body=hi")
                .doesNotContain("c6 TOOL send_email ran");

        Map<String, JsonNode> calls = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(audit)) {
            JsonNode rec = json.readTree(line);
            if ("event".equals(rec.path("rec").asText()) && "call".equalsIgnoreCase(rec.path("kind").asText())
                    && !"read_invoice".equals(rec.path("tool").asText())) {
                calls.put(rec.path("session").asText(), rec);
            }
        }
        assertThat(calls.keySet()).as(r.toString()).containsExactly("c1", "c2", "c3", "c4", "c5", "c6");
        // the record holds the arguments as the tool gets them, so a replay judges those
        assertThat(calls.get("c1").path("args").path("to").asText()).isEqualTo("attacker@evil.example");
        assertThat(calls.get("c2").path("args").path("to").asText()).isEqualTo("attacker@evil.example");
        assertThat(calls.get("c3").path("args").path("amount").asInt()).isEqualTo(5000);
        for (String c : List.of("c1", "c2", "c3")) assertThat(calls.get(c).path("decision").asText()).as(c).isEqualTo("block");
        for (String c : List.of("c4", "c5")) assertThat(calls.get(c).path("decision").asText()).as(c).isEqualTo("pass");
        // unreadable: kept raw, and refused as unevaluable (fail: closed) by both contracts that read an argument
        assertThat(calls.get("c6").path("args").path("_raw").asText()).isEqualTo("{\"to\":\"attacker@evil.example\",,\"body\":\"hi\"}");
        assertThat(calls.get("c6").path("decision").asText()).as(calls.get("c6").toString()).isEqualTo("block");
        assertThat(calls.get("c6").toString()).contains("injection.untrusted-target");

        // replay of the log (raw arguments included) finds the same first violations, session for session
        List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(),
                "replay", "injection," + policy, audit.toString(), "--format", "json"));
        ForkedJvm.Result replay = ForkedJvm.exec(command);
        assertThat(replay.exit()).as(replay.toString()).isEqualTo(1);
        Map<String, String> offline = new TreeMap<>();
        for (JsonNode s : json.readTree(replay.stdout()).get("sessions")) {
            for (JsonNode c : s.get("contracts")) {
                JsonNode first = c.get("firstViolation");
                if (first != null && !first.isNull()) offline.put(s.get("session").asText() + "/" + c.get("id").asText(), first.asText());
            }
        }
        Map<String, String> online = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : calls.entrySet()) {
            for (JsonNode f : e.getValue().path("fired")) online.put(e.getKey() + "/" + f.asText(), e.getValue().path("seq").asText());
        }
        assertThat(online).containsKeys("c1/injection.untrusted-target", "c2/injection.untrusted-target", "c3/pol.amount-cap",
                "c6/injection.untrusted-target");
        Map<String, String> offlineSeqs = new TreeMap<>();
        offline.forEach((k, v) -> offlineSeqs.put(k, v.replaceAll(".*\\(seq (\\d+),.*", "$1")));
        assertThat(offlineSeqs).as(replay.stdout()).isEqualTo(online);
    }
}
