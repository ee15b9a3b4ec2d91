package dev.tracegate.it;

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
 * trial19 repro 02: a {@code configured-methods} entry naming a method its class does not have ({@code method: erase}
 * where the privacy class has {@code forget}) was said only at JVM exit, after every erasure of the run was lost (and
 * never after a kill -9). Once the class it names is loaded and woven, the entry can never match it (a class does not
 * gain methods), so the agent says so then: where the entry is, the class, its methods (did you mean), and for an
 * erasure entry that erasures through it are not recorded; not again at exit. A class glob is said only for a class it
 * matched that has a method of a similar name; an entry whose class never loads is still said at exit. The application
 * (compiled here, imports nothing of tracegate) writes a mark on stderr while it runs, after the classes are used: the
 * agent's lines before the mark were printed while it ran.
 */
class ConfiguredEntryNeverMatchesTest {

    private static final String APP = String.join("\n",
            "package r;",
            "public class Bank {",
            "  public static class Privacy {",
            "    public void grant(String session, String subject, String purpose) { }",
            "    public void withdraw(String session, String subject, String purpose) { }",
            "    public void forget(String session, String subject) { System.out.println(\"FORGOT \" + subject); }",
            "  }",
            "  public static class SupportTools { public String search(String session, String q) { return \"found \" + q; } }",
            "  public static class BillingTools { public String invoice(String session, String id) { return \"invoice \" + id; } }",
            "  public static class LedgerDesk { public String research(String session, String q) { return \"ledger \" + q; } }",
            "  public static class HelpDesk { public String search(String session, String q) { return \"help \" + q; } }",
            "  public static void main(String[] a) {",
            "    Privacy p = new Privacy();",
            "    p.grant(\"web-1\", \"ada@example.com\", \"support\");",
            "    p.forget(\"web-2\", \"bob@example.com\");",
            "    System.out.println(new SupportTools().search(\"s1\", \"x\") + \" \" + new BillingTools().invoice(\"s1\", \"7\"));",
            // LedgerDesk (research: a near name) is woven before HelpDesk, which has search
            "    System.out.println(new LedgerDesk().research(\"s1\", \"y\"));",
            "    System.out.println(new HelpDesk().search(\"s1\", \"z\"));",
            "    System.err.println(\"MARK the application ran\");",
            "    System.err.flush();",
            "  }",
            "}", "");

    @Test
    void anEntryThatCanNeverMatchItsLoadedClassIsSaidWhenTheClassIsWovenAndOnlyThen(@TempDir Path dir) throws IOException {
        Path src = dir.resolve("src/r/Bank.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, APP);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("the tests need a JDK").isNotNull();
        assertThat(javac.run(null, null, null, "-g", "-d", classes.toString(), src.toString())).isZero();
        Path yaml = Files.writeString(dir.resolve("tg.yaml"), String.join("\n",
                "libraries: [gdpr]",
                "audit: {path: " + dir.resolve("audit.jsonl") + "}",
                "configured-methods:",
                "  - {class: \"r.Bank$Privacy\", method: grant, kind: consent, session-param: 0, subject-param: 1, purpose-param: 2}",
                // line 5: the erasure job's method is forget
                "  - {class: \"r.Bank$Privacy\", method: erase, kind: erasure, session-param: 0, subject-param: 1}",
                // line 6: a class glob with a typo; SupportTools has search, BillingTools nothing like it
                "  - {class: \"r.Bank$*Tools\", method: serch, kind: tool, session-param: 0}",
                // line 7: a class glob that nothing loaded has: said at exit only
                "  - {class: \"r.Bank$*Tools\", method: \"refund*\", kind: tool, session-param: 0}",
                // line 8: a method glob over a named class that has no such method
                "  - {class: \"r.Bank$BillingTools\", method: \"pay*\", kind: tool, session-param: 0}",
                // line 9: a class that never loads: said at exit
                "  - {class: \"r.Bank$Refunds\", method: refund, kind: tool, session-param: 0}",
                // line 10: a class glob over two classes; the first woven (LedgerDesk) lacks search but has research, the
                // other (HelpDesk) has it: the entry matches, so it is never said to never match (it was, at LedgerDesk)
                "  - {class: \"r.Bank$*Desk\", method: search, kind: tool, session-param: 0}", ""));
        ForkedJvm.Result run = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml)), classes.toString(), "r.Bank");
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.stdout()).as(run.toString()).contains("FORGOT bob@example.com").contains("found x invoice 7")
                .contains("ledger y").contains("help z");
        String err = run.stderr();
        int mark = err.indexOf("MARK the application ran");
        assertThat(mark).as(run.toString()).isPositive();
        String running = err.substring(0, mark);
        String atExit = err.substring(mark);

        assertThat(running).as(run.toString()).contains("WARN configured-methods entry " + yaml + ":5:5 (erasure, class r.Bank$Privacy,"
                + " method erase) can never match: its class r.Bank$Privacy is loaded and declares no method erase; its methods are grant,"
                + " withdraw, forget. So erasures through it are NOT recorded");
        assertThat(running).as(run.toString()).contains("WARN configured-methods entry " + yaml + ":6:5 (tool, class r.Bank$*Tools, method"
                + " serch) can never match r.Bank$SupportTools, a class its pattern matched, now loaded: it declares no method serch"
                + " (did you mean 'search'?)").doesNotContain("can never match r.Bank$BillingTools");
        assertThat(running).as(run.toString()).contains("WARN configured-methods entry " + yaml + ":8:5 (tool, class r.Bank$BillingTools,"
                + " method pay*) can never match: its class r.Bank$BillingTools is loaded and declares no method matching pay*; its"
                + " methods are invoice. So its calls are NOT supervised");
        assertThat(running).as("no consent or erasure entry that matched is warned about").doesNotContain(":4:5");

        assertThat(atExit).as(run.toString())
                .contains(yaml + ":7:5 (class r.Bank$*Tools, method refund*) matched no method of any loaded class")
                .contains(yaml + ":9:5 (class r.Bank$Refunds, method refund) matched no method of any loaded class");
        assertThat(err).as("a glob one of whose classes has the method\n" + run).doesNotContain(yaml + ":10:5");
        assertThat(Files.readString(dir.resolve("audit.jsonl"))).as("HelpDesk#search was supervised").contains("\"tool\":\"search\"");   // no other entry weaves a search
        for (int line : new int[] {5, 6, 8}) {
            assertThat(ForkedJvm.count(err, yaml + ":" + line + ":5")).as("entry on line " + line + " said once\n" + run).isEqualTo(1);
        }
    }
}
