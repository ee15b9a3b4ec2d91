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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How configured consent, erasure and tool methods are read (trial17), in a forked JVM with the real agent jar and an
 * application that never imports tracegate: a grant counts only when its method returns normally; a null subject or an
 * application object as subject records nothing (with an ERROR, and a WARN when the method is woven); an enum purpose
 * counts by its name, not its toString(); the session parameter is no tool data (never redacted, never personal data
 * for P2); a redacted Optional parameter arrives empty; a session parameter whose toString() is Object's is warned about.
 */
class ConsentMethodsEndToEndTest {

    private static final String APP = """
            package consents;

            import java.util.Optional;

            public final class PrivacyApp {
                public enum Purpose {
                    MARKETING("Marketing e-mails");
                    private final String label;
                    Purpose(String label) { this.label = label; }
                    @Override public String toString() { return label; }   // the consent form's label
                }

                public record Customer(String email, String name) { }

                public static final class Req {   // a request object without its own toString()
                    final String conversation;
                    Req(String conversation) { this.conversation = conversation; }
                }

                public static final class Privacy {
                    public void grant(String session, String subject, String purpose) {
                        if (subject.startsWith("bob")) throw new IllegalStateException("form not signed");
                    }
                    public void grantAnonymous(String subject, String purpose) { }
                    public void grantEnum(String session, String subject, Purpose purpose) { }
                    public void withdrawEnum(String session, String subject, Purpose purpose) { }
                    public void forget(String session, Customer customer) { }
                }

                public static final class Mail {
                    public String sendNewsletter(String session, String email) { return "newsletter to " + email; }
                }

                public static final class Shop {
                    public String weather(String session, String city) { return "sunny in " + city + " for " + session; }
                    public String note(String session, String email, Optional<String> memo) { return "memo " + memo.orElse("(none)"); }
                    public String search(Req req, String q) { return "hits for " + q; }
                }

                public static void main(String[] args) {
                    Privacy privacy = new Privacy();
                    Mail mail = new Mail();
                    Shop shop = new Shop();
                    step("bob-grant-threw", () -> { privacy.grant("web-1", "bob@example.com", "marketing"); return "granted"; });
                    step("bob-newsletter", () -> mail.sendNewsletter("conv-A", "bob@example.com"));
                    step("null-grant", () -> { privacy.grantAnonymous(null, "marketing"); return "granted"; });
                    step("blank-grant", () -> { privacy.grantAnonymous(" ", "marketing"); return "granted"; });
                    step("cy-newsletter", () -> mail.sendNewsletter("default", "cy@example.com"));
                    step("ada-grant-enum", () -> { privacy.grantEnum("web-2", "ada@example.com", Purpose.MARKETING); return "granted"; });
                    step("ada-newsletter", () -> mail.sendNewsletter("conv-B", "ada@example.com"));
                    step("ada-withdraw-enum", () -> { privacy.withdrawEnum("web-3", "ada@example.com", Purpose.MARKETING); return "withdrawn"; });
                    step("ada-newsletter-after", () -> mail.sendNewsletter("conv-B", "ada@example.com"));
                    step("forget-record", () -> { privacy.forget("web-4", new Customer("di@example.com", "Di")); return "forgotten"; });
                    step("weather", () -> shop.weather("eve@example.com", "Leeds"));
                    step("note", () -> shop.note("s1", "eve@example.com", Optional.of("pay to DE89370400440532013000")));
                    step("search", () -> shop.search(new Req("conv-1"), "q1"));
                }

                private static void step(String name, java.util.function.Supplier<String> body) {
                    try {
                        System.out.println("STEP " + name + " = " + body.get());
                    } catch (RuntimeException e) {
                        System.out.println("STEP " + name + " ! " + e);
                    }
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void consentsSubjectsPurposesAndSessionsAreReadAsTheHostMeantThem() throws IOException {
        Path classes = compile();
        Path library = Files.writeString(dir.resolve("shop.yaml"), """
                library: shop
                gdpr:
                  purposes:
                    marketing: [email]
                    support: [email]
                  consent-purposes: [marketing]
                  subject-fields: [email]
                  tools:
                    sendNewsletter: [marketing]
                    note: [support]
                """);
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [gdpr, %s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "consents.PrivacyApp$Privacy", method: grant, kind: consent, session-param: 0, subject-param: 1, purpose-param: 2}
                  - {class: "consents.PrivacyApp$Privacy", method: grantAnonymous, kind: consent, subject-param: 0, purpose-param: 1}
                  - {class: "consents.PrivacyApp$Privacy", method: grantEnum, kind: consent, session-param: 0, subject-param: 1, purpose-param: 2}
                  - {class: "consents.PrivacyApp$Privacy", method: withdrawEnum, kind: consent, session-param: 0, subject-param: 1, purpose-param: 2, granted-param: false}
                  - {class: "consents.PrivacyApp$Privacy", method: forget, kind: erasure, session-param: 0, subject-param: 1}
                  - {class: "consents.PrivacyApp$Mail", method: "*", kind: tool, session-param: 0}
                  - {class: "consents.PrivacyApp$Shop", method: "*", kind: tool, session-param: 0}
                """.formatted(library.toAbsolutePath(), dir.resolve("audit.jsonl").toAbsolutePath()));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)),
                classes.toString(), "consents.PrivacyApp");
        assertThat(r.exit()).as(r.toString()).isZero();
        Map<String, String> steps = new LinkedHashMap<>();
        for (String line : r.stdout().split("\n")) {
            if (line.startsWith("STEP ")) {
                int sep = line.indexOf(' ', 5);
                steps.put(line.substring(5, sep), line.substring(sep + 1));
            }
        }
        String why = r.toString();
        // the host's grant threw (no consent stored): the newsletter is refused by P1
        assertThat(steps.get("bob-grant-threw")).as(why).contains("form not signed");
        assertThat(steps.get("bob-newsletter")).as(why).contains("gdpr.P1-consent").doesNotContain("newsletter to");
        // a null or blank subject is no consent for the whole session 'default'
        assertThat(steps.get("null-grant")).as(why).isEqualTo("= granted");
        assertThat(steps.get("cy-newsletter")).as(why).contains("gdpr.P1-consent").doesNotContain("newsletter to");
        assertThat(r.stderr()).as(why).contains("ERROR configured consent method consents.PrivacyApp$Privacy#grantAnonymous")
                .contains("subject-param 0 was null; no consent was recorded").contains("subject-param 0 was blank");
        // an enum purpose counts by its name, for the grant and for the withdrawal
        assertThat(steps.get("ada-newsletter")).as(why).isEqualTo("= newsletter to ada@example.com");
        assertThat(steps.get("ada-newsletter-after")).as(why).contains("gdpr.P1-consent").doesNotContain("newsletter to");
        // an application object as subject: warned about when woven, the erasure dropped with an ERROR, the method runs
        assertThat(steps.get("forget-record")).as(why).isEqualTo("= forgotten");
        assertThat(r.stderr()).as(why).contains("WARN configured method consents.PrivacyApp$Privacy#forget")
                .contains("subject-param 1 is a consents.PrivacyApp$Customer, not text")
                .contains("ERROR configured erasure method consents.PrivacyApp$Privacy#forget");
        // the session parameter is the conversation's key: neither redacted nor personal data for P2
        assertThat(steps.get("weather")).as(why).isEqualTo("= sunny in Leeds for eve@example.com");
        // a redacted Optional arrives empty, not null
        assertThat(steps.get("note")).as(why).isEqualTo("= memo (none)");
        assertThat(r.stderr()).as(why).contains("removed=[memo]");
        // a session object whose toString() is Object's
        assertThat(r.stderr()).as(why).contains("WARN configured method consents.PrivacyApp$Shop#search")
                .contains("session-param 0 is a consents.PrivacyApp$Req, whose toString() is Object's");
        String audit = Files.readString(dir.resolve("audit.jsonl"));
        assertThat(audit).as("no consent without a subject, none for bob, none under the enum's label")
                .doesNotContain("\"subject\":\"bob@example.com\"").doesNotContain("marketing e-mails")
                .doesNotContain("Customer[");
        assertThat(ForkedJvm.count(audit, "\"kind\":\"consent\"")).as(audit).isEqualTo(2);
    }

    private Path compile() throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/consents")).resolve("PrivacyApp.java");
        Files.writeString(src, APP);
        Path out = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = javac.run(null, errors, errors, "--release", "17", "-parameters", "-d", out.toString(), src.toString());
        assertThat(exit).as(errors.toString(StandardCharsets.UTF_8)).isZero();
        return out;
    }
}
