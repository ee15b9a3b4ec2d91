package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consents and erasures of data subjects count across conversations (docs/LIBRARY.md, the GDPR section): a plain
 * application whose privacy and mail methods are configured, run in a forked JVM with the real agent jar. A consent
 * given in a web request (its own session) lets a newsletter in conversation conv-A through; an erasure requested in
 * conv-B blocks the next disclosures in conv-A. With {@code scope: session} each conversation keeps its own, as before.
 */
class SubjectRegisterEndToEndTest {

    /** The application: no import of tracegate; each step prints its number, then what ran and what came back. */
    private static final String APP = """
            package subjects;

            public final class NewsletterApp {
                public static final class Privacy {
                    public void grant(String session, String subject, String purpose) {
                        System.out.println("METHOD grant ran");
                    }

                    public void erase(String session, String subject) {
                        System.out.println("METHOD erase ran");
                    }
                }

                public static final class Mail {
                    public String sendNewsletter(String session, String email) {
                        System.out.println("METHOD sendNewsletter ran");
                        return "sent to " + email;
                    }

                    public String lookup(String session, String email) {
                        System.out.println("METHOD lookup ran");
                        return "profile of " + email;
                    }
                }

                public static void main(String[] args) {
                    Privacy privacy = new Privacy();
                    Mail mail = new Mail();
                    int step = 0;
                    for (String a : args) {
                        String[] p = a.split(":");
                        System.out.println("STEP " + ++step + " " + a);
                        try {
                            switch (p[0]) {
                                case "grant" -> privacy.grant(p[1], p[2], p[3]);
                                case "erase" -> privacy.erase(p[1], p[2]);
                                case "send" -> System.out.println("RESULT " + mail.sendNewsletter(p[1], p[2]));
                                case "lookup" -> System.out.println("RESULT " + mail.lookup(p[1], p[2]));
                                default -> throw new IllegalArgumentException(a);
                            }
                        } catch (RuntimeException e) {
                            System.out.println("THROWN " + e.getMessage());
                        }
                    }
                }
            }
            """;

    private static final String[] SCRIPT = {
        "send:conv-A:ada@example.com",          // 1: no consent yet (P1)
        "grant:web-1:ada@example.com:marketing", // 2: a web request, a session of its own
        "send:conv-A:ada@example.com",          // 3
        "lookup:conv-A:ada@example.com",        // 4
        "erase:conv-B:ada@example.com",         // 5: requested in another conversation
        "send:conv-A:ada@example.com",          // 6
        "lookup:conv-A:ada@example.com",        // 7
        "lookup:conv-A:bob@example.com",        // 8: another subject
    };

    @TempDir
    Path dir;

    @Test
    void aConsentFromAWebRequestCountsInTheConversationAndAnErasureInAnotherConversationBlocksItsDisclosures() throws IOException {
        List<Boolean> ran = run("");
        assertThat(ran).containsExactly(false, true, true, true, true, false, false, true);
    }

    @Test
    void withScopeSessionEachConversationKeepsItsOwnConsentsAndErasures() throws IOException {
        List<Boolean> ran = run("  scope: session\n");
        // 3: the consent was given in web-1, not in conv-A; 6: still no consent there; 7: the erasure was asked in conv-B
        assertThat(ran).containsExactly(false, true, false, true, true, false, true, true);
    }

    /** Per step of {@link #SCRIPT}: whether the application's method ran. */
    private List<Boolean> run(String scopeLine) throws IOException {
        Path classes = compile();
        Path library = Files.writeString(dir.resolve("shop.yaml"), """
                library: shop
                gdpr:
                """ + scopeLine + """
                  purposes:
                    marketing: [email]
                    support: [email]
                  consent-purposes: [marketing]
                  subject-fields: [email]
                  tools:
                    sendNewsletter: [marketing]
                    lookup: [support]
                contracts:
                  - id: shop.no-transfer
                    guarantee: G !call(transfer)
                    message: Transfers are not allowed here.
                """);
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [gdpr, %s]
                audit:
                  path: %s
                configured-methods:
                  - {class: "subjects.NewsletterApp$Privacy", method: grant, kind: consent, session-param: 0, subject-param: 1, purpose-param: 2}
                  - {class: "subjects.NewsletterApp$Privacy", method: erase, kind: erasure, session-param: 0, subject-param: 1}
                  - {class: "subjects.NewsletterApp$Mail", method: "*", kind: tool, session-param: 0}
                """.formatted(library.toAbsolutePath(), dir.resolve("audit.jsonl").toAbsolutePath()));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)),
                classes.toString(), "subjects.NewsletterApp", SCRIPT);
        assertThat(r.exit()).as(r.toString()).isZero();
        List<Boolean> ran = new ArrayList<>();
        String[] steps = r.stdout().split("STEP ");
        for (int i = 1; i < steps.length; i++) ran.add(steps[i].contains("METHOD "));
        assertThat(ran).as(r.toString()).hasSize(SCRIPT.length);
        return ran;
    }

    private Path compile() throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/subjects")).resolve("NewsletterApp.java");
        Files.writeString(src, APP);
        Path out = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = javac.run(null, errors, errors, "--release", "17", "-parameters", "-d", out.toString(), src.toString());
        assertThat(exit).as(errors.toString(StandardCharsets.UTF_8)).isZero();
        return out;
    }
}
