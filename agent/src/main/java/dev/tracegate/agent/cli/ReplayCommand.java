package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditTrace;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.event.RefusedCalls;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code replay LIB[,LIB...] TRACE...}: offline verdicts for JSONL traces (or audit logs), per
 * session and per contract, with the first failing event and the unmet obligations, and a summary.
 * Exit 0 when no contract fails, 1 when some does, 2 on bad input. The traces are one runtime: their
 * events are stepped file after file, each file in its order, through one monitor, so the data subjects'
 * consents and erasures given in one session count in the others from then on, as online; a header record inside an
 * audit log (the agent started again, appending to the file) starts a new runtime there, as it did online.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, version = Main.VERSION,
        description = "Replay JSONL traces (or audit logs) against contract libraries: per session and contract the verdict, "
                + "the first failing event and unmet obligations, then a summary. Exit status: 0 no contract fails, "
                + "1 some contract fails, 2 bad input. All traces are one runtime: a consent or an erasure of a data subject "
                + "in one session counts in every session after it (replay unrelated runs one command each, or with gdpr scope: session);"
                + " a later header in an audit log (the agent started again) starts anew there, as online.")
final class ReplayCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "LIB[,LIB...]", description = "built-in library names or YAML files, comma separated")
    String libraries;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "TRACE", description = "JSONL trace files or audit logs; - reads standard input, and a pipe or FIFO (<(...), /dev/stdin) is read as a plain trace too (an audit log only as a file)")
    List<Path> traces;

    @Option(names = "--format", description = "text or json (default ${DEFAULT-VALUE})")
    String format = "text";

    @Option(names = "--strict", description = "stop at the first malformed line (default: report, skip and count it)")
    boolean strict;

    @Option(names = "--mode", description = "enforce: a refused event is not applied, as online (default; for an audit log: "
            + "the mode its decisions show); shadow: every event is applied and each fresh violation reported "
            + "(grading an unsupervised run)")
    String mode;

    @Option(names = "--verbose", description = "list every event with unevaluable atoms (default: the first "
            + UNEVALUABLE_SHOWN + ")")
    boolean verbose;

    /** Events with unevaluable atoms named in the summary without --verbose. */
    static final int UNEVALUABLE_SHOWN = 10;

    @Option(names = "--no-progress", description = "no progress bar on standard error")
    boolean noProgress;

    @Option(names = "--register", paramLabel = "FILE", description = "the agent's GDPR register file (register.path): where an "
            + "audit log says the agent started from its first N lines (a register record), the replay starts from the same lines,"
            + " checked against the log's SHA-256 of them")
    Path register;

    @Option(names = "--hmac-key-env", paramLabel = "VAR", description = "with --register and a keyed audit log (audit.hmac-key):"
            + " the environment variable that holds the agent's key (e.g. TRACEGATE_AUDIT_HMAC_KEY), so that the register file's"
            + " subjects are digested as the log's events were; the key itself is never an argument (it would show in ps)")
    String hmacKeyEnv;

    /** The key --hmac-key-env names, as UTF-8 bytes (as the agent reads audit.hmac-key); null without it. */
    private byte[] hmacKey;

    /**
     * What one session showed, per contract. The per-contract arrays are made on the session's first violation,
     * withheld event or broken assumption, and a session that ends with nothing to report shares one end report, so
     * a replay of millions of quiet sessions holds little more than their ids.
     */
    private static final class SessionReport {
        final String id;
        private final int contracts;
        String[] firstFail;
        String[] firstBreak;
        /** An environment event withheld because it would break the assumption (enforce mode): the contract stays ACTIVE. */
        String[] firstWithheld;
        int[] withheld;
        int[] fires;
        /**
         * A call or answer the agent rewrote online (a redirect or redaction: the log holds the rewritten event, which
         * passed online), from the record's decision and fired contracts: where first, and how many; and how many of those
         * rewritten events the libraries given here refuse too (a what-if replay with a stricter variant).
         */
        String[] firstRewritten;
        int[] rewritten;
        int[] rewrittenRefused;
        EndReport end;
        /** The refused CALLs still unanswered (enforce replay; made at the first), and the RETURNs not applied as answering one. */
        RefusedCalls refused;
        int notApplied;
        String firstNotApplied;

        SessionReport(String id, int contracts) {
            this.id = id;
            this.contracts = contracts;
        }

        /** Makes the per-contract arrays before the first write. */
        SessionReport touched() {
            if (firstFail == null) {
                firstFail = new String[contracts];
                firstBreak = new String[contracts];
                firstWithheld = new String[contracts];
                withheld = new int[contracts];
                fires = new int[contracts];
                firstRewritten = new String[contracts];
                rewritten = new int[contracts];
                rewrittenRefused = new int[contracts];
            }
            return this;
        }

        String firstFail(int c) { return firstFail == null ? null : firstFail[c]; }

        String firstBreak(int c) { return firstBreak == null ? null : firstBreak[c]; }

        String firstWithheld(int c) { return firstWithheld == null ? null : firstWithheld[c]; }

        int withheld(int c) { return withheld == null ? 0 : withheld[c]; }

        int fires(int c) { return fires == null ? 0 : fires[c]; }

        String firstRewritten(int c) { return firstRewritten == null ? null : firstRewritten[c]; }

        int rewritten(int c) { return rewritten == null ? 0 : rewritten[c]; }

        int rewrittenRefused(int c) { return rewrittenRefused == null ? 0 : rewrittenRefused[c]; }
    }

    /** The end report every session that ends with all contracts ACTIVE and nothing unmet shares (its id and count unused). */
    private EndReport quietEnd;

    /** {@code r}, or the shared one when it says nothing beyond "all ACTIVE". */
    private EndReport shared(EndReport r) {
        if (r == null || !r.unmet().isEmpty()) return r;
        for (Verdict v : r.verdicts()) if (v != Verdict.ACTIVE) return r;
        if (quietEnd == null) quietEnd = r;
        return quietEnd;
    }

    @Override
    public Integer call() throws IOException {
        if (!format.equals("text") && !format.equals("json")) {
            System.err.println("tracegate replay: --format must be text or json, not '" + format + "'");
            return LibraryOptions.BAD_INPUT;
        }
        if (mode != null && !mode.equals("enforce") && !mode.equals("shadow")) {
            System.err.println("tracegate replay: --mode must be enforce or shadow, not '" + mode + "'");
            return LibraryOptions.BAD_INPUT;
        }
        String misplaced = librariesAmongTraces();
        if (misplaced != null) {
            System.err.println(misplaced);
            return LibraryOptions.BAD_INPUT;
        }
        Library lib = LibraryOptions.load(Arrays.asList(libraries.split(",")), "replay", ",", traces == null ? "" : " " + String.join(" ", traces.stream().map(Path::toString).toList()));
        if (lib == null) return LibraryOptions.BAD_INPUT;
        boolean enforceAll = mode == null || mode.equals("enforce");
        List<String> unevaluableAt = new ArrayList<>();
        List<dev.tracegate.engine.ltl.Atom> atoms = lib.contracts().atoms();
        int n = lib.contracts().contracts().size();
        int[] assumed = java.util.stream.IntStream.range(0, n)
                .filter(c -> !(lib.contracts().contracts().get(c).assume() instanceof dev.tracegate.engine.ltl.Formula.Const k && k.value())).toArray();
        SessionMonitor<Event> monitor = lib.newMonitor(new SessionMonitor.Options(Integer.MAX_VALUE, true), r -> {});
        Worker w = monitor.newWorker();
        // every session in the order it started; a session closed by an `end` line leaves `live`, so a later line with
        // its id starts a new session with a report of its own (both reported under the one id, as FORMULAS.md says)
        List<SessionReport> reports = new ArrayList<>();
        Map<String, SessionReport> live = new java.util.HashMap<>();
        long events = 0;
        long ends = 0;   // end lines: they close a session and are no position of it, so not counted as events (trial36 05)
        long skipped = 0;
        long unevaluable = 0;
        long totalBytes = 0;
        for (Path t : traces) totalBytes += Files.isRegularFile(t) ? Files.size(t) : 0;
        Progress progress = new Progress(totalBytes, !noProgress && Progress.stderrIsTerminal() && totalBytes > 20_000_000L);
        long started = System.nanoTime();
        long doneBytes = 0;
        if (register != null && !Files.isRegularFile(register)) {
            System.err.println("tracegate replay: --register " + register + ": no such file; give the agent's register.path file"
                    + " (or a copy of it)");
            return LibraryOptions.BAD_INPUT;
        }
        if (hmacKeyEnv != null) {
            String key = System.getenv(hmacKeyEnv);
            if (key == null || key.isEmpty()) {
                System.err.println("tracegate replay: --hmac-key-env " + hmacKeyEnv + ": the environment variable " + hmacKeyEnv
                        + " is not set (or empty); set it to the agent's audit.hmac-key, e.g. " + hmacKeyEnv + "=... tracegate replay ...");
                return LibraryOptions.BAD_INPUT;
            }
            hmacKey = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        Library running = lib;   // the libraries of the runtime being replayed: anew at each restart in an audit log
        Divergence divergence = null;   // events of hashed logs applied here and refused online or the other way round
        Path previousLog = null;        // the audit log replayed just before, and the hash its last line ends in
        String previousHead = null;
        for (Path t : traces) {
            if (Files.isDirectory(t)) {
                System.err.println("tracegate replay: " + t + " is a directory, not a trace file; name the trace files in it"
                        + " (replay " + libraries + " " + t + java.io.File.separator + "*.jsonl)");
                return LibraryOptions.BAD_INPUT;
            }
            // `-` is standard input; a pipe, a FIFO or /dev/stdin is read as a stream (once, and never as an audit log)
            boolean stdin = t.toString().equals("-");
            boolean stream = stdin || (Files.exists(t) && !Files.isRegularFile(t));
            if (!stream && !Files.isRegularFile(t)) {
                System.err.println("tracegate replay: no such trace file " + t);
                return LibraryOptions.BAD_INPUT;
            }
            java.io.BufferedInputStream piped = null;
            byte[] head;
            if (stream) {
                piped = new java.io.BufferedInputStream(stdin ? new java.io.FilterInputStream(System.in) {
                    @Override public void close() {}   // standard input stays open for the JVM
                } : new java.io.FileInputStream(t.toFile()), 2 * HEAD);   // not Files.newInputStream: its available() seeks
                piped.mark(HEAD);
                head = piped.readNBytes(HEAD);
                piped.reset();
            } else {
                head = head(t);
            }
            String packed = compressed(head);
            if (packed != null) {
                System.err.println("tracegate replay: " + t + " is " + packed + ", not a JSONL trace; decompress it first and replay"
                        + " the file it holds");
                return LibraryOptions.BAD_INPUT;
            }
            String firstLine = stream ? firstLine(head) : null;
            if (firstLine != null && firstLine.startsWith("{\"prev\":\"") && firstLine.contains("\"rec\":\"header\"")) {
                // read once, as it streams by: an audit log's scan needs the file twice (trial48 03)
                String personalData = AuditLogScan.field(firstLine, "personalData");
                System.err.println("note: " + (stdin ? "standard input" : t.toString()) + " holds a tracegate audit log, which replay reads"
                        + " as a plain trace from a stream: its header, library and other non-event records are reported as malformed"
                        + " lines below, and its online decisions are not compared" + (personalData != null && !personalData.equals("clear")
                        ? "; its personal data is hashed, so contracts that read content (a bound, a pattern, a category) cannot"
                        + " be judged as online and may come out kept where the agent blocked" : "")
                        + ". Give the log as a file (replay LIBS audit.jsonl; a compressed one decompressed to a file first) to"
                        + " replay it as an audit log");
            }
            AuditLogScan audit = stream ? null : AuditLogScan.of(t);
            boolean enforce = enforceAll;
            if (audit != null) {
                String link = continuity(t, audit, previousLog, previousHead);
                if (link != null) System.err.println(link);
                // a log that continues no moved file, after another: another run of the agent (another process, or the
                // same one started again), whose sessions and register began empty, as a header inside a log is
                if (previousLog != null && audit.continues == null) audit.restarts.add(0, 1L);
                previousLog = t;
                previousHead = audit.head;
                enforce = audit.enforce(t, mode);
                for (String note : audit.gaps) System.err.println(note);
                for (String note : audit.libraryNotes(t, lib)) System.err.println(note);
            }
            // a hashed log replayed in enforce mode: each event applied here or not is compared with its record's decision
            // (the note, after the file, names the contracts that observe one that differs); a log written in shadow mode
            // applied every event, so its decisions cannot tell
            boolean tracked = audit != null && audit.hashed && enforce && audit.shadowDecisions == 0;
            if (tracked && divergence == null) divergence = new Divergence(lib);
            CountingStream counted = new CountingStream(audit != null ? java.io.InputStream.nullInputStream()
                    : piped != null ? piped : Files.newInputStream(t));
            // over bytes: plain lines go straight from UTF-8 to events (a line that is not UTF-8 is a malformed line);
            // an audit log's headers and dropped notes read as blank lines, so its line numbers stay the log's own
            TraceReader.Mode readMode = strict ? TraceReader.Mode.STRICT : TraceReader.Mode.LENIENT;
            TraceReader in = audit != null ? dev.tracegate.agent.audit.AuditTrace.open(t, readMode)
                    : new TraceReader(counted, t.getFileName().toString(), readMode);
            in.onSkip(e -> System.err.println("skipped: " + e.getMessage()));
            in.onNote(e -> System.err.println("note: " + e.getMessage()));
            try (in) {
                int restart = 0;
                int seeded = 0;
                for (Event e = in.next(); e != null; e = in.next()) {
                    // what an audit log says before this event, in its order: a restart, the register the agent started with
                    while (audit != null) {
                        long nextRestart = restart < audit.restarts.size() ? audit.restarts.get(restart) : Long.MAX_VALUE;
                        long nextRegister = seeded < audit.registers.size() ? audit.registers.get(seeded).line() : Long.MAX_VALUE;
                        if (Math.min(nextRestart, nextRegister) >= in.lines()) break;
                        if (nextRegister < nextRestart) {
                            if (!seed(audit.registers.get(seeded++), t, running.grounding().register())) return LibraryOptions.BAD_INPUT;
                            continue;
                        }
                        // a header inside an audit log is the agent started again: online its sessions and GDPR register began
                        // anew there (empty, or from its register file: the register record after the header), so the sessions
                        // still open end and a fresh runtime (libraries loaded anew) goes on
                        System.err.println("note: " + t.getFileName() + ":" + audit.restarts.get(restart) + ": the agent started again"
                                + " here (a header record): replayed as online, its sessions and its register of the data subjects'"
                                + " consents and erasures start anew");
                        restart++;
                        for (SessionReport rep : live.values()) {
                            Session s = monitor.find(rep.id);
                            if (s != null) rep.end = shared(monitor.end(s));
                        }
                        live.clear();
                        Library fresh = LibraryOptions.load(Arrays.asList(libraries.split(",")));
                        if (fresh == null) return LibraryOptions.BAD_INPUT;
                        running = fresh;
                        monitor = fresh.newMonitor(new SessionMonitor.Options(Integer.MAX_VALUE, true), r -> {});
                        w = monitor.newWorker();
                    }
                    events++;
                    if ((events & 0xFFFF) == 0) progress.at(doneBytes + counted.count, events);
                    if (e.tool() != null && toolsSeen.size() < TOOLS_KEPT) toolsSeen.add(e.tool());
                    if (e.session().isEmpty() && (e.kind() == EventKind.CONSENT || e.kind() == EventKind.ERASURE)) {
                        // a consent or erasure that belonged to no conversation online (a configured method without
                        // session-param called outside any): the register only, no session to judge, as the agent did
                        running.grounding().applyOutsideSessions(e);
                        continue;
                    }
                    SessionReport rep = live.get(e.session());
                    if (rep == null) {
                        rep = new SessionReport(e.session(), n);
                        live.put(rep.id, rep);
                        reports.add(rep);
                    }
                    Session s = monitor.session(e.session());
                    if (e.kind() == EventKind.END) {
                        ends++;
                        rep.end = shared(monitor.end(s));
                        rep.refused = null;
                        live.remove(rep.id);
                        continue;
                    }
                    // the result of a call refused here never existed under enforcement: not applied (trial21 09)
                    String answers = null;
                    if (enforce && rep.refused == null && e.kind() == EventKind.RETURN && e.callId() != null) {
                        rep.refused = new RefusedCalls();   // a RETURN before any call (its call line skipped as malformed): named too
                    }
                    if (rep.refused != null && e.kind() == EventKind.RETURN) {
                        // a RETURN whose id no call of its tool had answers the latest call of its tool, and is named (trial27 08)
                        boolean orphan = rep.refused.answersNoCall(e);
                        answers = rep.refused.answered(e);
                        if (orphan && orphans++ < ORPHANS_SHOWN) {
                            System.err.println(visible("note: " + t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", return "
                                    + e.tool() + "): its id " + visibleId(e.callId()) + " answers no call of " + e.tool() + " in its session"
                                    + " (ids are compared exactly), so it is taken as the answer of the latest " + e.tool() + " call"
                                    + (answers != null ? ", which was refused at " + answers + ": not applied" : ": applied")
                                    + (orphans == ORPHANS_SHOWN ? " (further such returns are not listed)" : "")));
                        }
                    }
                    if (answers != null) {
                        String where = t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", return " + e.tool() + ")";
                        if (rep.notApplied++ == 0) rep.firstNotApplied = where + ": its call was refused at " + answers;
                        if (tracked && !audit.refusedOnline(in.lines())) {   // applied online: judged as if applied, then taken back
                            monitor.step(s, e, false, false, w);
                            divergence.event(e, false, true, w.statesBefore(), w.nextStates(), where);
                            monitor.undo(s, w);
                        }
                        continue;
                    }
                    // an escalation the approver allowed online is applied with the same contracts excused
                    int[] excused = audit == null || audit.approvals.isEmpty() ? null : audit.excused(in.lines(), lib, t);
                    Decision d = excused != null ? monitor.stepExcusing(s, e, e.controlledByAgent(), excused, enforce, w)
                            : monitor.step(s, e, e.controlledByAgent(), enforce, w);
                    // enforce mode pairs every call of the session with its RETURN (applied calls too: a RETURN whose id no call had
                    // is told from one that answers an applied call); shadow mode applies every event, so it pairs none
                    if (e.kind() == EventKind.CALL && (enforce || rep.refused != null)) {
                        if (rep.refused == null) rep.refused = new RefusedCalls();
                        if (enforce && audit != null && audit.shadowDecisions == 0 && !d.applied() && audit.refusedOnline(in.lines())) {
                            // refused here and by the agent online (an enforce log, hashed or clear): it never ran, so no
                            // RETURN in the log is its own
                            rep.refused.neverRan(e);
                        } else {
                            rep.refused.call(e, d.applied(), d.applied() ? null
                                    : t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", call " + e.tool() + ")");
                        }
                    }
                    if (tracked) {
                        boolean online = !audit.refusedOnline(in.lines());
                        if (online != d.applied()) {
                            divergence.event(e, d.applied(), online, w.statesBefore(), w.nextStates(), t.getFileName() + ":" + in.lines()
                                    + " (seq " + e.seq() + ", " + e.kind().name().toLowerCase(java.util.Locale.ROOT) + (e.tool() == null ? "" : " " + e.tool()) + ")");
                        }
                    }
                    if (w.unevaluableCount() > 0) {
                        unevaluable++;
                        if (verbose || unevaluableAt.size() < UNEVALUABLE_SHOWN) {
                            unevaluableAt.add(t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", " + e.kind().name().toLowerCase(java.util.Locale.ROOT)
                                    + (e.tool() == null ? "" : " " + e.tool()) + "): " + atomsOf(w.unevaluable(), atoms, lib, e));
                        }
                    }
                    // a streamed answer had been shown before it was checked: where it is named, the report says so
                    dev.tracegate.agent.audit.Streamed shownFirst = audit == null || audit.streamed.isEmpty() ? null : audit.streamed.get(in.lines());
                    String streamedNote = shownFirst == null ? "" : "; " + shownFirst.says();
                    for (int i = 0; i < d.contractCount(); i++) {
                        int c = d.contract(i);
                        String where = t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", " + e.kind().name().toLowerCase(java.util.Locale.ROOT)
                                + (e.tool() == null ? "" : " " + e.tool()) + streamedNote + ")";
                        rep.touched();
                        if (d.kind() == Decision.Kind.SUPPRESS && !d.applied()) {   // enforce: withheld, nothing broken
                            rep.withheld[c]++;
                            if (rep.firstWithheld[c] == null) rep.firstWithheld[c] = where;
                        } else if (d.kind() == Decision.Kind.SUPPRESS) {
                            if (rep.firstBreak[c] == null) rep.firstBreak[c] = where;
                        } else {
                            rep.fires[c]++;   // the events it was violated on
                            if (rep.firstFail[c] == null) rep.firstFail[c] = where;
                        }
                    }
                    // a redirect or redaction online: the log holds the event as rewritten, which the contracts that acted let pass,
                    // so the step above cannot see them; the record's decision and fired contracts say who acted
                    List<String> actedOnline = audit == null || audit.rewritten.isEmpty() ? null : audit.rewritten.get(in.lines());
                    if (actedOnline != null) {
                        String how = actedOnline.get(0);
                        for (int i = 1; i < actedOnline.size(); i++) {
                            int c = lib.contracts().indexOf(actedOnline.get(i));
                            if (c < 0) continue;
                            rep.touched();
                            rep.rewritten[c]++;
                            // the rewritten event passed online; a stricter variant may refuse it (trial19 06)
                            for (int j = 0; j < d.contractCount(); j++) {
                                if (d.contract(j) == c) {
                                    rep.rewrittenRefused[c]++;
                                    break;
                                }
                            }
                            if (rep.firstRewritten[c] == null) {
                                rep.firstRewritten[c] = how + " at " + t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", "
                                        + e.kind().name().toLowerCase(java.util.Locale.ROOT) + (e.tool() == null ? "" : " " + e.tool()) + streamedNote + ")";
                            }
                        }
                    }
                    // an agent event that breaks an assumption is applied (not refused), so no decision names it
                    if (e.controlledByAgent() && d.applied() && assumed.length > 0) {
                        int[] after = w.nextStates();
                        int[] before = w.statesBefore();
                        for (int c : assumed) {
                            if (rep.firstBreak(c) == null && lib.contracts().verdict(c, after) == Verdict.IDLE
                                    && lib.contracts().verdict(c, before) != Verdict.IDLE) {
                                rep.touched().firstBreak[c] = t.getFileName() + ":" + in.lines() + " (seq " + e.seq() + ", " + e.kind().name().toLowerCase(java.util.Locale.ROOT)
                                        + (e.tool() == null ? "" : " " + e.tool()) + ") by an agent event";
                            }
                        }
                    }
                }
                skipped += in.skipped();
                if (audit == null && in.events() == 0) {
                    // nothing judged is no clean run: an empty file, a log not converted, a pretty-printed file (trial27 04)
                    System.err.println("tracegate replay: no event could be read from " + t + " ("
                            + (in.lines() == 0 ? "it is empty" : in.skipped() + " malformed lines skipped") + "), so nothing was judged: "
                            + shape(head, t));
                    return LibraryOptions.BAD_INPUT;
                }
                doneBytes += audit != null ? Files.size(t) : counted.count;
                if (audit != null && audit.hashed) {
                    System.err.println(HashedContent.note(t.getFileName().toString(), audit.personalData, lib, enforce,
                            tracked ? divergence : null));
                }
            } catch (TraceFormatException e) {
                System.err.println(e.getMessage());
                if (audit == null && in.events() == 0 && openAiLog(head)) System.err.println(shape(head, t));
                return LibraryOptions.BAD_INPUT;
            } catch (dev.tracegate.matchers.predicate.SubjectRegister.Full e) {
                System.err.println("tracegate replay: " + t.getFileName() + ": " + e.getMessage());
                return LibraryOptions.BAD_INPUT;
            }
        }
        for (SessionReport rep : live.values()) {
            Session s = monitor.find(rep.id);
            if (s != null) rep.end = shared(monitor.end(s));
        }
        progress.done();
        // a contract's tool that no event of the traces had while one a few edits from it did: a misspelt name never
        // matches, and the agent says so at exit; the offline path says it too (trial42 07: "every contract kept", and
        // nothing else). Only where a near name came: a trace is often a part of a run, in which most tools are not called
        if (toolsSeen.size() < TOOLS_KEPT) {
            for (String line : dev.tracegate.agent.supervision.UnseenTools.lines(lib, toolsSeen)) {
                if (line.contains("nearest that came: ")) System.err.println("note: " + line);
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        boolean anyFail = false;
        for (SessionReport rep : reports) {
            for (int c = 0; c < n; c++) {
                if (rep.firstFail(c) != null || (rep.end != null && rep.end.verdicts().get(c) == Verdict.FAIL)) anyFail = true;
            }
        }
        if (format.equals("json")) printJson(lib, reports, events - ends, skipped, unevaluable, unevaluableAt, seconds);
        else printText(lib, reports, events - ends, skipped, unevaluable, unevaluableAt, seconds);
        return anyFail ? 1 : 0;
    }

    /** The tool names of the traces' events, for the note on tools the contracts name that none had. */
    private final java.util.Set<String> toolsSeen = new java.util.HashSet<>();
    /** Distinct tool names kept at most (traces with more say nothing of unseen tools rather than hold them all). */
    private static final int TOOLS_KEPT = 10_000;

    /** Notes on RETURNs whose id answers no call, printed at most (the rest are not listed). */
    private static final int ORPHANS_SHOWN = 10;
    private int orphans;

    /** A call id as JSON writes it (quoted, control characters escaped), so recorded data cannot forge a line. */
    private static String visibleId(String id) {
        try {
            return new ObjectMapper().writeValueAsString(id);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return "?";
        }
    }

    /** Bytes read to tell what a trace file holds. */
    private static final int HEAD = 1 << 16;

    /** The first {@value #HEAD} bytes of {@code t} (fewer when it is shorter). */
    private static byte[] head(Path t) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(t)) {
            return in.readNBytes(HEAD);
        }
    }

    /** "gzip-compressed" and the like when {@code head} starts with a compressed format's magic bytes, else null. */
    static String compressed(byte[] head) {
        if (starts(head, 0x1F, 0x8B)) return "gzip-compressed (gunzip -k it)";
        if (starts(head, 0x28, 0xB5, 0x2F, 0xFD)) return "zstd-compressed (unzstd it)";
        if (starts(head, 'B', 'Z', 'h')) return "bzip2-compressed (bunzip2 -k it)";
        if (starts(head, 0xFD, '7', 'z', 'X', 'Z', 0x00)) return "xz-compressed (unxz -k it)";
        if (starts(head, 'P', 'K', 0x03, 0x04)) return "a zip archive (unzip it)";
        return null;
    }

    private static boolean starts(byte[] b, int... magic) {
        if (b.length < magic.length) return false;
        for (int i = 0; i < magic.length; i++) if ((b[i] & 0xFF) != magic[i]) return false;
        return true;
    }

    /** True when {@code head} looks like an OpenAI-style message log: a JSON array or object that names a message "role". */
    static boolean openAiLog(byte[] head) {
        String text = new String(head, java.nio.charset.StandardCharsets.UTF_8);
        String s = text.stripLeading();
        if (s.startsWith("\uFEFF")) s = s.substring(1).stripLeading();
        return (s.startsWith("[") || s.startsWith("{")) && text.matches("(?s).*\"role\"\\s*:.*");
    }

    /** What a file from which no event could be read seems to hold, and what to do with it. */
    private static String shape(byte[] head, Path t) {
        String name = t.getFileName().toString();
        if (openAiLog(head)) {
            return "it looks like an OpenAI-style message log (messages with a \"role\"), not a JSONL trace: convert it with"
                    + " `tracegate import openai-messages " + t + " --out " + t.resolveSibling(name.replaceFirst("\\.json$", "") + ".jsonl")
                    + "` and replay that";
        }
        String s = new String(head, java.nio.charset.StandardCharsets.UTF_8).stripLeading();
        if (s.startsWith("[")) return "it holds a JSON array; a trace is one event object per line, e.g. {\"session\":\"s1\",\"kind\":\"user\",\"text\":\"hi\"}";
        if (s.startsWith("{")) {
            return "a trace is one complete event object per line (a pretty-printed file spreads one over several), e.g."
                    + " {\"session\":\"s1\",\"kind\":\"user\",\"text\":\"hi\"} (matchers/README.md, \"Trace format\")";
        }
        return "a trace is one event object per line, e.g. {\"session\":\"s1\",\"kind\":\"user\",\"text\":\"hi\"}"
                + " (matchers/README.md, \"Trace format\")";
    }

    /**
     * Starts {@code into} (a fresh runtime's register) from the register file lines a {@code register} record names, as the
     * agent did; without --register only says that verdicts may differ. False (after saying why on stderr) when the file
     * given is not the one the agent read.
     */
    private boolean seed(AuditLogScan.RegisterRecord rec, Path log, dev.tracegate.matchers.predicate.SubjectRegister into) throws IOException {
        String where = log.getFileName() + ":" + rec.line();
        if (register == null) {
            if (rec.lines() > 0) {
                System.err.println("note: " + where + ": the agent started from " + rec.lines() + " lines of its GDPR register file "
                        + rec.path() + " (erasures and consents of earlier runs), but no --register is given: the replay starts from"
                        + " an empty register, so its verdicts may differ from the online ones. Add --register " + rec.path());
            }
            return true;
        }
        dev.tracegate.agent.supervision.RegisterFile.Contents read;
        try {
            read = dev.tracegate.agent.supervision.RegisterFile.read(register, rec.lines());
        } catch (IllegalArgumentException e) {
            System.err.println("tracegate replay: --register " + e.getMessage());
            return false;
        }
        if (read.lines() < rec.lines() || !read.sha256().equals(rec.sha256())) {
            System.err.println("tracegate replay: " + where + " says the agent started from the first " + rec.lines() + " lines of its"
                    + " register file " + rec.path() + " (SHA-256 " + rec.sha256() + "), but " + (read.lines() < rec.lines()
                    ? register + " has only " + read.lines() + " complete lines"
                    : "the first " + rec.lines() + " lines of " + register + " have SHA-256 " + read.sha256())
                    + ": it is not the file the agent read, or it was changed since. Give that file (it only grows, so a later copy"
                    + " of it will do), or replay without --register (verdicts may then differ from the online ones)");
            return false;
        }
        if (AuditTrace.subjectAsLogged(rec.personalData(), rec.salt(), hmacKey, "") == null) {
            System.err.println("note: " + where + ": the log's personal data is keyed (" + rec.personalData() + "), so the register"
                    + " file's subjects cannot be written as its events write them without the key: the replay starts from an empty"
                    + " register, and its verdicts may differ from the online ones."
                    + (rec.personalData().equals("hmac-sha256") ? " Give the key with --hmac-key-env VAR (VAR holding the agent's"
                    + " audit.hmac-key)" : ""));
            return true;
        }
        if (hmacKey != null && rec.personalData().equals("hmac-sha256") && !AuditTrace.keyId(hmacKey).equals(rec.keyId())) {
            System.err.println("tracegate replay: " + where + ": the key in " + hmacKeyEnv + " is not the one this log was written"
                    + " with (its key id is " + AuditTrace.keyId(hmacKey) + ", the log's header names " + rec.keyId() + "); give the"
                    + " agent's audit.hmac-key of that run");
            return false;
        }
        List<dev.tracegate.matchers.predicate.SubjectRegister.Change> changes = new ArrayList<>();
        for (dev.tracegate.agent.supervision.RegisterFile.Change c : read.changes()) {
            String subject = AuditTrace.subjectAsLogged(rec.personalData(), rec.salt(), hmacKey, c.subject());
            changes.add(new dev.tracegate.agent.supervision.RegisterFile.Change(c.op(), subject, c.purpose()).toRegister());
        }
        into.restore(changes);
        System.err.println("note: " + where + ": the register starts from the first " + rec.lines() + " lines of " + register + " ("
                + into.erasures() + " erasures, " + into.consents() + " consents), as the agent's did");
        return true;
    }

    /**
     * When a TRACE argument is a library (a built-in name that is no file, or a .yaml/.yml file: {@code replay shop.yaml
     * gdpr trace.jsonl}), the message saying that libraries are one comma-separated argument, with the command
     * rewritten; else null.
     */
    String librariesAmongTraces() {
        List<String> libs = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        List<String> tracesFirst = new ArrayList<>();   // traces given where the libraries go: the arguments swapped
        for (String name : LibraryOptions.split(List.of(libraries))) {
            if (LibraryOptions.isTrace(Path.of(name))) tracesFirst.add(name);
            else libs.add(name);
        }
        String first = null;
        for (Path t : traces) {
            String name = t.toString();
            boolean builtin = !Files.exists(t) && (Library.BUILTINS.contains(name)
                    || (name.startsWith("builtin:") && Library.builtinExists(name.substring("builtin:".length()))));
            boolean yaml = name.endsWith(".yaml") || name.endsWith(".yml");
            if (builtin || yaml) {
                libs.add(name);
                if (first == null) first = "'" + name + "' is " + (builtin ? "a built-in library name" : "a library file (.yaml), not a JSONL trace");
            } else {
                rest.add(name);
            }
        }
        if (first == null) return null;
        if (!tracesFirst.isEmpty()) {
            rest.addAll(0, tracesFirst);
            return "tracegate replay: the arguments are swapped: " + String.join(", ", tracesFirst) + (tracesFirst.size() == 1 ? " is a" : " are")
                    + " JSONL trace" + (tracesFirst.size() == 1 ? "" : "s") + " and " + first.replace(", not a JSONL trace", "")
                    + ". The libraries come first (one argument, comma separated), then the traces: replay " + String.join(",", libs)
                    + " " + String.join(" ", rest);
        }
        return "tracegate replay: " + first + ", but it is given where a trace is expected. The libraries are one argument,"
                + " separated by commas without spaces: replay " + String.join(",", libs)
                + (rest.isEmpty() ? " TRACE..." : " " + String.join(" ", rest));
    }

    private void printText(Library lib, List<SessionReport> reports, long events, long skipped, long unevaluable,
                           List<String> unevaluableAt, double seconds) {
        int n = lib.contracts().contracts().size();
        for (SessionReport rep : reports) {
            StringBuilder b = new StringBuilder("session " + visible(rep.id) + ":");
            boolean quiet = true;
            for (int c = 0; c < n; c++) {
                Verdict v = rep.end == null ? Verdict.ACTIVE : rep.end.verdicts().get(c);
                String id = lib.info().get(c).id();
                if (rep.firstFail(c) != null) {
                    b.append("\n  ").append(id).append(": violated first at ").append(visible(rep.firstFail(c))).append(" (").append(rep.fires(c))
                            .append(rep.fires(c) == 1 ? " event" : " events").append(")");
                    quiet = false;
                }
                if (rep.firstWithheld(c) != null) {
                    b.append("\n  ").append(id).append(": withheld ").append(visible(rep.firstWithheld(c))).append(", which would have broken its assumption:")
                            .append(" the contract stays in force (not IDLE)").append(rep.withheld(c) > 1 ? " (" + rep.withheld(c) + " events withheld)" : "");
                    quiet = false;
                }
                if (rep.firstBreak(c) != null) {
                    b.append("\n  ").append(id).append(": assumption broken first at ").append(visible(rep.firstBreak(c)));
                    quiet = false;
                }
                if (rep.firstRewritten(c) != null) {
                    int all = rep.rewritten(c), refused = rep.rewrittenRefused(c);
                    b.append("\n  ").append(id).append(": ").append(visible(rep.firstRewritten(c))).append(" online (the log holds the rewritten event")
                            .append(all > 1 ? "s" : "")
                            .append(refused == 0 ? (all > 1 ? ", which pass here" : ", which passes here")
                                    : refused == all ? ", which these libraries refuse too"
                                    : ", of which " + refused + " these libraries refuse too")
                            .append(")").append(all > 1 ? " (" + all + " events)" : "");
                    quiet = false;
                }
                // the end verdict unless it only repeats a violation above (FAIL after 'violated first'): a contract violated
                // on a prefix may still end IDLE, its assumption never met (trial13 replay-text-hides-end-verdict)
                if (v == Verdict.IDLE || v == Verdict.FAIL && rep.firstFail(c) == null) {
                    b.append("\n  ").append(id).append(": ").append(v).append(" at end");
                    quiet = false;
                }
            }
            if (rep.end != null) {
                for (EndReport.Obligation o : rep.end.unmet()) {
                    b.append("\n  ").append(o.contractId()).append(": unmet obligation at end").append(o.pending() == null ? "" : ": " + visible(o.pending()));
                    quiet = false;
                }
            }
            if (rep.notApplied > 0) {
                b.append("\n  not applied: ").append(visible(rep.firstNotApplied))
                        .append(rep.notApplied > 1 ? " (" + rep.notApplied + " results of refused calls not applied)" : "");
                quiet = false;
            }
            if (quiet) b.append(" every contract kept");
            System.out.println(b);
        }
        System.out.println();
        System.out.printf(java.util.Locale.ROOT, "%-44s %10s %10s %10s%n", "contract", "violating", "events", "unmet");
        for (int c = 0; c < n; c++) {
            int sessions = 0;
            long fires = 0;
            int unmet = 0;
            for (SessionReport rep : reports) {
                if (rep.firstFail(c) != null) sessions++;
                fires += rep.fires(c);
                if (rep.end != null) {
                    for (EndReport.Obligation o : rep.end.unmet()) if (o.contract() == c) unmet++;
                }
            }
            System.out.printf(java.util.Locale.ROOT, "%-44s %10d %10d %10d%n", lib.info().get(c).id(), sessions, fires, unmet);
        }
        System.out.printf(java.util.Locale.ROOT, "%n%d events in %d sessions, %d malformed lines skipped, %d events with unevaluable atoms, %.2f s (%.0f events/s)%n",
                events, reports.size(), skipped, unevaluable, seconds, events / Math.max(seconds, 1e-9));
        if (!unevaluableAt.isEmpty()) {
            System.out.println("events with unevaluable atoms (an argument the atom reads is missing or not a number, or a context key it"
                    + " compares with, ctx(key), is still empty: no latch set it yet):");
            for (String u : unevaluableAt) System.out.println("  " + visible(u));
            if (unevaluable > unevaluableAt.size()) {
                System.out.println("  ... and " + (unevaluable - unevaluableAt.size()) + " more (--verbose lists them all)");
            }
        }
    }

    /**
     * {@code s} with its control characters (and the line and paragraph separators) written as a JSON string writes them
     * ({@code \n}, {@code \t}, {@code \u0007}), so that a session id, a tool name or a file name from the recorded data
     * cannot make lines of the text report (trial27 05); the same string when it has none.
     */
    static String visible(String s) {
        int i = 0;
        while (i < s.length() && !invisible(s.charAt(i))) i++;
        if (i == s.length()) return s;
        StringBuilder b = new StringBuilder(s.length() + 8).append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!invisible(c)) b.append(c);
            else if (c == '\n') b.append("\\n");
            else if (c == '\r') b.append("\\r");
            else if (c == '\t') b.append("\\t");
            else if (c == '\b') b.append("\\b");
            else if (c == '\f') b.append("\\f");
            else b.append("\\u").append(HEX[c >> 12 & 15]).append(HEX[c >> 8 & 15]).append(HEX[c >> 4 & 15]).append(HEX[c & 15]);
        }
        return b.toString();
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static boolean invisible(char c) {
        return c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029';
    }

    /** The keys of the atoms whose bits are set, comma separated. */
    /** The unevaluable atoms' keys, each with its cause when the library can name it (as the online refusal does). */
    private static String atomsOf(long[] bits, List<dev.tracegate.engine.ltl.Atom> atoms, Library lib, Event e) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < atoms.size(); i++) {
            if (i >> 6 < bits.length && (bits[i >> 6] & (1L << i)) != 0) {
                if (b.length() > 0) b.append(", ");
                b.append(atoms.get(i).key());
                String cause = lib.unevaluableCause(i, e);
                if (cause != null) b.append(" (").append(cause).append(')');
            }
        }
        return b.toString();
    }

    /**
     * A note when the audit log {@code file} continues a moved one (its first header's {@code continues}) that was not
     * replayed just before it: the sessions open across the move then start here with no history (a count, a latch, a
     * value a tool output gave), so their verdicts may differ from the online ones. Null when it is linked, or when it
     * continues nothing.
     */
    static String continuity(Path file, AuditLogScan scan, Path previous, String previousHead) {
        if (scan.continues == null) return null;
        String name = file.getFileName().toString();
        if (previous == null) {
            return "note: " + name + " continues an audit log that was moved away (its header's continues " + abbreviated(scan.continues)
                    + "), which this replay was not given first: the sessions open at the move start here with no history, so their"
                    + " verdicts may differ from the online ones. Replay the moved file before it (oldest first, as for audit verify:"
                    + " replay LIBS audit.jsonl.1 " + name + ")";
        }
        if (!scan.continues.equals(previousHead)) {
            return "note: " + name + " continues a log whose last line is " + abbreviated(scan.continues) + ", but "
                    + previous.getFileName() + ", replayed before it, ends at " + (previousHead == null ? "no complete line" : abbreviated(previousHead))
                    + ": a file is missing between them or the files are out of order, so the verdicts of the sessions open across"
                    + " the move may differ from the online ones. Give the files oldest first (audit verify FILES checks each link)";
        }
        return null;
    }

    /** The first line (of at most 4 KB) in a stream's first bytes. */
    private static String firstLine(byte[] head) {
        String text = new String(head, 0, Math.min(head.length, 4096), java.nio.charset.StandardCharsets.UTF_8);
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }

    private static String abbreviated(String hash) {
        return hash.length() > 12 ? hash.substring(0, 12) + "..." : hash;
    }

    /**
     * What a first look at a file finds when it is an audit log (its first line a tracegate audit header): how
     * personal data was written, and which decisions it holds, which show the mode it was written in.
     */
    static final class AuditLogScan {
        final boolean hashed;
        final String personalData;
        final long shadowDecisions;
        final long enforcedDecisions;
        /** Line number -> the contract ids an approver excused for the event on that line ({@code approved} escalations). */
        final Map<Long, List<String>> approvals;
        /**
         * Line number -> how the agent rewrote the event on that line ("redirected", "redacted") followed by the record's
         * fired contract ids: the record holds the rewritten event.
         */
        final Map<Long, List<String>> rewritten = new java.util.HashMap<>();
        /**
         * Line number -> what the reader of a streamed answer saw (the record's {@code streamed}): its text had been shown
         * before the check, whatever the record's decision; absent in logs written before the field, read as before.
         */
        final Map<Long, dev.tracegate.agent.audit.Streamed> streamed = new java.util.HashMap<>();
        /**
         * One line per place the log does not hold its run's events: an {@code unsupervised} record (where, the fail
         * policy, why the agent could not start) or a {@code dropped} record (how many events the writer did not write).
         */
        final List<String> gaps;
        /** The log's {@code library} records, in file order. */
        final List<LibraryRecord> libraryRecords;
        /**
         * The lines of the header records after the first that continue no moved file: each is a new start of the agent
         * (a run appended to the log), whose sessions and subject register began empty. Line 1 too when the log is replayed
         * after another log that it does not continue (another run).
         */
        final List<Long> restarts = new ArrayList<>();
        /** The log's {@code register} records (the register file lines each start read), in file order. */
        final List<RegisterRecord> registers = new ArrayList<>();
        /** The head of the moved file that this one's first header continues (its {@code continues}), or null. */
        String continues;
        /** The hash of the log's last complete line: what a file that continues this one names. */
        String head;
        /**
         * The lines, ascending, of the event records whose event did not take effect online: blocked, withheld
         * ({@code suppress}) or escalated and not approved; the first {@code refusedCount} entries.
         */
        private long[] refused = {};
        private int refusedCount;

        /** Whether the event record on {@code line} was refused online (its event not applied). */
        boolean refusedOnline(long line) {
            return Arrays.binarySearch(refused, 0, refusedCount, line) >= 0;
        }

        /**
         * A {@code register} record: its line, the file, how many of its lines the agent read and their SHA-256, and how
         * its segment writes personal data ({@code personalData} and {@code salt} of the header before it).
         */
        record RegisterRecord(long line, String path, long lines, String sha256, String personalData, String salt, String keyId) {
        }

        /**
         * A {@code library} record: its line, its number, the contract ids and atom keys the agent ran with, and the
         * digest of everything the libraries defined (null in a log written before records had one).
         */
        record LibraryRecord(long line, long lib, List<String> contracts, List<String> atoms, String digest) {
            /** Same ids and atoms, and the same digest where both have one (a change of a policy section, a message, a strategy). */
            boolean sameVersion(LibraryRecord o) {
                return new java.util.HashSet<>(contracts).equals(new java.util.HashSet<>(o.contracts))
                        && new java.util.HashSet<>(atoms).equals(new java.util.HashSet<>(o.atoms))
                        && (digest == null || o.digest == null || digest.equals(o.digest));
            }
        }

        private AuditLogScan(boolean hashed, String personalData, long shadowDecisions, long enforcedDecisions,
                             Map<Long, List<String>> approvals, List<String> gaps, List<LibraryRecord> libraryRecords) {
            this.libraryRecords = libraryRecords;
            this.hashed = hashed;
            this.personalData = personalData;
            this.shadowDecisions = shadowDecisions;
            this.enforcedDecisions = enforcedDecisions;
            this.approvals = approvals;
            this.gaps = gaps;
        }

        /**
         * The library's indices of the contracts excused for the event on {@code line}, or null when none was
         * approved there; an id the library does not know is said once on stderr and left out.
         */
        int[] excused(long line, Library lib, Path file) {
            List<String> ids = approvals.get(line);
            if (ids == null) return null;
            int[] out = new int[ids.size()];
            int n = 0;
            for (String id : ids) {
                int c = lib.contracts().indexOf(id);
                if (c >= 0) out[n++] = c;
                else System.err.println("note: " + file.getFileName() + ":" + line + " approves an escalation of contract '" + id
                        + "', which the replayed libraries do not have; it is replayed without that excuse");
            }
            return Arrays.copyOf(out, n);
        }

        /** Null when the file does not begin with an audit header (a plain trace). */
        static AuditLogScan of(Path file) throws IOException {
            try (java.io.BufferedReader r = Files.newBufferedReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
                String first = r.readLine();
                if (first == null || !first.startsWith("{\"prev\":\"") || !first.contains("\"rec\":\"header\"")) return null;
                String pd = "clear";
                long shadow = 0;
                long enforced = 0;
                Map<Long, List<String>> approvals = new java.util.HashMap<>();
                Map<Long, List<String>> rewritten = new java.util.HashMap<>();
                Map<Long, dev.tracegate.agent.audit.Streamed> scanStreamed = new java.util.HashMap<>();
                List<String> gaps = new ArrayList<>();
                List<LibraryRecord> libraries = new ArrayList<>();
                List<Long> restarts = new ArrayList<>();
                List<RegisterRecord> registers = new ArrayList<>();
                long[] refusedLines = new long[16];
                int refusedCount = 0;
                String segmentPersonalData = "clear";
                String segmentSalt = null;
                String segmentKeyId = null;
                long lineNo = 0;
                String lastHash = null;
                for (String line = first; line != null; line = r.readLine()) {
                    lineNo++;
                    // a complete line ends in its own hash ("hash":"<64 hex>"}): the last such is what a continuation names
                    int hashAt = line.length() - 2 - 64 - HASH_KEY.length();
                    if (hashAt >= 0 && line.endsWith("\"}") && line.startsWith(HASH_KEY, hashAt)) {
                        lastHash = line.substring(hashAt + HASH_KEY.length(), line.length() - 2);
                    }
                    // the record's own decision and the fields after it (approved, message, streamed): its last "decision"
                    // key, since the event's arguments come before it and may have keys of those names in a clear log
                    // (an argument "streamed":"shown-then-notice" was read back as the record's), and text in strings is escaped
                    boolean event = line.startsWith("\"rec\":\"event\"", 9 + 64 + 2);
                    int dec = event ? line.lastIndexOf("\"decision\":\"") : -1;
                    int value = dec + 12;
                    boolean approved = dec >= 0 && line.indexOf("\"approved\":true", value) >= 0;
                    if (approved && line.startsWith("escalate\"", value)) {
                        approvals.put(lineNo, approvedContracts(line));
                    }
                    boolean redirected = dec >= 0 && line.startsWith("redirect\"", value);
                    if (redirected || dec >= 0 && line.startsWith("redact\"", value)) {
                        List<String> acted = firedContracts(line);
                        acted.add(0, redirected ? "redirected" : "redacted");
                        rewritten.put(lineNo, acted);
                    }
                    int shown = dec < 0 ? -1 : line.indexOf("\"streamed\":\"", value);
                    if (shown >= 0) {
                        int end = line.indexOf('"', shown + 12);
                        dev.tracegate.agent.audit.Streamed v = end < 0 ? null : dev.tracegate.agent.audit.Streamed.ofWire(line.substring(shown + 12, end));
                        if (v != null) scanStreamed.put(lineNo, v);
                    }
                    if (dec >= 0 && (line.startsWith("block\"", value) || line.startsWith("suppress\"", value)
                            || line.startsWith("escalate\"", value) && !approved)) {
                        if (refusedCount == refusedLines.length) refusedLines = Arrays.copyOf(refusedLines, refusedCount * 2);
                        refusedLines[refusedCount++] = lineNo;
                    }
                    if (line.startsWith("\"rec\":\"event\"", 9 + 64 + 2) && !segmentPersonalData.equals("clear")) {
                        // the log is hashed for replay only where a hashed segment holds events: a refused start's
                        // segment (header and unsupervised record) has nothing to replay (trial12)
                        pd = segmentPersonalData;
                    }
                    if (line.startsWith("\"rec\":\"unsupervised\"", 9 + 64 + 2)) {
                        gaps.add(unsupervisedNote(file, lineNo, line));
                    } else if (line.startsWith("\"rec\":\"dropped\"", 9 + 64 + 2)) {
                        gaps.add(droppedNote(file, lineNo, line));
                    } else if (line.startsWith("\"rec\":\"library\"", 9 + 64 + 2)) {
                        LibraryRecord rec = libraryRecord(lineNo, line);
                        if (rec != null) libraries.add(rec);
                    } else if (line.startsWith("\"rec\":\"register\"", 9 + 64 + 2)) {
                        RegisterRecord rec = registerRecord(lineNo, line, segmentPersonalData, segmentSalt, segmentKeyId);
                        if (rec != null) registers.add(rec);
                    } else if (line.contains("\"rec\":\"header\"")) {
                        if (lineNo > 1 && !line.contains("\"continues\":")) restarts.add(lineNo);
                        String p = field(line, "personalData");
                        segmentPersonalData = p == null ? "clear" : p;
                        segmentSalt = field(line, "salt");
                        segmentKeyId = field(line, "keyId");
                    } else if (line.contains("\"decision\":\"shadow-would-block\"")) {
                        shadow++;
                    } else if (line.contains("\"decision\":\"block\"") || line.contains("\"decision\":\"suppress\"")
                            || line.contains("\"decision\":\"redirect\"") || line.contains("\"decision\":\"redact\"")
                            || line.contains("\"decision\":\"escalate\"")) {
                        enforced++;
                    }
                }
                AuditLogScan scan = new AuditLogScan(!pd.equals("clear"), pd, shadow, enforced, approvals, gaps, libraries);
                scan.restarts.addAll(restarts);
                scan.continues = field(first, "continues");
                scan.head = lastHash;
                scan.rewritten.putAll(rewritten);
                scan.streamed.putAll(scanStreamed);
                scan.registers.addAll(registers);
                scan.refused = refusedLines;
                scan.refusedCount = refusedCount;
                return scan;
            } catch (java.nio.charset.MalformedInputException e) {
                return null;
            }
        }

        /** A {@code register} record read as JSON, or null for a broken line. */
        private static RegisterRecord registerRecord(long lineNo, String line, String personalData, String salt, String keyId) {
            try {
                com.fasterxml.jackson.databind.JsonNode rec = new ObjectMapper().readTree(line);
                return new RegisterRecord(lineNo, rec.path("path").asText(), rec.path("lines").asLong(0), rec.path("sha256").asText(),
                        personalData, salt, keyId);
            } catch (IOException e) {
                return null;
            }
        }

        /** A {@code library} record read as JSON, or null for a broken line (the trace reader reports it where it reads it). */
        private static LibraryRecord libraryRecord(long lineNo, String line) {
            try {
                com.fasterxml.jackson.databind.JsonNode rec = new ObjectMapper().readTree(line);
                List<String> contracts = new ArrayList<>();
                List<String> atoms = new ArrayList<>();
                rec.path("contracts").forEach(c -> contracts.add(c.asText()));
                rec.path("atoms").forEach(a -> atoms.add(a.asText()));
                String digest = rec.path("digest").isTextual() ? rec.path("digest").asText() : null;
                return new LibraryRecord(lineNo, rec.path("lib").asLong(0), contracts, atoms, digest);
            } catch (IOException e) {
                return null;
            }
        }

        /**
         * Notes when the log's library records do not match the replayed libraries: the contracts the log had and
         * the replay does not, and the other way round; and, for a log that spans several library versions (a hot
         * reload), that every event is replayed with the one version given, and which of the log's versions it is.
         */
        List<String> libraryNotes(Path file, Library lib) {
            List<String> notes = new ArrayList<>();
            if (libraryRecords.isEmpty()) return notes;
            String name = file.getFileName().toString();
            List<String> given = new ArrayList<>();
            for (Library.ContractInfo c : lib.info()) given.add(c.id());
            java.util.Set<String> logged = new java.util.LinkedHashSet<>();
            for (LibraryRecord r : libraryRecords) logged.addAll(r.contracts());
            List<String> onlyLogged = new ArrayList<>(logged);
            onlyLogged.removeAll(given);
            List<String> onlyGiven = new ArrayList<>(given);
            onlyGiven.removeAll(logged);
            if (!onlyLogged.isEmpty() || !onlyGiven.isEmpty()) {
                StringBuilder b = new StringBuilder("note: ").append(name).append("'s library records (").append(lines(libraryRecords))
                        .append(") do not name the contracts of the replayed libraries (").append(lib.names()).append("):");
                if (!onlyLogged.isEmpty()) b.append(" the log had ").append(String.join(", ", onlyLogged)).append(", which the replay does not;");
                if (!onlyGiven.isEmpty()) b.append(" the replay has ").append(String.join(", ", onlyGiven)).append(", which the log did not;");
                b.append(" the verdicts below are the replayed libraries' on the log's events, not what the agent decided."
                        + " Replay with the libraries the log was written with to check its decisions");
                notes.add(b.toString());
            }
            List<LibraryRecord> versions = new ArrayList<>();
            for (LibraryRecord r : libraryRecords) {
                boolean seen = false;
                for (LibraryRecord v : versions) seen |= v.sameVersion(r);
                if (!seen) versions.add(r);
            }
            if (versions.size() > 1) {
                LibraryRecord replayed = new LibraryRecord(0, 0, given, atomKeys(lib), lib.digest());
                String match = null;
                for (LibraryRecord v : versions) if (match == null && v.sameVersion(replayed)) match = "lib " + v.lib() + " (line " + v.line() + ")";
                List<String> each = new ArrayList<>();
                for (LibraryRecord v : versions) each.add("lib " + v.lib() + " at line " + v.line());
                notes.add("note: " + name + " spans " + versions.size() + " library versions (" + String.join(", ", each)
                        + "; the libraries changed while it was written: a hot reload, or a run with other libraries appended to"
                        + " it): replay uses the one version given for every event, so events written under another version may come out differently than they did online; the"
                        + " libraries given " + (match != null ? "are " + match : "match none of the log's versions")
                        + ". Replay the log's parts with their own versions to check each");
            }
            return notes;
        }

        private static List<String> atomKeys(Library lib) {
            List<String> keys = new ArrayList<>();
            for (dev.tracegate.engine.ltl.Atom a : lib.contracts().atoms()) keys.add(a.key());
            return keys;
        }

        private static String lines(List<LibraryRecord> records) {
            List<String> at = new ArrayList<>();
            for (LibraryRecord r : records) if (at.size() < 5) at.add(Long.toString(r.line()));
            return (records.size() == 1 ? "line " : "lines ") + String.join(", ", at) + (records.size() > at.size() ? ", ..." : "");
        }

        /**
         * A {@code dropped} record: the writer left events out here (its reason says why: a full queue, an outage), so the
         * sessions replayed lack them.
         */
        private static String droppedNote(Path file, long lineNo, String line) {
            int at = line.indexOf("\"count\":");
            int from = at < 0 ? -1 : at + 8, to = from;
            while (to >= 0 && to < line.length() && Character.isDigit(line.charAt(to))) to++;
            String count = from < 0 || to == from ? null : line.substring(from, to);
            int r = line.indexOf("\"reason\":\"");
            int end = r < 0 ? -1 : line.indexOf('"', r + 10);
            String reason = end < 0 ? "queue-full" : line.substring(r + 10, end);   // records written before reasons: a full queue
            return "note: " + file.getFileName() + ":" + lineNo + ": " + (count == null ? "some" : count) + " events were not written here ("
                    + dev.tracegate.agent.audit.AuditVerification.explain(reason) + "): the replayed sessions lack them, so verdicts after"
                    + " this line may differ from the ones given online";
        }

        private static String unsupervisedNote(Path file, long lineNo, String line) {
            String fail = "?";
            String reason = "";
            try {
                com.fasterxml.jackson.databind.JsonNode rec = new ObjectMapper().readTree(line);
                fail = rec.path("fail").asText("?");
                reason = rec.path("reason").asText("");
            } catch (IOException e) {
                // a broken line: the trace reader reports it where it reads it
            }
            int nl = reason.indexOf('\n');
            String first = nl < 0 ? reason : reason.substring(0, nl) + " ...";
            return "note: " + file.getFileName() + ":" + lineNo + ": the agent could not start and supervised nothing of that run ("
                    + (fail.equals("open") ? "fail: open, the application ran without it" : "fail: " + fail + ", the start was refused")
                    + "): no events of it are in the log" + (first.isEmpty() ? "" : "; why: " + first);
        }

        /** The {@code fired} ids of an approved escalation's record (read as JSON: ids may hold escaped characters). */
        /** The record's fired contract ids (empty for a broken line, which the trace reader reports where it reads it). */
        private static List<String> firedContracts(String line) {
            List<String> ids = new ArrayList<>();
            try {
                new ObjectMapper().readTree(line).path("fired").forEach(f -> ids.add(f.asText()));
            } catch (IOException e) {
                // reported by the trace reader
            }
            return ids;
        }

        private static List<String> approvedContracts(String line) {
            List<String> ids = new ArrayList<>();
            try {
                com.fasterxml.jackson.databind.JsonNode rec = new ObjectMapper().readTree(line);
                if (rec.path("approved").asBoolean(false)) rec.path("fired").forEach(f -> ids.add(f.asText()));
            } catch (IOException e) {
                // a broken line: the trace reader reports it where it reads it
            }
            return ids;
        }

        private static final String HASH_KEY = "\"hash\":\"";

        static String field(String line, String key) {
            int at = line.indexOf("\"" + key + "\":\"");
            if (at < 0) return null;
            int from = at + key.length() + 4;
            int to = line.indexOf('"', from);
            return to < 0 ? null : line.substring(from, to);
        }

        /**
         * Whether to replay in enforce mode: as asked, else as the log's decisions show (a log with only
         * {@code shadow-would-block} was written in shadow mode, where refused events were applied). Says on
         * stderr what it chose when it did not simply follow --mode.
         */
        boolean enforce(Path file, String asked) {
            if (asked != null) {
                if (asked.equals("enforce") && shadowDecisions > 0 && enforcedDecisions == 0) {
                    System.err.println("note: " + file.getFileName() + " was written in shadow mode (" + shadowDecisions
                            + " shadow-would-block decisions) and is replayed with --mode enforce as asked: refused events are"
                            + " not applied, so it may report more than the online run did");
                }
                return asked.equals("enforce");
            }
            if (shadowDecisions > 0 && enforcedDecisions == 0) {
                System.err.println("note: " + file.getFileName() + " was written in shadow mode (" + shadowDecisions
                        + " shadow-would-block decisions): replaying it with --mode shadow, as online; pass --mode enforce to"
                        + " grade it as if enforced");
                return false;
            }
            if (shadowDecisions > 0) {
                System.err.println("warning: " + file.getFileName() + " holds decisions of both modes (" + shadowDecisions
                        + " shadow-would-block, " + enforcedDecisions + " enforced): replaying it with --mode enforce; pass --mode"
                        + " shadow for the shadow parts");
            }
            return true;
        }
    }

    /**
     * The JSON report, written as it is made (a generator over standard output, one session at a time): the document
     * holds every session, and building it whole first took several times the memory of the replay itself (trial27 09:
     * 50,000 ended sessions ran out of a 96 MB heap that the text report fits in). Same bytes as the object tree that
     * Jackson's default pretty printer wrote before.
     */
    private void printJson(Library lib, List<SessionReport> reports, long events, long skipped, long unevaluable,
                           List<String> unevaluableAt, double seconds) throws IOException {
        int n = lib.contracts().contracts().size();
        java.io.PrintStream stdout = System.out;
        java.io.Writer toStdout = new java.io.Writer() {
            @Override public void write(char[] cbuf, int off, int len) { stdout.append(java.nio.CharBuffer.wrap(cbuf, off, len)); }

            @Override public void write(String str, int off, int len) { stdout.append(str, off, off + len); }

            @Override public void flush() { stdout.flush(); }

            @Override public void close() { stdout.flush(); }
        };
        try (com.fasterxml.jackson.core.JsonGenerator g = new com.fasterxml.jackson.core.JsonFactory().createGenerator(toStdout)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("libraries", lib.names());
            g.writeArrayFieldStart("sessions");
            for (SessionReport rep : reports) {
                g.writeStartObject();
                g.writeStringField("session", rep.id);
                g.writeArrayFieldStart("contracts");
                for (int c = 0; c < n; c++) {
                    g.writeStartObject();
                    g.writeStringField("id", lib.info().get(c).id());
                    g.writeStringField("verdict", rep.end == null ? "ACTIVE" : rep.end.verdicts().get(c).name());
                    g.writeStringField("firstViolation", rep.firstFail(c));
                    // the first event that broke the assumption or, withheld, would have (a withheld one comes first: after a break none is)
                    g.writeStringField("firstAssumptionBreak", rep.firstWithheld(c) != null ? rep.firstWithheld(c) : rep.firstBreak(c));
                    g.writeStringField("assumptionBrokenAt", rep.firstBreak(c));
                    g.writeNumberField("withheld", rep.withheld(c));
                    g.writeStringField("firstRewritten", rep.firstRewritten(c));
                    g.writeNumberField("rewritten", rep.rewritten(c));
                    g.writeNumberField("rewrittenRefusedHere", rep.rewrittenRefused(c));
                    g.writeNumberField("events", rep.fires(c));
                    g.writeArrayFieldStart("unmet");
                    if (rep.end != null) {
                        for (EndReport.Obligation o : rep.end.unmet()) if (o.contract() == c) g.writeString(o.pending() == null ? "" : o.pending());
                    }
                    g.writeEndArray();
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeNumberField("resultsNotApplied", rep.notApplied);
                g.writeStringField("firstResultNotApplied", rep.firstNotApplied);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeObjectFieldStart("summary");
            g.writeNumberField("events", events);
            g.writeNumberField("sessions", reports.size());
            g.writeNumberField("skippedLines", skipped);
            g.writeNumberField("unevaluableEvents", unevaluable);
            g.writeArrayFieldStart("unevaluableAt");
            for (String u : unevaluableAt) g.writeString(u);
            g.writeEndArray();
            g.writeNumberField("seconds", seconds);
            g.writeEndObject();
            g.writeEndObject();
        }
        stdout.println();
    }

    /** A one-line progress bar on standard error for long inputs (bytes read of all traces). */
    static final class Progress {
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
            System.err.printf(java.util.Locale.ROOT, "\rreplaying [%s%s] %3d%%  %,d events", "#".repeat(filled), " ".repeat(width - filled),
                    bytes * 100 / Math.max(1, total), events);
        }

        void done() {
            if (on) System.err.println();
        }

        /**
         * Whether standard error, where the bar goes, is a terminal: on Linux what fd 2 links to; elsewhere Java 17's only
         * answer, System.console(), which needs standard input and output to be terminals (so {@code > report.txt} hides it).
         */
        static boolean stderrIsTerminal() {
            Path fd2 = Path.of("/proc/self/fd/2");
            if (Files.isSymbolicLink(fd2)) {
                try {
                    return isTerminal(Files.readSymbolicLink(fd2).toString());
                } catch (IOException | UnsupportedOperationException | SecurityException e) {
                    // fall through
                }
            }
            return System.console() != null;
        }

        /** A terminal device's path (a pseudo-terminal, a console). */
        static boolean isTerminal(String device) {
            return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty") || device.equals("/dev/console");
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
