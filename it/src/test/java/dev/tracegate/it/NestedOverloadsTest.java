package dev.tracegate.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code nested: true} on an entry whose overloads delegate to each other (trial30 04): one dispatch through
 * {@code invoke(name, json)}, which calls {@code invoke(name, map)}, is one tool call (one CALL, one RETURN), so
 * {@code G(count(email) <= 1)} lets the first e-mail through and refuses the second; a different tool dispatched from
 * inside a supervised tool ({@code payBill} dispatching {@code transfer}) is still checked and blocked, which is what
 * {@code nested: true} is for. With {@code debug: true} each overload's {@code instrumenting} line names its parameter
 * types, and a second line the entry it was woven under (trial30 07: two identical lines). The real agent jar in a forked
 * JVM runs demoapp.configured.DispatcherApp.
 */
class NestedOverloadsTest {
    private static final String APP = "demoapp.configured.DispatcherApp";

    @TempDir static Path dir;
    static ForkedJvm.Result r;
    static Path audit;

    @BeforeAll
    static void runTheDispatcher() throws IOException {
        Path library = Files.writeString(dir.resolve("mail.yaml"), """
                library: mail
                contracts:
                  - {id: mail.one-email, guarantee: "G(count(email) <= 1)", message: one e-mail per conversation}
                  - {id: mail.no-transfer, guarantee: "G !call(transfer)", message: no transfers}
                """);
        audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                debug: true
                configured-methods:
                  - {class: "demoapp.configured.DispatcherApp$Dispatcher", method: invoke, kind: tool, tool-name: 0, args-param: 1, nested: true}
                """.formatted(library, audit));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), classpath, APP,
                "email:json", "payBill:map", "email:map");
    }

    @Test
    void debugSaysWhichOverloadWasWovenAndUnderWhichEntry() {
        String d = "demoapp.configured.DispatcherApp$Dispatcher#invoke(String, ";
        assertThat(r.stderr()).as(r.toString())
                .contains("DEBUG instrumenting " + d + "String)").contains("DEBUG instrumenting " + d + "Map)")
                .contains("DEBUG " + d + "String) is woven as a tool under configured-methods entry " + dir.resolve("tracegate.yaml") + ":5:")
                .contains("DEBUG " + d + "Map) is woven as a tool under configured-methods entry " + dir.resolve("tracegate.yaml") + ":5:");
    }

    @Test
    void anOverloadsDelegationIsOneCallAndAnotherToolsDispatchInsideIsChecked() throws IOException {
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("email => sent mail to a@b.c")
                .contains("payBill => paid bill B-7: tracegate blocked the call to transfer (contract mail.no-transfer)")
                .contains("email => tracegate blocked the call to email (contract mail.one-email)");
        List<String> records = Files.readAllLines(audit);
        List<String> calls = records.stream().filter(l -> l.contains("\"kind\":\"call\"")).toList();
        assertThat(calls).as(String.join("\n", records)).hasSize(4);
        assertThat(calls.get(0)).contains("\"tool\":\"email\"").contains("\"decision\":\"pass\"");
        assertThat(calls.get(1)).contains("\"tool\":\"payBill\"").contains("\"decision\":\"pass\"");
        assertThat(calls.get(2)).contains("\"tool\":\"transfer\"").contains("\"decision\":\"block\"");
        assertThat(calls.get(3)).contains("\"tool\":\"email\"").contains("\"decision\":\"block\"");
        List<String> returns = records.stream().filter(l -> l.contains("\"kind\":\"return\"")).toList();
        assertThat(returns).as(String.join("\n", records)).hasSize(2);
        assertThat(returns.get(0)).contains("\"tool\":\"email\"").contains("sent mail to a@b.c");
        assertThat(returns.get(1)).contains("\"tool\":\"payBill\"");
    }
}
