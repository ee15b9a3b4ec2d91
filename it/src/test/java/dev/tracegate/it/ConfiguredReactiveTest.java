package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 03 part (b): a configured tool that returns a Reactor {@code Mono} or an RxJava 3 {@code Single} or
 * {@code Maybe} (ADK's {@code BaseTool#runAsync} returns a lazy {@code Single<Map>}) is followed to its value as a
 * {@code CompletableFuture} is: the work stays lazy, the value it emits is the RETURN and passes the result contracts before
 * the subscriber sees it (a withheld text becomes the notice, a withheld Map {@code {error=notice}}), a failure is an error
 * RETURN that reaches the subscriber unchanged, and a blocked call is answered inside the declared type: the refusal text,
 * {@code {error=refusal}}, or an error signal with TracegateViolation, never a throw out of the call. The real agent jar in
 * a forked JVM runs demoapp.configured.ReactiveToolsApp with Reactor and RxJava on its class path. A pipeline subscribed
 * twice runs its work twice: each value is checked and recorded as a RETURN of the one CALL.
 */
class ConfiguredReactiveTest {
    private static final String APP = "demoapp.configured.ReactiveToolsApp";

    @TempDir Path dir;

    /** The app's classes and the jars Reactor, RxJava and Reactive Streams come from (as the test's own class path has them). */
    private static String classpath() {
        String classes = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        StringBuilder cp = new StringBuilder(classes);
        for (Class<?> c : new Class<?>[] {reactor.core.publisher.Mono.class, io.reactivex.rxjava3.core.Single.class, org.reactivestreams.Publisher.class}) {
            try {
                cp.append(File.pathSeparator).append(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return cp.toString();
    }

    @Test
    void aMonoOrSinglesValueIsCheckedBeforeTheSubscriberAndABlockIsAnsweredInsideIt() throws IOException {
        Path library = Files.writeString(dir.resolve("reactive.yaml"), """
                library: reactive
                contracts:
                  - id: reactive.no-mail-profile
                    assume: G !result_matches(profile, "@example\\\\.com")
                    guarantee: G !call(never_called_tool)
                    message: Results carrying an e-mail address are withheld.
                  - id: reactive.no-mail-pay
                    assume: G !result_matches(pay, "@example\\\\.com")
                    guarantee: G !call(never_called_tool)
                    message: Results carrying an e-mail address are withheld.
                  - {id: reactive.no-refund, guarantee: "G !call(refund)", message: refunds are not allowed}
                  - {id: reactive.no-delete, guarantee: "G !call(delete)", message: deleting is not allowed}
                  - {id: reactive.no-score, guarantee: "G !call(score)", message: scoring is not allowed}
                """);
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "demoapp.configured.ReactiveToolsApp$Tools", method: "*", kind: tool, session-param: 0}
                """.formatted(library, audit));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), classpath(), APP);
        assertThat(r.exit()).as(r.toString()).isZero();
        String out = r.stdout();
        assertThat(out).as("no refusal escapes the pipeline: " + r).doesNotContain(" SYNC ");
        assertThat(out).as(r.toString())
                .contains("profile VALUE [tracegate] This tool result was withheld (reactive.no-mail-profile)")
                .contains("weather VALUE sunny in Oslo / again sunny in Oslo")
                .contains("pay VALUE {error=[tracegate] This tool result was withheld (reactive.no-mail-pay)")
                .contains("count VALUE 4")
                .contains("broken ERROR java.lang.IllegalStateException: backend down")
                .contains("refund VALUE {error=tracegate blocked the call to refund (contract reactive.no-refund): refunds are not allowed")
                .contains("delete VALUE tracegate blocked the call to delete (contract reactive.no-delete): deleting is not allowed")
                .contains("score ERROR dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to score (contract reactive.no-score)")
                .doesNotContain("VALUE profile of ada").doesNotContain("receipt to ada@example.com");
        assertThat(out.indexOf("profile CALLED")).as("the work stays lazy: it runs when subscribed, after the call returned: " + out)
                .isLessThan(out.indexOf("RAN profile"));
        assertThat(out.indexOf("pay CALLED")).as(out).isLessThan(out.indexOf("RAN pay"));
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK configured session=s1 tool=refund contract=reactive.no-refund (substitute)")
                .contains("BLOCK configured session=s1 tool=delete contract=reactive.no-delete (substitute)")
                .contains("BLOCK configured session=s1 tool=score contract=reactive.no-score (throw)")
                .doesNotContain("NOT supervised");

        // the audit log has each emitted value as its call's RETURN (the withheld ones marked so), not the pipeline
        List<String> returns = Files.readAllLines(audit).stream().filter(l -> l.contains("\"kind\":\"return\"")).toList();
        assertThat(returns).as(String.join("\n", returns)).hasSize(6);
        assertThat(returns).filteredOn(l -> l.contains("\"tool\":\"profile\"")).singleElement().asString()
                .contains("\"result\":\"profile of ada, mail ada@example.com\"").contains("\"decision\":\"suppress\"");
        assertThat(returns).filteredOn(l -> l.contains("\"tool\":\"pay\"")).singleElement().asString()
                .contains("receipt to ada@example.com").contains("\"decision\":\"suppress\"");
        // subscribed twice, the cold Mono ran twice: each value is checked and recorded, as RETURNs of the one CALL
        List<String> weather = returns.stream().filter(l -> l.contains("\"tool\":\"weather\"")).toList();
        assertThat(weather).hasSize(2).allSatisfy(l -> assertThat(l).contains("\"result\":\"sunny in Oslo\""));
        assertThat(weather.get(0).replaceAll(".*\"id\":\"([^\"]+)\".*", "$1")).isEqualTo(weather.get(1).replaceAll(".*\"id\":\"([^\"]+)\".*", "$1"));
        assertThat(returns).filteredOn(l -> l.contains("\"tool\":\"count\"")).singleElement().asString().contains("\"result\":\"4\"");
        assertThat(returns).filteredOn(l -> l.contains("\"tool\":\"broken\"")).singleElement().asString()
                .contains("backend down").contains("\"error\":true");
        assertThat(String.join("\n", returns)).as("no blocked call ran").doesNotContain("\"tool\":\"refund\"")
                .doesNotContain("\"tool\":\"delete\"").doesNotContain("\"tool\":\"score\"").doesNotContain("[not read");
    }
}
