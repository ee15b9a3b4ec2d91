package dev.tracegate.agent.core;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * Runs a host class in a forked JVM with the agent core started by {@link ForkedPremain} (a jar that holds only a
 * manifest naming it; the classes come from this JVM's class path), and collects what the child printed.
 */
final class ForkedAgent {
    /** What a child did: exit status, standard output, standard error. */
    record Run(int code, String out, String err) {
    }

    private ForkedAgent() {
    }

    /**
     * A jar holding only the manifest that makes {@link ForkedPremain} the premain class; without
     * {@code Can-Retransform-Classes} the agent cannot install its instrumentation.
     */
    static Path agentJar(Path dir, boolean retransform) throws IOException {
        Path jar = dir.resolve(retransform ? "forked-agent.jar" : "forked-agent-no-retransform.jar");
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(new Attributes.Name("Premain-Class"), ForkedPremain.class.getName());
        if (retransform) m.getMainAttributes().put(new Attributes.Name("Can-Retransform-Classes"), "true");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), m)) {
            out.flush();
        }
        return jar;
    }

    /**
     * Starts {@code main} under the agent with {@code agentArguments}; {@code input}, when not null, is written to the
     * child's standard input once its standard error contains {@code inputAfter}.
     */
    static Run run(Path dir, String agentArguments, String main, String inputAfter, String input, String... jvmOptions) throws Exception {
        return run(agentJar(dir, true), dir, agentArguments, main, inputAfter, input, jvmOptions);
    }

    /** As above, with the given agent jar. */
    static Run run(Path jar, Path dir, String agentArguments, String main, String inputAfter, String input, String... jvmOptions) throws Exception {
        return run(jar, dir, Map.of(), agentArguments, main, inputAfter, input, jvmOptions);
    }

    /** As above, with {@code environment} added to the child's (inherited) environment. */
    static Run run(Path jar, Path dir, Map<String, String> environment, String agentArguments, String main, String inputAfter, String input,
                   String... jvmOptions) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-javaagent:" + jar + "=" + agentArguments));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main));
        Path out = dir.resolve("child.out");
        Path err = dir.resolve("child.err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(environment);
        Process child = builder.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            if (input != null) {
                while (!Files.readString(err, StandardCharsets.UTF_8).contains(inputAfter)) {
                    if (!child.isAlive()) break;
                    if (System.nanoTime() > deadline) throw new AssertionError("the child never said '" + inputAfter + "':\n" + Files.readString(err));
                    Thread.sleep(20);
                }
                try (OutputStream in = child.getOutputStream()) {
                    in.write(input.getBytes(StandardCharsets.UTF_8));
                } catch (IOException ended) {
                    // the child ended before reading: its output says why
                }
            }
            if (!child.waitFor(120, TimeUnit.SECONDS)) throw new AssertionError("the child did not end:\n" + Files.readString(err));
        } finally {
            child.destroyForcibly();
        }
        return new Run(child.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
