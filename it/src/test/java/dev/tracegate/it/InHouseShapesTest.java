package dev.tracegate.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configured methods over the shapes of an in-house framework (trial17), woven by the real agent jar in a forked JVM
 * with the gdpr library: a tool returning a CompletableFuture has its value checked when it completes (an erased
 * subject's result is withheld, a failed future is an error RETURN); a package glob leaves out an enum's values() and
 * valueOf(String) and a generic interface's bridge; an erasure entry listed after a tool glob over its class still
 * records the erasure; parameter names in {@code *-param} mean those parameters; an inherited or abstract method's
 * warning names the class to write. The application is compiled here with {@code javac -g} (Maven's default) and
 * imports nothing of tracegate.
 */
class InHouseShapesTest {

    private static final String APP = String.join("\n",
            "package r;",
            "import java.util.concurrent.CompletableFuture;",
            "public class InHouse {",
            "  public enum SvcChannel { EMAIL, SMS }",
            "  public interface Handler<T> { String handle(String session, T req); }",
            "  public static class Req { final String id; Req(String id) { this.id = id; } }",
            "  public static class LookupHandler implements Handler<Req> {",
            "    public String handle(String session, Req req) { return \"found \" + req.id; } }",
            "  public static abstract class BaseTools { public String ping(String session) { return \"pong\"; } }",
            "  public interface Exporter { default String export(String session) { return \"exported\"; } }",
            "  public static class CrmTools extends BaseTools implements Exporter { }",
            "  public interface Tool { String call(String session, String input); }",
            "  public static class SvcPrivacy { public void forget(String session, String subject) { } }",
            "  public static class Crm { public String lookup(String session, String email) { return \"record of customer 7\"; } }",
            "  public static class Consents { public void record(String session, String subject, String purpose) { } }",
            "  public static class SvcOrders {",
            "    public CompletableFuture<String> getOrderAsync(String session, String id) {",
            "      return CompletableFuture.supplyAsync(() -> \"order \" + id + \" of bob@example.com\"); }",
            "    public CompletableFuture<String> otherAsync(String session, String id) {",
            "      return CompletableFuture.supplyAsync(() -> \"order \" + id + \" of cy@example.com\"); }",
            "    public CompletableFuture<String> failAsync(String session, String id) {",
            "      return CompletableFuture.failedFuture(new IllegalStateException(\"backend down\")); }",
            "  }",
            "  public static void main(String[] a) throws Exception {",
            "    new SvcPrivacy().forget(\"web-1\", \"bob@example.com\");",
            "    new SvcPrivacy().forget(\"web-1\", \"ada@example.com\");",
            "    System.out.println(\"CHANNEL \" + SvcChannel.valueOf(\"SMS\") + \" \" + SvcChannel.values().length);",
            "    Handler<Req> h = new LookupHandler();",
            "    System.out.println(\"HANDLE \" + h.handle(\"s1\", new Req(\"42\")));",
            "    CrmTools t = new CrmTools();",
            "    System.out.println(\"CRMTOOLS \" + t.ping(\"s1\") + \" \" + t.export(\"s1\"));",
            "    Tool lambda = (s, in) -> \"lambda \" + in;",
            "    System.out.println(\"LAMBDA \" + lambda.call(\"s1\", \"x\"));",
            "    try { new Consents().record(\"s1\", \"x\", \"y\"); System.out.println(\"CONSENTS recorded\"); }",
            "    catch (RuntimeException e) { System.out.println(\"CONSENTS refused \" + e.getClass().getSimpleName()); }",
            "    try { System.out.println(\"LOOKUP \" + new Crm().lookup(\"conv-A\", \"ada@example.com\")); }",
            "    catch (RuntimeException e) { System.out.println(\"LOOKUP refused \" + e.getClass().getSimpleName()); }",
            "    SvcOrders o = new SvcOrders();",
            "    System.out.println(\"ASYNC \" + o.getOrderAsync(\"conv-B\", \"17\").get());",
            "    System.out.println(\"OTHER \" + o.otherAsync(\"conv-B\", \"18\").get());",
            "    try { o.failAsync(\"conv-B\", \"19\").get(); } catch (Exception e) { System.out.println(\"FAIL \" + e.getCause()); }",
            "  }",
            "}", "");

    private static final String POLICY = String.join("\n",
            "library: pol",
            "gdpr:",
            "  purposes: {orders: [email]}",
            "  consent-purposes: none",
            "  subject-fields: [email]",
            "  tools: {lookup: [orders], getOrderAsync: [orders], otherAsync: [orders], failAsync: [orders]}", "");

    @TempDir static Path dir;
    static ForkedJvm.Result run;
    static String audit;

    @BeforeAll
    static void runTheApplication() throws IOException {
        Path src = dir.resolve("src/r/InHouse.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, APP);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("the tests need a JDK").isNotNull();
        assertThat(javac.run(null, null, null, "-g", "-d", classes.toString(), src.toString())).isZero();
        Files.writeString(dir.resolve("pol.yaml"), POLICY);
        Path auditLog = dir.resolve("audit.jsonl");
        Path yaml = Files.writeString(dir.resolve("tg.yaml"), String.join("\n",
                "libraries: [gdpr, " + dir.resolve("pol.yaml") + "]",
                "audit: {path: " + auditLog + ", personal-data: clear}",
                "configured-methods:",
                "  - {class: \"r.InHouse$Svc*\", method: \"*\", kind: tool, session-param: 0}",
                // listed after the glob over its class: still the erasure (an entry naming its method wins over a glob)
                "  - {class: \"r.InHouse$SvcPrivacy\", method: forget, kind: erasure, session-param: 0, subject-param: 1}",
                // the same method again, listed after the erasure: it never applies, and its warning says why
                "  - {class: \"r.InHouse$SvcPrivacy\", method: forget, kind: tool, session-param: 0}",
                // parameter names, not indexes
                "  - {class: \"r.InHouse$Crm\", method: lookup, kind: tool, session-param: session, args-param: email}",
                "  - {class: \"r.InHouse$CrmTools\", method: ping, kind: tool, session-param: 0}",
                "  - {class: \"r.InHouse$CrmTools\", method: export, kind: tool, session-param: 0}",
                "  - {class: \"r.InHouse$Tool\", method: call, kind: tool, session-param: 0}",
                "  - {class: \"r.InHouse$LookupHandler\", method: handle, kind: tool, session-param: 0}",
                // a consent glob whose only method an entry naming it takes as a tool: said once, at weave time
                "  - {class: \"r.InHouse$Consents\", method: \"*\", kind: consent, session-param: 0, subject-param: 1, purpose-param: 2}",
                "  - {class: \"r.InHouse$Consents\", method: record, kind: tool, session-param: 0}", ""));
        run = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml)), classes.toString(), "r.InHouse");
        assertThat(run.exit()).as(run.toString()).isZero();
        audit = Files.readString(auditLog);
    }

    @Test
    void aFuturesValueIsCheckedWhenItCompletes() {
        assertThat(run.stdout()).as(run.toString()).contains("ASYNC ").doesNotContain("of bob@example.com")
                .contains("OTHER order 18 of cy@example.com")
                .contains("FAIL java.lang.IllegalStateException: backend down");
        List<String> returns = audit.lines().filter(l -> l.contains("\"kind\":\"return\"")).toList();
        assertThat(returns).as(audit).anySatisfy(l -> assertThat(l).contains("\"tool\":\"getOrderAsync\"").contains("bob@example.com")
                .doesNotContain("\"decision\":\"pass\""));
        assertThat(returns).as(audit).anySatisfy(l -> assertThat(l).contains("\"tool\":\"failAsync\"").contains("\"error\":true")
                .contains("backend down"));
        assertThat(audit).as("the value, not a placeholder").doesNotContain("[not read: java.util.concurrent.CompletableFuture]");
    }

    @Test
    void aGlobLeavesOutAnEnumsValuesAndValueOfAndABridgeIsNotWoven() {
        assertThat(run.stdout()).as(run.toString()).contains("CHANNEL SMS 2").contains("HANDLE found 42");
        assertThat(audit).as(audit).doesNotContain("\"tool\":\"values\"").doesNotContain("\"tool\":\"valueOf\"");
        assertThat(run.stderr()).as(run.toString()).doesNotContain("r.InHouse$SvcChannel").doesNotContain("records no parameter names");
        assertThat(audit.lines().filter(l -> l.contains("\"tool\":\"handle\"") && l.contains("\"kind\":\"call\"")).toList())
                .as(audit).singleElement().satisfies(l -> assertThat(l).contains("\"session\":\"s1\"").contains("\"req\""));
    }

    @Test
    void anErasureEntryAfterAToolGlobStillErasesAndParameterNamesMeanTheirParameters() {
        assertThat(audit).as(audit).doesNotContain("\"tool\":\"forget\"");
        assertThat(run.stdout()).as(run.toString()).doesNotContain("record of customer 7").contains("LOOKUP ");
        assertThat(audit.lines().filter(l -> l.contains("\"tool\":\"lookup\"") && l.contains("\"kind\":\"call\"")).toList())
                .as(audit).singleElement().satisfies(l -> assertThat(l).contains("\"session\":\"conv-A\"")
                        .contains("ada@example.com").doesNotContain("\"value\":\"email\""));
        assertThat(run.stderr()).as(run.toString()).doesNotContain("(class r.InHouse$SvcPrivacy, method forget) matched no method")
                .contains("(class r.InHouse$SvcPrivacy, method forget) never applied: entry " + dir.resolve("tg.yaml") + ":5:5 (erasure,"
                        + " class r.InHouse$SvcPrivacy, method forget) took r.InHouse$SvcPrivacy#forget first, so its calls were supervised as"
                        + " that entry says");
    }

    /**
     * trial (session 11) shadowed-consent-warned-twice: a consent (or erasure) entry that loses its method to an entry
     * naming it is warned about when the class is woven (no consent will be recorded) and was warned about again, in the
     * same words, at exit. Said once.
     */
    @Test
    void aConsentGlobWhoseMethodAnotherEntryTakesIsWarnedAboutOnce() {
        assertThat(run.stdout()).as(run.toString()).contains("CONSENTS ");
        assertThat(run.stderr()).as(run.toString()).contains("(class r.InHouse$Consents, method *) never applied: entry " + dir.resolve("tg.yaml")
                + ":13:5 (tool, class r.InHouse$Consents, method record) took r.InHouse$Consents#record first, so its calls were supervised as"
                + " that entry says, not as this one (no consent was recorded)");
        assertThat(ForkedJvm.count(run.stderr(), "(class r.InHouse$Consents, method *) never applied")).as(run.toString()).isEqualTo(1);
    }

    @Test
    void anInheritedOrAbstractMethodsWarningNamesTheClassToWrite() {
        assertThat(run.stdout()).as(run.toString()).contains("CRMTOOLS pong exported").contains("LAMBDA lambda x");
        // said when the class is woven (a class does not gain methods: trial19), not again at exit
        assertThat(run.stderr()).as(run.toString())
                .contains("(tool, class r.InHouse$CrmTools, method ping) can never match: r.InHouse$CrmTools inherits ping from"
                        + " r.InHouse$BaseTools, which declares its body: name that class (class: \"r.InHouse$BaseTools\"). So its calls"
                        + " are NOT supervised")
                .contains("(tool, class r.InHouse$CrmTools, method export) can never match: r.InHouse$CrmTools inherits export from"
                        + " r.InHouse$Exporter (a default method)")
                .contains("(tool, class r.InHouse$Tool, method call) can never match: r.InHouse$Tool#call is abstract (an interface method)")
                .doesNotContain("matched no method of any loaded class");
    }
}
