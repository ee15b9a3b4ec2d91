package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceFormatException;
import dev.tracegate.matchers.trace.TraceReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code replay LIB[,LIB...] TRACE...}: offline verdicts for JSONL traces (or audit logs), per
 * session and per contract, with the first failing event and the unmet obligations, and a summary.
 * Exit 0 when no contract fails, 1 when some does, 2 on bad input.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Replay JSONL traces (or audit logs) against contract libraries: per session and contract the verdict, "
                + "the first failing event and unmet obligations, then a summary. Exit status: 0 no contract fails, "
                + "1 some contract fails, 2 bad input.")
final class ReplayCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "LIB[,LIB...]", description = "built-in library names or YAML files, comma separated")
    String libraries;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "TRACE", description = "JSONL trace files or audit logs")
    List<Path> traces;

    @Option(names = "--format", description = "text or json (default ${DEFAULT-VALUE})")
    String format = "text";

    @Option(names = "--strict", description = "stop at the first malformed line (default: report, skip and count it)")
    boolean strict;

    @Option(names = "--mode", description = "enforce: a refused event is not applied, as online (default); "
            + "shadow: every event is applied and each fresh violation reported (grading an unsupervised run)")
    String mode = "enforce";

    @Option(names = "--no-progress", description = "no progress bar on standard error")
    boolean noProgress;

    /** What one session showed, per contract. */
    private static final class SessionReport {
        final String id;
        final String[] firstFail;
        final String[] firstBreak;
        final int[] fires;
        EndReport end;

        SessionReport(String id, int contracts) {
            this.id = id;
            this.firstFail = new String[contracts];
            this.firstBreak = new String[contracts];
            this.fires = new int[contracts];
        }
    }

    @Override
    public Integer call() throws IOException {
        if (!format.equals("text") && !format.equals("json")) {
            System.err.println("tracegate replay: --format must be text or json, not '" + format + "'");
            return LibraryOptions.BAD_INPUT;
        }
        if (!mode.equals("enforce") && !mode.equals("shadow")) {
            System.err.println("tracegate replay: --mode must be enforce or shadow, not '" + mode + "'");
            return LibraryOptions.BAD_INPUT;
        }
        Library lib = LibraryOptions.load(Arrays.asList(libraries.split(",")));
        if (lib == null) return LibraryOptions.BAD_INPUT;
        boolean enforce = mode.equals("enforce");
        int n = lib.contracts().contracts().size();
        SessionMonitor<Event> monitor = lib.newMonitor(new SessionMonitor.Options(Integer.MAX_VALUE, true), r -> {});
        Worker w = monitor.newWorker();
        Map<String, SessionReport> reports = new LinkedHashMap<>();
        long events = 0;
        long skipped = 0;
        long unevaluable = 0;
        long totalBytes = 0;
        for (Path t : traces) totalBytes += Files.isRegularFile(t) ? Files.size(t) : 0;
        Progress progress = new Progress(totalBytes, !noProgress && System.console() != null && totalBytes > 20_000_000L);
        long started = System.nanoTime();
        long doneBytes = 0;
        for (Path t : traces) {
            if (!Files.isRegularFile(t)) {
                System.err.println("tracegate replay: no such trace file " + t);
                return LibraryOptions.BAD_INPUT;
            }
            CountingStream counted = new CountingStream(Files.newInputStream(t));
            // over bytes: plain lines go straight from UTF-8 to events (malformed UTF-8 reads as U+FFFD, as before)
            TraceReader in = new TraceReader(counted, t.getFileName().toString(), strict ? TraceReader.Mode.STRICT : TraceReader.Mode.LENIENT);
            in.onSkip(e -> System.err.println("skipped: " + e.getMessage()));
            try (in) {
                for (Event e = in.next(); e != null; e = in.next()) {
                    events++;
                    if ((events & 0xFFFF) == 0) progress.at(doneBytes + counted.count, events);
                    SessionReport rep = reports.computeIfAbsent(e.session(), id -> new SessionReport(id, n));
                    Session s = monitor.session(e.session());
                    if (e.kind() == EventKind.END) {
                        rep.end = monitor.end(s);
                        continue;
                    }
                    Decision d = monitor.step(s, e, e.controlledByAgent(), enforce, w);
                    if (w.unevaluableCount() > 0) unevaluable++;
                    for (int i = 0; i < d.contractCount(); i++) {
                        int c = d.contract(i);
                        rep.fires[c]++;
                        String where = t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", " + e.kind().name().toLowerCase()
                                + (e.tool() == null ? "" : " " + e.tool()) + ")";
                        if (d.kind() == Decision.Kind.SUPPRESS) {
                            if (rep.firstBreak[c] == null) rep.firstBreak[c] = where;
                        } else if (rep.firstFail[c] == null) {
                            rep.firstFail[c] = where;
                        }
                    }
                }
                skipped += in.skipped();
                doneBytes += counted.count;
            } catch (TraceFormatException e) {
                System.err.println(e.getMessage());
                return LibraryOptions.BAD_INPUT;
            }
        }
        for (SessionReport rep : reports.values()) {
            if (rep.end == null) {
                Session s = monitor.find(rep.id);
                if (s != null) rep.end = monitor.end(s);
            }
        }
        progress.done();
        double seconds = (System.nanoTime() - started) / 1e9;
        boolean anyFail = false;
        for (SessionReport rep : reports.values()) {
            for (int c = 0; c < n; c++) {
                if (rep.firstFail[c] != null || (rep.end != null && rep.end.verdicts().get(c) == Verdict.FAIL)) anyFail = true;
            }
        }
        if (format.equals("json")) printJson(lib, reports, events, skipped, unevaluable, seconds);
        else printText(lib, reports, events, skipped, unevaluable, seconds);
        return anyFail ? 1 : 0;
    }

    private void printText(Library lib, Map<String, SessionReport> reports, long events, long skipped, long unevaluable, double seconds) {
        int n = lib.contracts().contracts().size();
        for (SessionReport rep : reports.values()) {
            StringBuilder b = new StringBuilder("session " + rep.id + ":");
            boolean quiet = true;
            for (int c = 0; c < n; c++) {
                Verdict v = rep.end == null ? Verdict.ACTIVE : rep.end.verdicts().get(c);
                String id = lib.info().get(c).id();
                if (rep.firstFail[c] != null) {
                    b.append("\n  ").append(id).append(": violated first at ").append(rep.firstFail[c]).append(" (").append(rep.fires[c])
                            .append(rep.fires[c] == 1 ? " event" : " events").append(")");
                    quiet = false;
                }
                if (rep.firstBreak[c] != null) {
                    b.append("\n  ").append(id).append(": assumption broken first at ").append(rep.firstBreak[c]);
                    quiet = false;
                }
                if (v != Verdict.ACTIVE && rep.firstFail[c] == null) {
                    b.append("\n  ").append(id).append(": ").append(v).append(" at end");
                    quiet = false;
                }
            }
            if (rep.end != null) {
                for (EndReport.Obligation o : rep.end.unmet()) {
                    b.append("\n  ").append(o.contractId()).append(": unmet obligation at end").append(o.pending() == null ? "" : ": " + o.pending());
                    quiet = false;
                }
            }
            if (quiet) b.append(" every contract kept");
            System.out.println(b);
        }
        System.out.println();
        System.out.printf("%-44s %10s %10s %10s%n", "contract", "violating", "events", "unmet");
        for (int c = 0; c < n; c++) {
            int sessions = 0;
            long fires = 0;
            int unmet = 0;
            for (SessionReport rep : reports.values()) {
                if (rep.firstFail[c] != null) sessions++;
                fires += rep.fires[c];
                if (rep.end != null) {
                    for (EndReport.Obligation o : rep.end.unmet()) if (o.contract() == c) unmet++;
                }
            }
            System.out.printf("%-44s %10d %10d %10d%n", lib.info().get(c).id(), sessions, fires, unmet);
        }
        System.out.printf("%n%d events in %d sessions, %d malformed lines skipped, %d events with unevaluable atoms, %.2f s (%.0f events/s)%n",
                events, reports.size(), skipped, unevaluable, seconds, events / Math.max(seconds, 1e-9));
    }

    private void printJson(Library lib, Map<String, SessionReport> reports, long events, long skipped, long unevaluable, double seconds)
            throws IOException {
        int n = lib.contracts().contracts().size();
        List<Map<String, Object>> sessions = new ArrayList<>();
        for (SessionReport rep : reports.values()) {
            List<Map<String, Object>> cs = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", lib.info().get(c).id());
                m.put("verdict", rep.end == null ? "ACTIVE" : rep.end.verdicts().get(c).name());
                m.put("firstViolation", rep.firstFail[c]);
                m.put("firstAssumptionBreak", rep.firstBreak[c]);
                m.put("events", rep.fires[c]);
                List<String> unmet = new ArrayList<>();
                if (rep.end != null) {
                    for (EndReport.Obligation o : rep.end.unmet()) if (o.contract() == c) unmet.add(o.pending() == null ? "" : o.pending());
                }
                m.put("unmet", unmet);
                cs.add(m);
            }
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("session", rep.id);
            s.put("contracts", cs);
            sessions.add(s);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("libraries", lib.names());
        out.put("sessions", sessions);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("events", events);
        summary.put("sessions", reports.size());
        summary.put("skippedLines", skipped);
        summary.put("unevaluableEvents", unevaluable);
        summary.put("seconds", seconds);
        out.put("summary", summary);
        System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
    }

    /** A one-line progress bar on standard error for long inputs (bytes read of all traces). */
    private static final class Progress {
        private final long total;
        private final boolean on;

        Progress(long total, boolean on) {
            this.total = total;
            this.on = on;
        }

        void at(long bytes, long events) {
            if (!on) return;
            int width = 40;
            int filled = (int) Math.min(width, bytes * width / Math.max(1, total));
            System.err.printf("\rreplaying [%s%s] %3d%%  %,d events", "#".repeat(filled), " ".repeat(width - filled),
                    bytes * 100 / Math.max(1, total), events);
        }

        void done() {
            if (on) System.err.println();
        }
    }

    /** Counts the bytes read through it. */
    private static final class CountingStream extends java.io.FilterInputStream {
        long count;

        CountingStream(java.io.InputStream in) { super(in); }

        @Override public int read() throws IOException {
            int b = super.read();
            if (b >= 0) count++;
            return b;
        }

        @Override public int read(byte[] b, int off, int len) throws IOException {
            int r = super.read(b, off, len);
            if (r > 0) count += r;
            return r;
        }
    }
}
