package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A LangChain4j 1.19.0 tool that returns several contents ({@code List<Content>}: a text and an image, two texts) is read
 * as the user-message path reads a message of several contents: its texts one a line, an image as {@code [image <url>]}
 * (an address the provider fetches can carry data). The result is checked, recorded as the RETURN, and withheld as a whole
 * when an assumption says so. Before (trial47 01), {@code resultText()} threw in the advice: an internal error, so under
 * {@code fail: open} the model got the result unchecked and unrecorded, and under {@code fail: closed} every such result,
 * harmless ones too, was refused with no RETURN record. Real LangChain4j in a forked JVM; the application
 * (demoapp.langchain4j.ToolResultContentsApp) imports nothing of tracegate.
 */
class LangChain4jToolResultContentsTest {
    private static final String APP = "demoapp.langchain4j.ToolResultContentsApp";
    private static final String NOTICE = "[tracegate] This tool result was withheld (res.withhold): a secret in a tool result";

    @TempDir
    Path dir;

    private ForkedJvm.Result run(String fail, Path audit) throws IOException {
        Path library = dir.resolve("withhold.yaml");
        Files.writeString(library, String.join("\n",
                "tracegate: 1",
                "library: res",
                "contracts:",
                "  - id: res.withhold",
                "    assume: G !result_matches(\"SECRET\")",
                "    guarantee: G(assistant -> !output_matches(\"SECRET\"))",
                "    message: a secret in a tool result",
                ""));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("fail=" + fail + ",libraries=" + library
                + ",audit.path=" + audit + ",audit.personal-data=clear")), ForkedJvm.appClasspath(), APP, "withImage", "twoTexts", "fineContents");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("DONE").doesNotContain("EXCEPTION");
        return r;
    }

    private static String returnRecord(List<String> audit, String tool) {
        return audit.stream().filter(l -> l.contains("\"kind\":\"return\",\"tool\":\"" + tool + "\"")).findFirst().orElse("(no RETURN of " + tool + ")");
    }

    private void assertCheckedRecordedAndWithheld(String fail) throws IOException {
        Path audit = dir.resolve("audit-" + fail + ".jsonl");
        ForkedJvm.Result r = run(fail, audit);
        String out = r.stdout();
        // the image's URL carries the secret: the whole result is withheld, its text and its image
        assertThat(out).as(r.toString()).contains("MODEL SAW withImage: text:" + NOTICE + "; \n")
                .contains("MODEL SAW twoTexts: text:" + NOTICE + "; \n")
                .doesNotContain("SECRET-TOKEN-42");
        // a harmless result of several contents reaches the model as it came
        assertThat(out).as(r.toString()).contains("MODEL SAW fineContents: text:order 7: shipped; image:https://shop.example/logo.png; \n");
        assertThat(r.stderr()).as(r.toString()).doesNotContain("internal error")
                .contains("SUPPRESS langchain4j session=u-withImage tool=withImage contract=res.withhold")
                .contains("SUPPRESS langchain4j session=u-twoTexts tool=twoTexts contract=res.withhold");

        List<String> lines = Files.readAllLines(audit);
        assertThat(returnRecord(lines, "withImage")).as(String.join("\n", lines))
                .contains("\"result\":\"order 7: fine\\n[image https://images.example/p.png?d=SECRET-TOKEN-42]\"");
        assertThat(returnRecord(lines, "twoTexts")).as(String.join("\n", lines))
                .contains("\"result\":\"order 7: fine\\nnote: SECRET-TOKEN-42\"");
        assertThat(returnRecord(lines, "fineContents")).as(String.join("\n", lines))
                .contains("\"result\":\"order 7: shipped\\n[image https://shop.example/logo.png]\"")
                .contains("\"decision\":\"pass\"");
    }

    @Test
    void aResultOfSeveralContentsIsCheckedRecordedAndWithheldWholeUnderFailOpen() throws IOException {
        assertCheckedRecordedAndWithheld("open");
    }

    @Test
    void underFailClosedAHarmlessResultOfSeveralContentsIsNotRefused() throws IOException {
        assertCheckedRecordedAndWithheld("closed");
    }
}
