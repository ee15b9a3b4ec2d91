package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 06 and 07, in the shapes of the Anthropic SDK's BetaToolRunner and Google ADK's Functions.callTool (plain Java,
 * demoapp.configured.CommandToolApp): a {@code Supplier<String>#get()} tool whose input is in the fields of the object it
 * is called on ({@code args-param: this}, its conversation by {@code session-param: this.conversation.id}), and a
 * dispatcher that receives the tool object ({@code tool-name: tool.name}). Before session 23 the first had the arguments
 * {@code {}} (the mail to evil ran) and the second could not name its tool. And trial46 05: a dispatcher whose input is
 * the JSON library's tree (the application's own Jackson JsonNode, as the Anthropic SDK's JsonValue) has that JSON's
 * fields as its arguments, through the agent jar's relocated Jackson. The real agent jar in a forked JVM.
 */
class ReceiverAndToolPathTest {
    private static final String APP = "demoapp.configured.CommandToolApp";

    @TempDir Path dir;

    @Test
    void aCommandObjectsFieldsAreItsArgumentsAndADispatcherNamesEachTool() throws IOException {
        Path library = Files.writeString(dir.resolve("lib.yaml"), """
                library: t
                contracts:
                  - {id: t.no-evil, guarantee: 'G !call(send_email, "evil")', message: not to evil}
                  - {id: t.one-lookup, guarantee: "G(count(lookup) <= 1)", message: one lookup per conversation}
                  - {id: t.cap, guarantee: "G(call(pay) -> arg(pay, amount) <= 50)", message: a payment above 50}
                """);
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                fail: closed
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "demoapp.configured.CommandToolApp$SendEmail", method: get, kind: tool, tool-name: send_email, args-param: this, session-param: this.conversation.id}
                  - {class: "demoapp.configured.CommandToolApp$Functions", method: callTool, kind: tool, tool-name: tool.name, args-param: args, session-param: ctx.sessionId}
                  - {class: "demoapp.configured.CommandToolApp$Loop", method: dispatch, kind: tool, tool-name: tool, session-param: conversationId, args-param: input}
                """.formatted(library, audit));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath()
                + java.io.File.pathSeparator + ForkedJvm.appClasspath();   // the application's own Jackson
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), classpath, APP,
                "c1:send_email:to=ada@example.com,body=hi", "c1:send_email:to=eve@evil.example,body=hi",
                "A:lookup:customer=ada", "A:lookup:customer=bob", "B:lookup:customer=cy",
                "c2:pay:{\"recipient\":\"DE89\",\"amount\":90}", "c2:pay:{\"recipient\":\"DE89\",\"amount\":10}");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("send_email => sent to ada@example.com")
                .contains("send_email => tracegate blocked the call to send_email (contract t.no-evil)")
                .contains("lookup => customer ada").contains("lookup => customer cy")
                .contains("lookup => tracegate blocked the call to lookup (contract t.one-lookup)")
                .contains("pay => tracegate blocked the call to pay (contract t.cap)").contains("pay => paid 10 to DE89")
                .doesNotContain("sent to eve").doesNotContain("customer bob").doesNotContain("paid 90");
        assertThat(r.stderr()).as(r.toString()).doesNotContain("ERROR").doesNotContain("takes no parameters");
        List<String> records = Files.readAllLines(audit);
        List<String> calls = records.stream().filter(l -> l.contains("\"kind\":\"call\"")).toList();
        assertThat(calls).as(String.join("\n", records)).hasSize(7);
        assertThat(calls.get(0)).contains("\"session\":\"c1\"").contains("\"tool\":\"send_email\"")
                .contains("\"args\":{\"to\":\"ada@example.com\",\"body\":\"hi\",\"conversation\":{\"key\":\"c1\"}}");
        assertThat(calls.get(1)).contains("\"session\":\"c1\"").contains("\"decision\":\"block\"");
        assertThat(calls.get(2)).contains("\"session\":\"A\"").contains("\"tool\":\"lookup\"").contains("\"args\":{\"customer\":\"ada\"}");
        assertThat(calls.get(3)).contains("\"session\":\"A\"").contains("\"tool\":\"lookup\"").contains("\"decision\":\"block\"");
        assertThat(calls.get(4)).contains("\"session\":\"B\"").contains("\"tool\":\"lookup\"").contains("\"decision\":\"pass\"");
        assertThat(calls.get(5)).contains("\"session\":\"c2\"").contains("\"tool\":\"pay\"")
                .contains("\"args\":{\"recipient\":\"DE89\",\"amount\":90}").contains("\"decision\":\"block\"");
        assertThat(calls.get(6)).contains("\"args\":{\"recipient\":\"DE89\",\"amount\":10}").contains("\"decision\":\"pass\"");
    }
}
