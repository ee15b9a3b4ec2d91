package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A configured-methods entry over a bean that callers reach through generated subclasses (trial34 04: Quarkus ArC's
 * {@code <Bean>_ClientProxy}, which ArC marks ACC_SYNTHETIC, and Hibernate's {@code $HibernateProxy$}), woven by the real
 * agent jar in a forked JVM ({@code demoapp.proxied.ProxiedApp}: s1 through the client proxy, s2 through the Hibernate
 * proxy, s3 to the bean). Each call is seen once, at the bean's method, whether the entry is a glob over the package or
 * names the bean exactly, and the start says of each proxy that it is not woven and where its calls are seen; an entry
 * that names the client proxy weaves it. Before session 19 the synthetic client proxy was passed over before any entry
 * was asked: no "leaves out" line for a glob, and an entry naming it exactly never matched it.
 */
class GeneratedProxiesTest {
    private static final String CLIENT_PROXY = "demoapp.proxied.Tools_ClientProxy";
    private static final String HIBERNATE_PROXY = "demoapp.proxied.Tools$HibernateProxy$x1";

    @TempDir Path dir;

    private ForkedJvm.Result run(String classPattern) throws IOException {
        Path yaml = Files.writeString(dir.resolve("tg.yaml"), String.join("\n",
                "audit: {path: " + dir.resolve("audit.jsonl") + "}",
                "instrumentations: {langchain4j: {enabled: false}, springai: {enabled: false}, mcp-server: {enabled: false}, mcp-client: {enabled: false}}",
                "configured-methods:",
                "  - {class: \"" + classPattern + "\", method: lookup, kind: tool, session-param: 0}",
                ""));
        // debug: an entry's second left-out class is said at DEBUG (its first at INFO)
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml + ",trace=true,debug=true")),
                ForkedJvm.appClasspath(), "demoapp.proxied.ProxiedApp");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("SYNTHETIC " + CLIENT_PROXY + " true")
                .contains("RESULT s1: account of ada").contains("RESULT s2: account of bob").contains("RESULT s3: account of cy");
        return r;
    }

    private static int calls(ForkedJvm.Result r, String session) {
        return ForkedJvm.count(r.stderr(), "CALL configured session=" + session + " tool=lookup");
    }

    @Test
    void aGlobOverTheBeansPackageSeesEachCallOnceAtTheBeanAndSaysWhatItLeavesOut() throws IOException {
        ForkedJvm.Result r = run("demoapp.proxied.Tool*");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL configured session=s1 tool=lookup args={\"customer\":\"ada\"}")
                .contains("(class demoapp.proxied.Tool*) leaves out " + CLIENT_PROXY + ", generated at build time from demoapp.proxied.Tools"
                        + " by Quarkus ArC (the client proxy of a normal-scoped bean")
                .contains("(class demoapp.proxied.Tool*) leaves out " + HIBERNATE_PROXY + ", generated at run time from"
                        + " demoapp.proxied.Tools by Hibernate");
        assertThat(List.of(calls(r, "s1"), calls(r, "s2"), calls(r, "s3"))).as(r.toString()).containsExactly(1, 1, 1);
    }

    @Test
    void anEntryThatNamesTheBeanSeesEachCallOnceAtTheBeanAndSaysSoOfItsProxies() throws IOException {
        ForkedJvm.Result r = run("demoapp.proxied.Tools");
        assertThat(r.stderr()).as(r.toString())
                .contains("(class demoapp.proxied.Tools) does not weave " + CLIENT_PROXY + ", generated at build time from"
                        + " demoapp.proxied.Tools by Quarkus ArC")
                .contains("(class demoapp.proxied.Tools) does not weave " + HIBERNATE_PROXY + ", generated at run time from"
                        + " demoapp.proxied.Tools by Hibernate: a call through it is seen once, at demoapp.proxied.Tools's method");
        assertThat(List.of(calls(r, "s1"), calls(r, "s2"), calls(r, "s3"))).as(r.toString()).containsExactly(1, 1, 1);
    }

    @Test
    void anEntryThatNamesTheSyntheticClientProxyWeavesIt() throws IOException {
        ForkedJvm.Result r = run(CLIENT_PROXY);
        assertThat(r.stderr()).as(r.toString()).contains("instrumenting " + CLIENT_PROXY + "#lookup(String, String)");
        // seen at the proxy (the bean, not named, is its nested call); the others reach the bean, which no entry names
        assertThat(List.of(calls(r, "s1"), calls(r, "s2"), calls(r, "s3"))).as(r.toString()).containsExactly(1, 0, 0);
    }
}
