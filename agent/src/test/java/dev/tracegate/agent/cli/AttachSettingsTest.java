package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The attach command's own {@code TRACEGATE_*} variables and {@code -Dtracegate.*} properties become agent options with
 * the agent's precedence (options > properties > variables; the attach command's before the target's of the same kind).
 */
class AttachSettingsTest {

    @TempDir Path dir;

    private static String options(AttachSettings s, String explicit, Properties target, List<String> passed, List<String> notes) {
        return s.options(explicit, target, passed, notes);
    }

    @Test
    void variablesAndPropertiesBecomeOptionsBelowTheOnesWritten() {
        AttachSettings s = AttachSettings.of(
                Map.of("TRACEGATE_LIBRARIES", "/conf/a.yaml, gdpr", "TRACEGATE_AUDIT_PATH", "/data/audit.jsonl", "TRACEGATE_MODE", "shadow",
                        "PATH", "/usr/bin"),
                Map.of("tracegate.mode", "enforce"));
        List<String> passed = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        String o = options(s, "audit.path=/elsewhere.jsonl", new Properties(), passed, notes);
        // the option written wins; the property beats the variable; a list's ',' becomes the agent argument's ';'
        assertThat(o).isEqualTo("audit.path=/elsewhere.jsonl,mode=enforce,libraries=/conf/a.yaml; gdpr");
        assertThat(passed).containsExactly("-Dtracegate.mode", "TRACEGATE_LIBRARIES");
        assertThat(notes).anyMatch(n -> n.startsWith("TRACEGATE_AUDIT_PATH of the attach command is not passed: the option audit.path= on the command line wins"))
                .anyMatch(n -> n.startsWith("TRACEGATE_MODE of the attach command is not passed: its -Dtracegate.mode wins"));
    }

    @Test
    void aPropertyOfTheTargetBeatsAVariableOfTheAttachCommandButNotItsProperty() {
        Properties target = new Properties();
        target.setProperty("tracegate.mode", "shadow");
        target.setProperty("tracegate.fail", "open");
        AttachSettings s = AttachSettings.of(Map.of("TRACEGATE_MODE", "enforce"), Map.of("tracegate.fail", "closed"));
        List<String> passed = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        assertThat(options(s, null, target, passed, notes)).isEqualTo("fail=closed");
        assertThat(notes).singleElement().asString().contains("TRACEGATE_MODE of the attach command is not passed: the target JVM has"
                + " -Dtracegate.mode, and a property beats a variable; pass mode=... as an option");
    }

    @Test
    void aConfigFileVariableIsPassedAsConfig() {
        AttachSettings s = AttachSettings.of(Map.of("TRACEGATE_CONFIG", "/etc/tracegate/tracegate.yaml"), Map.of());
        assertThat(options(s, "", new Properties(), new ArrayList<>(), new ArrayList<>())).isEqualTo("config=/etc/tracegate/tracegate.yaml");
    }

    @Test
    void aVariableThatIsNoKeyIsLeftOutWithANoteAndAPropertyThatIsNoKeyIsRefused() {
        AttachSettings s = AttachSettings.of(Map.of("TRACEGATE_JAR", "/opt/tracegate.jar"), Map.of());
        assertThat(s.notes()).singleElement().asString().startsWith("TRACEGATE_JAR is not a tracegate key and is not passed");
        assertThat(options(s, null, new Properties(), new ArrayList<>(), new ArrayList<>())).isEmpty();
        assertThatThrownBy(() -> AttachSettings.of(Map.of(), Map.of("tracegate.libaries", "a.yaml")))
                .hasMessageContaining("-Dtracegate.libaries on the attach command names no tracegate key");
    }

    @Test
    void aValueTheAgentArgumentCannotCarryIsRefusedWithTheWayAround() {
        assertThatThrownBy(() -> AttachSettings.of(Map.of("TRACEGATE_AUDIT_PATH", "/data/a,b.jsonl"), Map.of()))
                .hasMessageContaining("TRACEGATE_AUDIT_PATH=/data/a,b.jsonl holds a ','").hasMessageContaining("config=FILE");
        assertThatThrownBy(() -> AttachSettings.of(Map.of("TRACEGATE_MODE", " "), Map.of()))
                .hasMessageContaining("TRACEGATE_MODE on the attach command is empty");
    }

    /**
     * The development options the agent takes on -javaagent (-Dtracegate.supervisor=rules, TRACEGATE_TRACE, ...) are
     * passed like the configuration keys: before, attach refused such a property as 'names no tracegate key' and left
     * out such a variable as 'not a tracegate key'. A ',' in one is refused with the ';' it takes instead.
     */
    @Test
    void theDevelopmentOptionsTheAgentTakesArePassedToo() {
        AttachSettings s = AttachSettings.of(Map.of("TRACEGATE_TRACE", "true"),
                Map.of("tracegate.supervisor", "rules", "tracegate.block", "charge;refund", "tracegate.methods", "/srv/ops/methods.txt"));
        assertThat(s.notes()).isEmpty();
        List<String> passed = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        assertThat(options(s, null, new Properties(), passed, notes))
                .isEqualTo("block=charge;refund,methods=/srv/ops/methods.txt,supervisor=rules,trace=true");
        assertThat(passed).containsExactly("-Dtracegate.block", "-Dtracegate.methods", "-Dtracegate.supervisor", "TRACEGATE_TRACE");
        assertThat(notes).isEmpty();
        assertThatThrownBy(() -> AttachSettings.of(Map.of(), Map.of("tracegate.block", "charge,refund")))
                .hasMessageContaining("-Dtracegate.block=charge,refund holds a ','").hasMessageContaining("block=a;b");
    }

