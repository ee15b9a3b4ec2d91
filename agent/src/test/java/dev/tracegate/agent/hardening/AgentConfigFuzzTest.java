package dev.tracegate.agent.hardening;

import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.config.ConfigException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The configuration loader, fed mutated real agent arguments, environment, system properties and
 * YAML files plus random text (seeded {@link Random}: jqwik is not on this module's classpath),
 * either yields a configuration or throws {@link ConfigException} with a message and a fail
 * policy, and always answers. {@code -Plong} runs {@link #longRun} for {@code tracegate.fuzz.minutes}.
 */
class AgentConfigFuzzTest {
    static final String ARGS = "libraries=gdpr;injection,mode=shadow,fail=open,block.style=exception,hot-reload=750ms,"
            + "sessions.max=10,sessions.idle-timeout=1h30m,audit.queue-size=1024,audit.max-block=250ms,audit.on-full=drop,debug=true";
    static final String YAML = String.join("\n",
            "libraries: [gdpr, injection, ./refunds.yaml]", "mode: shadow", "fail: open", "block.style: exception",
            "audit:", "  path: /var/log/tracegate/audit.jsonl", "  personal-data: clear", "  hmac-key: s3cret-key-of-this-test",
            "  queue-size: 1024", "  on-full: drop", "  max-block: 250ms", "sessions: {max: 500, idle-timeout: 1h30m}",
            "engine.max-states: 2048", "escalate:", "  approver: com.acme.Approver", "  timeout: 2m", "redirect:",
            "  delete_account: archive_account", "instrumentations:", "  springai: {enabled: false}", "  mcp-client:",
            "    enabled: false", "hot-reload: 5s", "debug: true", "metrics:", "  jmx: false", "");
    static final String[] PIECES = {",", "=", ";", ":", ": ", "\n", "  ", "- ", "[", "]", "{", "}", "\"", "'", "#", "mode", "fail",
        "config=", "sessions.max=", "-1", "0", "99999999999999999999", "1e9", "ms", "h", "d", "5x", "enforce", "open", "closed",
        "shadow", "\u0000", "é", "~", "null", "&a", "*a", "!!binary "};
    static final String[] ENV_KEYS = {"TRACEGATE_MODE", "TRACEGATE_FAIL", "TRACEGATE_SESSIONS_MAX", "TRACEGATE_AUDIT_QUEUE_SIZE",
        "TRACEGATE_HOT_RELOAD", "TRACEGATE_LIBRARIES", "TRACEGATE_X", "PATH"};
    static final String[] PROP_KEYS = {"tracegate.mode", "tracegate.fail", "tracegate.sessions.max", "tracegate.audit.max-block",
        "tracegate.debug", "tracegate.", "tracegate.config", "user.home"};
    static final String[] VALUES = {"shadow", "enforce", "open", "closed", "10", "-5", "1h", "1x", "", "true", "maybe", "gdpr;;"};

    @TempDir Path dir;
    private final Bounded bounded = new Bounded();

    @Test void fuzzArgumentsEnvironmentPropertiesAndFiles() throws Throwable {
        Random rnd = new Random(0x7ace9a7eL);
        for (int i = 0; i < 3000; i++) one(rnd, i);
    }

    @Test void unmutatedInputsLoad() throws Throwable {
        Path f = dir.resolve("ok.yaml");
        Files.writeString(f, YAML, StandardCharsets.UTF_8);
        assertThat(check("config=" + f + "," + ARGS.replace("libraries=gdpr;injection,", ""), Map.of(), Map.of())).isNotNull();
    }

    @Test @Tag("long") void longRun() throws Throwable {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(Long.getLong("tracegate.fuzz.minutes", 10));
        Random rnd = new Random(System.nanoTime());
        long inputs = 0;
        while (System.nanoTime() < end) one(rnd, inputs++);
        System.out.println("AgentConfigFuzzTest.longRun: " + inputs + " inputs, 0 findings");
    }

    private void one(Random rnd, long i) throws Throwable {
        String args;
        switch (rnd.nextInt(4)) {
            case 0 -> args = Mutation.mutate(ARGS, 1 + rnd.nextInt(6), rnd, PIECES);
            case 1 -> {
                Path f = dir.resolve("c" + (i % 8) + ".yaml");
                Files.writeString(f, Mutation.mutate(YAML, 1 + rnd.nextInt(8), rnd, PIECES), StandardCharsets.UTF_8);
                args = rnd.nextBoolean() ? "config=" + f : "config=" + f + "," + Mutation.mutate("mode=shadow", rnd.nextInt(3), rnd, PIECES);
            }
            case 2 -> args = randomText(rnd);
            default -> args = rnd.nextBoolean() ? null : "";
        }
        Map<String, String> env = new HashMap<>(), props = new HashMap<>();
        for (int k = rnd.nextInt(3); k > 0; k--) env.put(ENV_KEYS[rnd.nextInt(ENV_KEYS.length)], value(rnd));
        for (int k = rnd.nextInt(3); k > 0; k--) props.put(PROP_KEYS[rnd.nextInt(PROP_KEYS.length)], value(rnd));
        check(args, env, props);
    }

    private static String value(Random rnd) {
        return rnd.nextInt(4) == 0 ? randomText(rnd) : Mutation.mutate(VALUES[rnd.nextInt(VALUES.length)], rnd.nextInt(2), rnd, PIECES);
    }

    private static String randomText(Random rnd) {
        StringBuilder b = new StringBuilder();
        for (int n = rnd.nextInt(60); n > 0; n--) b.append(rnd.nextInt(3) == 0 ? PIECES[rnd.nextInt(PIECES.length)] : (char) rnd.nextInt(0x3000));
        return b.toString();
    }

    /** Loads within the deadline; a configuration or a ConfigException with a message and a fail policy is fine. */
    private AgentConfig check(String args, Map<String, String> env, Map<String, String> props) throws Throwable {
        String input = "args=" + args + " env=" + env + " props=" + props;
        try {
            return bounded.run(input, () -> AgentConfig.load(args, env, props, Set.of("supervisor", "methods", "block")));
        } catch (ConfigException e) {
            assertThat(e.getMessage()).as("message for %s", input).isNotBlank();
            assertThat(e.failPolicy()).as("fail policy for %s", input).isNotNull();
            return null;
        } catch (Throwable t) {
            return fail("AgentConfig.load threw " + t + " (only ConfigException is documented) for " + Bounded.abbreviate(input), t);
        }
    }
}
