package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
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

/**
 * Web apps of an application server, each with its own copy of LangChain4j in its own class loader
 * ({@code demoapp.plain.AppLoaders}: a URLClassLoader per app, parent the platform loader, as a WEB-INF/lib copy),
 * under the built agent jar (trial35).
 */
class AppLoadersTest {

    private static final String LAUNCHER = "demoapp.plain.AppLoaders";

    @TempDir
    Path dir;

    /** Agent options: trace lines and a library with one contract on the app's tool (an attach needs a library). */
    private String options() throws java.io.IOException {
        Path library = Files.writeString(dir.resolve("desk.yaml"), String.join("\n",
                "tracegate: 1",
                "library: desk",
                "contracts:",
                "  - id: desk.no-root",
                "    guarantee: G !arg_matches(lookupCustomer, name, \"^root$\")",
                "    message: Root is not a customer.",
                ""));
        return "trace=true,libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl");
    }

    private static String classes() {
        return Path.of(System.getProperty("tracegate.app.classes", "target/classes")).toAbsolutePath().toString();
    }

    private static String jars111() {
        return Path.of(classes()).resolveSibling("langchain4j-1.11.0").toString();
    }

    /** Soft references cleared at every GC: only strong paths keep a loader (LangChain4j's soft caches do too, for a while). */
    private static final String SOFT = "-XX:SoftRefLRUPolicyMSPerMB=0";

    @Test
    void anUndeployedAppsLoaderIsCollectedUnderTheAgent() throws Exception {
        // the launcher's own class path has no framework: only the app's loader sees LangChain4j
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(SOFT, ForkedJvm.agent(options())), classes(), LAUNCHER,
                "drop", classes(), jars111());
        assertThat(r.exit()).as(r.toString()).isZero();
        // the call was supervised in the app's copy of the framework
        assertThat(r.stderr()).as(r.toString()).contains("CALL langchain4j session=alice tool=lookupCustomer");
        assertThat(r.stdout()).as(r.toString()).contains("LOADER COLLECTED: true");
    }

    @Test
    void anAppDeployedAfterAnAttachIsCollectedAtUndeploy() throws Exception {
        Path err = Files.createTempFile("apploaders-err", ".txt");
        Process app = new ProcessBuilder(ForkedJvm.java(), SOFT, "-cp", classes(), LAUNCHER, "drop", classes(), jars111(), "wait")
                .redirectError(err.toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(app.getOutputStream(), StandardCharsets.UTF_8)) {
            String ready = out.readLine();
            assertThat(ready).startsWith("READY pid=");
            List<String> attach = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(),
                    "attach", ready.substring("READY pid=".length()), options()));
            ForkedJvm.Result attached = ForkedJvm.exec(attach);
            assertThat(attached.exit()).as(attached.toString()).isZero();
            in.write("go\n");
            in.flush();
            StringBuilder rest = new StringBuilder();
            for (String line; (line = out.readLine()) != null; ) {
                rest.append(line).append('\n');
            }
            assertThat(app.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String stderr = Files.readString(err);
            assertThat(stderr).as(rest + stderr).contains("CALL langchain4j session=alice tool=lookupCustomer");
            assertThat(rest.toString()).as(rest + stderr).contains("LOADER COLLECTED: true");
        } finally {
            app.destroyForcibly();
            Files.deleteIfExists(err);
        }
    }

    /**
     * Two apps, each with its own LangChain4j copy (appa: 1.19.0, appb: 1.11.0), whose users share the memory id
     * alice: appb's conversation and appa's are two sessions, each checked against its own history (trial35 repro 02).
     * alice asks appb once, then appa twice, one lookupCustomer each; a cap of two lookups per conversation lets all
     * three run (one session held them all before, and refused appa's second).
     */
    @Test
    void twoAppsWithTheSameMemoryIdAreTwoSessions() throws Exception {
        Path library = Files.writeString(dir.resolve("cap.yaml"), String.join("\n",
                "tracegate: 1",
                "library: cap",
                "contracts:",
                "  - id: cap.two-lookups",
                "    guarantee: G(count(lookupCustomer) <= 2)",
                "    message: At most two lookups per conversation.",
                ""));
        Path audit = dir.resolve("audit.jsonl");
        String a119 = Files.readString(Path.of("target/app-classpath.txt")).strip();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("trace=true,libraries=" + library + ",audit.path=" + audit)), classes(), LAUNCHER,
                "two", classes(), a119, jars111());
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("DONE").doesNotContain("tracegate blocked");
        assertThat(ForkedJvm.count(r.stdout(), "TOOL lookupCustomer ran")).as(r.toString()).isEqualTo(3);
        // appb used the framework first: its sessions keep their ids; appa's carry its name
        assertThat(ForkedJvm.count(r.stderr(), "CALL langchain4j session=alice tool=lookupCustomer")).as(r.toString()).isEqualTo(1);
        assertThat(ForkedJvm.count(r.stderr(), "CALL langchain4j session=appa/alice tool=lookupCustomer")).as(r.toString()).isEqualTo(2);
        // the audit log names the application in the session of each record: replay checks them apart
        String log = Files.readString(audit);
        assertThat(log).contains("\"session\":\"appa/alice\"").contains("\"session\":\"alice\"");
        ForkedJvm.Result replay = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(),
                "replay", library.toString(), audit.toString()));
        // exit 0: no contract fails offline either (one session of three lookups would fail the cap)
        assertThat(replay.exit()).as(replay.toString()).isZero();
        assertThat(replay.stdout()).as(replay.toString()).contains("appa/alice");
    }

    /**
     * A configured erasure method called by appb (its loader the thread's context loader) belongs to appb's conversation
     * alice, not to appa's conversation of the same id (review18 of 8d66249: consent and erasure methods named their
     * session without the application, so appb's erasure landed in appa's alice and appb's own conversation never saw it).
     * appa talks first (its sessions keep their ids); under "after an erasure, no more lookups in that conversation",
     * appa's second lookup runs and appb's is refused.
     */
    @Test
    void anAppsErasureMethodBelongsToItsOwnConversation() throws Exception {
        Path library = Files.writeString(dir.resolve("forget.yaml"), String.join("\n",
                "tracegate: 1",
                "library: forget",
                "contracts:",
                "  - id: forget.no-lookup-after-erasure",
                "    guarantee: G(erasure -> G !call(lookupCustomer))",
                "    message: This conversation's person asked to be forgotten.",
                ""));
        Path yaml = Files.writeString(dir.resolve("tg.yaml"), String.join("\n",
                "libraries: [" + library + "]",
                "audit: {path: " + dir.resolve("audit.jsonl") + "}",
                "configured-methods:",
                "  - {class: demoapp.langchain4j.TwoConversationsApp, method: forget, kind: erasure, session-param: 0, subject-param: 1}",
                ""));
        String a119 = Files.readString(Path.of("target/app-classpath.txt")).strip();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml + ",trace=true")), classes(),
                LAUNCHER, "two-forget", classes(), a119, jars111());
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("FORGOT alice@example.com in alice").contains("DONE");
        // appa's alice was never erased: both of her lookups ran; appb's alice was: hers was refused
        assertThat(ForkedJvm.count(r.stdout(), "TOOL lookupCustomer ran")).as(r.toString()).isEqualTo(2);
        assertThat(ForkedJvm.count(r.stdout(), "MODEL SAW TOOL RESULT lookupCustomer: tracegate blocked")).as(r.toString()).isEqualTo(1);
        assertThat(ForkedJvm.count(r.stderr(), "CALL langchain4j session=alice tool=lookupCustomer")).as(r.toString()).isEqualTo(2);
        assertThat(ForkedJvm.count(r.stderr(), "BLOCK langchain4j session=appb/alice tool=lookupCustomer contract=forget.no-lookup-after-erasure"))
                .as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString()).doesNotContain("BLOCK langchain4j session=alice ");
    }
}