    /** Before, a variable of the attach command was dropped without a word and attach said "agent attached" (trial23 02). */
    @Test
    void attachRefusesAPropertyThatNamesNoKeyBeforeItAttaches() throws Exception {
        String before = System.getProperty("tracegate.libaries");
        System.setProperty("tracegate.libaries", "a.yaml");
        try {
            CliRun r = CliRun.of("attach", Long.toString(ProcessHandle.current().pid()));
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("-Dtracegate.libaries on the attach command names no tracegate key").contains("nothing was attached");
        } finally {
            if (before == null) System.clearProperty("tracegate.libaries"); else System.setProperty("tracegate.libaries", before);
        }
    }

    /**
     * A relative path is read where attach runs, for every path key, also from the attach command's own variables:
     * register.path was left relative and so read in the service's working directory.
     */
    @Test
    void relativePathsOfTheAttachCommandAreResolvedWhereItRuns() {
        AttachSettings s = AttachSettings.of(Map.of("TRACEGATE_REGISTER_PATH", "data/register.jsonl", "TRACEGATE_AUDIT_PATH", "audit.jsonl"),
                Map.of());
        String o = AttachCommand.absolutePaths(options(s, "", new Properties(), new ArrayList<>(), new ArrayList<>()), Path.of("/srv/ops"));
        assertThat(o).isEqualTo("audit.path=/srv/ops/audit.jsonl,register.path=/srv/ops/data/register.jsonl");
    }

    /**
     * Every relative file of the options is read where attach runs, by the agent's own rule of what names a file: a
     * libraries entry whether or not it exists here (a missing one stayed relative, so the agent read it in the service's
     * working directory, a file of that name there included), and methods=; a built-in name stays one even where a file of
     * that name exists here (the agent reads gdpr as the built-in library, attach made it a path).
     */
    @Test
    void everyRelativeFileOfTheOptionsIsReadWhereAttachRunsAndBuiltinNamesStayBuiltin() throws Exception {
        Files.writeString(dir.resolve("gdpr"), "not a library");
        String options = "libraries=gdpr;builtin:injection;policies/shop.yaml;/etc/x.yaml,methods=methods.txt,mode=shadow";
        String expected = "libraries=gdpr;builtin:injection;" + dir.resolve("policies/shop.yaml") + ";/etc/x.yaml,methods="
                + dir.resolve("methods.txt") + ",mode=shadow";
        assertThat(AttachCommand.absolutePaths(options, dir)).isEqualTo(expected);
        List<String> resolved = new ArrayList<>();
        assertThat(AttachCommand.absolutePaths(options, dir, resolved)).isEqualTo(expected);
        assertThat(resolved).containsExactly("libraries entry policies/shop.yaml as " + dir.resolve("policies/shop.yaml"),
                "methods=methods.txt as " + dir.resolve("methods.txt"));
    }

    /** trial23 07: the refusal said "if it was started with it" of hot-reload; the agent now says whether it was. */
    @Test
    void theRefusalSaysWhetherTheRunningAgentReloadsItsLibraries() {
        assertThat(AttachCommand.howItChanges("0")).startsWith("It runs without hot-reload, so its libraries, like every other"
                + " setting, change only with a restart of the process");
        assertThat(AttachCommand.howItChanges("2000")).startsWith("It runs with hot-reload (every 2000 ms): edit or replace the"
                + " library files it loaded");
        assertThat(AttachCommand.howItChanges(null)).contains("if it was started with it");   // an agent that does not say
    }

    /** A JVM whose -javaagent start runs unsupervised under fail: open: the refusal says so, and what ends it. */
    @Test
    void attachToAJvmThatRunsUnsupervisedSaysSoAndWhatEndsIt() throws Exception {
        Path sleeper = Files.writeString(dir.resolve("Sleeper.java"),
                "public class Sleeper { public static void main(String[] a) throws Exception { System.out.println(\"ready\"); Thread.sleep(60_000); } }");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process target = new ProcessBuilder(java, "-Dtracegate.agent.started=by -javaagent",
                "-Dtracegate.agent.unsupervised=This JVM stays unsupervised until it is restarted", sleeper.toString())
                .redirectErrorStream(true).start();
        try {
            assertThat(new java.io.BufferedReader(new java.io.InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8)).readLine())
                    .isEqualTo("ready");
            CliRun r = CliRun.of("attach", Long.toString(target.pid()), "mode=shadow");
            assertThat(r.code()).as(r.err()).isEqualTo(2);
            assertThat(r.err()).contains("tracegate runs UNSUPERVISED in process " + target.pid() + " (started by -javaagent")
                    .contains("nothing was attached").contains("This JVM stays unsupervised until it is restarted")
                    .doesNotContain("if it was started with it");
        } finally {
            target.destroy();
        }
    }
}
