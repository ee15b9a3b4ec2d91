package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which methods of real kotlinc output a configured-methods glob ({@code method: "*"}) means (trial33): the Kotlin apps
 * in {@code src/test/kotlin/demoapp/globs} (package {@code demoapp.globs.tools}: the tools and the entry points; compiled at
 * test time by {@link KotlinApps}), run in forked JVMs with the real agent jar.
 */
class KotlinGlobsTest {

    private static final String APP = "globs";

    @TempDir
    Path dir;

    private Path config(Path audit, String entry) throws IOException {
        Path library = Files.writeString(dir.resolve("cap.yaml"), """
                library: kt
                contracts:
                  - id: kt.cap
                    guarantee: G(call(refund) -> arg(refund, amount) <= 800)
                    message: Refunds above 800 need a manager.
                """);
        return Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - %s
                """.formatted(library, audit, entry));
    }

    private ForkedJvm.Result run(Path config, String mainClass) {
        return ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), KotlinApps.classpath(APP), mainClass);
    }

    private static List<String> calls(Path audit) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode n = json.readTree(line);
            if ("event".equals(n.path("rec").asText()) && "call".equals(n.path("kind").asText())) {
                out.add(n.path("session").asText() + " " + n.path("tool").asText() + " " + n.path("args") + " " + n.path("decision").asText());
            }
        }
        return out;
    }

    /**
     * Trial33 07: kotlinc compiles {@code fun main()} to a static {@code main()} (and {@code suspend fun main()} to a static
     * {@code main(Continuation)}) beside the synthetic {@code main(String[])}. A package glob wove that {@code main} as a
     * tool: the whole program was one tool call in the session "0", and every refund ran nested inside it, unchecked (the
     * refund of 1000 went through). Every static main is now left out of a glob, as the entry point is: the refunds are
     * the tool calls, and the one over the cap is refused.
     */
    @Test
    void aGlobLeavesOutKotlinsMainSoTheToolCallsUnderItAreSupervised() throws IOException {
        for (String[] app : new String[][] {{"demoapp.globs.tools.MainAppKt", "s1", "ada"}, {"demoapp.globs.tools.SuspendMainAppKt", "s2", "bea"}}) {
            Path audit = dir.resolve(app[0] + ".jsonl");
            ForkedJvm.Result r = run(config(audit, "{class: \"demoapp.globs.tools.*\", method: \"*\", kind: tool, session-param: 0}"), app[0]);
            String why = r.toString();
            assertThat(r.exit()).as(why).isZero();
            assertThat(r.stdout()).as(why).contains("app: refunded 500 to " + app[2])
                    .doesNotContain("refunded 1000").contains("tracegate blocked the call to refund (contract kt.cap)");
            assertThat(calls(audit)).as(why).containsExactly(
                    app[1] + " refund {\"customer\":\"" + app[2] + "\",\"amount\":500} pass",
                    app[1] + " refund {\"customer\":\"" + app[2] + "\",\"amount\":1000} block");
            assertThat(r.stderr()).as(why).doesNotContain("beyond its").doesNotContain(".main");
        }
    }

    /**
     * Trial33 08: a package glob wove a Kotlin data class's getters, {@code component1()}, {@code component2()} and
     * {@code copy()} as tools (records' accessors were already left out): each read of a property by the loop was a tool
     * call in the session "0" ({@code {"value":"1"}}), {@code copy("ada", 1000)} one in the session "ada" (a customer's
     * name as a conversation id), each with a WARN at start. A data class's componentN() and copy() and a Kotlin
     * property's accessors (a val, a var's setter, an {@code isX} val, a companion object's val) are now left out: the
     * tools are the only calls, and no WARN names the data class.
     */
    @Test
    void aGlobLeavesOutADataClassesMembersAndKotlinPropertyAccessors() throws IOException {
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = run(config(audit, "{class: \"demoapp.globs.tools.*\", method: \"*\", kind: tool, session-param: 0}"),
                "demoapp.globs.DataAppKt");
        String why = r.toString();
        assertThat(r.exit()).as(why).isZero();
        assertThat(r.stdout()).as(why).contains("app: loop reads ada 500", "app: refunded 500 to ada",
                "tracegate blocked the call to refund (contract kt.cap)", "app: ledger of bea open true in EUR up to 900", "app: booked 100 for bea");
        assertThat(calls(audit)).as(why).containsExactly(
                "s1 refund {\"customer\":\"ada\",\"amount\":500} pass",
                "s1 refund {\"customer\":\"ada\",\"amount\":1000} block",
                "s1 book {\"amount\":100} pass");
        assertThat(r.stderr()).as(why).doesNotContain("RefundReq", "#getOwner", "#getLimit", "#setLimit", "#isOpen", "#getCurrency");
    }
}
