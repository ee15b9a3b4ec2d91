package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A class glob over a package of Spring beans, woven by the real agent jar in a forked JVM with a real Spring context
 * (trial25 01): the glob leaves out Spring's CGLIB proxy of a {@code @Cacheable} bean, so a call is seen once, at the
 * bean's own method, with its parameter names (a contract that reads {@code arg(lookup, customer)} can be evaluated), and
 * a cache hit is no tool call; the start says which class the glob left out. A glob that names the proxy's mark weaves it.
 */
class SpringProxyGlobTest {
    private static final String APP = "demoapp.spring.CachedAccountsApp";
    private static final String PROXY = "demoapp.spring.CachedAccountsApp$Accounts$$SpringCGLIB$$0";

    @TempDir Path dir;

    private ForkedJvm.Result run(String classPattern) throws IOException {
        Files.writeString(dir.resolve("shop.yaml"), String.join("\n",
                "library: shop",
                "contracts:",
                "  - id: shop.no-mallory",
                "    guarantee: G(call(lookup) -> !(arg(lookup, customer) == \"mallory\"))",
                "    message: Mallory's account must not be looked up.",
                ""));
        Path yaml = Files.writeString(dir.resolve("tg.yaml"), String.join("\n",
                "libraries: [" + dir.resolve("shop.yaml") + "]",
                "audit: {path: " + dir.resolve("audit.jsonl") + "}",
                "block.style: exception",
                "instrumentations: {langchain4j: {enabled: false}, springai: {enabled: false}, mcp-server: {enabled: false}, mcp-client: {enabled: false}}",
                "configured-methods:",
                "  - {class: \"" + classPattern + "\", method: lookup, kind: tool, session-param: 0}",
                ""));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml + ",trace=true")),
                ForkedJvm.appClasspath(), APP);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("BEAN " + PROXY);
        return r;
    }

    @Test
    void aClassGlobSeesTheCallAtTheBeanNotAtItsSpringProxy() throws IOException {
        ForkedJvm.Result r = run("demoapp.spring.CachedAccountsApp$Account*");
        assertThat(r.stdout()).as(r.toString())
                .contains("lookup(s1,ada) = account of ada").contains("lookup(s2,bob) = account of bob")
                .contains("lookup(s3,mallory) threw dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to lookup"
                        + " (contract shop.no-mallory)")
                .contains("LOOKUPS RAN 2");
        String err = r.stderr();
        assertThat(err).as(r.toString())
                .contains("CALL configured session=s1 tool=lookup args={\"customer\":\"ada\"} -> PROCEED")
                .contains("CALL configured session=s2 tool=lookup args={\"customer\":\"bob\"} -> PROCEED")
                .contains("leaves out " + PROXY + ", generated at run time from demoapp.spring.CachedAccountsApp$Accounts by Spring's CGLIB")
                .doesNotContain("arg1").doesNotContain("unevaluable");
        assertThat(ForkedJvm.count(err, "tool=lookup args={\"customer\":\"ada\"}")).as("the cache hit is no call\n" + r).isEqualTo(1);
    }

    @Test
    void aGlobThatNamesTheProxysMarkWeavesTheProxy() throws IOException {
        ForkedJvm.Result r = run("demoapp.spring.CachedAccountsApp$Accounts$$SpringCGLIB$$*");
        assertThat(ForkedJvm.count(r.stderr(), "configured session=s1 tool=lookup")).as("the cache hit is a call at the proxy\n" + r)
                .isEqualTo(2);
        assertThat(r.stderr()).as(r.toString()).doesNotContain("leaves out").contains("WARN configured method " + PROXY + "#lookup ("
                + dir.resolve("tg.yaml") + ":6:5): the agent finds no class file for its class (a class generated at run time, such as a"
                + " proxy), so its arguments are reported as arg0..arg1 and a contract that reads an argument by name finds nothing");
    }
}
