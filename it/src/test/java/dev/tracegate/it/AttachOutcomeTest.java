package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code attach} tells the person who runs it (trial23): the settings of the attach command's own environment reach
 * the agent, the agent's start-up lines and a start that cannot do its work are reported by attach itself (not only on the
 * application's standard error), and a {@code -javaagent} start left unsupervised by a broken library under
 * {@code fail: open} begins to supervise once hot reload finds the fixed file.
 */
class AttachOutcomeTest {

    private static final String APP = "demoapp.plain.ShopApp";
    private static final String RULES = String.join("\n",
            "tool     demoapp.plain.ShopApp$Payments#charge        name=charge args=1 session=0",
            "");
    private static final String NO_CHARGES = String.join("\n",
            "library: shop",
            "contracts:",
            "  - id: shop.no-charges",
            "    guarantee: G !call(charge)",
            "    message: No charges here.",
            "");

    @TempDir
    Path dir;

    private static List<String> cli(String... args) {
        List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString()));
        command.addAll(List.of(args));
        return command;
    }

    /** ShopApp waiting for "go" lines, its standard error in a file. */
    private final class Shop implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final Writer in;
        final Path err;
        final String pid;

        Shop(List<String> jvmArgs) throws IOException {
            this(jvmArgs, null);
        }

        /** In {@code directory} (null: this JVM's working directory). */
        Shop(List<String> jvmArgs, Path directory) throws IOException {
            this(ForkedJvm.java(), jvmArgs, directory);
        }

        /** Run by the {@code java} launcher {@code java}. */
        Shop(String java, List<String> jvmArgs, Path directory) throws IOException {
            err = dir.resolve("app-err-" + System.nanoTime() + ".txt");
            List<String> command = new ArrayList<>(List.of(java));
            command.addAll(jvmArgs);
            command.addAll(List.of("-cp", absoluteClasspath(), APP, "wait"));
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
            if (directory != null) builder.directory(directory.toFile());
            process = builder.start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            String ready = out.readLine();
            assertThat(ready).as(stderr()).startsWith("READY pid=");
            pid = ready.substring("READY pid=".length());
        }

        /** Runs the scenario once; what it printed. */
        String go() throws IOException {
            in.write("go\n");
            in.flush();
            StringBuilder lines = new StringBuilder();
            for (String line; (line = out.readLine()) != null && !line.equals("DONE"); ) lines.append(line).append('\n');
            return lines.toString();
        }

        String stderr() throws IOException {
            return Files.readString(err);
        }

        @Override
        public void close() throws Exception {
            try {
                in.write("quit\n");
                in.flush();
                process.waitFor(60, TimeUnit.SECONDS);
            } catch (IOException gone) {
                // ended already
            } finally {
                process.destroyForcibly();
            }
        }
    }

    /** The application class path with every entry absolute, for a JVM started in another directory. */
    private static String absoluteClasspath() {
        List<String> entries = new ArrayList<>();
        for (String e : ForkedJvm.appClasspath().split(java.io.File.pathSeparator)) entries.add(Path.of(e).toAbsolutePath().toString());
        return String.join(java.io.File.pathSeparator, entries);
    }

    /**
     * A service on a jlink image without {@code java.instrument} cannot take any agent. Before session 20 attach said
     * "the agent failed to start ... (the reason is on that process's standard error ...)", where nothing was. It now
     * says what is missing and how to fix it, whether the image's release file lists its modules (jlink writes them:
     * attach does not even try) or not (a runtime that lists none: the attach API's failure tells), exit 2.
     */
    @Test
    void anAttachToARuntimeWithoutJavaInstrumentSaysSoAndHowToFixIt() throws Exception {
        Path jlink = Path.of(System.getProperty("java.home"), "bin", "jlink");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(jlink)
                && Files.isDirectory(Path.of(System.getProperty("java.home"), "jmods")), "no jlink with jmods in this JDK");
        Path image = dir.resolve("image");
        ForkedJvm.Result built = ForkedJvm.exec(List.of(jlink.toString(), "--add-modules", "java.base", "--output", image.toString()));
        assertThat(built.exit()).as(built.toString()).isZero();
        String java = image.resolve("bin").resolve("java").toString();
        Path library = Files.writeString(dir.resolve("shop.yaml"), NO_CHARGES);
        Path rules = Files.writeString(dir.resolve("methods.txt"), RULES);
        String options = "libraries=" + library + ",methods=" + rules + ",audit.path=" + dir.resolve("audit.jsonl");
        for (boolean listed : new boolean[] {true, false}) {
            if (!listed) {
                Path release = image.resolve("release");
                Files.writeString(release, Files.readString(release).replaceAll("(?m)^MODULES=.*\\R", ""));
            }
            try (Shop shop = new Shop(java, List.of(), null)) {
                ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", shop.pid, options));
                assertThat(attach.exit()).as(attach.toString()).isEqualTo(2);
                assertThat(attach.stderr()).as(attach.toString())
                        .contains("tracegate attach: process " + shop.pid + " runs on a Java runtime without the java.instrument module")
                        .contains("not by -javaagent either")
                        .contains("jlink --add-modules ...,java.instrument")
                        .doesNotContain("the reason is on that process's standard error");
                assertThat(shop.go()).as("the service runs on, unsupervised").contains("METHOD charge ran");
                assertThat(shop.stderr()).doesNotContain("tracegate");
            }
        }
    }

    /**
     * Relative paths in the options of attach are read where attach runs, as the operator typed them, not in the
     * service's working directory: before, {@code methods=} (and a {@code libraries} entry that did not exist there)
     * stayed relative and the agent, in the service, looked for {@code methods.txt} in the service's directory and did
     * not start (attach exit 2). attach says where they are read.
     */
    @Test
    void relativePathsInTheOptionsAreReadWhereAttachRunsAndAttachSaysSo() throws Exception {
        Path ops = Files.createDirectories(dir.resolve("ops"));
        Path service = Files.createDirectories(dir.resolve("service"));
        Files.writeString(ops.resolve("methods.txt"), RULES);
        Files.writeString(ops.resolve("shop.yaml"), NO_CHARGES);
        try (Shop shop = new Shop(List.of(), service)) {
            ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", shop.pid, "methods=methods.txt,libraries=shop.yaml,audit.path=audit.jsonl"),
                    Map.of(), ops);
            assertThat(attach.exit()).as(attach.toString()).isZero();
            Path real = ops.toRealPath();
            assertThat(attach.stdout()).as(attach.toString())
                    .contains("tracegate attach: relative paths are read in " + real + ", where attach runs, not in the working"
                            + " directory of process " + shop.pid + ": ")
                    .contains("methods=methods.txt as " + real.resolve("methods.txt"))
                    .contains("libraries entry shop.yaml as " + real.resolve("shop.yaml"))
                    .contains("audit.path=audit.jsonl as " + real.resolve("audit.jsonl"))
                    .contains("tracegate: agent attached to " + shop.pid);
            assertThat(shop.go()).as(shop.stderr()).doesNotContain("METHOD charge ran").contains("tracegate blocked the call to charge");
        }
        assertThat(Files.readString(ops.resolve("audit.jsonl"))).contains("\"start\":\"attach\"").contains("shop.no-charges");
        assertThat(service.resolve("audit.jsonl")).doesNotExist();
    }

    /**
     * attach takes the development options the agent takes on -javaagent: {@code java -Dtracegate.supervisor=rules
     * -Dtracegate.block=charge -jar tracegate-agent.jar attach PID methods=...} runs the fixed-rules supervisor in the
     * service. Before, attach refused the property ('-Dtracegate.supervisor on the attach command names no tracegate
     * key', exit 2) though -javaagent and the service's own -Dtracegate.supervisor take it.
     */
    @Test
    void theDevelopmentOptionsOfTheAttachCommandReachTheAgent() throws Exception {
        Path rules = Files.writeString(dir.resolve("methods.txt"), RULES);
        try (Shop shop = new Shop(List.of())) {
            List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-Dtracegate.supervisor=rules", "-Dtracegate.block=charge",
                    "-jar", ForkedJvm.agentJar().toString(), "attach", shop.pid, "methods=" + rules + ",audit.path=" + dir.resolve("audit.jsonl")));
            ForkedJvm.Result attach = ForkedJvm.exec(command);
            assertThat(attach.exit()).as(attach.toString()).isZero();
            assertThat(attach.stdout()).as(attach.toString())
                    .contains("passing -Dtracegate.block, -Dtracegate.supervisor of this command to the agent as options")
                    .contains("tracegate: agent attached to " + shop.pid);
            assertThat(shop.go()).as(shop.stderr()).doesNotContain("METHOD charge ran").contains("tracegate blocked the call to charge (contract rule.block)");
        }
    }

    /**
     * trial23 02: {@code TRACEGATE_LIBRARIES=... TRACEGATE_AUDIT_PATH=... attach PID} said "agent attached" (exit 0) for an
     * agent that had read only the service's environment and loaded no library. The attach command's own variables are
     * now passed as options, and attach prints the agent's start-up lines.
     */
    @Test
    void theVariablesOfTheAttachCommandReachTheAgentAndItsStartLinesArePrinted() throws Exception {
        Path rules = Files.writeString(dir.resolve("methods.txt"), RULES);
        Path library = Files.writeString(dir.resolve("shop.yaml"), NO_CHARGES);
        Path audit = dir.resolve("audit.jsonl");
        try (Shop shop = new Shop(List.of())) {
            assertThat(shop.go()).contains("METHOD charge ran customer=alice");
            ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", shop.pid, "methods=" + rules),
                    Map.of("TRACEGATE_LIBRARIES", library.toString(), "TRACEGATE_AUDIT_PATH", audit.toString()));
            assertThat(attach.exit()).as(attach.toString()).isZero();
            assertThat(attach.stdout()).as(attach.toString())
                    .contains("passing TRACEGATE_AUDIT_PATH, TRACEGATE_LIBRARIES of this command to the agent as options")
                    .contains("[tracegate] contracts loaded: shop")
                    .contains("[tracegate] agent started (attached) libraries=" + library)
                    .contains("tracegate: agent attached to " + shop.pid);
            assertThat(shop.go()).as(shop.stderr()).doesNotContain("METHOD charge ran")
                    .contains("tracegate blocked the call to charge");
        }
        assertThat(audit).isRegularFile();
        assertThat(Files.readString(audit)).contains("\"start\":\"attach\"").contains("shop.no-charges");
    }

    /**
     * trial23 05: an attach whose audit log cannot be created printed "agent attached" and exited 0, while the service
     * refused every tool call under fail: closed and only its own standard error said why. attach now prints the ERROR
     * and exits 1.
     */
    @Test
    void anAttachWhoseAgentCannotOpenItsAuditLogPrintsWhyAndExitsOne() throws Exception {
        Path rules = Files.writeString(dir.resolve("methods.txt"), RULES);
        Path library = Files.writeString(dir.resolve("shop.yaml"), NO_CHARGES);
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        Path audit = notADirectory.resolve("audit.jsonl");
        try (Shop shop = new Shop(List.of())) {
            ForkedJvm.Result attach = ForkedJvm.exec(cli("attach", shop.pid,
                    "methods=" + rules + ",libraries=" + library + ",audit.path=" + audit));
            assertThat(attach.exit()).as(attach.toString()).isEqualTo(1);
            assertThat(attach.stderr()).as(attach.toString())
                    .contains("[tracegate] ERROR cannot open the audit log " + audit)
                    .contains("the agent is attached to " + shop.pid + " but cannot do its work");
            assertThat(attach.stdout()).doesNotContain("agent attached to");
            // what attach warned of: the agent is in place and refuses the call it cannot record
            assertThat(shop.go()).doesNotContain("METHOD charge ran").contains("audit log is unavailable");
        }
    }

    /**
     * trial23 07: with fail: open and hot-reload, a start whose library did not load ran unsupervised for good: hot reload
     * never read the fixed file, and attach's refusal pointed to hot reload. Now the library files are watched after
     * such a start and supervision begins once they load, and attach's refusal says the JVM runs unsupervised.
     */
    @Test
    void aFailOpenStartWithABrokenLibrarySupervisesOnceHotReloadLoadsTheFixedFile() throws Exception {
        Path rules = Files.writeString(dir.resolve("methods.txt"), RULES);
        Path library = Files.writeString(dir.resolve("shop.yaml"), NO_CHARGES.replace("G !call(charge)", "G !call(charge"));
        Path audit = dir.resolve("audit.jsonl");
        String options = "methods=" + rules + ",libraries=" + library + ",audit.path=" + audit + ",fail=open,hot-reload=200ms";
        try (Shop shop = new Shop(List.of(ForkedJvm.agent(options)))) {
            assertThat(shop.stderr()).contains("runs UNSUPERVISED because fail=open").contains("hot-reload watches the library files");
            assertThat(shop.go()).contains("METHOD charge ran customer=alice");

            ForkedJvm.Result refused = ForkedJvm.exec(cli("attach", shop.pid, "libraries=" + library));
            assertThat(refused.exit()).as(refused.toString()).isEqualTo(2);
            assertThat(refused.stderr()).as(refused.toString()).contains("tracegate runs UNSUPERVISED in process " + shop.pid)
                    .contains("once they load it starts supervising");

            Path fixed = Files.writeString(dir.resolve("shop.yaml.new"), NO_CHARGES);
            Files.move(fixed, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);   // only stops a hang
            while (!shop.stderr().contains("SUPERVISES from now on") && System.nanoTime() < deadline) Thread.sleep(100);
            assertThat(shop.stderr()).contains("[tracegate] contracts loaded: shop").contains("SUPERVISES from now on");
            assertThat(shop.go()).as(shop.stderr()).doesNotContain("METHOD charge ran")
                    .contains("tracegate blocked the call to charge");
            // supervising now: attach is refused as for any running agent, and says how its libraries change
            ForkedJvm.Result again = ForkedJvm.exec(cli("attach", shop.pid, "libraries=" + library));
            assertThat(again.exit()).as(again.toString()).isEqualTo(2);
            assertThat(again.stderr()).as(again.toString()).contains("tracegate already runs in process " + shop.pid)
                    .contains("It runs with hot-reload (every 200 ms)").doesNotContain("if it was started with it");
        }
        // the log holds the unsupervised start and then the supervised run, chained as one log
        ForkedJvm.Result verified = ForkedJvm.exec(cli("audit", "verify", audit.toString()));
        assertThat(verified.exit()).as(verified.toString()).isZero();
        assertThat(Files.readString(audit)).contains("unsupervised").contains("shop.no-charges");
    }
}
