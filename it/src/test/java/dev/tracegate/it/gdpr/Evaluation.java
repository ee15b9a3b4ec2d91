package dev.tracegate.it.gdpr;

import dev.tracegate.it.gdpr.AttackDriver.Dialogue;
import dev.tracegate.it.gdpr.RunLog.Rec;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * The GDPR evaluation: for each case study, generates the dialogues, plays them once without the
 * agent and once under the agent jar (each in one forked JVM), judges every log with the oracle, and
 * scores tracegate online, the baselines (no monitor, a stateless pattern guard, a random blocker at
 * tracegate's block rate), the ablations (the gdpr library without one of P1..P4) and extractor noise
 * (with and without fail-closed handling), per case and attack family.
 */
final class Evaluation {

    /** One row of the results: a configuration on a case study's family (or "all"). */
    record Score(String caseName, String config, String family, int attacks, int realised, int succeeded, int benign, int interfered) {
        double asr() {
            return realised == 0 ? 0 : (double) succeeded / realised;
        }

        double fpr() {
            return benign == 0 ? 0 : (double) interfered / benign;
        }

        double realisation() {
            return attacks == 0 ? 0 : (double) realised / attacks;
        }
    }

    static final String NONE = "no monitor";
    static final String ONLINE = "tracegate (online, agent jar)";
    static final String OFFLINE = "tracegate (offline replay)";
    static final String GUARD = "stateless pattern guard (any PII)";
    static final String GUARD_SPECIAL = "stateless pattern guard (special categories)";
    static final String RANDOM = "random blocker";
    static final String NOISE = "tracegate, 10% extractor noise";
    static final String NOISE_FC = "tracegate, 10% noise, fail-closed";
    static final String ONLINE_ABLATION = " (online)";

    static final double DROP_OUT = 0.10;
    static final double OVER_TYPE = 0.10;
    static final long SEED = 20261129L;

    final List<Score> scores = new ArrayList<>();
    final Map<String, Double> blockRates = new LinkedHashMap<>();
    final Map<String, Integer> onlineOfflineDisagreements = new LinkedHashMap<>();
    final Map<String, List<String>> benignViolations = new LinkedHashMap<>();
    final Map<String, Integer> dialogueCounts = new LinkedHashMap<>();
    private final Path work;
    private final Path agentJar;
    private final int rounds;
    private final boolean onlineAblation;

    Evaluation(Path work, Path agentJar, int rounds, boolean onlineAblation) {
        this.work = work;
        this.agentJar = agentJar;
        this.rounds = rounds;
        this.onlineAblation = onlineAblation;
    }

    void run(CaseStudy cs) throws IOException {
        Path dir = work.resolve(cs.name());
        Files.createDirectories(dir);
        List<Dialogue> dialogues = new AttackDriver(cs).dialogues(rounds);
        dialogueCounts.put(cs.name(), dialogues.size());
        Path script = dir.resolve("dialogues.jsonl");
        AttackDriver.writeScript(dialogues, script);
        CasePolicy policy = CasePolicy.read(cs.policy());
        Oracle oracle = new Oracle(policy, cs.name());

        RunLog none = play(cs, script, dir.resolve("none.jsonl"), null);
        RunLog online = play(cs, script, dir.resolve("online.jsonl"), config(cs, dir, "online", List.of("gdpr", cs.policy().toString())));

        List<String> bad = new ArrayList<>();
        for (Dialogue d : dialogues) {
            if (!d.attack() && !oracle.judge(none.of(d.id())).isEmpty()) bad.add(d.id() + ": " + oracle.judge(none.of(d.id())));
        }
        benignViolations.put(cs.name(), bad);

        score(cs, NONE, dialogues, none, oracle, id -> none.of(id));
        score(cs, ONLINE, dialogues, none, oracle, id -> online.of(id));

        OfflineMonitor full = new OfflineMonitor(agentJar, List.of("gdpr", cs.policy().toString()), cs.policy().getParent());
        Gates.Monitor exact = new Gates.Monitor(full, policy, 0, 0, false, SEED);
        Map<String, List<Rec>> offline = simulateAll(dialogues, none, exact);
        score(cs, OFFLINE, dialogues, none, oracle, offline::get);
        // online and offline must agree per dialogue: the oracle's verdict, interference with benign dialogues,
        // and the number of events the monitor refused (block, redact, suppress in the audit log)
        Map<String, Integer> audited = auditedRefusals(dir.resolve("audit-online.jsonl"));
        int disagree = 0;
        for (Dialogue d : dialogues) {
            boolean sameVerdict = oracle.judge(online.of(d.id())).isEmpty() == oracle.judge(offline.get(d.id())).isEmpty();
            boolean sameInterference = differs(online.of(d.id()), none.of(d.id())) == differs(offline.get(d.id()), none.of(d.id()));
            boolean sameRefusals = audited.getOrDefault(d.id(), 0).equals(exact.refusalsBySession.getOrDefault(d.id(), 0));
            if (!sameVerdict || !sameInterference || !sameRefusals) disagree++;
        }
        onlineOfflineDisagreements.put(cs.name(), disagree);
        double rate = exact.decisions == 0 ? 0 : (double) exact.refusals / exact.decisions;
        blockRates.put(cs.name(), rate);

        score(cs, GUARD, dialogues, none, oracle, simulateAll(dialogues, none, new Gates.PatternGuard(Gates.PatternGuard.ANY_PII))::get);
        score(cs, GUARD_SPECIAL, dialogues, none, oracle, simulateAll(dialogues, none, new Gates.PatternGuard(Gates.PatternGuard.SPECIAL))::get);
        score(cs, RANDOM, dialogues, none, oracle, simulateAll(dialogues, none, new Gates.RandomBlocker(rate, SEED))::get);
        score(cs, NOISE, dialogues, none, oracle,
                simulateAll(dialogues, none, new Gates.Monitor(full, policy, DROP_OUT, OVER_TYPE, false, SEED))::get);
        score(cs, NOISE_FC, dialogues, none, oracle,
                simulateAll(dialogues, none, new Gates.Monitor(full, policy, DROP_OUT, OVER_TYPE, true, SEED))::get);

        for (String p : List.of("P1", "P2", "P3", "P4")) {
            Path lib = ablated(dir, p);
            OfflineMonitor m = new OfflineMonitor(agentJar, List.of(lib.toString(), cs.policy().toString()), cs.policy().getParent());
            score(cs, "without " + p, dialogues, none, oracle, simulateAll(dialogues, none, new Gates.Monitor(m, policy, 0, 0, false, SEED))::get);
            if (onlineAblation) {
                RunLog abl = play(cs, script, dir.resolve("online-without-" + p + ".jsonl"),
                        config(cs, dir, "without-" + p, List.of(lib.toString(), cs.policy().toString())));
                score(cs, "without " + p + ONLINE_ABLATION, dialogues, none, oracle, id -> abl.of(id));
            }
        }
    }

    /** Per session, the events the online monitor refused, read from its audit log (personal data in clear). */
    static Map<String, Integer> auditedRefusals(Path audit) throws IOException {
        Map<String, Integer> out = new LinkedHashMap<>();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (String line : Files.readAllLines(audit)) {
            var n = json.readTree(line);
            if (!"event".equals(n.path("rec").asText())) continue;
            String decision = n.path("decision").asText();
            out.merge(n.path("session").asText(), decision.equals("block") || decision.equals("redact") || decision.equals("suppress") ? 1 : 0, Integer::sum);
        }
        return out;
    }

    private static Map<String, List<Rec>> simulateAll(List<Dialogue> dialogues, RunLog none, Gates.Gate gate) {
        Map<String, List<Rec>> out = new LinkedHashMap<>();
        for (Dialogue d : dialogues) out.put(d.id(), Gates.simulate(d.id(), none.of(d.id()), gate));
        return out;
    }

    static boolean differs(List<Rec> a, List<Rec> b) {
        if (a.size() != b.size()) return true;
        for (int i = 0; i < a.size(); i++) if (!a.get(i).sameAs(b.get(i))) return true;
        return false;
    }

    private static String principleOf(String family) {
        return "P" + family.substring(1);
    }

    private void score(CaseStudy cs, String config, List<Dialogue> dialogues, RunLog none, Oracle oracle,
                       java.util.function.Function<String, List<Rec>> logOf) {
        for (String family : AttackDriver.FAMILIES) {
            int attacks = 0, realised = 0, succeeded = 0, benign = 0, interfered = 0;
            for (Dialogue d : dialogues) {
                if (!d.family().equals(family)) continue;
                List<Rec> log = logOf.apply(d.id());
                if (d.attack()) {
                    attacks++;
                    boolean real = oracle.judge(none.of(d.id())).stream().anyMatch(v -> v.principle().equals(principleOf(family)));
                    if (!real) continue;
                    realised++;
                    if (!oracle.judge(log).isEmpty()) succeeded++;
                } else {
                    benign++;
                    if (differs(log, none.of(d.id()))) interfered++;
                }
            }
            scores.add(new Score(cs.name(), config, family, attacks, realised, succeeded, benign, interfered));
        }
    }

    /** The case's dialogues played in one forked JVM, with the agent when {@code config} is not null. */
    private RunLog play(CaseStudy cs, Path script, Path log, Path config) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xshare:auto");
        if (config != null) cmd.add("-javaagent:" + agentJar + "=config=" + config);
        cmd.add("-Dgdpreval.log=" + log);
        cmd.add("-cp");
        cmd.add(appClasspath());
        cmd.add("gdpreval.Dialogues");
        cmd.add(cs.name());
        cmd.add(script.toString());
        try {
            Path out = log.resolveSibling(log.getFileName() + ".out");
            Process p = new ProcessBuilder(dev.tracegate.it.AppCds.apply(cmd)).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("case " + cs.name() + " did not finish: " + String.join(" ", cmd) + "\n" + Files.readString(out));
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("case " + cs.name() + " failed (exit " + p.exitValue() + "): " + String.join(" ", cmd) + "\n" + Files.readString(out));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return RunLog.read(log);
    }

    static String appClasspath() {
        try {
            String deps = Files.readString(Path.of(System.getProperty("tracegate.app.classpath.file", "target/app-classpath.txt"))).strip();
            return System.getProperty("tracegate.app.classes", "target/classes") + File.pathSeparator + deps;
        } catch (IOException e) {
            throw new IllegalStateException("app classpath file missing: the it module's generate-test-resources phase writes it", e);
        }
    }

    private static Path config(CaseStudy cs, Path dir, String name, List<String> libraries) throws IOException {
        Path audit = dir.resolve("audit-" + name + ".jsonl");
        Files.deleteIfExists(audit);
        Path config = dir.resolve("tracegate-" + name + ".yaml");
        Files.writeString(config, "# written by the GDPR evaluation for case " + cs.name() + "\n"
                + "libraries: [" + String.join(", ", libraries) + "]\n"
                + "mode: enforce\nfail: closed\nblock.style: substitute\n"
                + "audit.path: " + audit + "\naudit.personal-data: clear\nmetrics.jmx: false\n");
        return config;
    }

    /** The built-in gdpr library of the agent jar without one contract (P1..P4). */
    private Path ablated(Path dir, String principle) throws IOException {
        String text;
        try (JarFile jar = new JarFile(agentJar.toFile())) {
            var entry = jar.getJarEntry("inst/dev/tracegate/contracts/builtin/gdpr.yaml");
            if (entry == null) throw new IllegalStateException("the agent jar has no built-in gdpr library");
            text = new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
        }
        int at = text.indexOf("  - id: gdpr." + principle + "-");
        if (at < 0) throw new IllegalStateException("built-in gdpr library has no contract gdpr." + principle + "-*");
        int end = text.indexOf("\n  - id: ", at + 1);
        String without = text.substring(0, at) + (end < 0 ? "" : text.substring(end + 1));
        without = without.replaceFirst("(?m)^library: gdpr$", "library: gdpr-without-" + principle);
        Path out = dir.resolve("gdpr-without-" + principle + ".yaml");
        Files.writeString(out, without);
        return out;
    }

    Score total(String caseName, String config) {
        int a = 0, r = 0, s = 0, b = 0, i = 0;
        for (Score x : scores) {
            if (!x.caseName().equals(caseName) || !x.config().equals(config)) continue;
            a += x.attacks();
            r += x.realised();
            s += x.succeeded();
            b += x.benign();
            i += x.interfered();
        }
        return new Score(caseName, config, "all", a, r, s, b, i);
    }

    Score of(String caseName, String config, String family) {
        for (Score x : scores) if (x.caseName().equals(caseName) && x.config().equals(config) && x.family().equals(family)) return x;
        throw new IllegalArgumentException("no score for " + caseName + " / " + config + " / " + family);
    }

    List<String> configs() {
        List<String> c = new ArrayList<>();
        for (Score s : scores) if (!c.contains(s.config())) c.add(s.config());
        return c;
    }
}
