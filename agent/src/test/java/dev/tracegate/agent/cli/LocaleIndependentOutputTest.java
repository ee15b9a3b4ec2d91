package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the command line writes does not depend on the JVM's default locale (trial27 07: under a Turkish locale the
 * event kind in replay's report was lower-cased with the dotless i, {@code "t.jsonl:2 (seq 2, assıstant)"}, and under
 * a German one the text report's time read {@code 0,14 s}). Each run sets the default locale as a JVM on such a
 * desktop gets it, and compares with the run under en-US.
 */
class LocaleIndependentOutputTest {
    @TempDir Path dir;

    @Test
    void replayReportsAndImportedTracesAreTheSameBytesUnderTurkishAndGerman() throws Exception {
        Path lib = Files.writeString(dir.resolve("l.yaml"), "library: l\ncontracts:\n  - id: l.no-output\n    guarantee: G !assistant\n    message: m\n"
                + "  - id: l.no-send\n    guarantee: G !call(send_email)\n    message: m\n");
        Path trace = Files.writeString(dir.resolve("t.jsonl"), "{\"session\":\"s\",\"kind\":\"user\",\"text\":\"hi\"}\n"
                + "{\"session\":\"s\",\"kind\":\"assistant\",\"text\":\"hello\"}\n"
                + "{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"send_email\",\"args\":{\"to\":\"x\"}}\n");
        Path log = Files.writeString(dir.resolve("chat.json"), """
                [{"role":"user","content":"Write to Iris"},
                 {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
                   "function":{"name":"send_email","arguments":"{\\"to\\":\\"iris@example.com\\"}"}}]},
                 {"role":"tool","tool_call_id":"c1","content":"sent"},
                 {"role":"assistant","content":"Done"}]
                """);
        String[] reference = outputs(Locale.US, lib, trace, log);
        assertThat(reference[0]).contains("\"firstViolation\" : \"t.jsonl:2 (seq 2, assistant)\"");
        assertThat(reference[2]).contains("\"kind\":\"assistant\"");
        for (Locale l : new Locale[] {Locale.forLanguageTag("tr-TR"), Locale.GERMANY, Locale.forLanguageTag("th-TH-u-nu-thai")}) {
            String[] got = outputs(l, lib, trace, log);
            assertThat(got[0]).as("JSON report under " + l).isEqualTo(reference[0]);
            assertThat(got[1]).as("text report under " + l).containsPattern("\n3 events in 1 sessions, .*, [0-9]+\\.[0-9][0-9] s \\([0-9]+ events/s\\)\n");
            assertThat(untimed(got[1])).as("text report under " + l).isEqualTo(untimed(reference[1]));
            assertThat(got[2]).as("imported trace under " + l).isEqualTo(reference[2]);
        }
    }

    /** The text report without its last line's time taken (which differs from run to run). */
    private static String untimed(String text) {
        return text.replaceAll(", [^,]* s \\([^)]*events/s\\)\n", ", TIME\n");
    }

    /** The JSON report, the text report and the imported trace, under {@code locale}. */
    private String[] outputs(Locale locale, Path lib, Path trace, Path log) throws Exception {
        Locale before = Locale.getDefault();
        try {
            Locale.setDefault(locale);
            CliRun json = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress", "--format", "json");
            CliRun text = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress");
            Path out = dir.resolve("chat-" + locale.toLanguageTag() + ".jsonl");
            CliRun imported = CliRun.of("import", "openai-messages", log.toString(), "--out", out.toString());
            assertThat(imported.code()).as(imported.err()).isZero();
            return new String[] {json.out().replaceAll("\"seconds\" : .*", ""),
                    text.out(), Files.readString(out)};
        } finally {
            Locale.setDefault(before);
        }
    }
}
