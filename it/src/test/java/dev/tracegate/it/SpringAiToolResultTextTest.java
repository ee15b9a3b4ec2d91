package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring AI {@code @Tool} that returns a {@code String}: Spring AI's default converter hands it to the model as a JSON
 * string ({@code "cancelled B1"}, quotes and all); its RETURN is judged and recorded as the text it encodes, so an
 * anchored {@code result_matches} acts on the tool's text, for withholding a result (an assumption) and for blocking a
 * later call (a guarantee). Before, the RETURN held the quoted JSON and neither pattern ever matched.
 * demoapp.springai.SubAgentApp: the sub-agent's {@code cancelBooking} of B1, B2, B3 in one round.
 */
class SpringAiToolResultTextTest {

    private static final String LIBRARY = String.join("\n",
            "tracegate: 1",
            "library: results",
            "contracts:",
            "  - id: results.withhold-b1",
            "    assume: G !result_matches(cancelBooking, \"^cancelled B1$\")",
            "    guarantee: G true",
            "    message: B1 is not to be shown.",
            "  - id: results.stop-after-b2",
            "    guarantee: G(call(cancelBooking) -> !O result_matches(cancelBooking, \"^cancelled B2$\"))",
            "    message: Nothing is cancelled after B2.",
            "");

    @TempDir
    Path dir;

    private void check(String line, String name, String... args) throws IOException {
        Path library = Files.writeString(dir.resolve("results.yaml"), LIBRARY);
        Path audit = dir.resolve(name + ".jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear")),
                line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-" + line),
                "demoapp.springai.SubAgentApp", args);
        String what = line + " " + name + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        // B1's result withheld (the notice replaces it whole), B2's as Spring AI sent it (JSON), B3 blocked
        assertThat(r.stdout()).as(what)
                .contains("TOOL cancelBooking ran booking=B1")
                .contains("TOOL cancelBooking ran booking=B2")
                .doesNotContain("TOOL cancelBooking ran booking=B3")
                .contains("\"cancelled B2\"")
                .doesNotContain("\"cancelled B1\"")
                .contains("(results.withhold-b1)");
        assertThat(r.stderr()).as(what)
                .contains("SUPPRESS springai session=trip-sub tool=cancelBooking contract=results.withhold-b1")
                .contains("BLOCK springai session=trip-sub tool=cancelBooking contract=results.stop-after-b2");
        // the audit log holds the text the tool returned (what was judged), so a replay decides the same
        List<String> results = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String text : Files.readAllLines(audit)) {
            JsonNode e = json.readTree(text);
            if ("return".equals(e.path("kind").asText()) && "cancelBooking".equals(e.path("tool").asText())) {
                results.add(e.path("result").asText() + " " + e.path("decision").asText());
            }
        }
        assertThat(results).as(what).containsExactly("cancelled B1 suppress", "cancelled B2 pass");
    }

    @Test
    void aStringResultIsJudgedAsTheTextItsJsonStringEncodesBlocking() throws IOException {
        check("2.0.1", "blocking");
    }

    @Test
    void aStringResultIsJudgedAsTheTextItsJsonStringEncodesStreamed() throws IOException {
        check("2.0.1", "streamed", "--stream");
    }

    @Test
    void aStringResultIsJudgedAsTheTextItsJsonStringEncodesOn11() throws IOException {
        check("1.1.2", "v11", "--tool-advisor");
    }
}
