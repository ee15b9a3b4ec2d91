package dev.tracegate.it.hardening;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attempts to reach a blocked {@code @Tool} around the supervisor, run in forked JVMs under the
 * built agent jar with the rule supervisor's {@code block=sendEmail}. Through LangChain4j every
 * route is intercepted (ToolService is the choke point). A call from application code that skips
 * the framework is intercepted only when the method is a configured method, which is what
 * agent/README.md promises; the uncovered cases are asserted too, so a change in either direction
 * shows up here and in SECURITY.md.
 */
class BypassTest {
    private static final String APP = "demoapp.hardening.BypassApp";
    private static final String BLOCKED = "tracegate blocked the call to sendEmail (contract rule.block)";
    private static final String[] DIRECT = {"direct-call", "direct-reflection", "direct-methodhandle", "direct-proxy"};

    @TempDir Path dir;

    private Path methods(String classPattern) throws Exception {
        return Files.writeString(dir.resolve("methods.txt"), "tool " + classPattern + "#sendEmail name=sendEmail args=*\n");
    }

    @Test void everyRouteThroughLangChain4jIsIntercepted() throws Exception {
        Forked.Output r = Forked.run(Forked.command(Forked.java(), "block=sendEmail", APP, "framework", "framework-subclass", "framework-parallel"));
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran").doesNotContain("TOOL override sendEmail ran")
                .contains("RESULT framework: done: " + BLOCKED)
                .contains("RESULT framework-subclass: done: " + BLOCKED)
                .contains("TOOL lookupCustomer ran name=Alice");   // the unblocked tool of the parallel batch still runs
        assertThat(r.stderr().split("BLOCK langchain4j session=alice tool=sendEmail", -1)).as(r.toString()).hasSize(1 + 4);
    }

    @Test void directCallsOfAConfiguredMethodAreInterceptedByReflectionMethodHandleAndProxy() throws Exception {
        Path m = methods("demoapp.hardening.BypassApp$MailTools");
        Forked.Output r = Forked.run(Forked.command(Forked.java(), "block=sendEmail,methods=" + m, APP, DIRECT));
        assertThat(r.stdout()).as(r.toString()).doesNotContain("TOOL sendEmail ran");
        for (String s : DIRECT) assertThat(r.stdout()).as(r.toString()).contains("RESULT " + s + ": " + BLOCKED);
    }

    /** Not covered, as documented: without a methods file, code that skips the framework is not observed. */
    @Test void directCallsOfAnUnconfiguredToolAreNotObserved() throws Exception {
        Forked.Output r = Forked.run(Forked.command(Forked.java(), "block=sendEmail", APP, DIRECT));
        for (String s : DIRECT) assertThat(r.stdout()).as(r.toString()).contains("RESULT " + s + ": email sent to bob@example.com");
        assertThat(r.stderr()).doesNotContain("BLOCK");
    }

    /** An override is another method: an exact class name misses it, a glob that covers the subclass catches it. */
    @Test void aSubclassOverrideNeedsAMethodsLineThatCoversTheSubclass() throws Exception {
        Forked.Output exact = Forked.run(Forked.command(Forked.java(),
                "block=sendEmail,methods=" + methods("demoapp.hardening.BypassApp$MailTools"), APP, "direct-subclass"));
        assertThat(exact.stdout()).as(exact.toString()).contains("TOOL override sendEmail ran").contains("RESULT direct-subclass: loudly sent");
        Forked.Output glob = Forked.run(Forked.command(Forked.java(),
                "block=sendEmail,methods=" + methods("demoapp.hardening.BypassApp$*MailTools"), APP, "direct-subclass"));
        assertThat(glob.stdout()).as(glob.toString()).doesNotContain("TOOL override sendEmail ran").contains("RESULT direct-subclass: " + BLOCKED);
    }

    @Test void virtualThreadsOnJava25AreIntercepted() throws Exception {
        Assumptions.assumeTrue(Forked.java25Present(), "no Java 25 at " + Forked.JAVA_25);
        Path m = methods("demoapp.hardening.BypassApp$MailTools");
        Forked.Output r = Forked.run(Forked.command(Forked.JAVA_25, "block=sendEmail,methods=" + m, APP,
                "framework-virtual-parallel", "framework-on-virtual-thread", "direct-reflection"));
        assertThat(r.stdout()).as(r.toString())
                .contains("JAVA 25")
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL lookupCustomer ran name=Alice virtual=true")
                .contains("RESULT framework-virtual-parallel: done: " + BLOCKED)
                .contains("RESULT framework-on-virtual-thread: done: " + BLOCKED)
                .contains("RESULT direct-reflection: " + BLOCKED);
    }
}
