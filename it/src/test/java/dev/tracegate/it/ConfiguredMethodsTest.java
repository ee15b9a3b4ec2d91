package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Methods named in the configuration of a plain application; attach to a running JVM; a host with its own libraries. */
class ConfiguredMethodsTest {

    private static final String APP = "demoapp.plain.ShopApp";
    private static final String RULES = String.join("\n",
            "# the payment service is a tool; consent and erasure are privacy events",
            "tool     demoapp.plain.ShopApp$Payments#charge        name=charge args=1 session=0",
            "consent  demoapp.plain.ShopApp$Privacy#grantConsent  subject=0 purpose=1 granted=true session=0",
            "erasure  demoapp.plain.ShopApp$Privacy#erase         subject=0 session=0",
            "");

    @TempDir
    Path dir;

    private Path rules() throws IOException {
        return Files.writeString(dir.resolve("methods.txt"), RULES);
    }

    private ForkedJvm.Result run(String options) throws IOException {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + rules() + "," + options)),
                ForkedJvm.appClasspath(), APP, "run");
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    @Test
    void consentAndErasureMethodsBecomeEventsAndTheToolCallIsSeen() throws IOException {
        ForkedJvm.Result r = run("trace=true");
        assertThat(r.stdout()).as(r.toString()).contains("RESULT: charged alice").contains("METHOD erase ran subject=alice");
        assertThat(r.stderr()).as(r.toString())
                .contains("CONSENT session=alice subject=alice purpose=billing granted=true")
                .contains("CALL configured session=alice tool=charge args={\"amount\":12,\"card\":\"4111111111111111\"} -> PROCEED")
                .contains("ERASURE session=alice subject=alice")
                .doesNotContain("instrumentation configured matched nothing");
    }

    /**
     * A tool method called inside another supervised one is supervised only when its rule says nested=true (wrappers
     * delegate to each other, and by default only the outermost call counts); a consent or erasure method always is,
     * so an erasure a tool performs is seen.
     */
    @Test
    void aNestedToolIsSupervisedWhenItsRuleSaysSoAndANestedErasureAlways() throws IOException {
        for (boolean nested : new boolean[] {true, false}) {
            Path rules = Files.writeString(dir.resolve("nested-" + nested + ".txt"), String.join("\n",
                    "tool     demoapp.plain.ShopApp$Bank#payBill       name=$method session=0",
                    "tool     demoapp.plain.ShopApp$Bank#transfer      name=$method session=0" + (nested ? " nested=true" : ""),
                    "tool     demoapp.plain.ShopApp$Bank#closeAccount  name=$method session=0",
                    "erasure  demoapp.plain.ShopApp$Privacy#erase      subject=0 session=0",
                    ""));
            ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + rules + ",block=transfer,trace=true")),
                    ForkedJvm.appClasspath(), APP, "nested");
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.stdout()).as(r.toString()).contains("METHOD payBill ran").contains("RESULT: closed alice");
            assertThat(r.stderr()).as("an erasure inside a supervised tool is an event: " + r).contains("ERASURE session=alice subject=alice");
            if (nested) {
                assertThat(r.stdout()).as(r.toString()).doesNotContain("METHOD transfer ran")
                        .contains("RESULT: bill B7 paid: tracegate blocked the call to transfer");
            } else {
                assertThat(r.stdout()).as("the documented default: only the outer call is seen: " + r).contains("METHOD transfer ran");
            }
        }
    }

    @Test
    void methodsFromTheYamlConfigurationAndAnInstrumentationSwitchedOff() throws IOException {
        Path yaml = Files.writeString(dir.resolve("tracegate.yaml"), String.join("\n",
                "configured-methods:",
                "  - {class: \"demoapp.plain.ShopApp$Payments\", method: charge, kind: tool, tool-name: charge, args-param: 1, session-param: 0}",
                "  - {class: \"demoapp.plain.ShopApp$Privacy\", method: erase, kind: erasure, subject-param: 0}",
                ""));
        ForkedJvm.Result on = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml + ",block=charge")),
                ForkedJvm.appClasspath(), APP, "run");
        assertThat(on.exit()).as(on.toString()).isZero();
        assertThat(on.stdout()).as(on.toString()).doesNotContain("METHOD charge ran").contains("RESULT: tracegate blocked the call to charge");
        // an erasure method without session-param, called between two calls of the loop's conversation, is recorded, but
        // not in that conversation: between calls the thread says nothing about whose work runs on it (524895e, trial33 06;
        // this rules-only supervisor, with no library, labels such an event `default`)
        assertThat(on.stderr()).as(on.toString()).contains("ERASURE session=default subject=alice")
                .doesNotContain("ERASURE session=alice");

        ForkedJvm.Result off = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("config=" + yaml + ",block=charge,instrumentations.configured.enabled=false")),
                ForkedJvm.appClasspath(), APP, "run");
        assertThat(off.exit()).as(off.toString()).isZero();
        assertThat(off.stdout()).as(off.toString()).contains("METHOD charge ran").contains("RESULT: charged alice");
        assertThat(off.stderr()).as(off.toString())
                .contains("instrumentations=[langchain4j, springai, mcp-server, mcp-client] configured-methods=2")
                .doesNotContain("ERASURE");
    }

    @Test
    void blockASubstitutedTextResult() throws IOException {
        ForkedJvm.Result r = run("block=charge");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("METHOD charge ran")
                .contains("RESULT: tracegate blocked the call to charge (contract rule.block)");
    }

    @Test
    void blockWithException() throws IOException {
        ForkedJvm.Result r = run("block=charge,onBlock=throw");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("METHOD charge ran")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to charge");
    }

    @Test
    void redactRewritesTheJsonArgument() throws IOException {
        ForkedJvm.Result r = run("redact=card");
        assertThat(r.stdout()).as(r.toString()).contains("METHOD charge ran customer=alice details={\"amount\":12}");
    }

    @Test
    void suppressReplacesTheResult() throws IOException {
        ForkedJvm.Result r = run("suppress=charge");
        assertThat(r.stdout()).as(r.toString())
                .contains("METHOD charge ran")
                .contains("RESULT: [withheld by tracegate: the result of charge");
    }

    @Test
    void aBadMethodsFileStopsTheStartWithFileLineAndColumn() throws IOException {
        Path bad = Files.writeString(dir.resolve("bad.txt"), "tool demoapp.plain.ShopApp$Payments#charge args=1\nconsnet demoapp.X#y subject=0\n");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + bad)), ForkedJvm.appClasspath(), APP, "run");
        assertThat(r.exit()).as(r.toString()).isNotZero();
        assertThat(r.stderr()).as(r.toString()).contains(bad + ":2:1: unknown kind 'consnet'; use tool, consent or erasure");
        assertThat(r.stdout()).doesNotContain("METHOD charge ran");
    }

    @Test
    void withFailOpenABadMethodsFileRunsTheHostUnsupervisedAndSaysSo() throws IOException {
        Path bad = Files.writeString(dir.resolve("bad.txt"), "tool demoapp.plain.ShopApp$Payments#charge args\n");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + bad + ",fail=open,block=charge")),
                ForkedJvm.appClasspath(), APP, "run");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).contains("METHOD charge ran").contains("RESULT: charged alice");
        assertThat(r.stderr()).as(r.toString())
                .contains("agent could not start and runs UNSUPERVISED because fail=open")
                .contains(bad + ":1:44: expected key=value")
                .doesNotContain("IllegalArgumentException");
    }

    /** fail: open with a bad library prints the library's message paragraph, not the exception's class (C16). */
    @Test
    void withFailOpenABadLibraryPrintsItsMessageWithoutTheExceptionClass() throws IOException {
        Path bad = Files.writeString(dir.resolve("bad-lib.yaml"), "library: x\ncontracts:\n  - id: a\n    guarantee: G(call(x) -> )\n");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + bad + ",fail=open,audit.path=" + dir.resolve("audit.jsonl"))),
                ForkedJvm.appClasspath(), APP, "run");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stderr()).as(r.toString())
                .contains("agent could not start and runs UNSUPERVISED because fail=open:\n" + bad + ":4:")
                .doesNotContain("LibraryException").doesNotContain("dev.tracegate.");
    }

    @Test
    void attachToARunningJvmRetransformsClassesItAlreadyLoaded() throws Exception {
        Process app = new ProcessBuilder(ForkedJvm.java(), "-cp", ForkedJvm.appClasspath(), APP, "wait")
                .redirectError(dir.resolve("app-err.txt").toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
            String ready = out.readLine();
            assertThat(ready).startsWith("READY pid=");
            String pid = ready.substring("READY pid=".length());

            in.write("go\n");
            in.flush();
            StringBuilder before = readUntilDone(out);
            assertThat(before).contains("METHOD charge ran customer=alice");

            ForkedJvm.Result attach = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "attach", pid,
                    "methods=" + rules() + ",block=charge"));
            assertThat(attach.exit()).as(attach.toString()).isZero();
            assertThat(attach.stdout()).contains("tracegate: agent attached to " + pid);

            in.write("go\n");
            in.flush();
            StringBuilder after = readUntilDone(out);
            assertThat(after.toString()).as(after + "\n" + Files.readString(dir.resolve("app-err.txt")))
                    .doesNotContain("METHOD charge ran")
                    .contains("RESULT: tracegate blocked the call to charge (contract rule.block)");
            in.write("quit\n");
            in.flush();
            assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(dir.resolve("app-err.txt"))).contains("[tracegate] agent started (attached)");
        } finally {
            app.destroyForcibly();
        }
    }

    /**
     * An attach whose agent refuses to start (trial2 R7): the target prints the reason's paragraph only (no stack
     * trace, no JVM assertion lines) and runs on unsupervised; attach prints the reason and exits 2; a second attach
     * with a usable configuration is not refused as "already running".
     */
    @Test
    void anAttachThatCannotStartSaysWhyHereAndLeavesTheTargetRunningAndAttachable() throws Exception {
        Process app = new ProcessBuilder(ForkedJvm.java(), "-cp", ForkedJvm.appClasspath(), APP, "wait")
                .redirectError(dir.resolve("app-err.txt").toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
            String ready = out.readLine();
            assertThat(ready).startsWith("READY pid=");
            String pid = ready.substring("READY pid=".length());
            Path missing = dir.resolve("nosuch.yaml");

            ForkedJvm.Result refused = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "attach", pid,
                    "libraries=" + missing + ",methods=" + rules() + ",block=charge,audit.path=" + dir.resolve("audit.jsonl")));
            assertThat(refused.exit()).as(refused.toString()).isEqualTo(2);
            assertThat(refused.stdout()).doesNotContain("attached to");
            assertThat(refused.stderr()).as(refused.toString())
                    .contains("the agent did not start in process " + pid)
                    .contains("runs on unsupervised")
                    .contains("nosuch.yaml");

            in.write("go\n");
            in.flush();
            assertThat(readUntilDone(out).toString()).contains("METHOD charge ran customer=alice");
            String targetErr = Files.readString(dir.resolve("app-err.txt"));
            assertThat(targetErr).as(targetErr)
                    .contains("tracegate: the agent cannot start:")
                    .contains("nosuch.yaml")
                    .doesNotContain("Exception")
                    .doesNotContain("ASSERTION FAILED")
                    .doesNotContain("\tat ");

            ForkedJvm.Result attached = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "attach", pid,
                    "methods=" + rules() + ",block=charge,audit.path=" + dir.resolve("audit.jsonl")));
            assertThat(attached.exit()).as(attached.toString()).isZero();
            assertThat(attached.stdout()).contains("tracegate: agent attached to " + pid);
            in.write("go\n");
            in.flush();
            assertThat(readUntilDone(out).toString()).doesNotContain("METHOD charge ran")
                    .contains("RESULT: tracegate blocked the call to charge");
            in.write("quit\n");
            in.flush();
            assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            app.destroyForcibly();
        }
    }

    private static StringBuilder readUntilDone(BufferedReader out) throws IOException {
        StringBuilder text = new StringBuilder();
        for (String line; (line = out.readLine()) != null && !line.equals("DONE"); ) {
            text.append(line).append('\n');
        }
        return text;
    }

    @Test
    void aHostWithItsOwnJacksonAndByteBuddyKeepsWorkingAndCannotSeeTheAgentsCopies() throws IOException {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + rules() + ",block=charge")),
                ForkedJvm.hostLibsClasspath(), "demoapp.plain.HostLibsApp");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString())
                .contains("HOST JACKSON 2.17.2 {\"a\":1}")
                .containsPattern("HOST BYTEBUDDY \\S*byte-buddy-1\\.14\\.18\\.jar generated by host byte buddy")
                .contains("AGENT CLASSES VISIBLE: false false false")
                .contains("DISPATCHER VISIBLE: true")
                .contains("RESULT: tracegate blocked the call to charge");
    }

    // ---- args=*: all parameters by name, as the class file records them: the MethodParameters attribute
    // (javac -parameters, as Maven builds the demo apps), else the local variable table (javac -g: the same
    // source compiled here without -parameters), else arg0..argN (javac -g:none) ----

    private static final String LEDGER_APP = "demoapp.plain.LedgerApp";
    private static final String LEDGER = "demoapp/plain/LedgerApp$Ledger.class";
    private static final String LEDGER_RULES = "tool  demoapp.plain.LedgerApp$Ledger#*  name=$method args=*\n";

    /** Compiles the app's own source again with these javac debug options, into a directory that goes first on the class path. */
    private Path compile(String... options) throws IOException {
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes"));
        Path source = classes.resolve("../../src/main/java/demoapp/plain/LedgerApp.java").normalize();
        assertThat(source).exists();
        Path out = Files.createDirectories(dir.resolve("classes" + String.join("", options).replace(':', '-')));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("--release", "17", "-d", out.toString(), "-cp", classes.toString()));
        args.addAll(List.of(options));
        args.add(source.toString());
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = javac.run(null, errors, errors, args.toArray(new String[0]));
        assertThat(exit).as(errors.toString(StandardCharsets.UTF_8)).isZero();
        return out;
    }

    /** Which of the two attributes the class file of Ledger has (their names sit in its constant pool only if used). */
    private static String attributes(Path classesDir) throws IOException {
        String bytes = new String(Files.readAllBytes(classesDir.resolve(LEDGER)), StandardCharsets.ISO_8859_1);
        return (bytes.contains("MethodParameters") ? "MethodParameters " : "") + (bytes.contains("LocalVariableTable") ? "LocalVariableTable" : "");
    }

    private ForkedJvm.Result runLedger(String classpath, String options) throws IOException {
        return runLedger(classpath, options, LEDGER_RULES);
    }

    private ForkedJvm.Result runLedger(String classpath, String options, String rulesText) throws IOException {
        Path rules = Files.writeString(dir.resolve("ledger-methods.txt"), rulesText);
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + rules + ",trace=true" + options)),
                classpath, LEDGER_APP);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    @Test
    void withParametersTheNamesComeFromMethodParameters() throws IOException {
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes"));
        assertThat(attributes(classes)).startsWith("MethodParameters");
        ForkedJvm.Result r = runLedger(ForkedJvm.appClasspath(), "");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL configured session=default tool=transfer args={\"fromAccount\":\"acc-1\",\"toAccount\":\"acc-2\",\"amountCents\":1250,\"rate\":1.5}")
                .contains("CALL configured session=default tool=audit args={\"year\":2026,\"auditor\":\"carol\"}");
    }

    @Test
    void withoutParametersTheNamesComeFromTheLocalVariableTable() throws IOException {
        Path classes = compile("-g");
        assertThat(attributes(classes)).isEqualTo("LocalVariableTable");
        ForkedJvm.Result r = runLedger(classes + File.pathSeparator + ForkedJvm.appClasspath(), "");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL configured session=default tool=transfer args={\"fromAccount\":\"acc-1\",\"toAccount\":\"acc-2\",\"amountCents\":1250,\"rate\":1.5}")
                .contains("CALL configured session=default tool=audit args={\"year\":2026,\"auditor\":\"carol\"}")
                .doesNotContain("WARN configured method");
    }

    @Test
    void redactingANamedArgumentRewritesThatParameter() throws IOException {
        Path classes = compile("-g");
        ForkedJvm.Result r = runLedger(classes + File.pathSeparator + ForkedJvm.appClasspath(), ",redact=toAccount");
        assertThat(r.stdout()).as(r.toString()).contains("METHOD transfer ran from=acc-1 to=null cents=1250 rate=1.5");
    }

    @Test
    void withoutAnyNamesInTheClassFileTheyArePositional() throws IOException {
        Path classes = compile("-g:none");
        assertThat(attributes(classes)).isEmpty();
        ForkedJvm.Result r = runLedger(classes + File.pathSeparator + ForkedJvm.appClasspath(), "");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL configured session=default tool=transfer args={\"arg0\":\"acc-1\",\"arg1\":\"acc-2\",\"arg2\":1250,\"arg3\":1.5}")
                .contains("CALL configured session=default tool=audit args={\"arg0\":2026,\"arg1\":\"carol\"}")
                // said once per method when it is woven, with what to do (C4)
                .contains("WARN configured method demoapp.plain.LedgerApp$Ledger#transfer (")
                .contains("its class file records no parameter names, so its arguments are reported as arg0..arg3")
                .contains("compile it with javac -parameters (or -g");
    }

    /**
     * session 11 param-name-without-names: a *-param given as a parameter's name, on a class compiled without -parameters
     * or -g, stayed a literal without a word (every call in one session named after the parameter). The weaver says so,
     * once, with the entry, the method and the two fixes; the call runs with the literal.
     */
    @Test
    void aParamSettingThatNamesAParameterOfAClassWithoutNamesIsWarnedAboutWhenWoven() throws IOException {
        Path classes = compile("-g:none");
        ForkedJvm.Result r = runLedger(classes + File.pathSeparator + ForkedJvm.appClasspath(), "",
                "tool  demoapp.plain.LedgerApp$Ledger#transfer  name=$method session=fromAccount\n");
        assertThat(r.stderr()).as(r.toString())
                .containsOnlyOnce("WARN configured method demoapp.plain.LedgerApp$Ledger#transfer (")
                .contains("ledger-methods.txt:1): its class file records no parameter names (compiled without -parameters or -g), so"
                        + " session-param 'fromAccount' names no parameter and is read as a literal (every call in the session"
                        + " \"fromAccount\"): compile the class with javac -parameters (or -g, Maven's and Gradle's default), or give the"
                        + " parameter's 0-based index instead of its name (session-param: 0 for its first parameter)")
                .contains("CALL configured session=fromAccount tool=transfer");
    }

    /** Without contract libraries nothing is checked, and the agent says so once at start (C3); with them it does not. */
    @Test
    void withoutLibrariesTheAgentWarnsThatNothingIsSupervised() throws IOException {
        ForkedJvm.Result none = runLedger(ForkedJvm.appClasspath(), "");
        assertThat(none.stderr()).as(none.toString()).containsOnlyOnce("WARN no contract libraries configured: nothing is supervised");
        ForkedJvm.Result some = runLedger(ForkedJvm.appClasspath(), ",libraries=sop-refund,audit.path=" + dir.resolve("audit.jsonl"));
        assertThat(some.stderr()).as(some.toString()).contains("contracts loaded: sop-refund")
                .doesNotContain("nothing is supervised");
    }

    /** A parameter index beyond the method's parameters is read as a literal; the weaver says so, naming the method (C21). */
    @Test
    void aParameterIndexBeyondTheMethodsParametersIsWarnedAboutWhenWoven() throws IOException {
        ForkedJvm.Result r = runLedger(ForkedJvm.appClasspath(), "",
                "tool  demoapp.plain.LedgerApp$Ledger#transfer  name=$method args=* session=7\n");
        assertThat(r.stderr()).as(r.toString())
                .contains("WARN configured method demoapp.plain.LedgerApp$Ledger#transfer (")
                .contains("session-param 7 is beyond its 4 parameters (indexes 0 to 3), so the text '7' is used as a literal")
                .contains("CALL configured session=7 tool=transfer")
                .doesNotContain("class file records no parameter names");
    }

    /**
     * trial9 fail-open-orphan-return: under fail: open a configured call whose argument cannot be written runs
     * unsupervised; its RETURN was still recorded and applied, so returned(verify) held and pay passed on the strength of a
     * call no contract saw. Now the unsupervised call leaves no record and counts for nothing.
     */
    @Test
    void aCallRunUnsupervisedUnderFailOpenLeavesNoReturnAndCountsForNothing() throws IOException {
        Path library = Files.writeString(dir.resolve("b.yaml"), String.join("\n", "library: b", "contracts:",
                "  - id: b.verify-first", "    guarantee: G(call(pay) -> O returned(verify))", "    message: Verify first.", ""));
        Path methods = Files.writeString(dir.resolve("verify.txt"), "tool demoapp.plain.UnwritableArgumentApp$Tools#* session=0\n");
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("libraries=" + library + ",methods=" + methods
                + ",fail=open,audit.path=" + audit)), ForkedJvm.appClasspath(), "demoapp.plain.UnwritableArgumentApp");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("verify -> verified")
                .contains("pay -> tracegate blocked the call to pay (contract b.verify-first)");
        assertThat(r.stderr()).as(r.toString()).contains("fail=open: let through");
        String log = Files.readString(audit);
        assertThat(log).as(log).doesNotContain("\"tool\":\"verify\"");
    }
}
