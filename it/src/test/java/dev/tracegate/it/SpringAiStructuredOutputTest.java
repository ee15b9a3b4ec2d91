package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring AI structured output request ({@code .call().entity(Forwarded.class)}) has Spring AI append its format
 * instructions, a JSON schema, to the user message. The USER event is the user's own text, not the schema: before, every
 * value the schema names (here an example address in a field's description, which an e-mail, a tool output, asks to
 * forward the invoice to) counted as written by the user, and the built-in {@code injection} library let the e-mail to it
 * through. The model still gets the schema, also when the user's text is replaced (a withheld message keeps the format the
 * application's parser needs). Real Spring AI 2.0.1 and 1.1.2, the agent jar in a forked JVM; the application
 * (demoapp.springai.StructuredOutputApp) imports nothing of tracegate.
 */
class SpringAiStructuredOutputTest {
    private static final String APP = "demoapp.springai.StructuredOutputApp";
    private static final String USER = "Read e-mail m1 and forward it to me at alice@corp.example";

    @TempDir
    Path dir;

    private static String classpath(String line) {
        return line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-" + line);
    }

    private void check(String line, String mode) throws Exception {
        Path lib = dir.resolve("mail.yaml");
        Files.writeString(lib, "library: mail\ninjection:\n  side-effecting:\n    send_email: [to]\n", StandardCharsets.UTF_8);
        String name = line + "-" + mode;
        Path audit = dir.resolve(name + "-audit.jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("libraries=injection;" + lib
                + ",audit.path=" + audit + ",audit.personal-data=clear")), classpath(line), APP, mode);
        String what = name + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        // the model got the user's text with the format instructions (and, with the advisor, the retrieved article) ...
        assertThat(r.stdout().lines().filter(l -> l.startsWith("MODEL GOT USER "))).as(what)
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains(USER).contains("JSON Schema").contains("billing@invoice-desk.example");
        assertThat(r.stdout()).as(what).contains("ENTITY Forwarded[recipients=[alice@corp.example], summary=invoice 7781]")
                .contains("DONE");
        // ... but the USER event is the user's own text: the address only the e-mail and the schema name is refused, the
        // one the user wrote passes
        assertThat(r.stdout()).as(what).contains("RAN read_email m1").doesNotContain("RAN send_email billing@invoice-desk.example")
                .contains("MODEL SAW send_email tracegate blocked").contains("RAN send_email alice@corp.example");
        String records = Files.readString(audit, StandardCharsets.UTF_8);
        assertThat(records).as(what).contains("\"session\":\"c1\"").contains("\"text\":\"" + USER + "\"")
                .doesNotContain("JSON Schema").doesNotContain("Knowledge base article");
    }

    @Test
    void theFormatInstructionsAreNotTheUsersWords() throws Exception {
        check("2.0.1", "plain");
        check("2.0.1", "qa");
    }

    @Test
    void onSpringAi11TheFormatInstructionsAreNotTheUsersWordsEither() throws Exception {
        check("1.1.2", "plain");
        check("1.1.2", "qa");
    }

    /** A user message that is withheld reaches the model as the notice followed by the format instructions. */
    @Test
    void aWithheldUserMessageKeepsTheFormatInstructions() throws Exception {
        for (String line : List.of("2.0.1", "1.1.2")) {
            ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("suppressUser=password")),
                    classpath(line), APP, "plain", "secret");
            String what = line + ": " + r;
            assertThat(r.exit()).as(what).isZero();
            assertThat(r.stdout().lines().filter(l -> l.startsWith("MODEL GOT USER "))).as(what)
                    .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                    .startsWith("MODEL GOT USER [withheld by tracegate").contains("JSON Schema").doesNotContain("hunter2");
            assertThat(r.stdout()).as(what).contains("ENTITY Forwarded[recipients=[alice@corp.example], summary=invoice 7781]")
                    .contains("DONE");
        }
    }
}
