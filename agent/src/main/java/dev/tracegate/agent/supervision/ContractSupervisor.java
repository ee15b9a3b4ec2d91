package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditRecord;
import dev.tracegate.agent.audit.Streamed;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.config.BlockStyle;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.config.Mode;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.CallReach;
import dev.tracegate.agent.core.Consent;
import dev.tracegate.agent.core.Erasure;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.core.ResultDecision;
import dev.tracegate.agent.core.Supervisor;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.contracts.analysis.LibraryAnalysis;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The supervisor backed by the contract engine: every intercepted call, result and message becomes
 * an event, is stepped through the session's monitor, enforced by the violated contract's strategy,
 * and recorded in the audit log. Thread-safe; any host thread may call any method.
 */
public final class ContractSupervisor implements Supervisor, AutoCloseable {
    private static final String INTERNAL = "tracegate.internal";

    private final AgentConfig config;
    private final Path base;
    private final boolean enforce;
    private final boolean substitute;
    /** audit.trace-ids: records made on a thread with a current OpenTelemetry span carry its ids. */
    private final boolean traceIds;
    private final FailPolicy fail;
    private final AuditWriter audit;
    private final SupervisorMetrics metrics;
    private final LiveView view;
    private final Approval approval;
    /**
     * The file the GDPR register's changes go to ({@code register.path}); null: the register is in memory only, or every
     * version loaded so far said {@code scope: session}. Opened at most once (at start, or by the first reload to
     * {@code scope: global}); a reload changes it under {@link #reloading}.
     */
    private volatile RegisterFile registerFile;
    /** Held by a reload: two at once (the housekeeping check, an MBean or test call) would open the register file twice. */
    private final Object reloading = new Object();
    /** Sessions whose END is being recorded: a new session of the same id waits for it (see {@link #sessionOf}). */
    private final ConcurrentHashMap<String, Session> ending = new ConcurrentHashMap<>();
    /**
     * The tools of calls that were redirected, whose audit records carry their targets' names: with the tool names the
     * audit log wrote, the tools that came in this run ({@link #sayToolsNeverSeen}). Added on the redirect path only.
     */
    private final java.util.Set<String> redirectedFrom = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicBoolean toolsNeverSeenSaid = new java.util.concurrent.atomic.AtomicBoolean();
    /** The contract and target pairs whose redirect target a call site lacked, each warned about once. */
    private final java.util.Set<String> unreachableTargets = ConcurrentHashMap.newKeySet();
    private final Redaction redaction = new Redaction();
    private final CopyOnWriteArrayList<Runtime> runtimes = new CopyOnWriteArrayList<>();
    private final AtomicInteger versions = new AtomicInteger();
    private final ScheduledExecutorService housekeeping;
    private volatile Runtime current;
    private volatile long librariesStamp;
    /** The stamp the previous hot-reload check saw; a changed stamp is loaded once two consecutive checks agree. */
    private long seenStamp;
    /**
     * SHA-256 of the library files' bytes the running version ({@link #current}) was loaded from, read just before they
     * were loaded; null: a file could not be read then. A reload whose files hash the same is no new version.
     */
    private volatile byte[] librariesContent;

    /**
     * Loads and analyses the configured libraries and opens the audit log.
     *
     * @throws LibraryException when a library is malformed (the agent then refuses to start unless fail=open)
     */
    public ContractSupervisor(AgentConfig config, AuditWriter audit, SupervisorMetrics metrics, LiveView view) {
        this(config, audit, metrics, view, config.blockStyle());
    }

