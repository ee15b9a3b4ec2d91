package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A vendor agent whose tools take a context object (conversation id in a field, no toString()) and a record (trial30 01,
 * 02, 08), with the real agent jar in a forked JVM: {@code session-param: "0.sessionId"} gives each conversation its own
 * session, so {@code G(count(lookup) <= 1)} lets each conversation's first look-up through; {@code args-param} naming the
 * record gives its fields as the arguments, so the cap {@code arg(transfer, amount) <= 1000} passes 500 and blocks 5000;
 * {@code tool-name: 0} naming the context object is an ERROR when woven and the tool is named after the method, so
 * {@code G !call(wire)} cannot be escaped by an identity name.
 */
class VendorContextTest {
    private static final String APP = "demoapp.configured.VendorCtxApp";

    @TempDir Path dir;

    @Test
    void aContextFieldIsTheSessionARecordsFieldsAreTheArgumentsAndAContextIsNoToolName() throws IOException {
        Path library = Files.writeString(dir.resolve("vendor.yaml"), """
                library: vendor
                contracts:
                  - {id: vendor.one-lookup, guarantee: "G(count(lookup) <= 1)", message: one look-up per conversation}
                  - {id: vendor.cap, guarantee: "G(call(transfer) -> arg(transfer, amount) <= 1000)", message: a transfer above 1000}
                """);
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "demoapp.configured.VendorCtxApp$Crm", method: lookupCustomer, kind: tool, tool-name: lookup, session-param: "0.sessionId", args-param: 1}
                  - {class: "demoapp.configured.VendorCtxApp$Bank", method: transfer, kind: tool, tool-name: 0, session-param: "ctx.sessionId", args-param: req}
                """.formatted(library, audit));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), classpath, APP,
                "lookup:s1:c1", "lookup:s2:c2", "transfer:s1:500", "transfer:s2:5000");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("lookup => customer c1").contains("lookup => customer c2")
                .contains("transfer => transferred 500 to bob")
                .contains("transfer => tracegate blocked the call to transfer (contract vendor.cap)");
        assertThat(r.stderr()).as(r.toString()).contains("ERROR configured method demoapp.configured.VendorCtxApp$Bank#transfer (" + config
                + ":5:5): tool-name 0 is a demoapp.configured.VendorCtxApp$Ctx, not text or an enum, so it cannot name the tool");
        List<String> records = Files.readAllLines(audit);
        List<String> calls = records.stream().filter(l -> l.contains("\"kind\":\"call\"")).toList();
        assertThat(calls).as(String.join("\n", records)).hasSize(4);
        assertThat(calls.get(0)).contains("\"session\":\"s1\"").contains("\"tool\":\"lookup\"").contains("\"decision\":\"pass\"");
        assertThat(calls.get(1)).contains("\"session\":\"s2\"").contains("\"tool\":\"lookup\"").contains("\"decision\":\"pass\"");
        assertThat(calls.get(2)).contains("\"session\":\"s1\"").contains("\"tool\":\"transfer\"").contains("\"amount\":500")
                .contains("\"decision\":\"pass\"").doesNotContain("\"value\"");
        assertThat(calls.get(3)).contains("\"session\":\"s2\"").contains("\"tool\":\"transfer\"").contains("\"decision\":\"block\"");
        assertThat(String.join("\n", records)).doesNotContain("$Ctx@");
    }
}
