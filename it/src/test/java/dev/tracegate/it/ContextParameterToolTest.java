package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 01: a tool in Google ADK's standard shape, {@code sendMoney(String recipient, int amount, ToolContext
 * toolContext)}, whose conversation id a {@code session-param} path reads from the context. The context holds the
 * framework's services, whose graph has a cycle: written as an argument it could not be read whole, and under
 * {@code fail: closed} every call was refused. With {@code exclude-params: [toolContext]} the arguments are recipient and
 * amount, the path still gives each conversation its session, and the contracts act: a conversation's second transfer is
 * blocked by a count, another's transfer above the cap by the amount. The real agent jar in a forked JVM.
 */
class ContextParameterToolTest {
    private static final String APP = "demoapp.configured.ContextToolApp";

    @TempDir Path dir;

    @Test
    void aFrameworkContextParameterLeftOutOfTheArgumentsStillGivesTheSession() throws IOException {
        Path library = Files.writeString(dir.resolve("bank.yaml"), """
                library: bank
                contracts:
                  - {id: bank.one-transfer, guarantee: "G(count(sendMoney) <= 1)", message: one transfer per conversation}
                  - {id: bank.cap, guarantee: "G(call(sendMoney) -> arg(sendMoney, amount) <= 1000)", message: a transfer above 1000}
                """);
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                fail: closed
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "demoapp.configured.ContextToolApp$Tools", method: sendMoney, kind: tool, session-param: "toolContext.sessionId", exclude-params: [toolContext]}
                """.formatted(library, audit));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), classpath, APP,
                "s1:bob:100", "s1:eve:50", "s2:cy:5000", "s3:dan:700");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("sendMoney => sent 100 to bob in s1")
                .contains("sendMoney => tracegate blocked the call to sendMoney (contract bank.one-transfer)")
                .contains("sendMoney => tracegate blocked the call to sendMoney (contract bank.cap)")
                .contains("sendMoney => sent 700 to dan in s3")
                .doesNotContain("sent 50 to eve").doesNotContain("sent 5000").doesNotContain("could not check");
        assertThat(r.stderr()).as(r.toString()).doesNotContain("ERROR").doesNotContain("internal error");
        List<String> records = Files.readAllLines(audit);
        List<String> calls = records.stream().filter(l -> l.contains("\"kind\":\"call\"")).toList();
        assertThat(calls).as(String.join("\n", records)).hasSize(4);
        assertThat(calls.get(0)).contains("\"session\":\"s1\"").contains("\"args\":{\"recipient\":\"bob\",\"amount\":100}")
                .contains("\"decision\":\"pass\"");
        assertThat(calls.get(1)).contains("\"session\":\"s1\"").contains("\"decision\":\"block\"");
        assertThat(calls.get(2)).contains("\"session\":\"s2\"").contains("\"amount\":5000").contains("\"decision\":\"block\"");
        assertThat(calls.get(3)).contains("\"session\":\"s3\"").contains("\"decision\":\"pass\"");
        assertThat(String.join("\n", records)).doesNotContain("toolContext").doesNotContain("invocation");
    }
}
