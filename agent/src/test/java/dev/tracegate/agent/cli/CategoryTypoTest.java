package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code check} notes a data category in {@code gdpr.purposes} that is no built-in one and no field map gives (trial9
 * repro category-typo-no-note: {@code marketing: [emial]} passed check silently, and every newsletter carrying an
 * e-mail address was then excess data). What the note says happens is checked with replay: the same call is a P3
 * violation under the misspelt category and none under the built-in one.
 */
class CategoryTypoTest {
    @TempDir Path dir;

    private Path policy(String name, String categories, String fields) throws Exception {
        return Files.writeString(dir.resolve(name + ".yaml"), "library: " + name + "\ngdpr:\n  purposes: {marketing: [" + categories + "]}\n"
                + "  consent-purposes: none\n  subject-fields: [email]\n  tools: {send_newsletter: [marketing]}\n" + fields);
    }

    @Test
    void aMisspeltCategoryIsNotedWithTheBuiltInItIsCloseTo() throws Exception {
        Path typo = policy("typo", "emial", "");
        CliRun check = CliRun.of("check", "gdpr", typo.toString());
        assertThat(check.code()).as("a note, not a finding").isZero();
        assertThat(check.out()).contains("note: " + typo + ": gdpr.purposes.marketing names category 'emial', which is no built-in category")
                .contains("Did you mean 'email'?");

        Path right = policy("right", "email", "");
        assertThat(CliRun.of("check", "gdpr", right.toString()).out()).doesNotContain("no built-in category");
        Path own = policy("own", "biometric", "  fields: {send_newsletter: {scan: biometric}}\n");
        assertThat(CliRun.of("check", "gdpr", own.toString()).out()).as("a category of its own, given a field").doesNotContain("no built-in category");
        Path unmapped = policy("unmapped", "biometric", "");
        assertThat(CliRun.of("check", "gdpr", unmapped.toString()).out()).contains("names category 'biometric'").doesNotContain("Did you mean");

        // what the note says: an e-mail address in a marketing call is excess data under the misspelt category only
        Path trace = Files.writeString(dir.resolve("t.jsonl"),
                "{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"send_newsletter\",\"args\":{\"email\":\"ada@example.com\"}}\n");
        assertThat(CliRun.of("replay", "gdpr," + typo, trace.toString(), "--no-progress").out()).contains("gdpr.P3-minimisation: violated");
        assertThat(CliRun.of("replay", "gdpr," + right, trace.toString(), "--no-progress").out()).doesNotContain("P3-minimisation: violated");
    }
}
