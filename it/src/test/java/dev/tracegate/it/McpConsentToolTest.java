package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial26 06: a consent tool call that fails records no consent. The consent tool {@code grant_consent} of an MCP server
 * ({@link demoapp.mcp.McpConsentApp}, MCP SDK 2.1.0, forked with the real agent jar and the gdpr library) throws (the
 * consent store is down), then answers an error result (the form was not signed): the newsletter after each is refused
 * by gdpr.P1-consent and {@code register.path} stays empty. Before, the grant was taken at the CALL and the newsletter
 * was sent. The same tool returning normally records the consent, and the newsletter runs.
 */
class McpConsentToolTest {

    @TempDir
    Path dir;

    @Test
    void aConsentToolThatFailsRecordsNoConsent() throws IOException {
        Path library = Files.writeString(dir.resolve("crm.yaml"), """
                library: crm
                gdpr:
                  purposes:
                    marketing: [email]
                  consent-purposes: [marketing]
                  subject-fields: [email]
                  tools:
                    sendNewsletter: [marketing]
                  consent-tools:
                    grant_consent: {subject: email, purposes: purpose}
                """);
        Path audit = dir.resolve("audit.jsonl");
        Path register = dir.resolve("register.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [gdpr, %s]
                audit: {path: %s, personal-data: clear}
                register.path: %s
                """.formatted(library.toAbsolutePath(), audit.toAbsolutePath(), register.toAbsolutePath()));
        String grant = "{\"email\":\"ada@example.com\",\"purpose\":\"marketing\"%s}";
        String newsletter = "{\"email\":\"ada@example.com\"}";
        String cp = ForkedJvm.appClasspath();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(), cp, "demoapp.mcp.McpApp", "calls",
                "grant_consent", grant.formatted(",\"fail\":true"), "sendNewsletter", newsletter,
                "grant_consent", grant.formatted(",\"refuse\":true"), "sendNewsletter", newsletter,
                "grant_consent", grant.formatted(""), "sendNewsletter", newsletter,
                "--", ForkedJvm.java(), ForkedJvm.agent("config=" + config), "-cp", cp, "demoapp.mcp.McpConsentApp");
        assertThat(r.exit()).as(r.toString()).isZero();
        String out = r.stdout();
        assertThat(out).as(r.toString())
                .contains("consent store unavailable")
                .contains("RESULT isError=true: not recorded: the consent form was not signed")
                .contains("SERVER: CONSENT STORED ada@example.com marketing");
        // the newsletter ran once: after the grant that succeeded, not after either failed one
        assertThat(out.split("SERVER: TOOL sendNewsletter ran", -1)).as(r.toString()).hasSize(2);
        assertThat(out.indexOf("SERVER: TOOL sendNewsletter ran")).as(r.toString()).isGreaterThan(out.indexOf("SERVER: CONSENT STORED"));
        assertThat(out.split("tracegate blocked the call to sendNewsletter \\(contract gdpr.P1-consent\\)", -1)).as(r.toString()).hasSize(3);
        // the register file holds the one consent the application stored
        List<String> lines = Files.readAllLines(register);
        assertThat(lines).as(String.join("\n", lines)).hasSize(1);
        assertThat(lines.get(0)).startsWith("{\"op\":\"consent\",\"subject\":\"ada@example.com\",\"purpose\":\"marketing\"");
    }
}
