package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A configured method whose value Spring's {@code @Cacheable} stores (trial25 03), woven by the real agent jar in a forked
 * JVM with a real Spring context: under {@code block.style: substitute} the refusal returned as the method's value was
 * cached and served to another conversation, which never reached the method. With {@code block-style: exception} on the
 * entry the refusal is thrown (nothing is cached) and the other conversation's call runs; without it the method gets a WARN
 * when it is woven.
 */
class SpringCachedRefusalTest {
    @TempDir Path dir;

    private ForkedJvm.Result run(String entryExtra) throws IOException {
        Files.writeString(dir.resolve("shop.yaml"), String.join("\n",
                "library: shop",
                "contracts:",
                "  - id: shop.one-profile",
                "    guarantee: G(count(profile) <= 1)",
                "    message: One profile look-up per conversation.",
                ""));
        Path yaml = Files.writeString(dir.resolve("tg.yaml"), String.join("\n",
                "libraries: [" + dir.resolve("shop.yaml") + "]",
                "audit: {path: " + dir.resolve("audit.jsonl") + "}",
                "block.style: substitute",
                "instrumentations: {langchain4j: {enabled: false}, springai: {enabled: false}, mcp-server: {enabled: false}, mcp-client: {enabled: false}}",
                "configured-methods:",
                "  - {class: \"demoapp.spring.CachedAccountsApp$Accounts\", method: profile, kind: tool, session-param: 0" + entryExtra + "}",
                ""));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml)),
                ForkedJvm.appClasspath(), "demoapp.spring.CachedAccountsApp", "profile");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("profile(s1,ada) = profile of ada");
        return r;
    }

    @Test
    void withBlockStyleExceptionTheRefusalIsThrownAndNotCachedForAnotherConversation() throws IOException {
        ForkedJvm.Result r = run(", block-style: exception");
        assertThat(r.stdout()).as(r.toString())
                .contains("profile(s1,bob) threw dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to profile"
                        + " (contract shop.one-profile)")
                .contains("profile(s2,bob) = profile of bob")
                .contains("PROFILES RAN 2");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK configured session=s1 tool=profile contract=shop.one-profile (throw)")
                .doesNotContain("is @Cacheable");
    }

    @Test
    void aCacheableMethodThatWouldGetTheRefusalAsItsValueIsWarnedAbout() throws IOException {
        ForkedJvm.Result r = run("");
        assertThat(r.stderr()).as(r.toString()).contains("WARN configured method demoapp.spring.CachedAccountsApp$Accounts#profile ("
                + dir.resolve("tg.yaml") + ":6:5) is @Cacheable and returns String, and a block returns the refusal as its value (block.style:"
                + " substitute), as a withheld result its notice: the cache around the method stores that text and serves it to later calls,"
                + " from any conversation, which never reach the method, so they are neither checked nor recorded. Add block-style:"
                + " exception to the entry");
    }
}