    /**
     * As above, with {@code style} the style the host is given a block in (the agent's bridge: {@code block.style}, or
     * the agent argument's older {@code onBlock}, which wins): an answer's block is decided in it, a notice in its place
     * or {@code TracegateViolation}, so that its audit record (a streamed answer's {@code streamed}) says what the host did.
     */
    public ContractSupervisor(AgentConfig config, AuditWriter audit, SupervisorMetrics metrics, LiveView view, BlockStyle style) {
        this.config = config;
        this.base = config.configFile() == null ? Path.of("") : config.configFile().toAbsolutePath().getParent();
        this.enforce = config.mode() == Mode.ENFORCE;
        this.substitute = style == BlockStyle.SUBSTITUTE;
        this.traceIds = config.auditTraceIds();
        this.fail = config.fail();
        this.audit = audit;
        this.metrics = metrics;
        this.view = view;
        Library lib;
        try {
            this.approval = Approval.load(config.escalateApprover(), config.sourceOf("escalate.approver"), config.escalateTimeout(),
                    config.escalateMaxStuck(), metrics);
            this.librariesContent = content();
            lib = load();
            this.registerFile = openRegister(lib);
            this.current = newRuntime(lib);
        } catch (RuntimeException | LinkageError e) {
            // nothing of this run will be supervised: the log says so and why, rather than read as a quiet run
            String why = e instanceof LibraryException || e instanceof IllegalArgumentException ? e.getMessage() : e.toString();
            audit.closeUnsupervised(fail, why);
            throw e;
        }
        this.runtimes.add(current);
        if (registerFile != null) {
            // before any event: replay --register starts from the same lines (the record says which, and their digest)
            RegisterFile.Contents read = registerFile.contents();
            audit.append(AuditRecord.registerRead(registerFile.path().toString(), read.lines(), read.sha256()));
            metrics.registerFile(registerFile);
        }
        this.librariesStamp = stamp();
        this.seenStamp = librariesStamp;
        metrics.contracts(current.contractIds);
        metrics.sessions(this::sessionCount);
        this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tracegate-housekeeping");
            t.setDaemon(true);
            return t;
        });
        housekeeping.scheduleWithFixedDelay(WallClock::reanchor, 1, 1, TimeUnit.SECONDS);   // event times follow the wall clock
        long idleMs = config.sessionsIdleTimeout().toMillis();
        if (idleMs > 0) {
            long every = Math.max(1000, Math.min(idleMs / 4, 30_000));
            housekeeping.scheduleWithFixedDelay(this::evictIdle, every, every, TimeUnit.MILLISECONDS);
        }
        if (config.hotReload()) {
            checkConfigFile();   // what the start read: a later change of the file is said, not applied
            long every = config.hotReloadInterval().toMillis();
            housekeeping.scheduleWithFixedDelay(this::reloadIfChanged, every, every, TimeUnit.MILLISECONDS);
        }
        analyseLater(lib);
        for (String key : redirectKeysNamingNothing(config.redirect(), lib, config.configuredMethods())) {
            AgentLog.warn("redirect: the key '" + key + "' names neither a contract of the loaded libraries nor a tool they mention,"
                    + " so it may never apply. Key an entry by a redirect contract's id (or by the blocked tool's name): "
                    + "redirect: {contract-id: safe_tool}");
        }
        for (String line : RedirectReach.onlyBlocked(lib, config, config.redirect())) AgentLog.warn(line);
        AgentLog.info("contracts loaded: " + lib.names() + " (" + lib.contracts().contracts().size() + " contracts, "
                + lib.contracts().formulas().size() + " automata, " + lib.contracts().atoms().size() + " atoms)"
                + (enforce ? "" : " mode=shadow"));
    }

    /**
     * The tool a redirect contract runs instead: the configuration's entry for the contract's id, else
     * its entry for the blocked tool (names compared trimmed and case-folded), else the contract's
     * {@code redirect-to}. A user writes "when X is blocked, run Y" with X either way; the id wins
     * because it is the more specific of the two.
     */
    static String redirectTarget(Map<String, String> redirect, Library.ContractInfo c, String tool) {
        if (redirect.isEmpty()) return c.redirectTo();
        String target = redirect.get(c.id());
        if (target == null && tool != null) {
            target = redirect.get(tool);
            if (target == null) {
                String folded = tool.trim();
                for (Map.Entry<String, String> en : redirect.entrySet()) {
                    if (en.getKey().trim().equalsIgnoreCase(folded)) {
                        target = en.getValue();
                        break;
                    }
                }
            }
        }
        return target == null ? c.redirectTo() : target;
    }

    /**
     * The keys of the redirect map that name neither a contract id nor a tool that the libraries' atoms,
     * their {@code redirect-to} targets or the configured methods mention: likely a typo, said once at start.
     */
    static List<String> redirectKeysNamingNothing(Map<String, String> redirect, Library lib,
                                                  List<dev.tracegate.agent.config.ConfiguredMethod> methods) {
        if (redirect.isEmpty()) return List.of();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Library.ContractInfo c : lib.info()) {
            names.add(c.id().toLowerCase(java.util.Locale.ROOT));
            if (c.redirectTo() != null) names.add(c.redirectTo().trim().toLowerCase(java.util.Locale.ROOT));
        }
        for (dev.tracegate.engine.ltl.Atom a : lib.contracts().atoms()) {
            for (dev.tracegate.engine.ltl.Term t : a.args()) {
                String name = t instanceof dev.tracegate.engine.ltl.Term.Str str ? str.value() : t.toString();
                names.add(name.trim().toLowerCase(java.util.Locale.ROOT));
            }
        }
        if (methods != null) {
            for (dev.tracegate.agent.config.ConfiguredMethod m : methods) {
                if (m.toolName() != null) names.add(m.toolName().trim().toLowerCase(java.util.Locale.ROOT));
                if (m.method() != null) names.add(m.method().trim().toLowerCase(java.util.Locale.ROOT));
            }
        }
        List<String> unknown = new ArrayList<>();
        for (String key : redirect.keySet()) {
            if (!names.contains(key.trim().toLowerCase(java.util.Locale.ROOT))) unknown.add(key);
        }
        return unknown;
    }

    private Library load() {
        if (config.libraries().isEmpty()) {
            throw new LibraryException(config.configFile() == null ? null : config.configFile().toString(), 0, 0,
                    "no contract library is configured", "set 'libraries: [gdpr, injection, my-policy.yaml]' in the configuration");
        }
        return Library.load(config.libraries(), base);
    }

    /**
     * With {@code register.path}: the file of the GDPR register's changes, read into the register of {@code lib} (not yet
     * published, so no event has touched it) which from now on appends every change to it; else null. A hot reload
     * hands this register on ({@link #reload}), so the file is read once per JVM.
     *
     * @throws IllegalArgumentException a malformed or unwritable file, or more erasures than the register can hold
     */
    private RegisterFile openRegister(Library lib) {
        Path path = config.registerPath();
        if (path == null) return null;
        if (lib.grounding().policy().subjectScope() == dev.tracegate.matchers.predicate.Policy.SubjectScope.SESSION) {
            AgentLog.warn("register.path " + path + " is not used: the gdpr section says scope: session, so consents and erasures"
                    + " stay in their sessions and end with them. Remove scope: session to keep them service-wide and in the file");
            return null;
        }
        if (config.auditPath() != null && path.toAbsolutePath().normalize().equals(config.auditPath().toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("register.path and audit.path name the same file, " + path + ": the register's lines"
                    + " would break the audit log's chain. Give the GDPR register a file of its own (register.path: gdpr-register.jsonl)");
        }
        RegisterFile file = RegisterFile.open(path);
        dev.tracegate.matchers.predicate.SubjectRegister register = lib.grounding().register();
        try {
            file.contents().seed(register);
        } catch (dev.tracegate.matchers.predicate.SubjectRegister.Full e) {
            throw new IllegalArgumentException("register.path " + file.path() + " holds more erasures than the register can keep ("
                    + register.capacity() + "): raise register-capacity in the gdpr: section of your library", e);
        }
        register.journal(file);
        AgentLog.info("GDPR register restored from " + file.path() + ": " + count(register.erasures(), "erasure") + " and "
                + count(register.consents(), "consent") + " (" + count(file.contents().lines(), "line") + "); changes are appended to it");
        return file;
    }

    /**
     * {@code register.path} across a reload, as a restart with the new library would have it: a version with
     * {@code scope: global} writes the file, one with {@code scope: session} does not. The first reload to global scope
     * opens the file (read into the shared register before the new version is published, with its {@code register}
     * record for replay); a reload to session scope leaves the file and the register as they are (sessions already
     * running keep their version, and a global one still writes it) and says so. Nothing is forgotten either way.
     *
     * @throws IllegalArgumentException the file cannot be used (malformed, unwritable, too many erasures): the reload is
     *                                  refused and the running version stays, as for a broken library
     */
    private void registerAfterReload(Library lib) {
        Path path = config.registerPath();
        if (path == null) return;
        boolean global = lib.grounding().policy().subjectScope() != dev.tracegate.matchers.predicate.Policy.SubjectScope.SESSION;
        boolean wasGlobal = current.library.grounding().policy().subjectScope() != dev.tracegate.matchers.predicate.Policy.SubjectScope.SESSION;
        if (global && registerFile == null) {
            RegisterFile file = openRegister(lib);
            RegisterFile.Contents read = file.contents();
            audit.append(AuditRecord.registerRead(file.path().toString(), read.lines(), read.sha256()));
            metrics.registerFile(file);
            registerFile = file;
        } else if (global && !wasGlobal) {
            AgentLog.info("register.path " + registerFile.path() + " is written again: the reloaded library says scope: global"
                    + " (the register holds what the file holds, and the changes of sessions that kept scope: global)");
        } else if (!global && wasGlobal) {
            AgentLog.warn("register.path " + path + " is not written by sessions that start now: the reloaded library says scope:"
                    + " session, so their consents and erasures stay in their sessions, and the erasures the file holds do not block"
                    + " in them. Sessions already running keep scope: global and still write it; the file is kept, and a reload back"
                    + " to scope: global uses it again. Remove scope: session to keep them service-wide and in the file");
        }
    }

    private static String count(long n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }

    /**
     * Analyses the loaded libraries off the start-up path (product automata can take a while for big
     * libraries) and logs each finding; a finding never stops supervision, it is for the operator.
     */
    private volatile Thread analysis;

    /**
     * The background analysis (a seam: tests put one that throws). It runs under {@code engine.max-states}, which bounds
     * its automata's states and, since session 20, its dead-end search's working memory (2 KB a state: 20 MB at the
     * default 10000).
     */
    static volatile java.util.function.BiFunction<Integer, Library, List<LibraryAnalysis.Finding>> analyser =
            (maxStates, lib) -> new LibraryAnalysis(new DfaCompiler(maxStates), lib.policy()).analyse(lib.contracts().contracts());

    private void analyseLater(Library lib) {
        dev.tracegate.contracts.analysis.PolicySections.unread(lib).forEach(AgentLog::warn);   // cheap: one pass over the atoms
        dev.tracegate.contracts.analysis.AgentAssumptions.notes(lib).forEach(AgentLog::warn);   // cheap: the assumptions' small automata
        Thread t = new Thread(() -> {
            try {
                for (LibraryAnalysis.Finding f : analyser.apply(config.engineMaxStates(), lib)) {
                    AgentLog.warn("library analysis: " + f.kind() + " " + f.contracts() + ": " + f.explanation()
                            + (f.witness().isEmpty() ? "" : " witness " + f.witness()));
                }
                // check's notes (a guarantee a tool result can make fail, a category no detector has, a context key no
                // latch sets...): said at start and after a reload as check says them, not only by their effect in a
                // session; the two kinds said above, before the thread, are not said twice
                java.util.Set<String> said = new java.util.HashSet<>(dev.tracegate.contracts.analysis.PolicySections.unread(lib));
                said.addAll(dev.tracegate.contracts.analysis.AgentAssumptions.notes(lib));
                for (String note : dev.tracegate.contracts.analysis.LibraryNotes.notes(lib)) {
                    if (!said.contains(note)) AgentLog.warn("library analysis: " + note);
                }
            } catch (OutOfMemoryError | StackOverflowError e) {
                // the analysis is the operator's, not the host's: what it held is garbage once it is dropped here, and no
                // thread of the application sees the error (session 20: an analysis of 50 contracts ran the agent's test
                // JVM out of heap in the audit writer). Supervision does not depend on it; check runs it offline.
                metrics.onInternalError(FailPolicy.OPEN);
                AgentLog.warn("library analysis dropped: it ran out of " + (e instanceof OutOfMemoryError ? "heap" : "stack")
                        + " (" + e.getClass().getName() + "); supervision goes on without its findings. Run it offline with"
                        + " `java -jar tracegate-agent.jar check " + checkArguments() + "` (--max-states N bounds it)");
            } catch (Throwable e) {
                metrics.onInternalError(FailPolicy.OPEN);
                AgentLog.error("library analysis failed; supervision goes on without its findings (run `tracegate check` on the"
                        + " libraries offline for them)", e);
            }
        }, "tracegate-analysis");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        analysis = t;
        t.start();
    }

    /** What {@code check} takes for these libraries: the configuration file, which stands for them, or their list. */
    private String checkArguments() {
        return config.configFile() != null ? config.configFile().toString() : String.join(" ", config.libraries());
    }

    /** The thread of the last start's or reload's background analysis (tests wait for its warnings). */
    Thread analysisThread() { return analysis; }

    // ---------------------------------------------------------------------------------------- events

    @Override
    public ToolDecision onToolCall(ToolCall call) {
        return onToolCall(call, call.framework(), call.session(), call.tool(), call.callId(), 0, null, call.reach());
    }

    /**
     * A configured method's call, field by field: the {@link ToolCall} is made only on the paths that hand it on (a
     * decision that acts, an unhealthy log), so a passed call makes none (40 B, session 21).
     */
    @Override
    public ToolDecision onToolCall(String framework, String session, String tool, String callId, dev.tracegate.matchers.event.Args arguments,
                                   CallReach reach) {
        return onToolCall(null, framework, session, tool, callId, 0, arguments, reach);
    }

    /** As above, for a call whose id the agent generated: {@code tg-callNumber}, kept as the number (no String a call). */
    @Override
    public ToolDecision onToolCall(String framework, String session, String tool, long callNumber, dev.tracegate.matchers.event.Args arguments,
                                   CallReach reach) {
        return onToolCall(null, framework, session, tool, null, callNumber, arguments, reach);
    }

    /**
     * {@code given} the caller's call, or null: then {@code arguments} are the call's (as {@link ToolCall#args} gives them).
     * The call's id is {@code callId}, or {@code tg-callNumber} when {@code callNumber > 0}.
     */
    private ToolDecision onToolCall(ToolCall given, String framework, String session, String tool, String callId, long callNumber,
                                    dev.tracegate.matchers.event.Args arguments, CallReach reach) {
        long t0 = System.nanoTime();
        try {
            while (true) {
                Runtime rt = runtimeFor(session);
                Session s = sessionOf(rt, session);
                synchronized (s) { // within a session the audit order is the decision order, so the log replays exactly
                    long before = s.applied();
                    if (before < 0) continue;   // ended since sessionOf found it (evicted or ended): the event goes to its successor
                    Worker w = rt.worker(); // this thread's worker: the one step and record use (one lookup per event; given back at its end)
                    try {
                        Event e = callNumber > 0
                                ? Event.toolEvent(EventKind.CALL, s.id(), s.nextSequence(), stamp(s, t0), tool, callNumber, arguments, null, false)
                                : Event.toolEvent(EventKind.CALL, s.id(), s.nextSequence(), stamp(s, t0), tool, callId,
                                given != null ? given.args() : arguments, null, false);   // no builder: one object less per event
                        ToolDecision decided = decideCall(rt, s, e, given, framework, session, arguments, reach, t0, w);
                        // a tool let run holds its session: the idle sweep does not end it while the tool runs (trial12: a
                        // 2.5 s tool under a 1 s timeout split the turn into two sessions); a field of the session, under
                        // its monitor, so no map and no identity hash (which would inflate the session's lock); named by the
                        // call's id, so that only this call's RETURN releases it
                        if (decided == ToolDecision.proceed() || decided.kind() != ToolDecision.Kind.BLOCK) hold(s, callId, callNumber);
                        return decided;
                    } catch (RuntimeException | LinkageError err) {
                        takeBack(rt, s, w, before);
                        throw err;
                    } finally {
                        rt.giveBack(w);
                    }
                }
            }
        } catch (RuntimeException | LinkageError err) {
            return internalError(err, session, "CALL " + tool) ? ToolDecision.block(INTERNAL,
                    "tracegate could not check this call (" + err + ")", "Retry later or contact the operator.") : ToolDecision.proceed();
        }
    }

    /**
     * The audit log refused the record of a call about to run (passed, redacted or redirected; fail: closed): the call
     * does not run, so the step that let it must leave no trace in the session either (a refused approval must not
     * satisfy a later "O approved").
     */
    private ToolDecision refusedByLog(Runtime rt, Session s, Worker w, Decision applied) {
        if (applied.applied()) rt.monitor.undo(s, w);
        return ToolDecision.block(INTERNAL, logRefused(), "Retry later.");
    }

    /**
     * Why the log turned a call's record away: no room in time, or closed since the JVM is shutting down (trial22 09: calls
     * a host thread still made after the shutdown hook closed the log read as a full queue or an outage, with no line why).
     */
    private String logRefused() {
        return shutDown || audit.isClosed() ? SHUTDOWN_REFUSAL
                : "the audit log could not take this decision in time, so tracegate refuses the call (fail: closed)";
    }

    /** What a call refused after the agent's shutdown is told (afterShutdown; logRefused for one that raced the close). */
    private static final String SHUTDOWN_REFUSAL = "the JVM is shutting down and tracegate has ended its sessions and closed its"
            + " audit log, so it refuses calls (fail: closed)";

    /**
     * The decision on a call and its record; {@code given} is the caller's {@link ToolCall}, or null: then the paths that
     * hand a call on make it from the other parameters, as the bridge made it before (a passed call makes none).
     */
    private ToolDecision decideCall(Runtime rt, Session s, Event e, ToolCall given, String framework, String session,
                                    dev.tracegate.matchers.event.Args callArgs, CallReach reach, long t0, Worker w) {
        if (!audit.isHealthy()) {   // the one volatile read a healthy log costs; the rest is off the hot path
            ToolCall call = given != null ? given : new ToolCall(framework, session, e.tool(), null, e.callId(), callArgs, reach);
            // it reached tracegate though its record may never be written: the exit must not say it never did (trial40 05)
            if (decidedUnaudited.size() < 1_000) decidedUnaudited.add(call.tool());
            if (shutDown) {
                ToolDecision refused = afterShutdown(call);
                if (refused != null) return refused;
            } else if (fail == FailPolicy.CLOSED) {
                record(rt, w, s, e, null, dev.tracegate.agent.audit.Decision.BLOCK, INTERNAL, "audit log unavailable: " + audit.lastError(), t0);
                return ToolDecision.block(INTERNAL, "the audit log is unavailable, so tracegate refuses calls (fail: closed)", "Retry later.");
            }
        }
        Decision d = rt.step(s, e, true, enforce, w);
        // a pass by reference first: the shared PASS object sits on a page of its own that a cold call would walk to (session 19)
        if (d == Decision.PASS || !d.refused()) {
            if (record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.PASS, null, null, t0)) return ToolDecision.proceed();
            return refusedByLog(rt, s, w, d);
        }
        ToolCall call = given != null ? given : new ToolCall(framework, session, e.tool(), null, e.callId(), callArgs, reach);
        Library.ContractInfo c = primary(rt, d);
        Unread unread = Unread.of(rt, w, d, e, s);
        String reason = reason(rt, w, d, e, unread);
        if (!enforce) {
            record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.SHADOW_WOULD_BLOCK, c.id(), reason, t0);
            return ToolDecision.proceed();
        }
        // Several contracts may refuse one call. A block (or suppress) wins at once. Otherwise a redaction acts first:
        // it only narrows the call, and the contracts that still refuse the redacted call then act on it, so a redirect
        // or an approver gets the call without the removed fields (trial7 finding 9).
        Event acted = e;
        Decision refusedBy = d;
        String redactedJson = null;
        String note = "";
        if (!c.strategy().equals("block") && !c.strategy().equals("suppress") && refusedWith(rt, d, "redact")) {
            // arguments that could not be read (not a JSON object the tool's framework reads) have no field to remove:
            // removing the raw text would run the tool with every parameter null (trial43 01, LOW)
            boolean unreadable = e.args() != null && e.args().unreadable();
            Redaction.Arguments out = unreadable ? null : redaction.redact(rt.library, e, namedCategories(rt, d), call.reach()::whyPartsFixed);
            String redacted = out == null ? null : out.json();
            String cannot = unreadable ? "its arguments could not be read as the tool's fields, so no field could be removed from them"
                    : redacted == null ? "no argument carries a data category it could remove"
                    : out.cannot() != null ? out.cannot()
                    : call.reach().whyNotRemoved(e.args(), dev.tracegate.matchers.event.Args.ofJson(redacted));
            if (cannot == null) {
                Event r = again(e, EventKind.CALL).tool(e.tool()).callId(e.callId()).args(redacted).build();
                Decision again = rt.step(s, r, true, true, w);
                if (!again.refused()) {
                    String why = thenSentence(reason, "The fields it does not need were removed (" + String.join(", ", out.removed()) + ") and the call ran without them.");
                    if (!record(rt, w, s, r, d, dev.tracegate.agent.audit.Decision.REDACT, primaryWith(rt, d, "redact").id(), why, t0)) {
                        return refusedByLog(rt, s, w, again);
                    }
                    return ToolDecision.redact(primaryWith(rt, d, "redact").id(), why, redacted);
                }
                acted = r;
                refusedBy = again;
                redactedJson = redacted;
                c = primary(rt, again);
                note = " (after the fields that " + primaryWith(rt, d, "redact").id() + " does not allow were removed)";
                reason = reason(rt, w, again, r, Unread.of(rt, w, again, r, s)) + note;
            } else {
                reason = thenSentence(reason, "It could not be redacted: " + cannot + ".");
            }
        }
        String arguments = redactedJson != null ? redactedJson : call.argumentsJson();
        switch (c.strategy()) {
            case "redirect": {
                String target = redirectTarget(config.redirect(), c, e.tool());
                String missingTarget = call.reach().whyNoRedirect(target);
                // a target that takes none of the call's arguments (or lacks one it requires) would run with nulls: blocked too
                String cannot = missingTarget != null ? missingTarget : call.reach().whyNoRedirect(target, e.tool(), acted.args());
                if (cannot != null) {
                    reason = thenSentence(reason, "It could not be redirected to " + target + ": " + cannot + ".");
                    if (unreachableTargets.add(c.id() + "\u0000" + target) && call.reach().whyNoRedirect() == null) {
                        // a framework site whose tools lack the target: a configuration mistake, said once per contract and target
                        AgentLog.warn("contract " + c.id() + " redirects " + e.tool() + " to " + target + ", but " + cannot
                                + ". Its calls are blocked instead (a BLOCK in the audit log, not a redirect).");
                    }
                    record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.BLOCK, c.id(), reason, t0);
                    return ToolDecision.block(c.id(), reason, insteadOfMissing(rt, d, e.tool(), target,
                            missingTarget != null ? "is not available here" : "cannot take this call's arguments"));
                }
                Event r = again(acted, EventKind.CALL).tool(target)
                        .callId(e.callId()).args(acted.args()).build();
                Decision again = rt.step(s, r, true, true, w);
                if (!again.refused()) {
                    if (!record(rt, w, s, r, d, dev.tracegate.agent.audit.Decision.REDIRECT, c.id(), thenSentence(reason, "The call of " + e.tool() + " was redirected to " + target + "."), t0)) {
                        return refusedByLog(rt, s, w, again);
                    }
                    redirectedFrom.add(e.tool());   // its record carries the target: the tool came all the same (toolsNeverSeen)
                    return ToolDecision.redirect(c.id(), reason, target, arguments);
                }
                // the target's call is refused too (by any strategy: a redirect runs its target only when that call passes),
                // so the original call is blocked; the reason says the redirect was tried and which contracts refused it
                // (the record's fired stays the original call's: replay steps that call, not the target's)
                String targetRefusal = reason(rt, w, again, r, Unread.of(rt, w, again, r, s));
                StringBuilder refusers = new StringBuilder();
                for (int i = 0; i < again.contractCount(); i++) {
                    refusers.append(i == 0 ? "" : i == again.contractCount() - 1 ? " and " : ", ").append(rt.contractIds[again.contract(i)]);
                }
                reason = thenSentence(reason, "It could not be redirected to " + target + ": " + refusers + (again.contractCount() == 1 ? " refuses" : " refuse")
                        + " that call too (" + targetRefusal + ").");
                record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.BLOCK, c.id(), reason, t0);
                return ToolDecision.block(c.id(), reason, insteadOfMissing(rt, d, e.tool(), target, "is refused too (" + refusers + ")"));
            }
            case "escalate": {
                Approval.Answer a = approval.ask(c.id(), e.session(), e.tool(), arguments, reason);
                if (a.approved()) return approved(rt, s, acted, refusedBy, c, reason, a, t0, w, redactedJson);
                record(rt, w, s, acted, refusedBy, dev.tracegate.agent.audit.Decision.ESCALATE, c.id(), thenSentence(reason, "Refused: " + a.note()), t0);
                return ToolDecision.block(c.id(), reason + " (escalated: " + a.note() + ")", c.next());
            }
            default:
                break;
        }
        record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.BLOCK, c.id(), reason, t0);
        return ToolDecision.block(c.id(), reason, nexts(rt, d, unread));
    }

    /**
     * What to do instead of a call whose redirect target cannot run (the call site lacks it, or contracts refuse its call
     * too: {@code state} says which): the refusing contracts' {@code next} without any that names the target (the model
     * would call a tool that cannot run), then what can work: not calling the refused tool again, and telling the user.
     * Target names are compared case-insensitively.
     */
    private static String insteadOfMissing(Runtime rt, Decision d, String tool, String target, String state) {
        StringBuilder b = new StringBuilder();
        java.util.Set<String> seen = new java.util.HashSet<>();
        String missing = target.trim().toLowerCase(java.util.Locale.ROOT);
        for (int i = 0; i < d.contractCount(); i++) {
            String n = rt.library.info().get(d.contract(i)).next();
            if (n == null || n.isBlank() || n.toLowerCase(java.util.Locale.ROOT).contains(missing) || !seen.add(n.trim())) continue;
            appendSentence(b, n.trim());
        }
        appendSentence(b, "Do not call " + tool + " again: it is refused, and " + target
                + ", which would run in its place, " + state + ". Tell the user that this cannot be done now.");
        return b.toString();
    }

    /** Ends the text in {@code b} as a sentence before another is appended: with a space after . ! or ?, else with ". ". */
    private static void endSentence(StringBuilder b) {
        if (b.length() == 0) return;
        char last = b.charAt(b.length() - 1);
        b.append(last == '.' || last == '!' || last == '?' ? " " : ". ");
    }

    /** {@code text} followed by {@code sentence} as a sentence of its own (a message without a final full stop gets one). */
    private static String thenSentence(String text, String sentence) {
        StringBuilder b = new StringBuilder(text.length() + sentence.length() + 2).append(text);
        endSentence(b);
        return b.append(sentence).toString();
    }

    private static void appendSentence(StringBuilder b, String sentence) {
        endSentence(b);
        b.append(sentence);
    }

    /**
     * What to do instead, from every contract that refused in {@code d}: each one's {@code next}, once, in contract order.
     * A model told only the first one's would follow it into the next refusal (trial9 multi-block-next: an erased
     * subject without consent was told to ask for consent, and P4's "do not process that person's data" was dropped).
     * A contract that refused only because of what could not be read ({@code unread}) gives what to do about that instead.
     */
    private static String nexts(Runtime rt, Decision d, Unread unread) {
        if (d.contractCount() == 1) {
            String instead = unread.instead(d.contract(0));
            return instead != null ? instead : rt.library.info().get(d.contract(0)).next();
        }
        StringBuilder b = new StringBuilder();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < d.contractCount(); i++) {
            String instead = unread.instead(d.contract(i));
            String n = instead != null ? instead : rt.library.info().get(d.contract(i)).next();
            if (n == null || n.isBlank() || !seen.add(n.trim())) continue;
            if (b.length() > 0) {
                char last = b.charAt(b.length() - 1);
                b.append(last == '.' || last == '!' || last == '?' ? " " : ". ");
            }
            b.append(n.trim());
        }
        return b.toString();
    }

    /** Whether some contract that refused in {@code d} has {@code strategy}. */
    private static boolean refusedWith(Runtime rt, Decision d, String strategy) {
        return primaryWith(rt, d, strategy) != null;
    }

    /** The first contract that refused in {@code d} with {@code strategy}, or null. */
    private static Library.ContractInfo primaryWith(Runtime rt, Decision d, String strategy) {
        for (int i = 0; i < d.contractCount(); i++) {
            Library.ContractInfo c = rt.library.info().get(d.contract(i));
            if (c.strategy().equals(strategy)) return c;
        }
        return null;
    }

    /**
     * The data categories the refusing redact contracts of {@code d} name with {@code category(c)}: a redaction removes
     * only the fields that carry them (trial7 finding 6: a contract about card numbers removed an e-mail field too).
     * Null when one of them reads {@code personal_data} or {@code excess_data}, or names no category: then the
     * purposes decide (every category none of the call's purposes needs is removed).
     */
    private static java.util.Set<String> namedCategories(Runtime rt, Decision d) {
        java.util.Set<String> named = new java.util.TreeSet<>();
        for (int i = 0; i < d.contractCount(); i++) {
            if (!rt.library.info().get(d.contract(i)).strategy().equals("redact")) continue;
            boolean any = false;
            for (dev.tracegate.engine.ltl.Atom a : dev.tracegate.engine.ltl.Formulas.atoms(rt.library.contracts().contracts().get(d.contract(i)).guarantee())) {
                if (a.name().equals("personal_data") || a.name().equals("excess_data")) return null;
                if (a.name().equals("category") && a.args().size() == 1) {
                    dev.tracegate.engine.ltl.Term t = a.args().get(0);
                    named.add((t instanceof dev.tracegate.engine.ltl.Term.Str str ? str.value() : t.toString()).trim().toLowerCase(java.util.Locale.ROOT));
                    any = true;
                }
            }
            if (!any) return null;
        }
        return named.isEmpty() ? null : named;
    }

    /**
     * An escalated call the approver allowed: applied with the escalating contracts excused (they keep their
     * state before it, so the approval covers this call only and a later violating call is escalated again),
     * re-checked against the session as it is now. If another contract refuses it, it is blocked like any block.
     * The audit record says {@code approved} and names the excused contracts in {@code fired}, which is what
     * {@code replay} excuses.
     */
    private ToolDecision approved(Runtime rt, Session s, Event e, Decision d, Library.ContractInfo c, String reason,
                                  Approval.Answer a, long t0, Worker w, String redactedJson) {
        int[] excused = new int[d.contractCount()];
        int k = 0;
        for (int i = 0; i < d.contractCount(); i++) if (rt.library.info().get(d.contract(i)).strategy().equals("escalate")) excused[k++] = d.contract(i);
        excused = java.util.Arrays.copyOf(excused, k);
        Decision again = rt.stepExcusing(s, e, true, excused, true, w);
        if (again.refused()) {
            Library.ContractInfo other = primary(rt, again);
            List<String> ids = new ArrayList<>();
            for (int x : excused) ids.add(rt.contractIds[x]);
            Unread unread = Unread.of(rt, w, again, e, s);
            String why = reason(rt, w, again, e, unread) + " (the approver allowed " + String.join(", ", ids) + ": " + a.note()
                    + "; this contract still refuses the call)";
            record(rt, w, s, e, again, dev.tracegate.agent.audit.Decision.BLOCK, other.id(), why, t0);
            return ToolDecision.block(other.id(), why, nexts(rt, again, unread));
        }
        boolean admitted = record(rt, w, s, e, again, dev.tracegate.agent.audit.Decision.ESCALATE, c.id(),
                thenSentence(reason, "Approved: " + a.note()), t0, excused);
        if (admitted) return redactedJson == null ? ToolDecision.proceed() : ToolDecision.redact(c.id(), reason, redactedJson);
        rt.monitor.undo(s, w);   // the log refused the record (fail: closed): the call does not run and leaves no trace
        return ToolDecision.block(INTERNAL, logRefused(), "Retry later.");
    }

    @Override
    public ResultDecision onToolResult(ToolResult result) {
        return onToolResult(result.session(), result.tool(), result.callId(), 0, result.text(), result.error(), result.cannotWithhold(),
                result.withheld());
    }

    /** A result the contracts alone decide on, field by field: no {@link ToolResult} (48 B a passed call, session 21). */
    @Override
    public ResultDecision onToolResult(String framework, String session, String tool, String callId, String text, boolean error,
                                       String cannotWithhold) {
        return onToolResult(session, tool, callId, 0, text, error, cannotWithhold, null);
    }

    /** As above, for the RETURN of a call whose id the agent generated: {@code tg-callNumber}, kept as the number. */
    @Override
    public ResultDecision onToolResult(String framework, String session, String tool, long callNumber, String text, boolean error,
                                       String cannotWithhold) {
        return onToolResult(session, tool, null, callNumber, text, error, cannotWithhold, null);
    }

    /**
     * A tool call let run holds its session, named by its id: a generated one ({@code tg-N}, as a number or as text) by its
     * number, so that its RETURN releases it in whichever form that carries the id; any other by the id's text.
     */
    private static void hold(Session s, String callId, long callNumber) {
        long n = callNumber > 0 ? callNumber : Event.generatedNumber(callId);
        if (n > 0) s.hold(n);
        else s.hold(callId);
    }

    /** Releases the hold {@link #hold(Session, String, long)} took for the call of this id; false if this session holds none. */
    private static boolean release(Session s, String callId, long callNumber) {
        long n = callNumber > 0 ? callNumber : Event.generatedNumber(callId);
        return n > 0 ? s.release(n) : s.release(callId);
    }

    /** The RETURN of {@link ToolResult}'s fields (the framework is not read); its id is {@code callId}, or {@code tg-callNumber}. */
    private ResultDecision onToolResult(String session, String tool, String callId, long callNumber, String text, boolean error,
                                        String cannotWithhold, String withheld) {
        long t0 = System.nanoTime();
        try {
            while (true) {
                Runtime rt = runtimeFor(session);
                Session s = sessionOf(rt, session);
                synchronized (s) {
                    long before = s.applied();
                    if (before < 0) continue;   // ended since sessionOf found it (evicted or ended): the event goes to its successor
                    Worker w = rt.worker();
                    try {
                        Event e = callNumber > 0
                                ? Event.toolEvent(EventKind.RETURN, s.id(), s.nextSequence(), stamp(s, t0), tool, callNumber, null, text, error)
                                : Event.toolEvent(EventKind.RETURN, s.id(), s.nextSequence(), stamp(s, t0), tool, callId, null, text, error);
                        // the hold of the call this RETURN answers, by its id: a RETURN whose CALL this session never let run
                        // (made before the attach, or seen only at its exit) releases nothing, not another call's hold
                        release(s, callId, callNumber);
                        Decision d = rt.step(s, e, false, enforce, w);
                        if (d == Decision.PASS && withheld == null) {   // by reference: see decideCall
                            record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.PASS, null, null, t0);
                            return ResultDecision.keep();
                        }
                        if (d.kind() == Decision.Kind.SUPPRESS) {
                            Library.ContractInfo c = rt.library.info().get(d.contract(0));
                            if (!enforce) {
                                record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.SHADOW_WOULD_BLOCK, c.id(), reason(rt, w, d, e), t0);
                                return ResultDecision.keep();
                            }
                            // not applied either way: a result the call site cannot replace still leaves the contract in force
                            // for the calls that follow, and the record says that it went through
                            record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.SUPPRESS, c.id(), cannotWithhold == null ? reason(rt, w, d, e)
                                    : reason(rt, w, d, e) + " It could not be withheld: " + cannotWithhold + "; the contract treats it as withheld"
                                    + " and stays in force for the calls that follow.", t0);
                            return ResultDecision.suppress(c.id(), withheld(rt, c, "tool result"));
                        }
                        if (withheld != null) {
                            // the call site withholds it all the same (the failure policy): the record says so. The contracts
                            // saw what could be read and the event is applied, as replay applies it
                            record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.SUPPRESS, d.kind() == Decision.Kind.VIOLATION ? firstId(rt, d) : null,
                                    INTERNAL + ": " + withheld + (d.kind() == Decision.Kind.VIOLATION
                                            ? " The result also violated: " + reason(rt, w, d, e) : ""), t0);
                            return ResultDecision.keep();
                        }
                        record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.PASS, d.kind() == Decision.Kind.VIOLATION ? firstId(rt, d) : null,
                                d.kind() == Decision.Kind.VIOLATION ? "environment violated: " + reason(rt, w, d, e) : null, t0);
                        return ResultDecision.keep();
                    } catch (RuntimeException | LinkageError err) {
                        takeBack(rt, s, w, before);
                        throw err;
                    } finally {
                        rt.giveBack(w);
                    }
                }
            }
        } catch (RuntimeException | LinkageError err) {
            return internalError(err, session, "RETURN " + tool)
                    ? ResultDecision.suppress(INTERNAL, "[tracegate] result withheld: the supervisor could not check it") : ResultDecision.keep();
        }
    }

    @Override
    public MessageDecision onUserMessage(Message message) {
        long t0 = System.nanoTime();
        try {
            while (true) {
                Runtime rt = runtimeFor(message.session());
                Session s = sessionOf(rt, message.session());
                synchronized (s) {
                    long before = s.applied();
                    if (before < 0) continue;   // ended since sessionOf found it (evicted or ended): the event goes to its successor
                    Worker w = rt.worker();
                    try {
                        Event e = next(s, EventKind.USER, t0)
                                .text(message.text()).build();
                        Decision d = rt.step(s, e, false, enforce, w);
                        if (d.kind() == Decision.Kind.SUPPRESS && enforce) {
                            Library.ContractInfo c = rt.library.info().get(d.contract(0));
                            record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.SUPPRESS, c.id(), reason(rt, w, d, e), t0);
                            return MessageDecision.replace(c.id(), withheld(rt, c, "user message"));
                        }
                        record(rt, w, s, e, d, d.refused() ? dev.tracegate.agent.audit.Decision.SHADOW_WOULD_BLOCK : dev.tracegate.agent.audit.Decision.PASS,
                                d.refused() || d.kind() == Decision.Kind.VIOLATION ? firstId(rt, d) : null,
                                d.refused() ? reason(rt, w, d, e) : d.kind() == Decision.Kind.VIOLATION ? "environment violated: " + reason(rt, w, d, e) : null, t0);
                        return MessageDecision.keep();
                    } catch (RuntimeException | LinkageError err) {
                        takeBack(rt, s, w, before);
                        throw err;
                    } finally {
                        rt.giveBack(w);
                    }
                }
            }
        } catch (RuntimeException | LinkageError err) {
            return internalError(err, message.session(), "USER")
                    ? MessageDecision.replace(INTERNAL, "[tracegate] message withheld: the supervisor could not check it") : MessageDecision.keep();
        }
    }

    @Override
    public MessageDecision onAssistantMessage(Message message) {
        long t0 = System.nanoTime();
        try {
            while (true) {
                Runtime rt = runtimeFor(message.session());
                Session s = sessionOf(rt, message.session());
                synchronized (s) {
                    long before = s.applied();
                    if (before < 0) continue;   // ended since sessionOf found it (evicted or ended): the event goes to its successor
                    Worker w = rt.worker();
                    try {
                        Event e = next(s, EventKind.ASSISTANT, t0)
                                .text(message.text()).build();
                        Decision d = rt.step(s, e, true, enforce, w);
                        // a streamed answer was shown as it came: its record says what this decision could still do
                        boolean streamed = message.streamed();
                        if (!d.refused()) {
                            record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.PASS, null, null, t0, null, streamed ? Streamed.SHOWN : null);
                            return MessageDecision.keep();
                        }
                        Library.ContractInfo c = primary(rt, d);
                        Unread unread = Unread.of(rt, w, d, e, s);
                        String reason = reason(rt, w, d, e, unread);
                        if (!enforce) {
                            record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.SHADOW_WOULD_BLOCK, c.id(), reason, t0, null, streamed ? Streamed.SHOWN : null);
                            return MessageDecision.keep();
                        }
                        if (c.strategy().equals("redact")) {
                            String redacted = redaction.redactText(rt.library, message.text(), namedCategories(rt, d));
                            Event r = again(e, EventKind.ASSISTANT).text(redacted).build();
                            if (!rt.step(s, r, true, true, w).refused()) {
                                record(rt, w, s, r, d, dev.tracegate.agent.audit.Decision.REDACT, c.id(), reason, t0, null, streamed ? Streamed.SHOWN_THEN_MASKED : null);
                                return MessageDecision.replace(c.id(), redacted);
                            }
                        }
                        record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.BLOCK, c.id(), reason, t0, null,
                                !streamed ? null : substitute ? Streamed.SHOWN_THEN_NOTICE : Streamed.SHOWN_THEN_ERROR);
                        String next = nexts(rt, d, unread);
                        String says = unread.why(rt.library.info().indexOf(c));
                        String notice = "[tracegate] " + (says != null ? says : rt.says(c)) + (next.isEmpty() ? "" : " " + next);
                        return substitute ? MessageDecision.replace(c.id(), notice) : MessageDecision.block(c.id(), dev.tracegate.agent.core.BlockText.of("the answer", c.id(), reason, next));
                    } catch (RuntimeException | LinkageError err) {
                        takeBack(rt, s, w, before);
                        throw err;
                    } finally {
                        rt.giveBack(w);
                    }
                }
            }
        } catch (RuntimeException | LinkageError err) {
            return internalError(err, message.session(), "ASSISTANT")
                    ? MessageDecision.block(INTERNAL, "tracegate could not check the model output") : MessageDecision.keep();
        }
    }

    @Override
    public void onConsent(Consent consent) {
        Event.Builder b = Event.builder(EventKind.CONSENT).subject(consent.subject()).purposes(consent.purposes()).granted(consent.granted());
        if (consent.session() == null) outsideSessions(b);
        else environment(b.session(consent.session()));
    }

    @Override
    public void onErasure(Erasure erasure) {
        Event.Builder b = Event.builder(EventKind.ERASURE).subject(erasure.subject());
        if (erasure.session() == null) outsideSessions(b);
        else environment(b.session(erasure.session()));
    }

    /** The session id of the audit records of consents and erasures that belong to no session (see {@link #outsideSessions}). */
    public static final String NO_SESSION = "";
    /** Held from the number of such a record to its append, so the log has them in order; the last number given. */
    private final Object outside = new Object();
    private long outsideSeq;

    /**
     * A consent or erasure that belongs to no conversation (a configured method without session-param called outside
     * any): it reaches the register of the data subjects (scope: global) and no session, so no session is made for it
     * and judged at its end (trial21 11: a session "default" with one CONSENT event reported F call(greet) unmet). Its
     * record has the empty session id, which replay reads back the same way (Grounding#applyOutsideSessions).
     */
    private void outsideSessions(Event.Builder b) {
        long t0 = System.nanoTime();
        try {
            synchronized (outside) {
                Runtime rt = current;
                Event e = b.session(NO_SESSION).seq(++outsideSeq).ts(WallClock.millisAt(t0)).build();
                boolean kept = rt.library.grounding().applyOutsideSessions(e);
                record(rt, null, null, e, null, dev.tracegate.agent.audit.Decision.PASS, null, kept
                        ? "no conversation: the register of the data subjects only"
                        : "no conversation, and scope: session keeps consents and erasures in conversations: no effect", t0);
            }
        } catch (RuntimeException | LinkageError err) {
            internalError(err, NO_SESSION, b.build().kind().name());
        }
    }

    @Override
    public boolean sessionOpen(String sessionId) {
        for (Runtime rt : runtimes) {
            Session s = rt.monitor.find(sessionId);
            if (s != null && !s.isClosed()) return true;
        }
        return false;
    }

    @Override
    public List<String> sessionEventReaders(boolean erasure) {
        String name = erasure ? "erasure" : "consent";
        List<String> ids = new ArrayList<>();
        Library lib = current.library;
        for (dev.tracegate.engine.monitor.Contract c : lib.contracts().contracts()) {
            if (readsEvent(c.assume(), name) || readsEvent(c.guarantee(), name)) ids.add(c.id());
        }
        return ids;
    }

    /**
     * Whether {@code f} reads the atom {@code name} (erasure, consent) without arguments as an event of the session: not
     * where it is a conjunct beside {@code call} (gdpr's P2, {@code call & ... & !erasure}, reads it of the call itself,
     * a call of an erasure tool, which an event outside any session does not concern).
     */
    public static boolean readsEvent(dev.tracegate.engine.ltl.Formula f, String name) {
        if (f instanceof dev.tracegate.engine.ltl.Atom a) return a.name().equals(name) && a.args().isEmpty();
        if (f instanceof dev.tracegate.engine.ltl.Formula.Unary u) return readsEvent(u.arg(), name);
        if (!(f instanceof dev.tracegate.engine.ltl.Formula.Binary b)) return false;
        if (b.op() != dev.tracegate.engine.ltl.Formula.BinOp.AND) return readsEvent(b.left(), name) || readsEvent(b.right(), name);
        List<dev.tracegate.engine.ltl.Formula> conjuncts = new ArrayList<>();
        conjuncts(b, conjuncts);
        boolean ofACall = false;
        for (dev.tracegate.engine.ltl.Formula c : conjuncts) ofACall |= c instanceof dev.tracegate.engine.ltl.Atom a && a.name().equals("call");
        for (dev.tracegate.engine.ltl.Formula c : conjuncts) {
            dev.tracegate.engine.ltl.Formula bare = c instanceof dev.tracegate.engine.ltl.Formula.Unary u
                    && u.op() == dev.tracegate.engine.ltl.Formula.UnOp.NOT ? u.arg() : c;
            if (ofACall && bare instanceof dev.tracegate.engine.ltl.Atom) continue;
            if (readsEvent(c, name)) return true;
        }
        return false;
    }

    private static void conjuncts(dev.tracegate.engine.ltl.Formula f, List<dev.tracegate.engine.ltl.Formula> into) {
        if (f instanceof dev.tracegate.engine.ltl.Formula.Binary b && b.op() == dev.tracegate.engine.ltl.Formula.BinOp.AND) {
            conjuncts(b.left(), into);
            conjuncts(b.right(), into);
        } else {
            into.add(f);
        }
    }

    private void environment(Event.Builder b) {
        long t0 = System.nanoTime();
        Event probe = b.build();
        try {
            while (true) {
                Runtime rt = runtimeFor(probe.session());
                Session s = sessionOf(rt, probe.session());
                synchronized (s) {
                    if (s.isClosed()) continue;   // ended since sessionOf found it (evicted or ended): the event goes to its successor
                    long now = WallClock.millisAt(t0);
                    s.touch(now);
                    Event e = b.seq(s.nextSequence()).ts(now).build();
                    Worker w = rt.worker();
                    try {
                        Decision d = rt.step(s, e, false, false, w);
                        record(rt, w, s, e, d, dev.tracegate.agent.audit.Decision.PASS, d.contractCount() > 0 ? firstId(rt, d) : null,
                                d.contractCount() > 0 ? d.kind() + ": " + reason(rt, w, d, e) : null, t0);
                        return;
                    } finally {
                        rt.giveBack(w);
                    }
                }
            }
        } catch (RuntimeException | LinkageError err) {
            internalError(err, probe.session(), probe.kind().name());
        }
    }

    /** A new event of the session: its next sequence number, the time {@code t0} (nanoTime) stands for. Call under the session's monitor. */
    private static Event.Builder next(Session s, EventKind kind, long t0) {
        long seq = s.nextSequence();
        return Event.builder(kind).session(s.id()).seq(seq).ts(stamp(s, t0));
    }

    /** The event time {@code t0} (nanoTime) stands for, noting that the session was used then. Call under the session's monitor. */
    private static long stamp(Session s, long t0) {
        long now = WallClock.millisAt(t0);   // from the latency's first clock read: no third read per event
        s.touch(now);   // the idle sweep and the sessions.max LRU order read this: a used session is not idle
        return now;
    }

    /** A rewritten version of {@code e} (redacted, redirected): same session, number and time. */
    private static Event.Builder again(Event e, EventKind kind) {
        return Event.builder(kind).session(e.session()).seq(e.seq()).ts(e.ts());
    }

    // --------------------------------------------------------------------------------- sessions

    @Override
    public void endSession(String sessionId) {
        // "*" is the agent's shutdown (AgentCore's hook, close()); one id is an explicit end by a program of its own
        String how = sessionId.equals("*") ? JVM_EXIT : EXPLICIT;
        for (Runtime rt : runtimes) {
            if (sessionId.equals("*")) {
                for (Session s : new ArrayList<>(rt.monitor.sessions())) end(rt, s, how);
            } else {
                Session s = rt.monitor.find(sessionId);
                if (s != null) end(rt, s, how);
            }
        }
        dropIdleRuntimes();
    }

    /**
     * Ends a session and records its END. An event that found {@code s} before and waits for its monitor finds it
     * closed and goes to its successor (see {@link #onToolCall}); a successor created meanwhile waits in
     * {@link #sessionOf} until the END is queued.
     */
    /** How an END record's message begins for a session ended at the JVM's exit, and for one ended explicitly. */
    static final String JVM_EXIT = "ended at the JVM's exit";
    static final String EXPLICIT = "ended explicitly";

    private void end(Runtime rt, Session s, String how) {
        if (s.isClosed()) return;   // e.g. evicted since endSession("*") listed it: announcing it could hide a successor's end from ending
        ending.put(s.id(), s);   // before the monitor removes s: a successor created after that finds it here
        try {
            synchronized (s) {
                long seq = s.nextSequence();
                EndReport r = rt.monitor.end(s);
                if (r != null) recordEnd(rt, r, seq, r.held() == 0 ? how : how + " while " + calls(r.held()) + " in flight");
            }
        } finally {
            ending.remove(s.id(), s);
        }
    }

    /**
     * The session an event belongs to. A session that is new for its id (nothing offered yet) first waits until
     * an END of its predecessor being recorded by {@link #end} is queued, so that the audit log never has the new
     * session's first record before the old session's END (a verifier reads that as a sequence out of order).
     */
    private Session sessionOf(Runtime rt, String id) {
        Session s = rt.monitor.session(id);
        if (s.offered() == 0) {
            Session old = ending.get(id);
            if (old != null && old != s) {
                synchronized (old) {
                    // nothing to do: end() queues the END record before it releases this lock
                }
            }
        }
        return s;
    }

    /**
     * A runtime for the libraries, whose sessions evicted by the engine (sessions.max, idle sweep) are recorded by
     * {@link #evicted} with this runtime's contracts.
     */
    private Runtime newRuntime(Library lib) {
        Runtime[] self = new Runtime[1];   // the listener needs the runtime it belongs to; no session, so no eviction, before it is set
        self[0] = new Runtime(lib, versions.incrementAndGet(), config.sessionsMax(), r -> evicted(self[0], r));
        return self[0];
    }

    /**
     * Records the END of a session the engine evicted. The engine calls this holding the session's monitor, before
     * the session leaves its map (SessionMonitor#evict), as {@link #end} does for the sessions it ends: every event
     * of the session has been recorded (each holds the monitor from its sequence number to its record), so the END
     * takes the next number, and an event of the same id recorded after it belongs to a new session.
     */
    private void evicted(Runtime rt, EndReport r) {
        boolean idle = Thread.currentThread() == sweeper;
        String why = r.held() == 0
                ? idle ? "ended by sessions.idle-timeout (" + text(config.sessionsIdleTimeout()) + "): no event for that long"
                        : "ended to make room under sessions.max (" + config.sessionsMax() + "): the least recently used session"
                                + " with no tool call in flight"
                : idle
                ? "ended by sessions.in-flight-timeout (" + inFlightBound() + "): no event for that long while " + calls(r.held()) + " in flight (a tool that hangs, or whose thread died);"
                        + SUCCESSOR
                : "ended to make room under sessions.max (" + config.sessionsMax() + ") while " + calls(r.held())
                        + " in flight, since every other session had one too;" + SUCCESSOR;
        recordEnd(rt, r, -1, why);
        if (!idle) capacityEvicted(r.sessionId(), r.held());
        else if (r.held() > 0) inFlightTimedOut(r.sessionId(), r.held());
    }

    /** The end of an END record's message for a session ended with calls in flight. */
    private static final String SUCCESSOR = " a result that still comes opens the conversation's next session, which has forgotten"
            + " this one's history (counts, consents, what earlier results showed, every contract's state)";

    private static String calls(int n) { return n == 1 ? "1 tool call was" : n + " tool calls were"; }

    /** sessions.in-flight-timeout as it acts (sessions.idle-timeout if that is longer), as text such as 24h or 1h30m. */
    private String inFlightBound() {
        java.time.Duration d = config.sessionsInFlightTimeout().compareTo(config.sessionsIdleTimeout()) >= 0
                ? config.sessionsInFlightTimeout() : config.sessionsIdleTimeout();
        return text(d);
    }

    /** A duration as text such as 24h, 1h30m or 1s. */
    private static String text(java.time.Duration d) {
        return d.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    /** The thread running an idle sweep now: its evictions are idle ends, any other thread's make room (sessions.max). */
    private volatile Thread sweeper;
    /** When the last eviction warning was printed (nanoTime), and evictions since; guarded by this object's monitor. */
    private long evictionWarnedAt;
    private long evictionsSinceWarning;
    /** The same for sessions ended with tool calls in flight: to make room, and by sessions.in-flight-timeout. */
    private final Throttle heldEvictions = new Throttle();
    private final Throttle inFlightTimeouts = new Throttle();

    /** A warning said the first time and then at most once a minute with the number since (rare paths only). */
    static final class Throttle {
        private long warnedAt;
        private long since;

        private boolean said;

        /** Counts one: -1 to stay quiet (said less than a minute ago), 0 to say it the first time, else the number since. */
        synchronized long count(long nanoTime) {
            since++;
            if (said && nanoTime - warnedAt < TimeUnit.MINUTES.toNanos(1)) return -1;
            long n = said ? since : 0;
            said = true;
            warnedAt = nanoTime;
            since = 0;
            return n;
        }
    }

    /**
     * A session ended to make room under sessions.max: counted (MBean Evictions), and said on standard error the first
     * time and then at most once a minute with the number since, because each such end silently resets a conversation's
     * counts and history (trial12: sessions.max 2 with three conversations gave no block where 54 were due).
     */
    private void capacityEvicted(String sessionId, int held) {
        metrics.onEviction();
        long now = System.nanoTime();
        if (held > 0) {
            long n = heldEvictions.count(now);
            if (n == 0) {
                AgentLog.warn("sessions.max (" + config.sessionsMax() + ") reached and every session had a tool call in flight: session "
                        + AgentLog.field(sessionId) + ", the least recently used, was ended while " + calls(held) + " running, so the result"
                        + " opens a new session without the conversation's counts and history (its end record says so). Raise"
                        + " sessions.max well above the conversations active at once; such ends are said here at most once a minute");
            } else if (n > 0) {
                AgentLog.warn(n + " sessions ended with tool calls in flight to make room under sessions.max (" + config.sessionsMax()
                        + ") in the last minute or more; their results open new sessions without the conversations' history");
            }
            return;
        }
        String line;
        synchronized (this) {
            evictionsSinceWarning++;
            if (evictionWarnedAt != 0 && now - evictionWarnedAt < java.util.concurrent.TimeUnit.MINUTES.toNanos(1)) return;
            line = evictionWarnedAt == 0
                    ? "sessions.max (" + config.sessionsMax() + ") reached: session " + AgentLog.field(sessionId) + ", the least recently used with no tool call in flight,"
                            + " was ended to make room, so if its conversation goes on its counts and history start over."
                            + " Raise sessions.max well above the conversations active at once; evictions are counted in the"
                            + " MBean's Evictions and said here at most once a minute"
                    : evictionsSinceWarning + " sessions ended to make room under sessions.max (" + config.sessionsMax()
                            + ") in the last " + java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(now - evictionWarnedAt)
                            + " s; their conversations' counts and history start over if they go on";
            evictionWarnedAt = now;
            evictionsSinceWarning = 0;
        }
        AgentLog.warn(line);
    }

    /**
     * A session ended by the idle sweep with calls in flight, at sessions.in-flight-timeout: said on standard error the
     * first time and then at most once a minute with the number since (its END record says so too).
     */
    private void inFlightTimedOut(String sessionId, int held) {
        long n = inFlightTimeouts.count(System.nanoTime());
        String bound = inFlightBound();
        if (n == 0) {
            AgentLog.warn("session '" + sessionId + "' was ended by sessions.in-flight-timeout (" + bound + ") while " + calls(held)
                    + " in flight with no event for that long (a tool that hangs, or whose thread died): a result that still comes"
                    + " opens a new session without the conversation's counts and history. Raise sessions.in-flight-timeout above"
                    + " your longest tool call if that is one; such ends are said here at most once a minute");
        } else if (n > 0) {
            AgentLog.warn(n + " sessions ended by sessions.in-flight-timeout (" + bound + ") with tool calls in flight in the last"
                    + " minute or more");
        }
    }

    private void evictIdle() {
        evictIdle(System.currentTimeMillis() - config.sessionsIdleTimeout().toMillis());
    }

    /**
     * One idle sweep (the housekeeping thread's): ends every session not used since {@code cutoffMillis} and with no
     * tool call in flight (a session a tool call {@link Session#hold(Object) holds} is spared, so it counts as idle only from
     * its last event once its calls have returned), and every session with calls in flight not used for
     * sessions.in-flight-timeout beyond the cutoff's sessions.idle-timeout (a call that never returns must not keep its
     * session for ever).
     */
    void evictIdle(long cutoffMillis) {
        long beyond = Math.max(0, config.sessionsInFlightTimeout().toMillis() - config.sessionsIdleTimeout().toMillis());
        sweeper = Thread.currentThread();
        try {
            for (Runtime rt : runtimes) rt.monitor.evictIdle(cutoffMillis, cutoffMillis - beyond);
            dropIdleRuntimes();
        } catch (RuntimeException e) {
            AgentLog.error("idle-session eviction failed", e);
        } finally {
            sweeper = null;
        }
    }

    private void dropIdleRuntimes() {
        Runtime cur = current;
        for (Runtime rt : runtimes) if (rt != cur && rt.monitor.sessionCount() == 0) runtimes.remove(rt);
    }

    private Runtime runtimeFor(String sessionId) {
        Runtime cur = current;
        if (runtimes.size() == 1 || cur.monitor.find(sessionId) != null) return cur;
        for (Runtime rt : runtimes) if (rt.monitor.find(sessionId) != null) return rt;
        return cur;
    }

    private long sessionCount() {
        long n = 0;
        for (Runtime rt : runtimes) n += rt.monitor.sessionCount();
        return n;
    }

    // ------------------------------------------------------------------------------- hot reload

    /** Size and modification time of each library file, hashed; a file that cannot be read counts as a fixed value. */
    private long stamp() {
        long h = 1;
        for (String l : config.libraries()) {
            if (Library.BUILTINS.contains(l) || l.startsWith("builtin:")) continue;
            try {
                Path p = base.resolve(l);
                h = h * 31 + Files.getLastModifiedTime(p).to(TimeUnit.NANOSECONDS) * 17 + Files.size(p);
            } catch (Exception e) {
                h = h * 31 + 7;
            }
        }
        return h;
    }

    /**
     * SHA-256 of the library files' names and bytes, in the configured order (built-ins are part of the agent and left
     * out); null when one cannot be read (its load then says why). Read before the files are loaded, so that a file
     * changed between the two reads is never taken for the content loaded: its new stamp reloads it again.
     */
    private byte[] content() {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            for (String l : config.libraries()) {
                if (Library.BUILTINS.contains(l) || l.startsWith("builtin:")) continue;
                byte[] bytes = Files.readAllBytes(base.resolve(l));
                sha.update(l.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(Long.toString(bytes.length).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                sha.update((byte) 0);
                sha.update(bytes);
            }
            return sha.digest();
        } catch (java.io.IOException | RuntimeException | java.security.NoSuchAlgorithmException e) {
            return null;
        }
    }

    /**
     * One hot-reload check (the housekeeping thread runs it every {@code hot-reload} interval): a changed
     * stamp is loaded only when the previous check saw the same stamp, so a file caught half-written, or
     * edited in place in several steps, is not swapped in until it has stopped changing for one interval.
     */
    private void reloadIfChanged() {
        checkConfigFile();
        long now = stamp();
        long previous = seenStamp;
        seenStamp = now;
        if (now == librariesStamp) return;
        if (now != previous) {
            AgentLog.info("library files changed: reloading once they stay unchanged until the next check"
                    + " (replace library files atomically: write a new file, then rename it over the old one)");
            return;
        }
        librariesStamp = now;
        reload();
    }

    /** SHA-256 of the configuration file's bytes as the start read them (null: no file, or unreadable); hot reload only. */
    private byte[] configAtStart;
    /** What the last two checks of {@link #checkConfigFile} saw, and the content last said. */
    private byte[] configPending;
    private byte[] configSaid;
    private boolean configChecked;

    /** SHA-256 of a file's bytes, or null when it cannot be read. */
    private static byte[] digest(Path file) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (java.io.IOException | RuntimeException | java.security.NoSuchAlgorithmException e) {
            return null;
        }
    }

    /**
     * With hot reload on, the configuration file is watched too, though it is not reloaded: its keys, the libraries list
     * included, are read only at start. A change that has stayed for one check is said once (trial23 06: a ConfigMap
     * update that added a library and set mode: shadow was ignored without a word while the library it listed was
     * reloaded, which read as "the new configuration is in force"). Runs on the housekeeping thread, one read of a
     * small file per hot-reload interval.
     */
    void checkConfigFile() {
        Path file = config.configFile();
        if (file == null) return;
        byte[] now = digest(file);
        if (!configChecked) {   // the first check: the content the start read (it changed since only if it changes again)
            configChecked = true;
            configAtStart = configSaid = configPending = now;
            return;
        }
        boolean settled = java.util.Arrays.equals(now, configPending);
        configPending = now;
        if (!settled || java.util.Arrays.equals(now, configSaid)) return;
        configSaid = now;
        Path shown = file.toAbsolutePath();
        if (now == null) {
            AgentLog.warn("the configuration file " + shown + " can no longer be read: the configuration read at start stays in force"
                    + " until a restart (hot-reload reloads the library files, not the configuration).");
        } else if (java.util.Arrays.equals(now, configAtStart)) {
            AgentLog.info("the configuration file " + shown + " is back to what was read at start, which is in force.");
        } else {
            AgentLog.warn("the configuration file " + shown + " changed, but its keys are read only at start: the change is not"
                    + " applied (libraries added or removed, mode, fail and every other key stay as they were). hot-reload reloads"
                    + " the library files already listed, not the configuration; restart the service to apply it.");
        }
    }

    /**
     * Loads, analyses and swaps the libraries; on any error the running version stays. Files whose bytes are those the
     * running version was loaded from (touched, or moved away and back) are no new version: nothing is loaded or
     * swapped. Returns whether it swapped.
     */
    public boolean reload() {
        synchronized (reloading) {
            return reloadNow();
        }
    }

    private boolean reloadNow() {
        try {
            byte[] content = content();
            if (content != null && java.security.MessageDigest.isEqual(content, librariesContent)) {
                AgentLog.info("library files unchanged: their content is that of the running version " + current.version
                        + ", which stays in force (no new version)");
                return false;
            }
            Library lib = load();
            // the data subjects' consents and erasures are the service's, not a library version's: the new version's
            // sessions read and write the same register as the old one's (which still run)
            lib.grounding().shareRegister(current.library.grounding().register());
            registerAfterReload(lib);
            analyseLater(lib);
            Runtime next = newRuntime(lib);
            runtimes.add(next);
            current = next;
            librariesContent = content;
            metrics.contracts(next.contractIds);
            dropIdleRuntimes();
            AgentLog.info("libraries reloaded (version " + next.version + "): " + lib.names() + "; sessions already running keep the previous version");
            // a redirect contract the new version adds (or keeps) that configured methods can only block: said as at start,
            // once per contract per reload, for the version now in force (a rejected reload says nothing)
            for (String line : RedirectReach.onlyBlocked(lib, config, config.redirect())) AgentLog.warn(line);
            return true;
        } catch (LibraryException e) {
            AgentLog.error("library reload rejected, the previous version stays in force:\n" + e.getMessage(), null);
            metrics.onReloadRejected();
            return false;
        } catch (RuntimeException e) {
            AgentLog.error("library reload failed, the previous version stays in force", e);
            metrics.onReloadRejected();
            return false;
        }
    }

    /** The version number of the libraries new sessions get (1 at start, +1 per successful reload). */
    public int version() { return current.version; }

    /** The loaded libraries new sessions get (those read at start until a reload swaps them). */
    public Library library() { return current.library; }

    // ------------------------------------------------------------------------------- recording

    private static String firstId(Runtime rt, Decision d) { return rt.contractIds[d.contract(0)]; }

    /**
     * The contract whose strategy acts when one event violates several: a block beats an escalation,
     * which beats a redirect, which beats a redaction (redacting cannot satisfy a contract that blocks).
     */
    private static Library.ContractInfo primary(Runtime rt, Decision d) {
        Library.ContractInfo best = null;
        int bestRank = Integer.MAX_VALUE;
        for (int i = 0; i < d.contractCount(); i++) {
            Library.ContractInfo c = rt.library.info().get(d.contract(i));
            int rank = switch (c.strategy()) {
                case "block", "suppress" -> 0;
                case "escalate" -> 1;
                case "redirect" -> 2;
                default -> 3;
            };
            if (rank < bestRank) {
                best = c;
                bestRank = rank;
            }
        }
        return best;
    }

    /** Why {@code d} refused or failed, right after worker {@code w}'s step (an environment event: nothing it could not read refuses it). */
    private static String reason(Runtime rt, Worker w, Decision d, Event e) {
        return reason(rt, w, d, e, Unread.of(rt, w, d, e, null));
    }

    /**
     * Why {@code d} refused or failed, right after worker {@code w}'s step: each contract's reason, and the atoms it could
     * not evaluate. A contract that refuses only because of what could not be read ({@code unread}) says so instead of its
     * own message, which would tell the model something nobody knows (that a target came from a tool output).
     */
    private static String reason(Runtime rt, Worker w, Decision d, Event e, Unread unread) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < d.contractCount(); i++) {
            Library.ContractInfo c = rt.library.info().get(d.contract(i));
            // each contract's reason is its own sentence: one that does not end in a full stop (a message without one, or
            // "... so it refuses it" of an unevaluable call) is not run into the next contract's (trial21 12)
            if (i > 0) endSentence(b);
            String why = unread.why(d.contract(i));
            b.append(c.id()).append(": ").append(why != null ? why : rt.reasons[d.contract(i)]);
            // a consent contract refusing a call that has no data subject at all: say so, and why (trial19: "the data subject
            // has not consented" of a call whose subject-fields named none of its arguments); warned about once per tool
            String cause = why != null ? null : rt.library.refusalCause(d.contract(i), e);
            if (cause != null) {
                b.append(rt.reasons[d.contract(i)].endsWith(".") ? " " : ". ").append("This call ").append(cause.substring(cause.indexOf(" has no data subject") + 1)).append('.');
                warnNoSubject(rt, e, cause);
            } else if (why == null) {
                // which of the call's data subjects lacks consent for which purpose (several may be named: email, cc), by the
                // argument that holds each, never by value (the text also goes to stderr); the audit record holds the value
                String missing = rt.library.missingConsent(d.contract(i), e, unread.state());
                if (missing != null) b.append(rt.reasons[d.contract(i)].endsWith(".") ? " " : ". ").append("No consent: ").append(missing).append('.');
                // a purpose-limitation refusal: which data (category, argument; never the value) and which declaration is missing
                String undeclared = missing != null ? null : rt.library.undeclaredPurposeCause(d.contract(i), e);
                if (undeclared != null) b.append(rt.reasons[d.contract(i)].endsWith(".") ? " " : ". ").append(undeclared).append('.');
            }
        }
        // Right after the step (every caller): an atom that could not be evaluated read as false, or (UNEVALUABLE)
        // some value of it would violate; name the atoms, so that a user sees which argument is missing
        // (e.g. arg0.. from a class compiled without parameter names).
        if (d.kind() == Decision.Kind.UNEVALUABLE || w.unevaluableCount() > 0) {
            long[] bits = w.unevaluable();
            StringBuilder atoms = new StringBuilder();   // atoms whose cause is not known here
            StringBuilder keys = new StringBuilder();   // context keys those atoms compare with
            StringBuilder byArgument = new StringBuilder();   // atoms whose context keys are set (or that read none): an argument
            StringBuilder byContext = new StringBuilder();   // atoms that compare with a context key still empty
            StringBuilder emptyKeys = new StringBuilder();
            StringBuilder explained = new StringBuilder();   // atoms whose cause the library can name
            for (int i = 0; i < rt.atomKeys.length && w.unevaluableCount() > 0; i++) {
                if (i >> 6 < bits.length && (bits[i >> 6] & (1L << i)) != 0) {
                    String cause = rt.library.unevaluableCause(i, e);
                    if (cause != null) {
                        explained.append(explained.length() == 0 ? "" : "; ").append(rt.atomKeys[i]).append(": ").append(cause);
                        continue;
                    }
                    StringBuilder own = new StringBuilder();
                    contextKeys(rt.atomKeys[i], own);
                    // the session says whether a key this atom compares with is empty (then that is why); unknown: both causes
                    Boolean empty = own.length() == 0 ? Boolean.FALSE : null;
                    if (own.length() > 0) {
                        boolean any = false, known = true;
                        for (String q : own.toString().split(" or ")) {
                            Boolean k = unread.contextEmpty(q.substring(1, q.length() - 1));
                            if (k == null) known = false;
                            else if (k) {
                                any = true;
                                if (emptyKeys.indexOf(q) < 0) emptyKeys.append(emptyKeys.length() == 0 ? "" : " and ").append(q);
                            }
                        }
                        empty = any ? Boolean.TRUE : known ? Boolean.FALSE : null;
                    }
                    if (empty == null) {
                        atoms.append(atoms.length() == 0 ? "" : ", ").append(rt.atomKeys[i]);
                        contextKeys(rt.atomKeys[i], keys);
                    } else {
                        StringBuilder to = empty ? byContext : byArgument;
                        to.append(to.length() == 0 ? "" : ", ").append(rt.atomKeys[i]);
                    }
                }
            }
            // the grounding says that an atom could not be read, not why (except for a side-effecting call without any
            // of its target arguments: explained); an atom that compares with ctx(key) is also unevaluable while the key
            // is empty, which the session tells (trial19 demo: 'missing or not a number, or the key is still empty' for a
            // refund whose amount was there and whose approval was not)
            b.append(" (unevaluable");
            String sep = ": ";
            if (explained.length() > 0) {
                b.append(sep).append(explained);
                sep = "; ";
            }
            if (byArgument.length() > 0) {
                b.append(sep).append(byArgument).append(": an argument it reads is missing or not a number");
                sep = "; ";
            }
            if (byContext.length() > 0) {
                b.append(sep).append(byContext).append(": the context key ").append(emptyKeys)
                        .append(emptyKeys.indexOf(" and ") >= 0 ? " it compares with are" : " it compares with is").append(" still empty (no latch set it yet)");
                sep = "; ";
            }
            if (atoms.length() > 0 || sep.equals(": ")) {
                b.append(sep).append(atoms).append(atoms.length() == 0 ? "" : ": ").append("an argument it reads is missing or not a number");
                if (keys.length() > 0) b.append(", or the context key ").append(keys).append(" it compares with is still empty (no latch set it yet)");
            }
            b.append(')');
        }
        return b.toString();
    }

    /**
     * Once per tool (and library version): a WARN that a call of a consent-based purpose had no data subject, naming the
     * subject fields looked for, the call's arguments and the files that declare them, with the fix. Refusals only.
     */
    private static void warnNoSubject(Runtime rt, Event e, String cause) {
        if (rt.noSubjectWarned.size() >= 256 || !rt.noSubjectWarned.add(e.tool())) return;
        java.util.List<String> files = rt.library.subjectFieldsDeclaredIn();
        AgentLog.warn("a call of " + cause + (files.isEmpty() ? "" : "; gdpr.subject-fields is declared in " + String.join(", ", files))
                + ". Add the argument"
                + " that holds the data subject's id (e.g. the e-mail address; a path such as customer.email for a field of an"
                + " object argument) to gdpr.subject-fields (docs/LIBRARY.md, \"The data subject of a call\"). Said once per tool");
    }

    /** Appends the keys of the {@code ctx(key)} terms in an atom's key ({@code 'budget'}, or {@code 'a' or 'b'}), once each. */
    static void contextKeys(String atomKey, StringBuilder keys) {
        for (int at = atomKey.indexOf("ctx("); at >= 0; at = atomKey.indexOf("ctx(", at + 4)) {
            if (at > 0 && (Character.isLetterOrDigit(atomKey.charAt(at - 1)) || atomKey.charAt(at - 1) == '_')) continue;
            int close = atomKey.indexOf(')', at + 4);
            if (close < 0) return;
            String quoted = "'" + atomKey.substring(at + 4, close).trim() + "'";
            if (keys.indexOf(quoted) >= 0) continue;
            keys.append(keys.length() == 0 ? "" : " or ").append(quoted);
        }
    }

    private static String withheld(Runtime rt, Library.ContractInfo c, String what) {
        return "[tracegate] This " + what + " was withheld (" + c.id() + "): " + rt.says(c) + (c.next().isEmpty() ? "" : " " + c.next());
    }

    /** Records the decision; false when the audit log refused the record (fail: closed and the log cannot keep up or is down). */
    private boolean record(Runtime rt, Worker w, Session s, Event e, Decision d, dev.tracegate.agent.audit.Decision kind, String contract,
                           String message, long t0) {
        return record(rt, w, s, e, d, kind, contract, message, t0, null);
    }

    /**
     * As above; {@code excused}, when not null, are the contracts an approval excused: they are the record's fired
     * contracts (what {@code replay} excuses) and the record says {@code approved}.
     */
    private boolean record(Runtime rt, Worker w, Session s, Event e, Decision d, dev.tracegate.agent.audit.Decision kind, String contract,
                           String message, long t0, int[] excused) {
        return record(rt, w, s, e, d, kind, contract, message, t0, excused, null);
    }

    /** As above; {@code streamed}, when not null, says what a streamed answer's reader saw (its record's {@code streamed}). */
    private boolean record(Runtime rt, Worker w, Session s, Event e, Decision d, dev.tracegate.agent.audit.Decision kind, String contract,
                           String message, long t0, int[] excused, Streamed streamed) {
        long latency = System.nanoTime() - t0;
        if (excused != null) for (int x : excused) metrics.onFire(x);
        else if (d != null && d != Decision.PASS) for (int i = 0; i < d.contractCount(); i++) metrics.onFire(d.contract(i));
        AuditRecord r = AuditRecord.of(e, kind, rt.auditTable).time(e.ts()).latencyNs(latency);   // atoms and verdicts in one long when they fit
        if (traceIds) dev.tracegate.agent.audit.TraceIds.stamp(r);   // on the thread that decided: its current span, if any
        if (e.kind() == EventKind.CALL) {
            String[] clear = rt.clearArgsOf(e);
            if (clear != null) r.clearFields(clear);
            if (rt.subjectArgs != null) r.subjectFields(rt.subjectArgs);
        }
        if (d != null) {
            r.atoms(rt.auditTable, w.valuation());   // copied into the record (one long up to 64 atoms)
            rt.verdicts(r, w, d);
            int n = excused != null ? excused.length : d == Decision.PASS ? 0 : d.contractCount();
            if (n > 0) {
                String[] fired = new String[n];
                for (int i = 0; i < n; i++) fired[i] = rt.contractIds[excused != null ? excused[i] : d.contract(i)];
                r.fired(fired);
            }
        } else if (contract != null) {
            r.fired(contract);
        }
        if (excused != null) r.approved(true);
        if (streamed != null) r.streamed(streamed);
        if (message != null) r.message(message);
        AuditWriter.Admission admitted = audit.append(r);
        // a call the log could not take (fail: closed: the queue stayed full past audit.max-block, or the log just failed) is
        // refused by the caller (decideCall, approved): counted as the block the host got, not the contracts' pass (trial16)
        boolean refusedCall = admitted == AuditWriter.Admission.REFUSED && e.kind() == EventKind.CALL
                && (kind == dev.tracegate.agent.audit.Decision.PASS || kind == dev.tracegate.agent.audit.Decision.REDACT
                    || kind == dev.tracegate.agent.audit.Decision.REDIRECT || excused != null);
        // the caller's cost includes its wait for room in the audit queue (block; 0 without one), which the record's own
        // latencyNs, set before the append, cannot (trial22 01)
        metrics.onDecision(refusedCall ? dev.tracegate.agent.audit.Decision.BLOCK : kind, latency + r.roomWaitNanos());   // also counts the event
        if (d != null && d != Decision.PASS && d.kind() == Decision.Kind.VIOLATION) warnViolation(rt, s, e, d);
        if (view != null) {
            try {
                view.event(e, kind, contract, message, latency);
            } catch (RuntimeException | LinkageError err) {
                viewFailed(err);   // the console view is for people: its failure must not change a decision the log already holds
            }
        }
        return admitted != AuditWriter.Admission.REFUSED;
    }

    /**
     * An event of the environment (a tool result, a user message, a consent or an erasure) made contracts FAIL. It
     * cannot be refused, so each such contract is violated for good in that session and acts on nothing there any
     * more; the audit log has it, but nothing else would tell the operator. The advice fits the guarantee
     * (EnvironmentFailures.advice): a next step read right after a call is that call's own result, an argument read
     * without its call as guard fails at every other event. One line on stderr per contract and library version; later ones are only
     * in the audit log and the fires count.
     */
    private void warnViolation(Runtime rt, Session s, Event e, Decision d) {
        for (int i = 0; i < d.contractCount(); i++) {
            int c = d.contract(i);
            if (!rt.firstViolationByEnvironment(c)) continue;
            String by = switch (e.kind()) {
                case RETURN -> "a result of " + e.tool();
                case USER -> "a user message";
                case CONSENT -> "a consent event";
                case ERASURE -> "an erasure event";
                default -> "an event of the environment (" + e.kind() + ")";
            };
            AgentLog.warn("contract " + rt.contractIds[c] + " was made to fail by " + by + " in session " + s.id() + " (seq " + e.seq()
                    + "): tracegate refuses only the agent's own calls and answers, so the contract is violated for good in that session"
                    + " and acts on nothing there any more. " + dev.tracegate.contracts.analysis.EnvironmentFailures.advice(
                            rt.library.contracts().contracts().get(c).guarantee(), e.kind(), e.tool())
                    + ". Later violations of this contract"
                    + " are in the audit log and the fires count, not printed here.");
        }
    }

    /** Records a session's END; {@code why}, when not null, is its message (how it ended, when that is not plain). */
    private void recordEnd(Runtime rt, EndReport report, long seq, String why) {
        List<String> unmet = new ArrayList<>();
        for (EndReport.Obligation o : report.unmet()) unmet.add(o.contractId() + (o.pending() == null ? "" : ": " + o.pending()));
        byte[] codes = new byte[report.verdicts().size()];
        for (int i = 0; i < codes.length; i++) codes[i] = Runtime.code(report.verdicts().get(i));
        // An evicted session's end follows its last event: seq = events offered + 1.
        // the events' clock (WallClock), so that an end is never stamped before the session's last event
        long now = WallClock.millisAt(System.nanoTime());
        AuditRecord r = AuditRecord.of(report.sessionId(), seq < 0 ? report.events() + 1 : seq, "END", dev.tracegate.agent.audit.Decision.END)
                .time(now).ts(now).verdicts(rt.auditTable, codes)
                .unmet(unmet.toArray(new String[0]));
        if (why != null) r.message(why);
        dev.tracegate.agent.bootstrap.Dispatcher.sessionEnded(report.sessionId());   // what the session withheld from later rounds
        metrics.onSessionEnd();
        if (!report.unmet().isEmpty()) {
            List<String> unmetIds = new ArrayList<>(report.unmet().size());
            for (EndReport.Obligation o : report.unmet()) unmetIds.add(o.contractId());
            metrics.onSessionEndUnmet(unmetIds);
        }
        audit.append(r);
        if (view != null) {
            try {
                view.end(report, rt.contractIds);
            } catch (RuntimeException | LinkageError err) {
                viewFailed(err);
            }
        }
    }

    @Override
    public void onInternalError(String where, Throwable error, boolean refused) {
        metrics.onInternalError(refused ? FailPolicy.CLOSED : FailPolicy.OPEN);
    }

    private volatile boolean viewFailureReported;

    private void viewFailed(Throwable err) {
        if (!viewFailureReported) {
            viewFailureReported = true;
            AgentLog.error("the live view failed; decisions and the audit log go on without it", err);
        }
    }

    /**
     * An internal error after this event's step was applied refuses the event under {@code fail: closed}:
     * take the step back so a refused event leaves no trace (the step is this event's if exactly one was
     * applied since it began; the session lock keeps other events out).
     */
    private void takeBack(Runtime rt, Session s, Worker w, long appliedBefore) {
        if (fail == FailPolicy.CLOSED && s.applied() == appliedBefore + 1) rt.monitor.undo(s, w);
    }

    /** Counts an internal error; true when the event must be refused (fail: closed). */
    private boolean internalError(Throwable err, String session, String what) {
        metrics.onInternalError(fail);
        AgentLog.error("internal error on " + what + " in session " + session + " (" + (fail == FailPolicy.CLOSED ? "refused" : "let through")
                + ", fail=" + fail.name().toLowerCase(java.util.Locale.ROOT) + ")", err);
        return fail == FailPolicy.CLOSED;
    }

    /** Set by {@link #close}: the sessions are ended and the log is closed, so a later call has neither history nor record. */
    private volatile boolean shutDown;
    private final java.util.concurrent.atomic.AtomicBoolean afterShutdownSaid = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * A tool call that comes after the agent's shutdown (a daemon thread still working once the JVM's shutdown hooks,
     * the application's included, have run, or any call after the shutdown where it runs beside the application's
     * hooks): its session has ended and the audit log is closed, so the contracts cannot decide it with its history nor
     * can it be recorded. Under fail: closed it is refused with that reason (before trial23 03: "the audit log is
     * unavailable", which reads as an outage); under fail: open it is decided as in an outage, by the contracts, in a new
     * session without the conversation's history, and not recorded (null). The first such call is said on stderr.
     */
    private ToolDecision afterShutdown(ToolCall call) {
        boolean closed = fail == FailPolicy.CLOSED;
        if (afterShutdownSaid.compareAndSet(false, true)) {
            AgentLog.warn("a tool call (" + AgentLog.field(call.tool()) + ", session " + AgentLog.field(call.session()) + ") came after tracegate's shutdown had ended"
                    + " its sessions and closed the audit log, as the JVM exits: " + (closed
                    ? "it is refused (fail: closed), as are later ones, unrecorded."
                    : "the contracts decide it, as later ones, in a new session without the conversation's history, unrecorded (fail: open).")
                    + " The calls of the application's own shutdown hooks (a graceful shutdown) are supervised where the agent's"
                    + " shutdown runs after them (agent/CONFIG.md, \"Shutdown\").");
        }
        return closed ? ToolDecision.block(INTERNAL, SHUTDOWN_REFUSAL, "Retry the request on a running instance.") : null;
    }

    /** Tools whose calls came while the audit log was unhealthy (refused, or let through unaudited): they reached tracegate. */
    private final java.util.Set<String> decidedUnaudited = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * At shutdown, once the audit log has taken the run's records: one WARN per library file whose contracts name a tool
     * that no tool event of the run had while others did (a misspelt tool name never matches; supervision.UnseenTools).
     * Said once; nothing when no tool event came at all.
     */
    public void sayToolsNeverSeen() {
        if (!toolsNeverSeenSaid.compareAndSet(false, true)) return;
        java.util.Set<String> seen = new java.util.HashSet<>(audit.toolsWritten());
        seen.addAll(redirectedFrom);
        seen.addAll(decidedUnaudited);
        // tools registered with an AI service are the application's (only unused); the configured-method cause only with some
        for (String line : UnseenTools.lines(current.library, seen, dev.tracegate.agent.bootstrap.Dispatcher.offeredTools(),
                !config.configuredMethods().isEmpty())) AgentLog.warn(line);
        String unseen = UnseenTools.requestedNeverCame(dev.tracegate.agent.bootstrap.Dispatcher.requestedTools(), seen);
        if (unseen != null) AgentLog.warn(unseen);
    }

    @Override
    public void close() {
        shutDown = true;   // before the sessions end: a call that finds its session ended finds this too (the log closes after)
        housekeeping.shutdownNow();
        endSession("*");
        if (view != null) {
            try {
                view.summary(metrics, audit);
            } catch (RuntimeException | LinkageError err) {
                viewFailed(err);   // a failed console must not stop the shutdown
            }
        }
    }
}
