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
 * agent/CONFIG.md, "Kotlin classes" (trial33's doc requests): the entries the docs give for kotlinc's shapes, on real
 * kotlinc 2.4.21 output ({@code src/test/kotlin/demoapp/shapes}, compiled at test time by {@link KotlinApps}) in a forked
 * JVM with the real agent jar: a value-class parameter's mangled name by {@code method: "byId-*"} with a literal
 * tool-name, an {@code internal} function by {@code "lookup$*"}, a call with a defaulted argument of a
 * {@code @JvmOverloads} function as one call with the value it got, a companion's {@code @JvmStatic} erasure by its
 * {@code $Companion} class (once), an extension function's receiver as the argument {@code $this$shout}.
 */
class KotlinShapesTest {

    @TempDir
    Path dir;

    @Test
    void theDocumentedEntriesNameKotlinsShapes() throws IOException {
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [gdpr]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: demoapp.shapes.Tools, method: "byId-*", kind: tool, tool-name: byId, session-param: 0}
                  - {class: demoapp.shapes.Tools, method: "lookup$*", kind: tool, tool-name: lookup, session-param: 0}
                  - {class: demoapp.shapes.Tools, method: refund, kind: tool, session-param: 0}
                  - {class: "demoapp.shapes.Privacy$Companion", method: forget, kind: erasure, subject-param: 0}
                  - {class: demoapp.shapes.ShapesKt, method: shout, kind: tool, session-param: 1}
                """.formatted(audit));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)),
                KotlinApps.classpath("shapes"), "demoapp.shapes.ShapesKt");
        String why = r.toString();
        assertThat(r.exit()).as(why).isZero();
        assertThat(r.stdout()).as(why).contains("app: customer c-7", "app: found ada", "app: refunded 5 (none)", "app: HELLO");
        ObjectMapper json = new ObjectMapper();
        List<String> events = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode n = json.readTree(line);
            String kind = n.path("kind").asText();
            if (!"event".equals(n.path("rec").asText()) || !("call".equals(kind) || "erasure".equals(kind))) continue;
            events.add(n.path("session").asText() + " " + kind + " " + n.path("tool").asText() + n.path("subject").asText() + " " + n.path("args"));
        }
        assertThat(events).as(why).containsExactly(
                "s1 call byId {\"id\":\"c-7\"}",
                "s1 call lookup {\"q\":\"ada\"}",
                "s1 call refund {\"amount\":5,\"reason\":\"none\"}",
                " erasure bob@example.com ",
                "s1 call shout {\"$this$shout\":\"hello\"}");
        assertThat(r.stderr()).as(why).doesNotContain("can never match").doesNotContain("matched no method");
    }
}
