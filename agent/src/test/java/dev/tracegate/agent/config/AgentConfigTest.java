package dev.tracegate.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentConfigTest {
    @TempDir Path dir;

    private Path yaml(String text) throws IOException {
        return Files.writeString(dir.resolve("tracegate.yaml"), text);
    }

    private static AgentConfig load(String args, Map<String, String> env, Map<String, String> props) {
        return AgentConfig.load(args, env, props, Set.of());
    }

    private AgentConfig fromFile(String text) throws IOException {
        return load("config=" + yaml(text), Map.of(), Map.of());
    }

    private String fileError(String text) throws IOException {
        Path p = yaml(text);
        try {
            load("config=" + p, Map.of(), Map.of());
        } catch (ConfigException e) {
            return e.getMessage().replace(p.toString(), "F");
        }
        throw new AssertionError("no ConfigException");
    }

    private static String error(String args, Map<String, String> env, Map<String, String> props) {
        try {
            load(args, env, props);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        throw new AssertionError("no ConfigException");
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        AgentConfig c = AgentConfig.defaults();
        assertThat(c.configFile()).isNull();
        assertThat(c.libraries()).isEmpty();
        assertThat(c.mode()).isEqualTo(Mode.ENFORCE);
        assertThat(c.fail()).isEqualTo(FailPolicy.CLOSED);
        assertThat(c.blockStyle()).isEqualTo(BlockStyle.SUBSTITUTE);
        assertThat(c.auditPath()).as("a default is read from the working directory").isEqualTo(Path.of("tracegate-audit.jsonl").toAbsolutePath());
        assertThat(c.auditPersonalData()).isEqualTo(PersonalData.HASHED);
        assertThat(c.auditHmacKey()).isNull();
        assertThat(c.auditQueueSize()).isEqualTo(65536);
        assertThat(c.auditOnFull()).isEqualTo(OnFull.BLOCK);
        assertThat(c.auditMaxBlock()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.sessionsMax()).isEqualTo(100_000);
        assertThat(c.sessionsIdleTimeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(c.engineMaxStates()).isEqualTo(10_000);
        assertThat(c.escalateApprover()).isNull();
        assertThat(c.escalateTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.redirect()).isEmpty();
        for (String i : AgentConfig.instrumentationNames()) assertThat(c.instrumentationEnabled(i)).isTrue();
        assertThat(c.configuredMethods()).isEmpty();
        assertThat(c.hotReload()).isFalse();
        assertThat(c.debug()).isFalse();
        assertThat(c.metricsJmx()).isTrue();
        assertThat(c.sourceOf("mode")).isEqualTo("default");
    }

    @Test
    void aFullFileIsReadWithNestedAndDottedKeys() throws IOException {
        AgentConfig c = fromFile(String.join("\n",
                "libraries: [gdpr, injection, ./refunds.yaml]",
                "mode: shadow",
                "fail: open",
                "block.style: exception",
                "audit:",
                "  path: /var/log/tracegate/audit.jsonl",
                "  personal-data: clear",
                "  hmac-key: s3cret-key-of-this-test",
                "  queue-size: 1024",
                "  on-full: drop",
                "  max-block: 250ms",
                "sessions: {max: 500, idle-timeout: 1h30m}",
                "engine.max-states: 2048",
                "escalate:",
                "  approver: com.acme.Approver",
                "  timeout: 2m",
                "redirect:",
                "  delete_account: archive_account",
                "instrumentations:",
                "  springai: {enabled: false}",
                "  mcp-client:",
                "    enabled: false",
                "hot-reload: 5s",
                "debug: true",
                "metrics:",
                "  jmx: false",
                ""));
        assertThat(c.libraries()).containsExactly("gdpr", "injection", dir.resolve("./refunds.yaml").toString());
        assertThat(c.mode()).isEqualTo(Mode.SHADOW);
        assertThat(c.fail()).isEqualTo(FailPolicy.OPEN);
        assertThat(c.blockStyle()).isEqualTo(BlockStyle.EXCEPTION);
        assertThat(c.auditPath()).isEqualTo(Path.of("/var/log/tracegate/audit.jsonl"));
        assertThat(c.auditPersonalData()).isEqualTo(PersonalData.CLEAR);
        assertThat(new String(c.auditHmacKey(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("s3cret-key-of-this-test");
        assertThat(c.auditQueueSize()).isEqualTo(1024);
        assertThat(c.auditOnFull()).isEqualTo(OnFull.DROP);
        assertThat(c.auditMaxBlock()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.sessionsMax()).isEqualTo(500);
        assertThat(c.sessionsIdleTimeout()).isEqualTo(Duration.ofMinutes(90));
        assertThat(c.engineMaxStates()).isEqualTo(2048);
        assertThat(c.escalateApprover()).isEqualTo("com.acme.Approver");
        assertThat(c.escalateTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.redirect()).containsExactly(Map.entry("delete_account", "archive_account"));
        assertThat(c.instrumentationEnabled("springai")).isFalse();
        assertThat(c.instrumentationEnabled("mcp-client")).isFalse();
        assertThat(c.instrumentationEnabled("langchain4j")).isTrue();
        assertThat(c.hotReload()).isTrue();
        assertThat(c.hotReloadInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.debug()).isTrue();
        assertThat(c.metricsJmx()).isFalse();
        assertThat(c.sourceOf("audit.queue-size")).isEqualTo(dir.resolve("tracegate.yaml") + ":9:15");
        assertThat(c.sourceOf("mode")).isEqualTo(dir.resolve("tracegate.yaml") + ":2:7");
    }

    @Test
    void propertyWinsOverEnvironmentWhichWinsOverTheFileAndTheAgentArgumentWinsOverAll() throws IOException {
        Path f = yaml("mode: shadow\naudit:\n  path: from-file.jsonl\n  queue-size: 128\nsessions.max: 7\n");
        Map<String, String> env = Map.of("TRACEGATE_AUDIT_PATH", "from-env.jsonl", "TRACEGATE_AUDIT_QUEUE_SIZE", "256",
                "TRACEGATE_SESSIONS_MAX", "8");
        Map<String, String> props = Map.of("tracegate.audit.path", "from-property.jsonl", "tracegate.sessions.max", "9");
        AgentConfig c = load("config=" + f + ",sessions.max=10", env, props);
        assertThat(c.mode()).isEqualTo(Mode.SHADOW);
        assertThat(c.sourceOf("mode")).endsWith("tracegate.yaml:1:7");
        assertThat(c.auditQueueSize()).isEqualTo(256);
        assertThat(c.sourceOf("audit.queue-size")).isEqualTo("TRACEGATE_AUDIT_QUEUE_SIZE");
        assertThat(c.auditPath()).isEqualTo(Path.of("from-property.jsonl").toAbsolutePath());
        assertThat(c.sourceOf("audit.path")).isEqualTo("-Dtracegate.audit.path");
        assertThat(c.sessionsMax()).isEqualTo(10);
        assertThat(c.sourceOf("sessions.max")).isEqualTo("agent argument sessions.max");
    }

    @Test
    void theFileIsNamedByTheAgentArgumentThenThePropertyThenTheEnvironment() throws IOException {
        Path a = Files.writeString(dir.resolve("a.yaml"), "sessions.max: 1\n");
        Path b = Files.writeString(dir.resolve("b.yaml"), "sessions.max: 2\n");
        Path e = Files.writeString(dir.resolve("e.yaml"), "sessions.max: 3\n");
        Map<String, String> env = Map.of("TRACEGATE_CONFIG", e.toString());
        Map<String, String> props = Map.of("tracegate.config", b.toString());
        assertThat(load("config=" + a, env, props).sessionsMax()).isEqualTo(1);
        assertThat(load(null, env, props).sessionsMax()).isEqualTo(2);
        assertThat(load(null, env, Map.of()).sessionsMax()).isEqualTo(3);
        assertThat(load(null, env, Map.of()).configFile()).isEqualTo(e);
    }

    @Test
    void listsComeCommaSeparatedFromPropertiesAndEnvironmentAndSemicolonSeparatedFromAgentArguments() {
        assertThat(load(null, Map.of(), Map.of("tracegate.libraries", "gdpr, injection,/etc/x.yaml")).libraries())
                .containsExactly("gdpr", "injection", "/etc/x.yaml");
        assertThat(load(null, Map.of("TRACEGATE_LIBRARIES", "sop-refund,temporal-classes"), Map.of()).libraries())
                .containsExactly("sop-refund", "temporal-classes");
        assertThat(load("libraries=gdpr;injection,mode=shadow", Map.of(), Map.of()).libraries()).containsExactly("gdpr", "injection");
        assertThat(load(null, Map.of(), Map.of("tracegate.redirect", "delete_account:archive_account, refund:refund_request")).redirect())
                .containsExactly(Map.entry("delete_account", "archive_account"), Map.entry("refund", "refund_request"));
        assertThat(load(null, Map.of("TRACEGATE_INSTRUMENTATIONS_MCP_SERVER_ENABLED", "false"), Map.of())
                .instrumentationEnabled("mcp-server")).isFalse();
    }

    @Test
    void anEmptyListOrMappingOverrideIsRefusedNamingItsSourceInsteadOfErasingTheFilesValue() throws IOException {
        // trial23 04: TRACEGATE_LIBRARIES= from a template with the value unset replaced the file's libraries with none,
        // and the service ran unsupervised under fail: closed; every other key refuses an empty value
        Path f = yaml("libraries: [gdpr]\nredirect: {delete_account: archive_account}\nfail: closed\n");
        String config = "config=" + f;
        String env = error(config, Map.of("TRACEGATE_LIBRARIES", ""), Map.of());
        assertThat(env).startsWith("TRACEGATE_LIBRARIES").contains("libraries must be a list").contains("got ''")
                .contains("remove TRACEGATE_LIBRARIES to keep the configuration file's value (" + f + ":1:")
                .contains("leave nothing supervised");
        assertThat(error(config, Map.of(), Map.of("tracegate.libraries", " "))).startsWith("-Dtracegate.libraries")
                .contains("libraries must be a list");
        assertThat(error(config, Map.of("TRACEGATE_LIBRARIES", " , ;"), Map.of())).startsWith("TRACEGATE_LIBRARIES");
        assertThat(error("libraries=", Map.of(), Map.of())).startsWith("agent argument libraries").contains("to keep the default");
        assertThat(error(config, Map.of("TRACEGATE_REDIRECT", ""), Map.of())).startsWith("TRACEGATE_REDIRECT")
                .contains("redirect must be a mapping").contains("TRACEGATE_REDIRECT=delete_account:archive_account");
        assertThat(error(null, Map.of(), Map.of("tracegate.redirect", ""))).startsWith("-Dtracegate.redirect");
        assertThat(error(null, Map.of("TRACEGATE_CONFIG", ""), Map.of())).isEqualTo("TRACEGATE_CONFIG: config must name the YAML configuration"
                + " file, got ''. Name it, e.g. TRACEGATE_CONFIG=/etc/tracegate/tracegate.yaml, or remove TRACEGATE_CONFIG to run on defaults"
                + " and overrides only.");
        // an override with a value still replaces the file's list, and an explicit empty list in the file stays what it says
        assertThat(load(config, Map.of("TRACEGATE_LIBRARIES", "injection"), Map.of()).libraries()).containsExactly("injection");
        assertThat(load(config, Map.of(), Map.of()).libraries()).containsExactly("gdpr");
        assertThat(fileError("libraries: ''\n")).contains("libraries must be a list").contains("Write libraries: [] if you mean none");
        assertThat(fromFile("libraries: []\nredirect: {}\n").libraries()).isEmpty();
    }

    @Test
    void debugShowsADurationAsWrittenSoTheDefaultReadsAsCONFIGmdGivesIt() {
        // trial23: CONFIG.md gives sessions.in-flight-timeout's default as 24h, debug printed 1d
        String d = load(null, Map.of("TRACEGATE_ESCALATE_TIMEOUT", "1h30m"), Map.of()).describe();
        assertThat(d).containsPattern("\n  sessions.in-flight-timeout\\s+= 24h   \\[default\\]\n")
                .containsPattern("\n  sessions.idle-timeout\\s+= 30m   \\[default\\]\n")
                .containsPattern("\n  escalate.timeout\\s+= 1h30m   \\[TRACEGATE_ESCALATE_TIMEOUT\\]\n");
        for (ConfigKey k : ConfigKey.ALL.values()) {
            if (k.type == ConfigKey.Type.DURATION && !k.name.equals("escalate.timeout")) assertThat(d).as(k.name).containsPattern("\n  " + quote(k.name) + "\\s+= " + quote(k.defaultText) + "   ");
        }
    }

    @Test
    void anHmacKeyShorterThan16BytesIsRefusedWithoutShowingIt() throws IOException {
        // trial23: a 4-character key (S3cr) was taken without a word
        String e = error(null, Map.of("TRACEGATE_AUDIT_HMAC_KEY", "S3cr"), Map.of());
        assertThat(e).startsWith("TRACEGATE_AUDIT_HMAC_KEY").contains("audit.hmac-key must be at least 16 bytes (UTF-8), got 4")
                .contains("openssl rand -base64 32").doesNotContain("S3cr");
        assertThat(fileError("audit.hmac-key: fifteen-bytes!!\n")).startsWith("F:1:17").contains("got 15");
        assertThat(new String(load(null, Map.of("TRACEGATE_AUDIT_HMAC_KEY", "sixteen-bytes!!!"), Map.of()).auditHmacKey(),
                java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("sixteen-bytes!!!");
    }

    @Test
    void anAuditPathThatIsADirectoryStopsTheStartNamingAFileInIt() throws IOException {
        // trial23: it was taken, and the start went on into an outage that refused every call under fail: closed
        Path logs = Files.createDirectories(dir.resolve("logs"));
        assertThat(error(null, Map.of("TRACEGATE_AUDIT_PATH", logs.toString()), Map.of())).isEqualTo("TRACEGATE_AUDIT_PATH: audit.path"
                + " must name a file, but " + logs + " is a directory. Name a file in it, e.g. TRACEGATE_AUDIT_PATH=" + logs.resolve("audit.jsonl") + ".");
        assertThat(fileError("audit.path: logs\n")).startsWith("F:1:13: audit.path must name a file, but").contains("audit.path: ");
        assertThat(error(null, Map.of(), Map.of("tracegate.register.path", logs.toString()))).startsWith("-Dtracegate.register.path: register.path"
                + " must name a file").contains("gdpr-register.jsonl");
        assertThat(load(null, Map.of("TRACEGATE_AUDIT_PATH", logs.resolve("a.jsonl").toString()), Map.of()).auditPath()).isEqualTo(logs.resolve("a.jsonl"));
    }

    @Test
    void durationsTakeUnitsAndCombinations() {
        String[][] cases = {{"10s", "PT10S"}, {"500ms", "PT0.5S"}, {"30m", "PT30M"}, {"1h30m", "PT1H30M"}, {"2d", "PT48H"},
                {"1500us", "PT0.0015S"}, {"1m30s", "PT1M30S"}};
        for (String[] c : cases) {
            AgentConfig cfg = load(null, Map.of(), Map.of("tracegate.escalate.timeout", c[0]));
            assertThat(cfg.escalateTimeout()).as(c[0]).isEqualTo(Duration.parse(c[1]));
        }
        for (String bad : List.of("30", "30 minutes", "-5s", "10S", "1.5s", "s", "")) {
            assertThat(error(null, Map.of(), Map.of("tracegate.escalate.timeout", bad))).as(bad)
                    .startsWith("-Dtracegate.escalate.timeout: escalate.timeout must be a duration such as 30m");
        }
        assertThat(error(null, Map.of("TRACEGATE_SESSIONS_IDLE_TIMEOUT", "30"), Map.of())).isEqualTo(
                "TRACEGATE_SESSIONS_IDLE_TIMEOUT: sessions.idle-timeout must be a duration such as 30m, 10s or 500ms"
                        + " (a whole number and a unit: ns, us, ms, s, m, h, d; parts may be combined, as in 1h30m), from 1s to 365d,"
                        + " got '30'. Write e.g. TRACEGATE_SESSIONS_IDLE_TIMEOUT=30m.");
        // below the key's minimum
        assertThat(error(null, Map.of(), Map.of("tracegate.sessions.idle-timeout", "500ms"))).contains("from 1s to 365d, got '500ms'");
    }

    @Test
    void hotReloadIsASwitchOrAPollInterval() {
        AgentConfig on = load(null, Map.of(), Map.of("tracegate.hot-reload", "true"));
        assertThat(on.hotReload()).isTrue();
        assertThat(on.hotReloadInterval()).isEqualTo(Duration.ofSeconds(2));
        AgentConfig every = load("hot-reload=750ms", Map.of(), Map.of());
        assertThat(every.hotReload()).isTrue();
        assertThat(every.hotReloadInterval()).isEqualTo(Duration.ofMillis(750));
        assertThat(load(null, Map.of("TRACEGATE_HOT_RELOAD", "false"), Map.of()).hotReload()).isFalse();
        assertThat(error("hot-reload=sometimes", Map.of(), Map.of())).isEqualTo(
                "agent argument hot-reload: hot-reload must be true, false, or a poll interval such as 2s, from 100ms to 1d, got 'sometimes'."
                        + " Write e.g. hot-reload=2s.");
        assertThat(error("hot-reload=50ms", Map.of(), Map.of())).as("a poll interval out of range names the range (trial12)")
                .contains("from 100ms to 1d, got '50ms'");
    }

    // ---------------------------------------------------------------- errors, with their exact text

    @Test
    void anUnknownKeyInTheFileNamesLineAndColumnAndSuggestsTheNearestKey() throws IOException {
        assertThat(fileError("mode: shadow\naudit:\n  pth: x.jsonl\n")).isEqualTo(
                "F:3:3: unknown key 'audit.pth'. Did you mean 'audit.path'? Every key is listed in agent/CONFIG.md.");
        assertThat(fileError("libaries: [gdpr]\n")).isEqualTo(
                "F:1:1: unknown key 'libaries'. Did you mean 'libraries'? Every key is listed in agent/CONFIG.md.");
        assertThat(fileError("frobnicate: 3\n")).isEqualTo(
                "F:1:1: unknown key 'frobnicate'. Every key is listed in agent/CONFIG.md.");
        // a key put at the wrong level is found by its last part
        assertThat(fileError("queue-size: 10\n")).isEqualTo(
                "F:1:1: unknown key 'queue-size'. Did you mean 'audit.queue-size'? Every key is listed in agent/CONFIG.md.");
    }

    @Test
    void anUnknownOverrideNamesThePropertyOrVariableAsTheUserWroteIt() {
        assertThat(error(null, Map.of(), Map.of("tracegate.mod", "shadow"))).isEqualTo(
                "-Dtracegate.mod: unknown key '-Dtracegate.mod'. Did you mean '-Dtracegate.mode'? Every key is listed in agent/CONFIG.md.");
        assertThat(error("moed=shadow", Map.of(), Map.of())).isEqualTo(
                "agent argument moed: unknown key 'moed'. Did you mean 'mode'? Every key is listed in agent/CONFIG.md.");
        // variables and properties of other programs are left alone
        assertThat(load(null, Map.of("PATH", "/bin", "TRACEGATEWAY", "x"), Map.of("java.home", "/jdk", "tracegatex", "y")).mode())
                .isEqualTo(Mode.ENFORCE);
    }

    @Test
    void aValueOfTheWrongTypeSaysWhatItMustBeAndShowsAnExampleInTheSyntaxOfItsSource() throws IOException {
        assertThat(fileError("audit:\n  queue-size: lots\n")).isEqualTo(
                "F:2:15: audit.queue-size must be a whole number from 2 to 16777216, got 'lots'. Write e.g. audit.queue-size: 65536.");
        assertThat(fileError("audit:\n  queue-size: 1\n")).isEqualTo(
                "F:2:15: audit.queue-size must be a whole number from 2 to 16777216, got '1'. Write e.g. audit.queue-size: 65536.");
        assertThat(fileError("debug: [true]\n")).isEqualTo(
                "F:1:8: debug must be true or false, got a list. Write e.g. debug: true.");
        assertThat(error(null, Map.of(), Map.of("tracegate.debug", "yes"))).isEqualTo(
                "-Dtracegate.debug: debug must be true or false, got 'yes'. Write e.g. -Dtracegate.debug=true.");
        assertThat(fileError("warmup: nope\n")).isEqualTo(
                "F:1:9: warmup must be true or false, got 'nope'. Write e.g. warmup: false.");
        assertThat(fileError("view: lve\n")).startsWith("F:1:7: view must be one of off, live, got 'lve'. Did you mean 'live'?");
        assertThat(fileError("libraries:\n  - gdpr\n  - {name: x}\n")).isEqualTo(
                "F:3:5: libraries must be a list (a YAML sequence, or values separated by commas), got a mapping."
                        + " Write e.g. libraries: [gdpr, injection, /etc/tracegate/refunds.yaml].");
        assertThat(error(null, Map.of("TRACEGATE_REDIRECT", "delete_account"), Map.of())).isEqualTo(
                "TRACEGATE_REDIRECT: redirect must be a mapping from tool names to tool names (a YAML mapping, or from:to pairs"
                        + " separated by commas), got 'delete_account'. Write e.g. TRACEGATE_REDIRECT=delete_account:archive_account.");
    }

    @Test
    void aBadChoiceListsTheChoicesAndSuggestsTheNearest() throws IOException {
        assertThat(fileError("mode: enforcing\n")).isEqualTo(
                "F:1:7: mode must be one of enforce, shadow, got 'enforcing'. Did you mean 'enforce'? Write e.g. mode: enforce.");
        assertThat(error("audit.on-full=wait", Map.of(), Map.of())).isEqualTo(
                "agent argument audit.on-full: audit.on-full must be one of block, drop, got 'wait'. Write e.g. audit.on-full=drop.");
        // case does not matter
        assertThat(load(null, Map.of("TRACEGATE_FAIL", "OPEN"), Map.of()).fail()).isEqualTo(FailPolicy.OPEN);
    }

    @Test
    void structuralMistakesInTheFileAreNamedWhereTheyAre() throws IOException {
        assertThat(fileError("audit: true\n")).isEqualTo(
                "F:1:8: 'audit' is a group of keys (path, personal-data, hmac-key, queue-size, on-full, max-block, max-delay, trace-ids), not a value,"
                        + " but it is given 'true'. Write its keys indented below it, e.g. 'audit:' and on the next line"
                        + " '  path: /var/log/tracegate/audit.jsonl'.");
        assertThat(fileError("mode: shadow\nmode: enforce\n")).isEqualTo(
                "F:2:1: the key 'mode' appears twice in the same mapping (first at F:1:1). Keep one of them.");
        // both spellings name one key (CONFIG.md): given both ways it is as refused as twice the same way (trial12)
        assertThat(fileError("audit.path: first.jsonl\nsessions.max: 10\naudit:\n  path: second.jsonl\n")).isEqualTo(
                "F:4:3: the key 'audit.path' is set twice in this file: first as 'audit.path' at F:1:1, again as 'audit: path'"
                        + " here (a dotted key and a nested mapping name the same key). Keep one of them.");
        assertThat(fileError("sessions:\n  max: 10\nsessions.max: 20\n")).startsWith(
                "F:3:1: the key 'sessions.max' is set twice in this file: first as 'sessions: max' at F:2:3, again as 'sessions.max' here");
        assertThat(fromFile("audit.path: a.jsonl\naudit:\n  queue-size: 64\n").auditQueueSize()).isEqualTo(64);
        // the parser gives up on line 2; the list that is not closed was opened on line 1
        assertThat(fileError("mode: [shadow\n")).isEqualTo("F:1:7: this is not valid YAML: the list opened with '[' here is not closed"
                + " (the parser read on to line 2). Close it with ']' at the end of the value, on the same line.");
        assertThat(fileError("- mode\n")).isEqualTo(
                "F:1:1: the file must be a mapping of keys to values, but it is a list. Write e.g. 'mode: enforce' on its own line (see CONFIG.md).");
        assertThat(fileError("config: other.yaml\n")).isEqualTo(
                "F:1:1: 'config' names this file and cannot be set inside it. Remove the line.");
        assertThat(fromFile("").mode()).isEqualTo(Mode.ENFORCE);
        assertThat(fromFile("# only a comment\n").mode()).isEqualTo(Mode.ENFORCE);
    }

    @Test
    void aKeyWithoutColonIsReportedOnItsOwnLineWithTheLineAsItShouldRead() throws IOException {
        // snakeyaml stops at 3:1, where it gives up looking for the ':'; the line to fix is 2
        assertThat(fileError("libraries: [shop.yaml]\nmode enforce\naudit.path: audit.jsonl\n")).isEqualTo(
                "F:2:1: this is not valid YAML: 'mode enforce' has no ':' after its key."
                        + " Write 'mode: enforce' (a ':' and a space after the key).");
        assertThat(fileError("audit:\n  path: x.jsonl\nmode shadow\ndebug: true\n")).isEqualTo(
                "F:3:1: this is not valid YAML: 'mode shadow' has no ':' after its key."
                        + " Write 'mode: shadow' (a ':' and a space after the key).");
    }

    @Test
    void aGroupKeyWithoutColonIsReportedOnItsLine() throws IOException {
        // the parser stops at the ':' of 'path' on line 2; the mistake is 'audit' on line 1
        assertThat(fileError("audit\n  path: x.jsonl\n")).isEqualTo(
                "F:1:1: this is not valid YAML: 'audit' has no ':' after its key. Write 'audit:' (the indented lines below it are its keys).");
        assertThat(fileError("mode: shadow\n  debug: true\n")).isEqualTo(
                "F:2:3: this is not valid YAML: this line is indented under 'mode' (line 1), which already has a value."
                        + " Indent it like line 1 (0 spaces), or, if it belongs under 'mode', write 'mode:' with nothing after it.");
    }

    @Test
    void aTabIsReportedWhereItIsAsATab() throws IOException {
        assertThat(fileError("mode: shadow\naudit:\n\tpath: x.jsonl\n")).isEqualTo(
                "F:3:1: this is not valid YAML: a tab in the indentation: tabs are not allowed for indentation in YAML."
                        + " Use spaces: indent with as many spaces as the lines around it.");
    }

    @Test
    void anUnknownEnvironmentVariableIsIgnoredWithAWarningWhileTheRestApplies() {
        // the environment is inherited by child JVMs and shared with scripts: TRACEGATE_JAR must not stop a start
        AgentConfig c = load(null, Map.of("TRACEGATE_AUDIT_PTH", "x", "TRACEGATE_JAR", "/opt/t.jar", "TRACEGATE_MODE", "shadow"), Map.of());
        assertThat(c.mode()).isEqualTo(Mode.SHADOW);
        assertThat(c.auditPath()).isEqualTo(load(null, Map.of(), Map.of()).auditPath());
        assertThat(c.ignoredEnvironment()).containsExactly(
                "TRACEGATE_AUDIT_PTH is not a tracegate key and is ignored. Did you mean 'TRACEGATE_AUDIT_PATH'?"
                        + " Every key is listed in agent/CONFIG.md; unset or rename the variable to silence this warning.",
                "TRACEGATE_JAR is not a tracegate key and is ignored."
                        + " Every key is listed in agent/CONFIG.md; unset or rename the variable to silence this warning.");
        assertThat(load(null, Map.of("TRACEGATE_MODE", "shadow"), Map.of()).ignoredEnvironment()).isEmpty();
        // a variable that is a key but has a bad value still stops the start: the operator meant tracegate
        assertThat(error(null, Map.of("TRACEGATE_MODE", "shadwo"), Map.of())).startsWith("TRACEGATE_MODE");
    }

    @Test
    void aSingularOrPluralSlipGetsADidYouMeanInEverySource() throws IOException {
        assertThat(fileError("library: [shop.yaml]\n")).isEqualTo(
                "F:1:1: unknown key 'library'. Did you mean 'libraries'? Every key is listed in agent/CONFIG.md.");
        assertThat(error(null, Map.of(), Map.of("tracegate.library", "gdpr"))).isEqualTo(
                "-Dtracegate.library: unknown key '-Dtracegate.library'. Did you mean '-Dtracegate.libraries'? Every key is listed in agent/CONFIG.md.");
        assertThat(load(null, Map.of("TRACEGATE_LIBRARY", "gdpr"), Map.of()).ignoredEnvironment()).containsExactly(
                "TRACEGATE_LIBRARY is not a tracegate key and is ignored. Did you mean 'TRACEGATE_LIBRARIES'?"
                        + " Every key is listed in agent/CONFIG.md; unset or rename the variable to silence this warning.");
        assertThat(error("librarys=gdpr", Map.of(), Map.of())).isEqualTo(
                "agent argument librarys: unknown key 'librarys'. Did you mean 'libraries'? Every key is listed in agent/CONFIG.md.");
    }

    @Test
    void aListSplitWithACommaInTheAgentArgumentIsToldToUseSemicolons() {
        assertThat(error("libraries=shop.yaml,gdpr", Map.of(), Map.of())).isEqualTo(
                "agent arguments: 'gdpr' is not key=value. Inside the agent argument ',' separates options:"
                        + " separate list values with ';': libraries=shop.yaml;gdpr.");
        assertThat(error("mode=shadow,libraries=shop.yaml,gdpr,injection,debug=true", Map.of(), Map.of())).isEqualTo(
                "agent arguments: 'gdpr' is not key=value. Inside the agent argument ',' separates options:"
                        + " separate list values with ';': libraries=shop.yaml;gdpr;injection.");
        assertThat(error("redirect=a:b,c:d", Map.of(), Map.of())).isEqualTo(
                "agent arguments: 'c:d' is not key=value. Inside the agent argument ',' separates options:"
                        + " separate list values with ';': redirect=a:b;c:d.");
    }

    @Test
    void eachLibraryEntryRemembersWhereItWasWritten() throws IOException {
        // keyed by the entry as libraries() gives it (resolved), which is what the library loader asks about
        AgentConfig c = fromFile("mode: shadow\nlibraries: [gdpr, shop.yml]\n");
        assertThat(c.libraryPlace(dir.resolve("shop.yml").toString())).isEqualTo(dir.resolve("tracegate.yaml") + ":2:19");
        assertThat(c.libraryPlace("gdpr")).isEqualTo(dir.resolve("tracegate.yaml") + ":2:13");
        assertThat(fromFile("libraries:\n  - gdpr\n  - ./x/shop.yml\n").libraryPlace(dir.resolve("./x/shop.yml").toString()))
                .isEqualTo(dir.resolve("tracegate.yaml") + ":3:5");
        // a later source replaces the file's list, and its places with it
        AgentConfig p = load("config=" + yaml("libraries: [a.yaml]\n"), Map.of(), Map.of("tracegate.libraries", "gdpr, b.yaml"));
        assertThat(p.libraryPlace(cwd("b.yaml"))).isEqualTo("-Dtracegate.libraries");
        assertThat(p.libraryPlace(dir.resolve("a.yaml").toString())).isNull();
        assertThat(load("libraries=gdpr;b.yaml", Map.of(), Map.of()).libraryPlace(cwd("b.yaml"))).isEqualTo("agent argument libraries");
    }

    @Test
    void aMissingLibraryFileIsReportedAtTheConfigurationEntryThatNamesIt() throws Exception {
        Files.writeString(dir.resolve("shop.yaml"), "library: shop\ncontracts:\n  - id: shop.a\n    guarantee: G !call(x)\n");
        Path config = yaml("mode: shadow\nlibraries: [gdpr, shop.yml]\naudit.path: " + dir.resolve("audit.jsonl") + "\n");
        // as the agent loads it (the supervisor reads config.libraries()): the message names the file it looked for
        assertThat(startError(load("config=" + config, Map.of(), Map.of()))).isEqualTo(
                config + ":2:19: the libraries entry '" + dir.resolve("shop.yml") + "' is no file: " + dir.resolve("shop.yml") + " does not exist"
                        + "\n  hint: did you mean '" + dir.resolve("shop.yaml") + "'? give a path to a .yaml file, or a built-in name: gdpr,"
                        + " injection, sop-refund, temporal-classes");
        // typed on the command line: looked for in the working directory, not beside the configuration file
        assertThat(startError(load("config=" + config, Map.of(), Map.of("tracegate.libraries", "shop.yml")))).startsWith(
                "-Dtracegate.libraries: the libraries entry '" + cwd("shop.yml") + "' is no file: " + cwd("shop.yml") + " does not exist");
        assertThat(startError(load("config=" + config + ",libraries=gdpr;shop.yml", Map.of(), Map.of()))).startsWith(
                "agent argument libraries: the libraries entry '" + cwd("shop.yml") + "' is no file: " + cwd("shop.yml") + " does not exist");
        assertThat(startError(load("config=" + config, Map.of("TRACEGATE_LIBRARIES", "shop.yml"), Map.of()))).startsWith(
                "TRACEGATE_LIBRARIES: the libraries entry '" + cwd("shop.yml") + "' is no file: " + cwd("shop.yml") + " does not exist");
    }

    /** The absolute path of {@code relative} in the working directory (the JDK's own resolution against user.dir). */
    private static String cwd(String relative) {
        return Path.of(relative).toAbsolutePath().toString();
    }

    @Test
    void aRelativePathWrittenInTheConfigurationFileIsReadFromTheFilesDirectory() throws IOException {
        Path conf = Files.createDirectories(dir.resolve("conf")).toRealPath();
        Path file = Files.writeString(conf.resolve("tracegate.yaml"),
                "libraries: [gdpr, mine.yaml, sub/other.yaml, ../shared/x.yaml, /etc/tracegate/abs.yaml, builtin:injection]\naudit.path: audit.jsonl\n");
        // the file named by each of its three sources, with a relative name (read from the working directory)
        for (AgentConfig c : List.of(load("config=" + file, Map.of(), Map.of()), load(null, Map.of(), Map.of("tracegate.config", file.toString())),
                load(null, Map.of("TRACEGATE_CONFIG", file.toString()), Map.of()),
                load("config=" + Path.of("").toAbsolutePath().relativize(file), Map.of(), Map.of()))) {
            assertThat(c.libraries()).containsExactly("gdpr", conf.resolve("mine.yaml").toString(), conf.resolve("sub/other.yaml").toString(),
                    conf.resolve("../shared/x.yaml").toString(), "/etc/tracegate/abs.yaml", "builtin:injection");
            assertThat(c.auditPath()).isEqualTo(conf.resolve("audit.jsonl"));
            assertThat(c.libraryBase()).isEqualTo(conf);
        }
        // nested keys, a comma-separated scalar and a YAML list of items are read the same way
        Files.writeString(file, "libraries: mine.yaml, sop-refund\naudit:\n  path: logs/a.jsonl\n");
        AgentConfig c = load("config=" + file, Map.of(), Map.of());
        assertThat(c.libraries()).containsExactly(conf.resolve("mine.yaml").toString(), "sop-refund");
        assertThat(c.auditPath()).isEqualTo(conf.resolve("logs/a.jsonl"));
        Files.writeString(file, "libraries:\n  - mine.yaml\n");
        assertThat(load("config=" + file, Map.of(), Map.of()).libraries()).containsExactly(conf.resolve("mine.yaml").toString());
    }

    @Test
    void aRelativePathTypedWhereTheProgramStartsIsReadFromTheWorkingDirectoryEvenWithAConfigurationFile() throws IOException {
        Path conf = Files.createDirectories(dir.resolve("conf")).toRealPath();
        Path file = Files.writeString(conf.resolve("tracegate.yaml"), "libraries: [in-file.yaml]\naudit.path: in-file.jsonl\n");
        List<AgentConfig> overridden = List.of(
                load("config=" + file, Map.of(), Map.of("tracegate.libraries", "gdpr, mine.yaml", "tracegate.audit.path", "logs/a.jsonl")),
                load("config=" + file, Map.of("TRACEGATE_LIBRARIES", "gdpr, mine.yaml", "TRACEGATE_AUDIT_PATH", "logs/a.jsonl"), Map.of()),
                load("config=" + file + ",libraries=gdpr;mine.yaml,audit.path=logs/a.jsonl", Map.of(), Map.of()));
        for (AgentConfig c : overridden) {
            assertThat(c.libraries()).as(c.sourceOf("libraries")).containsExactly("gdpr", cwd("mine.yaml"));
            assertThat(c.auditPath()).as(c.sourceOf("audit.path")).isEqualTo(Path.of(cwd("logs/a.jsonl")));
            assertThat(c.libraryBase()).isEqualTo(Path.of("").toAbsolutePath());
        }
        // without a file, and absolute paths from anywhere, as they are
        assertThat(load("libraries=mine.yaml", Map.of(), Map.of()).libraries()).containsExactly(cwd("mine.yaml"));
        assertThat(load("audit.path=/var/log/t.jsonl", Map.of(), Map.of("tracegate.libraries", "/etc/x.yaml")).auditPath())
                .isEqualTo(Path.of("/var/log/t.jsonl"));
        assertThat(load(null, Map.of(), Map.of("tracegate.libraries", "/etc/x.yaml")).libraries()).containsExactly("/etc/x.yaml");
    }

    @Test
    void debugOutputShowsTheResolvedAbsolutePaths() throws IOException {
        Path conf = Files.createDirectories(dir.resolve("conf")).toRealPath();
        Path file = Files.writeString(conf.resolve("tracegate.yaml"), "libraries: [gdpr, mine.yaml]\naudit.path: audit.jsonl\n");
        String d = load("config=" + file, Map.of(), Map.of()).describe();
        assertThat(d).containsPattern("\n  libraries\\s+= " + quote("[gdpr, " + conf.resolve("mine.yaml") + "]   [" + file + ":1:12]") + "\n")
                .containsPattern("\n  audit.path\\s+= " + quote(conf.resolve("audit.jsonl") + "   [" + file + ":2:13]") + "\n");
        assertThat(load(null, Map.of(), Map.of("tracegate.audit.path", "a.jsonl")).describe())
                .containsPattern("\n  audit.path\\s+= " + quote(cwd("a.jsonl") + "   [-Dtracegate.audit.path]") + "\n");
    }

    private static String quote(String literal) {
        return java.util.regex.Pattern.quote(literal);
    }

    /** The message of the library error the contract supervisor stops the start with. */
    private static String startError(AgentConfig config) throws Exception {
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(config.auditPath(),
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        try {
            new dev.tracegate.agent.supervision.ContractSupervisor(config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null);
        } catch (dev.tracegate.contracts.library.LibraryException e) {
            return e.getMessage();
        } finally {
            audit.close(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        throw new AssertionError("the supervisor started");
    }

    @Test
    void aMissingFileOrMalformedAgentArgumentsSayHowToFixThem() {
        Path missing = dir.resolve("nope.yaml");
        assertThat(error(null, Map.of(), Map.of("tracegate.config", missing.toString())))
                .startsWith("-Dtracegate.config: cannot read the configuration file " + missing + " (java.nio.file.NoSuchFileException")
                .endsWith("). Fix the path, or remove -Dtracegate.config to run on defaults and overrides only.");
        assertThat(error("mode=shadow,debug", Map.of(), Map.of())).isEqualTo(
                "agent arguments: 'debug' is not key=value. Write e.g. -javaagent:tracegate-agent.jar=config=/etc/tracegate.yaml,mode=shadow"
                        + " (separate list items inside a value with ';').");
        assertThat(error("mode=shadow,mode=enforce", Map.of(), Map.of())).isEqualTo(
                "agent arguments: the key 'mode' is given twice. Keep one of them.");
    }

    @Test
    void configuredMethodsAreReadFromTheFileWithTheirPlace() throws IOException {
        AgentConfig c = fromFile(String.join("\n",
                "configured-methods:",
                "  - class: com.acme.Shop",
                "    method: checkout",
                "    kind: tool",
                "    tool-name: checkout",
                "    args-param: 1",
                "    session-param: 0",
                "  - {class: com.acme.Privacy, method: grant, kind: consent, subject-param: 0, purpose-param: 1, granted-param: 2}",
                "  - {class: com.acme.Privacy, method: forget, kind: erasure, subject-param: 0}",
                ""));
        List<ConfiguredMethod> m = c.configuredMethods();
        assertThat(m).hasSize(3);
        assertThat(m.get(0).className()).isEqualTo("com.acme.Shop");
        assertThat(m.get(0).method()).isEqualTo("checkout");
        assertThat(m.get(0).kind()).isEqualTo(ConfiguredMethod.Kind.TOOL);
        assertThat(m.get(0).toolName()).isEqualTo("checkout");
        assertThat(m.get(0).argsParam()).isEqualTo("1");
        assertThat(m.get(0).sessionParam()).isEqualTo("0");
        assertThat(m.get(0).where()).endsWith("tracegate.yaml:2:5");
        assertThat(m.get(1).kind()).isEqualTo(ConfiguredMethod.Kind.CONSENT);
        assertThat(m.get(1).grantedParam()).isEqualTo("2");
        assertThat(m.get(2).kind()).isEqualTo(ConfiguredMethod.Kind.ERASURE);
        assertThat(m.get(2).subjectParam()).isEqualTo("0");
    }

    /**
     * trial46 01: exclude-params names the parameters of a tool method that are no tool data (ADK's ToolContext), as a YAML
     * list or one value, by index or name; the debug printout of the entry shows it. Misuse stops the start at its place.
     */
    @Test
    void excludeParamsIsAListOfParametersOfAToolEntryWithoutArgsParam() throws IOException {
        AgentConfig c = fromFile(String.join("\n",
                "configured-methods:",
                "  - {class: t.Tools, method: send, kind: tool, session-param: \"toolContext.sessionId\", exclude-params: [toolContext, 3]}",
                "  - class: t.Tools",
                "    method: lookup",
                "    kind: tool",
                "    exclude-params: 1",
                "  - {class: t.Tools, method: other, kind: tool}",
                ""));
        List<ConfiguredMethod> m = c.configuredMethods();
        assertThat(m.get(0).excludeParams()).containsExactly("toolContext", "3");
        assertThat(m.get(0).toString()).endsWith(" exclude-params=[toolContext, 3]");
        assertThat(m.get(1).excludeParams()).containsExactly("1");
        assertThat(m.get(2).excludeParams()).isEmpty();
        assertThat(m.get(2).toString()).doesNotContain("exclude");

        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, exclude-params: [ctx.session]}\n"))
                .startsWith("F:2:56: exclude-params 'ctx.session' is neither a parameter's 0-based index nor its name (a field of a"
                        + " parameter cannot be left out: the arguments are whole parameters; leave out the whole parameter, ctx,")
                .endsWith("e.g. exclude-params: [ctx].");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, exclude-params: -1}\n"))
                .startsWith("F:2:55: exclude-params '-1' is a negative number, which names no parameter");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, exclude-params: []}\n"))
                .startsWith("F:2:55: exclude-params of a configured method is an empty list");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, args-param: 0, exclude-params: [ctx]}\n"))
                .startsWith("F:2:54: exclude-params leaves parameters out of the arguments when they are all parameters by name (no"
                        + " args-param), but this entry says args-param: 0")
                .contains("Remove exclude-params, or remove args-param");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: erasure, subject-param: 0, exclude-params: [1]}\n"))
                .startsWith("F:2:").contains("exclude-params applies to a tool method only: a erasure method's event has no arguments");
    }

    @Test
    void configuredMethodMistakesAreNamedAtTheirLine() throws IOException {
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, arg-param: 1}\n")).isEqualTo(
                "F:2:39: unknown field 'arg-param' in a configured method. Did you mean 'args-param'? The fields are class, method,"
                        + " kind, tool-name, args-param, session-param, subject-param, purpose-param, granted-param, nested, block-style, exclude-params.");
        // trial25 03: the per-entry block style a cached method needs; only 'exception' means anything there
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, block-style: substitute}\n")).isEqualTo(
                "F:2:52: block-style on a configured method can only be 'exception', got 'substitute': its blocked calls and withheld"
                        + " results then throw TracegateViolation whatever block.style says, so a cache (@Cacheable) or other wrapper that"
                        + " stores the method's value never stores a refusal (CONFIG.md, \"A refusal and a cache\"). Leave it out to follow block.style.");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: erasure, subject-param: 0, block-style: exception}\n"))
                .startsWith("F:2:").endsWith("block-style applies to a tool method only: a erasure method is never blocked. Remove it.");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, nested: yes please}\n")).isEqualTo(
                "F:2:47: nested must be true or false, got 'yes please'. 'nested: true' supervises the method also when it runs inside"
                        + " another supervised call (CONFIG.md).");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: consent, subject-param: 0}\n")).isEqualTo(
                "F:2:5: a consent method needs 'purpose-param' (the index of the parameter that holds it, or a literal). Add e.g. 'purpose-param: 0'.");
        // trial30 01: a negative index and a field path in args-param were silent (a literal session, a WARN once woven)
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, session-param: -1}\n")).isEqualTo(
                "F:2:54: session-param '-1' is a negative number, which names no parameter: parameters are counted from 0 (session-param: 0"
                        + " is the first), and a literal session id is text such as web-1.");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, args-param: \"to-whom\"}\n"))
                .startsWith("F:2:51: args-param 'to-whom' is neither a parameter's 0-based index nor its name, this");
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, session-param: \"0.\"}\n"))
                .contains("session-param '0.' starts like a field path");
        // trial30 06: an unknown placeholder was a literal tool name
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, tool-name: \"$klass\"}\n"))
                .startsWith("F:2:50: tool-name '$klass' is no placeholder (did you mean '$class'?): the placeholders are $method");
        // trial46 07: a tool-name field path was silently the literal tool "0.name"; since session 23 it is read at each call (and
        // args-param reads this and paths); a literal with a dot stays a literal
        for (String ok : new String[] {"tool-name: \"0.name\"", "tool-name: this.name", "args-param: this", "args-param: \"this.input\"",
                "args-param: \"1.amount\"", "session-param: this.conversation.id"}) {
            assertThat(fromFile("configured-methods:\n  - {class: A, method: b, kind: tool, " + ok + "}\n").configuredMethods())
                    .as(ok).hasSize(1);
        }
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tool, tool-name: \"0.na me\"}\n"))
                .startsWith("F:2:50: tool-name '0.na me' starts like a field path (a parameter's 0-based index, or this, then field names");
        assertThat(dev.tracegate.agent.config.ConfiguredMethod.paramProblem("tool-name", "github.create_issue")).isNull();
        assertThat(fileError("configured-methods:\n  - {class: A, method: b, kind: tol}\n")).isEqualTo(
                "F:2:33: kind must be one of tool, consent, erasure, got 'tol'. Did you mean 'tool'?");
        // trial17 kind-user-no-hint: an in-house model call is the natural next try; the error says there is no such kind
        assertThat(fileError("configured-methods:\n  - {class: A, method: chat, kind: user}\n")).startsWith(
                "F:2:36: kind must be one of tool, consent, erasure, got 'user'. A configured method cannot be a USER or ASSISTANT"
                        + " message: an in-house model call cannot be supervised").contains("Remove this entry");
        assertThat(fileError("configured-methods:\n  - {class: A, method: chat, kind: assistant}\n")).contains("cannot be a USER or ASSISTANT");
        assertThat(fileError("configured-methods:\n  - {class: A, kind: tool}\n")).isEqualTo(
                "F:2:5: this configured method has no 'method'. Every method needs class, method and kind (tool, consent or erasure).");
        assertThat(error(null, Map.of(), Map.of("tracegate.configured-methods", "x"))).isEqualTo(
                "-Dtracegate.configured-methods: configured-methods can only be set in the configuration file, as a list of mappings"
                        + " (class, method, kind, ...). Move it to the YAML file; CONFIG.md shows an example.");
    }

    @Test
    void debugOutputShowsEveryKeyWithItsSourceAndHidesTheKey() throws IOException {
        Path f = yaml("mode: shadow\naudit.hmac-key: do-not-print-me-ever\n");
        AgentConfig c = load("config=" + f + ",debug=true", Map.of("TRACEGATE_SESSIONS_MAX", "12"), Map.of("tracegate.fail", "open"));
        String d = c.describe();
        assertThat(d).startsWith("tracegate effective configuration (file " + f + ")\n");
        assertThat(d).doesNotContain("do-not-print-me-ever");
        assertThat(d).containsPattern("\n  mode\\s+= shadow   \\[" + java.util.regex.Pattern.quote(f + ":1:7") + "\\]\n");
        assertThat(d).containsPattern("\n  audit.hmac-key\\s+= \\(set\\)   \\[");
        assertThat(d).containsPattern("\n  sessions.max\\s+= 12   \\[TRACEGATE_SESSIONS_MAX\\]\n");
        assertThat(d).containsPattern("\n  fail\\s+= open   \\[-Dtracegate.fail\\]\n");
        assertThat(d).containsPattern("\n  debug\\s+= true   \\[agent argument debug\\]\n");
        assertThat(d).containsPattern("\n  audit.path\\s+= " + java.util.regex.Pattern.quote(cwd("tracegate-audit.jsonl")) + "   \\[default\\]\n");
        assertThat(d).containsPattern("\n  escalate.approver\\s+= \\(unset\\)   \\[default\\]\n");
        for (String key : ConfigKey.ALL.keySet()) assertThat(d).contains("\n  " + key + " ");
    }

    @Test
    void aBadConfigurationStillTellsWhichFailPolicyWasAskedFor() throws IOException {
        Path f = yaml("fail: open\nmode: enforcing\n");
        ConfigException fromFile = catchConfig(() -> load("config=" + f, Map.of(), Map.of()));
        assertThat(fromFile.failPolicy()).isEqualTo(FailPolicy.OPEN);
        ConfigException fromArgs = catchConfig(() -> load("fail=open,moed=x", Map.of(), Map.of()));
        assertThat(fromArgs.failPolicy()).isEqualTo(FailPolicy.OPEN);
        // the property wins over the file, as for a good configuration
        ConfigException overridden = catchConfig(() -> load("config=" + f, Map.of(), Map.of("tracegate.fail", "closed")));
        assertThat(overridden.failPolicy()).isEqualTo(FailPolicy.CLOSED);
        // a file that is not even YAML cannot be trusted to say open
        Path broken = Files.writeString(dir.resolve("broken.yaml"), "fail: open\nmode: [\n");
        assertThat(catchConfig(() -> load("config=" + broken, Map.of(), Map.of())).failPolicy()).isEqualTo(FailPolicy.CLOSED);
        assertThat(catchConfig(() -> load("debug=maybe", Map.of(), Map.of())).failPolicy()).isEqualTo(FailPolicy.CLOSED);
    }

    @Test
    void theAdviceToRunUnsupervisedNamesThePlacesThatAreReadWhenTheFileIsNot() throws IOException {
        Path valid = yaml("fail: closed\nmode: enforcing\n");
        assertThat(catchConfig(() -> load("config=" + valid, Map.of(), Map.of())).unsupervisedHint())
                .isEqualTo("set fail: open to run the application unsupervised");
        Path broken = Files.writeString(dir.resolve("broken-open.yaml"), "libraries: [gdpr\n  # a comment\nfail: \"open\"  # for now\n");
        assertThat(catchConfig(() -> load("config=" + broken, Map.of(), Map.of())).unsupervisedHint())
                .isEqualTo("run the application unsupervised with -Dtracegate.fail=open, TRACEGATE_FAIL=open or fail=open in the agent"
                        + " argument: the file's 'fail: open' (line 3) is not read either, since the file is not valid YAML");
        Path brokenWithout = Files.writeString(dir.resolve("broken-none.yaml"), "mode: [\n");
        assertThat(catchConfig(() -> load("config=" + brokenWithout, Map.of(), Map.of())).unsupervisedHint())
                .endsWith("agent argument: a fail: key in the file is not read while the file is not valid YAML");
        assertThat(catchConfig(() -> load("config=" + dir.resolve("absent.yaml"), Map.of(), Map.of())).unsupervisedHint())
                .endsWith("agent argument: a fail: key in the file is not read while the file cannot be read");
    }

    private static ConfigException catchConfig(Runnable r) {
        try {
            r.run();
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("no ConfigException");
    }

    @Test
    void loadReadsThisJvmsSystemProperties() {
        System.setProperty("tracegate.mode", "shadow");
        try {
            assertThat(AgentConfig.load("sessions.max=3").mode()).isEqualTo(Mode.SHADOW);
            assertThat(AgentConfig.load("sessions.max=3").sourceOf("mode")).isEqualTo("-Dtracegate.mode");
        } finally {
            System.clearProperty("tracegate.mode");
        }
    }

    @Test
    void extraKeysOfOtherComponentsAreAcceptedAsText() {
        AgentConfig c = AgentConfig.load("supervisor=rules", Map.of("TRACEGATE_METHODS", "/etc/m.txt"), Map.of(), Set.of("supervisor", "methods"));
        assertThat(c.extra("supervisor")).isEqualTo("rules");
        assertThat(c.extra("methods")).isEqualTo("/etc/m.txt");
        assertThat(c.describe()).contains("supervisor").contains("[TRACEGATE_METHODS]");
    }

    @Test
    void everyKeyIsDocumentedInConfigMd() throws IOException {
        Path doc = Path.of("CONFIG.md");
        assertThat(doc).exists();
        String text = Files.readString(doc);
        for (String key : ConfigKey.ALL.keySet()) {
            String documented = key.startsWith("instrumentations.") ? "instrumentations.<name>.enabled" : key;
            assertThat(text).as(key).contains("`" + documented + "`");
        }
        for (String i : ConfigKey.INSTRUMENTATIONS) assertThat(text).contains("`" + i + "`");
    }
}
