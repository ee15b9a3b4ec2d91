package dev.tracegate.agent.core;

import dev.tracegate.agent.audit.AgentStart;
import dev.tracegate.agent.audit.AuditDrain;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.bootstrap.DispatchTarget;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.config.BlockStyle;
import dev.tracegate.agent.config.ConfigException;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.config.Mode;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import dev.tracegate.agent.supervision.LiveView;
import dev.tracegate.contracts.library.LibraryException;
import dev.tracegate.agent.instrumentation.Hooks;
import dev.tracegate.agent.instrumentation.Weaver;
import dev.tracegate.agent.instrumentation.configured.ConfiguredHooks;
import dev.tracegate.agent.instrumentation.configured.ConfiguredMethods;
import dev.tracegate.agent.instrumentation.langchain4j.LangChain4jHooks;
import dev.tracegate.agent.instrumentation.mcp.McpHooks;
import dev.tracegate.agent.instrumentation.springai.SpringAiHooks;
import dev.tracegate.agent.rules.RuleSupervisor;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts the agent inside the agent's class loader: reads the options, creates the supervisor, installs
 * the dispatcher's delegate and the instrumentations, and ends all sessions at shutdown.
 */
public final class AgentCore {

    private static volatile SupervisorBridge bridge;
    private static volatile Weaver weaver;
    /** The JMX registration started after premain (null before, on attach, or without JMX). */
    private static volatile Registration registration;

    private AgentCore() {
    }

    /**
     * Options that the development supervisor ({@code supervisor=rules}) and the bridge read as free
     * text beside the configuration keys of {@link AgentConfig}: {@link AgentConfig#DEVELOPMENT_KEYS}, the list that
     * {@code attach} takes too.
     */
    static final Set<String> FREE_KEYS = AgentConfig.DEVELOPMENT_KEYS;

    /**
     * Called reflectively by the launcher; a bad option stops the start unless {@code fail=open}. Returns once the
     * start's lines are on standard error, or {@link AgentLog#FLUSH_MILLIS} later if standard error takes nothing.
     */
    public static synchronized void start(String arguments, Instrumentation instrumentation, boolean attached, File jar) {
        try {
            reporting(arguments, instrumentation, attached);
        } finally {
            AgentLog.flush(AgentLog.FLUSH_MILLIS);
        }
    }

    /** The start, and for an attached one its report to the {@code attach} command. */
    private static void reporting(String arguments, Instrumentation instrumentation, boolean attached) {
        if (!attached) {
            startNow(arguments, instrumentation, false);
            return;
        }
        // the person who attaches does not see the application's standard error: the attach command reads the start's
        // lines from REPORT, and from DEGRADED whether the agent runs but cannot do its work (it then exits 1)
        System.clearProperty(REPORT);
        System.clearProperty(DEGRADED);
        supervisesNothing = false;
        relocatedOnly = null;
        AgentLog.beginTranscript();
        try {
            startNow(arguments, instrumentation, true);
        } finally {
            String lines = AgentLog.endTranscript();
            System.setProperty(REPORT, lines);
            String degraded = degraded(lines, supervisesNothing);
            if (degraded == null) degraded = relocatedOnly;
            if (degraded != null && System.getProperty(FAILED) == null) System.setProperty(DEGRADED, degraded);
        }
    }

    /**
     * The system property an attached start sets to the agent's INFO, WARN and ERROR lines of the start (what it printed
     * on the application's standard error), for the {@code attach} command to print.
     */
    static final String REPORT = "tracegate.agent.start-report";

    /**
     * The system property an attached agent that started but cannot do its work sets to why: it printed an ERROR (e.g.
     * its audit log cannot be opened, so under fail: closed every tool call is refused), or it has no libraries and
     * supervises nothing. The {@code attach} command then exits 1.
     */
    static final String DEGRADED = "tracegate.agent.degraded";

    /** Set by a start that checks nothing: no libraries, and no rule of the development supervisor ({@code block=...}). */
    private static volatile boolean supervisesNothing;

    /**
     * Set by an attached start that found only a relocated (shaded) copy of a framework and no configured methods: then
     * no tool call of the application is supervised (trial40 02), and the {@code attach} command exits 1 with this reason.
     */
    private static volatile String relocatedOnly;

    /** Why a start whose lines were {@code lines} is degraded, or null. */
    static String degraded(String lines, boolean supervisesNothing) {
        List<String> errors = lines.lines().filter(l -> l.startsWith("[tracegate] ERROR ")).toList();
        if (!errors.isEmpty()) {
            return "it reported " + (errors.size() == 1 ? "an error" : errors.size() + " errors") + " at start (above)";
        }
        if (supervisesNothing) return "it has no contract libraries, so it supervises nothing (name them with libraries=...)";
        return null;
    }

    private static void startNow(String arguments, Instrumentation instrumentation, boolean attached) {
        long started = System.nanoTime();
        ValueText.openWith(instrumentation);   // so that it can read the record arguments of a module that opens nothing
        dev.tracegate.agent.instrumentation.configured.ConfiguredMethods.seeLoadedClasses(instrumentation);   // exit: subclasses that override a woven method
        AgentStart.record(attached);   // the audit log's segment headers say so
        AgentArguments options;
        AgentConfig config;
        try {
            options = AgentArguments.parse(arguments);
            config = AgentConfig.load(arguments, System.getenv(), tracegateProperties(), FREE_KEYS);
        } catch (ConfigException e) {
            if (e.failPolicy() == FailPolicy.OPEN) {
                String text = "configuration is unusable and tracegate runs UNSUPERVISED because fail=open:\n" + e.getMessage();
                AgentLog.error(text, null);
                recordUnsupervised(text, attached, RESTART_NEEDED);
                if (!attached) AgentLog.warn(RESTART_NEEDED);
                return;
            }
            refuseStart(e.getMessage(), attached, true, e.unsupervisedHint());
            return;
        } catch (IllegalArgumentException e) {
            refuseStart(e.getMessage(), attached, true);
            return;
        }
        AgentLog.debug(config.debug() || options.flag("debug", false));
        String appended = BootDispatcher.appendedBecause();
        AgentLog.debug(appended == null
                ? "start-up: dispatcher defined in the bootstrap loader (" + BootDispatcher.definedCount() + " classes), class data sharing unchanged"
                : "start-up: dispatcher put on the bootstrap search path, so the JVM shares only the boot loader's classes from its"
                        + " archive (defining it in the bootstrap loader failed: " + appended + ")");
        for (String ignored : config.ignoredEnvironment()) AgentLog.warn(ignored);
        // a jlink'd image without java.management: no MBean, said once; everything else runs (trial40 03)
        if (config.metricsJmx() && !dev.tracegate.agent.metrics.SupervisorMetrics.jmxAvailable()) {
            AgentLog.warn(dev.tracegate.agent.metrics.SupervisorMetrics.NO_JMX);
        }
        if (config.debug()) AgentLog.info(config.describe().stripTrailing());   // its first line is the header CONFIG.md shows
        AgentLog.debug("start-up: configuration read in " + millisSince(started) + " ms");
        FutureTask<Started> pending = null;
        // what a supervisor built later needs (a fail: open start whose libraries hot reload fixes: LibraryRecovery)
        JsonCodec json = null;
        ConfiguredMethods methods = null;
        AgentArguments bridgeOptions = null;
        Weaver installed = null;
        try {
            json = new JsonCodec();
            String supervisorName = options.get("supervisor", config.libraries().isEmpty() ? "rules" : "contracts");
            boolean warmup = config.warmup();
            if (supervisorName.equals("contracts") && options.flag("shadow", false)) {
                // the development key makes only the bridge let blocks through: the contracts would still record them
                throw new IllegalArgumentException("tracegate: option shadow=true is a development option of the fixed-rules supervisor;"
                        + " with contract libraries the audit log would record blocks that did not happen. Write mode: shadow"
                        + " (or -Dtracegate.mode=shadow) instead.");
            }
            String methodsFile = options.get("methods");
            // premain: no host code runs before premain returns, so the supervisor (metrics, libraries, audit log) is
            // built on a second thread while this one creates the weaver and reads the hook points. It starts at once,
            // unless methods are configured: a mistake in them must stop the start before the audit log is opened
            if (!attached && methodsFile == null && config.configuredMethods().isEmpty()) {
                pending = startBuilding(supervisorName, options, config, json, started);
            }
            methods = (methodsFile == null ? ConfiguredMethods.none() : ConfiguredMethods.load(Path.of(methodsFile)))
                    .plus(ConfiguredMethods.from(config.configuredMethods()));
            // a Kotlin suspend fun's *-param that names its Continuation: a mistake, said before the audit log opens
            methods.checkSuspendParameters(ClassLoader.getSystemClassLoader());
            bridgeOptions = bridgeOptions(arguments, options, config);
            methods.blockStyleThrows("throw".equals(bridgeOptions.get("onBlock", "substitute")));   // for its weave-time warnings
            if (!attached && pending == null) {
                pending = startBuilding(supervisorName, options, config, json, started);
            }
            installed = new Weaver(hooks(config, methods));
            if (!attached) {
                installed.install(instrumentation, AgentCore.class.getClassLoader(), false);
            }
            Supervisor supervisor;
            if (attached) {
                // the host is running: the dispatcher must have its target before the first class is woven
                SupervisorMetrics metrics = supervisorName.equals("contracts") ? new SupervisorMetrics() : null;
                supervisor = createSupervisor(supervisorName, options, config, json, metrics);
                if (metrics != null && config.metricsJmx()) metrics.register();
                SupervisorBridge created = new SupervisorBridge(supervisor, bridgeOptions, json, methods);
                Dispatcher.install(created);
                bridge = created;
                // the host is waiting for nothing: the warm-up runs here, before its classes are woven, not beside its first call
                if (warmup && supervisorName.equals("contracts")) Warmup.runNow(config, json, started);
                installed.install(instrumentation, AgentCore.class.getClassLoader(), true);
            } else {
                Started done = built(pending);
                supervisor = done.supervisor();
                SupervisorBridge created = new SupervisorBridge(supervisor, bridgeOptions, json, methods);
                bridge = created;
                // the JMX MBean (starting the platform MBean server is the slowest single step) is registered after
                // premain returns, on a third thread, a moment later or when the first supervised event comes: that
                // event waits for it, so that the counters of every event are readable
                if (done.metrics() != null && config.metricsJmx()) {
                    Registration jmx = new Registration(done.metrics()::register, started, Registration.DELAY_MILLIS);
                    registration = jmx;
                    Dispatcher.install(new UntilRegistered(created, jmx));
                    jmx.start();
                } else {
                    Dispatcher.install(created);
                }
            }
            weaver = installed;
            supervisesNothing = supervisor instanceof RuleSupervisor rules && rules.supervisesNothing();
            if (supervisor instanceof ContractSupervisor) publishHotReload(config);
            // after the application's own hooks, so that the calls of its graceful shutdown are still supervised and recorded
            if (!ExitHook.afterApplicationHooks(instrumentation, AgentCore::shutdown, "tracegate-shutdown")) {
                Runtime.getRuntime().addShutdownHook(new Thread(AgentCore::shutdown, "tracegate-shutdown"));
            }
            AgentLog.info(startedLine(attached, options, config, bridgeOptions, installed.names(), methods.isEmpty() ? 0 : methods.rules().size()));
            // from the libraries the supervisor loaded, not a second reading of the files (check prints the same notes)
            if (supervisor instanceof ContractSupervisor contracts) {
                dev.tracegate.contracts.analysis.PolicySections.notes(contracts.library().specs()).forEach(AgentLog::warn);
            }
            AgentLog.debug("start-up: agent ready after " + millisSince(started) + " ms");
            if (attached) {
                installed.reportUnmatched(true);
                java.util.Map<String, String> relocated = installed.relocatedOnly();
                if (!relocated.isEmpty() && methods.isEmpty()) {
                    relocatedOnly = "the application carries only a relocated (shaded) copy of " + String.join(" and ", relocated.keySet())
                            + " (" + String.join(", ", relocated.values()) + "), which tracegate does not weave, and no configured"
                            + " methods: its tool calls run unsupervised (see the WARN above for what to configure)";
                }
            }
            if (warmup && supervisorName.equals("contracts")) warmUp(config, json, started);
        } catch (RuntimeException | LinkageError e) {
            boolean open = config.fail() == FailPolicy.OPEN || options.get("fail", "closed").equals("open");
            // a user's mistake (a library, a methods file) is its message paragraph, as when the start is refused;
            // anything else keeps its class, which is what a bug report needs
            boolean mistake = e instanceof LibraryException || e instanceof IllegalArgumentException;
            String reason = mistake ? e.getMessage() : "the agent could not start: " + e;
            // whatever started is taken back, and an audit log already open ends with an unsupervised record saying why
            // (the supervisor itself writes it when its libraries fail; a later failure is written here)
            abandon(pending, open ? FailPolicy.OPEN : FailPolicy.CLOSED, reason);
            if (open) {
                // premain: the weaver is in place, so a supervisor built later can take over once the library files load
                boolean recovers = !attached && installed != null && e instanceof LibraryException && config.hotReload()
                        && !config.libraries().isEmpty();
                String text = "agent could not start and runs UNSUPERVISED because fail=open" + (mistake ? ":\n" + e.getMessage() : "");
                AgentLog.error(text, mistake ? null : e);
                if (!mistake && !AgentLog.debugging()) AgentLog.stackTrace(e);   // a bug report needs it; AgentLog prints traces only under debug
                recordUnsupervised(mistake ? text : text + " (" + e + "; the stack trace is on the process's standard error)", attached,
                        recovers ? LibraryRecovery.WATCHING : RESTART_NEEDED);
                if (recovers) {
                    LibraryRecovery.start(config, options, bridgeOptions, json, methods, installed, instrumentation);
                } else if (!attached) {
                    AgentLog.warn(RESTART_NEEDED);
                }
                return;
            }
            if (!mistake) {
                AgentLog.error("internal error while starting (this is a bug: please report it with this trace)", e);
                if (!AgentLog.debugging()) AgentLog.stackTrace(e);   // AgentLog prints traces only under debug; this one is promised
            }
            refuseStart(reason, attached, mistake);
        }
    }

    /**
     * A start that failed: the dispatcher gets no target (woven code then runs the host's code as it is), the
     * supervisor still being built is waited for, and what it opened is closed, its audit log with an
     * {@code unsupervised} record giving the policy that applied and the reason.
     */
    private static void abandon(FutureTask<Started> pending, FailPolicy fail, String reason) {
        Dispatcher.install(null);
        bridge = null;
        Registration jmx = registration;
        if (jmx != null) jmx.cancel();   // no MBean for a supervisor that is not running
        if (pending != null) {
            try {
                built(pending);
            } catch (RuntimeException | Error ignored) {
                // the supervisor's own failure: it closed its log itself, and the start's error is the one reported
            }
        }
        abandoned = new Abandoned(fail, reason);
        closeAll();
    }

    /** Why the start was given up, for the audit log's last record (null while the agent runs). */
    private record Abandoned(FailPolicy fail, String reason) {
    }

    private static volatile Abandoned abandoned;

    /**
     * The bridge's options: what the configuration (file, -Dtracegate.*, TRACEGATE_*) says about blocks and
     * failures governs the bridge too, unless the agent argument string says it itself.
     */
    static AgentArguments bridgeOptions(String arguments, AgentArguments options, AgentConfig config) {
        String bridgeArgs = arguments == null || arguments.isBlank() ? "" : arguments;
        if (options.get("onBlock") == null && config.blockStyle() == BlockStyle.EXCEPTION) {
            bridgeArgs = bridgeArgs + (bridgeArgs.isEmpty() ? "" : ",") + "onBlock=throw";
        }
        if (options.get("fail") == null && config.fail() == FailPolicy.OPEN) {
            bridgeArgs = bridgeArgs + (bridgeArgs.isEmpty() ? "" : ",") + "fail=open";
        }
        if (options.get(SupervisorBridge.DECISION_LINES) == null && !config.stderrDecisions()) {
            bridgeArgs = bridgeArgs + (bridgeArgs.isEmpty() ? "" : ",") + SupervisorBridge.DECISION_LINES + "=false";
        }
        return bridgeArgs.equals(arguments == null ? "" : arguments) ? options : AgentArguments.parse(bridgeArgs);
    }

    /**
     * The style the bridge gives a block to the host in: the agent argument's {@code onBlock} (an older spelling of
     * {@code block.style}, which wins over the configuration's as {@link #bridgeOptions} lets it), else {@code block.style}.
     * The supervisor decides an answer's block in it too, so that an answer's decision and its audit record (a streamed
     * answer's {@code streamed}: a notice followed, or the stream ended with the violation) are what the host did: with
     * {@code block.style: exception} in the file and {@code onBlock=substitute} in the argument, the record said
     * {@code shown-then-error} while the application had got a notice.
     */
    static BlockStyle blockStyle(AgentArguments options, AgentConfig config) {
        String onBlock = options.get("onBlock");
        if ("throw".equals(onBlock)) return BlockStyle.EXCEPTION;
        if ("substitute".equals(onBlock)) return BlockStyle.SUBSTITUTE;
        return config.blockStyle();   // absent (an unknown value stops the start: SupervisorBridge)
    }

    /**
     * The start-up line, in the keys of agent/CONFIG.md with their effective values ({@code libraries},
     * {@code mode}, {@code fail}, {@code block.style}), whatever spelling set them; a development supervisor
     * is named only when the {@code supervisor} option chose it.
     */
    static String startedLine(boolean attached, AgentArguments options, AgentConfig config, AgentArguments bridgeOptions,
                              List<String> instrumentations, int configuredMethods) {
        String chosen = options.get("supervisor");
        String what = chosen != null ? "supervisor=" + chosen
                : config.libraries().isEmpty() ? "libraries=none (no contracts)" : "libraries=" + String.join(";", config.libraries());
        boolean shadow = options.flag("shadow", false) || config.mode() == Mode.SHADOW;
        boolean open = config.fail() == FailPolicy.OPEN || bridgeOptions.get("fail", "closed").equals("open");
        boolean exception = bridgeOptions.get("onBlock", "substitute").equals("throw");
        return "agent started (" + (attached ? "attached" : "premain") + ") " + what
                + " mode=" + (shadow ? "shadow" : "enforce")
                + " fail=" + (open ? "open" : "closed")
                + " block.style=" + (exception ? "exception" : "substitute")
                + " instrumentations=" + instrumentations
                + (configuredMethods == 0 ? "" : " configured-methods=" + configuredMethods);
    }

    /** Builds the supervisor and its metrics on the start thread. */
    private static FutureTask<Started> startBuilding(String supervisorName, AgentArguments options, AgentConfig config, JsonCodec json,
                                                     long started) {
        FutureTask<Started> pending = new FutureTask<>(() -> {
            SupervisorMetrics metrics = supervisorName.equals("contracts") ? new SupervisorMetrics() : null;
            Supervisor created = createSupervisor(supervisorName, options, config, json, metrics);
            AgentLog.debug("start-up: supervisor built at " + millisSince(started) + " ms");
            return new Started(created, metrics);
        });
        Thread builder = new Thread(pending, "tracegate-start");
        builder.setDaemon(true);
        builder.start();
        return pending;
    }

    /**
     * Starts the first-event warm-up; when it has ended, the JMX registration (if one waits) begins rather than
     * {@value Registration#DELAY_MILLIS} ms after premain, so that a first event soon after the start finds the
     * MBean there instead of waiting for the platform MBean server. Never stops the start: the warm-up only saves time.
     */
    private static void warmUp(AgentConfig config, JsonCodec json, long started) {
        Registration jmx = registration;
        try {
            Warmup.start(config, json, started, jmx == null ? null : jmx::begin);
        } catch (RuntimeException | LinkageError e) {
            AgentLog.debug("first-event warm-up not started (" + e + ")");
        }
    }

    /**
     * Whether the first-event warm-up runs ({@code warmup: true|false}, default true): a free-text key, so its value
     * is checked here, with the same kind of paragraph as any configuration key.
     */
    /** The instrumentations the configuration enables. */
    private static List<Hooks> hooks(AgentConfig config, ConfiguredMethods methods) {
        List<Hooks> hooks = new java.util.ArrayList<>();
        // configured methods match types by name only: the weaver need not build Byte Buddy before such a class loads
        Hooks configured = methods.isEmpty() ? new ConfiguredHooks(methods)
                : Hooks.matchingNames(new ConfiguredHooks(methods), methods::namesClass);
        for (Hooks h : List.of(new LangChain4jHooks(), new SpringAiHooks(), new McpHooks.Server(), new McpHooks.Client(), configured)) {
            if (config.instrumentationEnabled(h.name())) {
                hooks.add(h);
            }
        }
        return hooks;
    }

    /** What the start thread built: the supervisor and its metrics (null for a supervisor without them). */
    private record Started(Supervisor supervisor, SupervisorMetrics metrics) {
    }

    /**
     * The system property that an attached agent which did not start sets in the target JVM, to the paragraph
     * saying why; the {@code attach} command reads it and reports the reason (the launcher clears it before a start).
     */
    static final String FAILED = "tracegate.agent.failed";

    /**
     * A user mistake in the configuration or a library stops the start with one paragraph and no stack
     * trace: at JVM start the process exits with status 78 (EX_CONFIG) before the application runs;
     * when attaching, the paragraph goes to the target's standard error and into {@link #FAILED}, and the
     * running application is left untouched (agentmain returns normally, so the JVM adds no trace of its own).
     */
    private static void refuseStart(String paragraph, boolean attached, boolean mistake) {
        refuseStart(paragraph, attached, mistake, ConfigException.DEFAULT_UNSUPERVISED_HINT);
    }

    /** As {@link #refuseStart(String, boolean, boolean)}, advising {@code unsupervised} to run without supervision. */
    private static void refuseStart(String paragraph, boolean attached, boolean mistake, String unsupervised) {
        if (paragraph != null && paragraph.startsWith("tracegate: ")) {
            paragraph = paragraph.substring("tracegate: ".length());   // the heading below says it once
        }
        String fix = mistake ? "fix the configuration" : "this is not a configuration mistake: report it with the trace above";
        if (attached) {
            String text = "tracegate: the agent cannot start:\n" + paragraph
                    + "\n(the application runs on unsupervised; " + fix + " and attach again)";
            AgentLog.plain(text);
            System.setProperty(FAILED, text);
            return;
        }
        AgentLog.plain("tracegate: the agent cannot start:\n" + paragraph
                + "\n(" + fix + ", or " + unsupervised + ")");
        AgentLog.flush(AgentLog.FLUSH_MILLIS);   // bounded: a standard error that takes nothing does not hold the exit
        System.exit(78);
    }

    /**
     * Under fail: open an attached agent that could not start says so to the attach command as well (see {@link #FAILED});
     * one started by {@code -javaagent} leaves {@code ends} (what ends the unsupervised run) in {@link #UNSUPERVISED}, for
     * the attach command's refusal.
     */
    private static void recordUnsupervised(String text, boolean attached, String ends) {
        if (attached) System.setProperty(FAILED, "tracegate: " + text);
        else System.setProperty(UNSUPERVISED, ends);
    }

    /**
     * The system property that an agent started by {@code -javaagent} which runs unsupervised under fail: open sets to what
     * ends that (a restart, or library files that load under hot reload); cleared when it starts supervising.
     */
    static final String UNSUPERVISED = "tracegate.agent.unsupervised";

    /**
     * The system property a supervising agent with contract libraries sets to its hot reload interval in milliseconds
     * ({@code 0}: off), so that the attach command's refusal can say how its libraries change.
     */
    static final String HOT_RELOAD = "tracegate.agent.hot-reload-ms";

    private static void publishHotReload(AgentConfig config) {
        System.setProperty(HOT_RELOAD, Long.toString(config.hotReload() ? config.hotReloadInterval().toMillis() : 0));
    }

    /** What ends an unsupervised fail: open start that hot reload cannot end. */
    static final String RESTART_NEEDED = "This JVM stays unsupervised until it is restarted with a configuration and libraries that"
            + " load: neither hot-reload nor attach can start the agent in it";

    /** Why a supervisor built while the JVM shuts down is closed unused (its audit log's unsupervised record says it). */
    static final String TOO_LATE = "the library files loaded while the JVM was shutting down, past its application shutdown"
            + " hooks: an exit hook could no longer be registered to drain and close the audit log, so tracegate did not start"
            + " supervising, and calls to the end ran unchecked";

    /**
     * Completes a start that {@link LibraryRecovery} took over: the supervisor it built (on library files that load now)
     * gets its bridge and the dispatcher, and from then on the calls the weaver in place sees are supervised. The exit
     * hook comes first: while the JVM runs the application's shutdown hooks it still takes a later slot (so a call those
     * hooks make is supervised, and drained and recorded at the end); past them it cannot, and then nothing is handed
     * over, the supervisor is closed (its log ends with an unsupervised record, {@link #TOO_LATE}) and this returns false.
     * Before session 16 the IllegalStateException of Runtime.addShutdownHook came after the hand-over: the supervisor
     * ran with no exit hook, so its audit log was never drained or closed, and the recovery called it a failed build.
     */
    static synchronized boolean supervise(Supervisor supervisor, SupervisorMetrics metrics, AgentConfig config, AgentArguments options,
                                          AgentArguments bridgeOptions, JsonCodec json, ConfiguredMethods methods, Weaver installed,
                                          Instrumentation instrumentation) {
        // as a start that supervised at once: after the application's own hooks
        boolean hooked = ExitHook.afterApplicationHooks(instrumentation, AgentCore::shutdown, "tracegate-shutdown");
        if (!hooked) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(AgentCore::shutdown, "tracegate-shutdown"));
                hooked = true;
            } catch (IllegalStateException shuttingDown) {
                // "Shutdown in progress": past the application's hooks, or a JDK without the late slots while they run
            }
        }
        if (!hooked) {
            abandoned = new Abandoned(FailPolicy.OPEN, TOO_LATE);
            closeAll();
            AgentLog.warn("the library files load now, but the JVM is shutting down past its application shutdown hooks, so"
                    + " tracegate stays UNSUPERVISED to the end: an exit hook could no longer be registered to drain and close the"
                    + " audit log (it ends with an unsupervised record saying so)");
            return false;
        }
        abandoned = null;
        SupervisorBridge created = new SupervisorBridge(supervisor, bridgeOptions, json, methods);
        bridge = created;
        weaver = installed;
        Dispatcher.install(created);
        System.clearProperty(UNSUPERVISED);
        publishHotReload(config);
        if (metrics != null && config.metricsJmx()) {
            try {
                metrics.register();
            } catch (RuntimeException | LinkageError e) {
                AgentLog.error("the JMX MBean could not be registered: supervision goes on, but its counters are not readable over JMX", e);
            }
        }
        AgentLog.warn("tracegate SUPERVISES from now on: the library files load now (it ran UNSUPERVISED since the start because"
                + " fail=open). Calls made before this line were not checked, and conversations under way are checked from their"
                + " next event without what they did before");
        AgentLog.info(startedLine(false, options, config, bridgeOptions, installed.names(), methods.isEmpty() ? 0 : methods.rules().size()));
        return true;
    }

    /** Builds the contract supervisor as a start does ({@code metrics} may be null); for {@link LibraryRecovery}. */
    static Supervisor contracts(AgentArguments options, AgentConfig config, SupervisorMetrics metrics) {
        return contractSupervisor(config, metrics, blockStyle(options, config));
    }

    /** The supervisor built on the start thread; its failure is rethrown here as if it had been built on this one. */
    private static <T> T built(FutureTask<T> pending) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return pending.get();
                } catch (InterruptedException e) {
                    interrupted = true; // premain must finish: wait on, restore the flag afterwards
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new IllegalStateException("tracegate: the supervisor could not be created: " + cause, cause);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private static void closeAll() {
        for (Runnable c : closers) {
            try {
                c.run();
            } catch (RuntimeException e) {
                AgentLog.error("closing the supervisor failed", e);
            }
        }
        closers.clear();
    }

    /** Start-up timing for the debug log (start-up only, never on the event path). */
    private static long millisSince(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }

    private static Map<String, String> tracegateProperties() {
        Map<String, String> props = new TreeMap<>();
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(AgentConfig.PROPERTY_PREFIX)) props.put(name, System.getProperty(name));
        }
        return props;
    }

    private static Supervisor createSupervisor(String name, AgentArguments options, AgentConfig config, JsonCodec json,
                                               SupervisorMetrics metrics) {
        if (name.equals("contracts")) {
            return contractSupervisor(config, metrics, blockStyle(options, config));
        }
        if (name.equals("rules")) {
            return new RuleSupervisor(options, json);
        }
        try {
            Class<?> type = Class.forName(name, true, AgentCore.class.getClassLoader());
            for (Constructor<?> constructor : type.getConstructors()) {
                if (constructor.getParameterCount() == 1 && constructor.getParameterTypes()[0] == AgentArguments.class) {
                    return (Supervisor) constructor.newInstance(options);
                }
            }
            return (Supervisor) type.getConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("tracegate: supervisor=" + name + " cannot be created (" + e
                    + "); name a Supervisor class in the agent jar with a public (AgentArguments) or no-argument constructor, or use supervisor=rules", e);
        }
    }

    /**
     * The engine-backed supervisor, its audit log and its metrics (registered with JMX by the caller),
     * closed in that order at shutdown.
     */
    private static Supervisor contractSupervisor(AgentConfig config, SupervisorMetrics metrics, BlockStyle style) {
        // a null device, a device or a pipe is written as a stream and accepted; once per start, it says what that leaves
        String notAFile = dev.tracegate.agent.audit.FileAuditSink.notAFileNote(config.auditPath());
        if (notAFile != null) AgentLog.warn(notAFile);
        AuditWriter audit = AuditWriter.start(config.auditPath(), AuditWriter.Settings.from(config));
        // closed from here on, also when what follows fails: a start given up then still ends the log with its reason
        // (a supervisor whose libraries fail has already done so; closing a closed writer again writes nothing)
        AtomicReference<ContractSupervisor> made = new AtomicReference<>();
        shutdownStarts.add(audit::shutdownBegins);   // before the sessions end: their records share one wait for room
        closers.add(() -> {
            ContractSupervisor supervisor = made.get();
            if (supervisor != null) supervisor.close();
            Abandoned why = abandoned;
            // bounded: a log that takes nothing (a pipe nobody reads) holds the exit at most that long, and says so
            if (why == null) AuditDrain.close(audit, config.auditMaxBlock().toMillis()); else audit.closeUnsupervised(why.fail(), why.reason());
            // after the log has taken the run's last records: the tools the contracts name that never came (a misspelt name)
            if (supervisor != null && why == null) {
                try {
                    supervisor.sayToolsNeverSeen();
                } catch (RuntimeException | LinkageError e) {
                    AgentLog.error("the note on tools the contracts name that never came failed", e);
                }
            }
            // a registration still under way (the JVM ends right after premain) is not waited for: unregistering
            // would wait until the platform MBean server is started, only for the MBean to go with the JVM
            Registration r = registration;
            if (r == null || r.ended()) metrics.unregister();
        });
        metrics.audit(audit);
        LiveView live = config.view() == dev.tracegate.agent.config.View.LIVE ? LiveView.onStderr(config.auditPersonalData() == dev.tracegate.agent.config.PersonalData.CLEAR) : null;
        ContractSupervisor supervisor = new ContractSupervisor(config, audit, metrics, live, style);
        made.set(supervisor);
        return supervisor;
    }

    /**
     * The exit's line when only configured methods were woven (no framework's model calls, so no assistant events) and
     * contracts on the model's answers ({@code assistant}) are loaded: those can never act in this configuration
     * (trial40 06, a shaded framework supervised through its tool methods), so they are named. Null when there are none.
     */
    static String answersWithoutSource(List<dev.tracegate.contracts.library.Library.ContractInfo> contracts) {
        java.util.regex.Pattern assistant = java.util.regex.Pattern.compile("\\bassistant\\b");
        // what else a contract may read: tool events, which configured methods do give (trial46 10: gdpr.P4-erasure blocked
        // calls in the run and was said to have "never acted")
        java.util.regex.Pattern tools = java.util.regex.Pattern.compile(
                "\\b(call|return|result|returned|failed|arg|count|sum|run|erasure|consent|result_matches)\\b");
        List<String> only = new java.util.ArrayList<>(), also = new java.util.ArrayList<>();
        for (dev.tracegate.contracts.library.Library.ContractInfo c : contracts) {
            String text = (c.guaranteeText() == null ? "" : c.guaranteeText()) + " " + (c.assumeText() == null ? "" : c.assumeText());
            if (!assistant.matcher(text).find()) continue;
            if (tools.matcher(text.replaceAll("\\bassistant\\b", " ")).find()) also.add(c.id()); else only.add(c.id());
        }
        if (only.isEmpty() && also.isEmpty()) return null;
        String why = "only configured methods were woven, and they give tool events, no answers; the model's answers were NOT supervised";
        StringBuilder line = new StringBuilder();
        if (!only.isEmpty()) {
            line.append(only.size() == 1 ? "contract " + only.get(0) + " is" : "contracts " + String.join(", ", only) + " are")
                    .append(" about the model's answers (assistant) and never acted: ").append(why);
        }
        if (!also.isEmpty()) {
            if (line.length() > 0) line.append("; ");
            line.append(also.size() == 1 ? "contract " + also.get(0) + " reads" : "contracts " + String.join(", ", also) + " read")
                    .append(" the model's answers (assistant) as well as tool events: what ").append(also.size() == 1 ? "it says" : "they say")
                    .append(" about answers could not act (").append(why).append("), what ").append(also.size() == 1 ? "it says" : "they say")
                    .append(" about tool calls and results was checked as usual");
        }
        return line.append(". Answer contracts need a framework the agent weaves (LangChain4j, Spring AI), not a relocated copy of one").toString();
    }

    private static final List<Runnable> closers = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Run first at shutdown, before the open sessions end (the audit writer's one shared wait for room). */
    private static final List<Runnable> shutdownStarts = new java.util.concurrent.CopyOnWriteArrayList<>();

    private static void shutdown() {
        for (Runnable r : shutdownStarts) {
            try {
                r.run();
            } catch (RuntimeException e) {
                AgentLog.error("starting the shutdown of the audit log failed", e);
            }
        }
        SupervisorBridge b = bridge;
        if (b != null) {
            try {
                b.endAll();
            } catch (RuntimeException e) {
                AgentLog.error("ending sessions at shutdown failed", e);
            }
        }
        for (Runnable c : closers) {
            try {
                c.run();
            } catch (RuntimeException e) {
                AgentLog.error("closing the supervisor at shutdown failed", e);
            }
        }
        Weaver w = weaver;
        if (w != null) {
            w.reportUnmatched();
            if (b != null && w.onlyConfiguredMatched() && b.supervisor() instanceof ContractSupervisor contracts) {
                String line = answersWithoutSource(contracts.library().info());
                if (line != null) AgentLog.warn(line);
            }
        }
        AgentLog.flush(AgentLog.FLUSH_MILLIS);   // the lines of the run and of the shutdown; bounded, so the exit never hangs on stderr
    }

    /**
     * Registers the JMX MBean on its own thread once premain has returned: {@value #DELAY_MILLIS} ms later, or at
     * once when the first supervised event asks for it, so that it does not compete with the application's own
     * start (a short-lived JVM never pays for it). A failure is logged and leaves supervision running: only the
     * counters are then not readable over JMX.
     */
    static final class Registration extends Thread {
        /** How long after premain the MBean is registered when no event asks for it earlier. */
        static final long DELAY_MILLIS = 2_000;
        /** How long the first event waits for the registration before it goes on without it. */
        private static final long PATIENCE_SECONDS = 10;
        private final Runnable register;
        private final long started;
        private final long delayMillis;
        private final CountDownLatch asked = new CountDownLatch(1);
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile boolean cancelled;

        Registration(Runnable register, long started, long delayMillis) {
            super("tracegate-jmx");
            setDaemon(true);
            this.register = register;
            this.started = started;
            this.delayMillis = delayMillis;
        }

        @Override
        public void run() {
            try {
                awaitUninterruptibly(asked, TimeUnit.MILLISECONDS.toNanos(delayMillis));
                if (cancelled) return;
                register.run();
                AgentLog.debug("start-up: JMX MBean registered at " + millisSince(started) + " ms (after premain)");
            } catch (RuntimeException | LinkageError e) {
                AgentLog.error("the JMX MBean could not be registered: supervision goes on, but its counters are not readable over JMX", e);
            } finally {
                done.countDown();
            }
        }

        /** Gives the registration up if it has not begun (the start failed after it was set up). */
        void cancel() {
            cancelled = true;
            asked.countDown();
        }

        /** Starts the registration now if it still waits for its delay; does not wait for it. */
        void begin() {
            asked.countDown();
        }

        /** Whether the registration has ended (registered or failed). */
        boolean ended() {
            return done.getCount() == 0;
        }

        /** Starts the registration now if it waits, and waits (at most {@value #PATIENCE_SECONDS} s, never interrupted) until it has ended. */
        void awaitEnd() {
            asked.countDown();
            awaitUninterruptibly(done, TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS));
        }

        private static void awaitUninterruptibly(CountDownLatch latch, long nanos) {
            boolean interrupted = false;
            long deadline = System.nanoTime() + nanos;
            try {
                while (true) {
                    long left = deadline - System.nanoTime();
                    try {
                        if (left <= 0 || latch.await(left, TimeUnit.NANOSECONDS)) return;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The dispatcher's target until the JMX MBean is registered: the first event waits for the registration,
     * hands the dispatcher the bridge itself, and is then handled by it. Every method of
     * {@link DispatchTarget} is forwarded (a test checks that none is left to a default).
     */
    static final class UntilRegistered implements DispatchTarget {
        private final DispatchTarget bridge;
        private final Registration registration;

        UntilRegistered(DispatchTarget bridge, Registration registration) {
            this.bridge = bridge;
            this.registration = registration;
        }

        private DispatchTarget ready() {
            registration.awaitEnd();
            Dispatcher.install(bridge);
            return bridge;
        }

        @Override
        public Ruling onToolCall(String framework, String session, String tool, String argumentsJson, String callId) {
            return ready().onToolCall(framework, session, tool, argumentsJson, callId);
        }

        @Override
        public String onToolResult(String framework, String session, String tool, String callId, String resultText, boolean error) {
            return ready().onToolResult(framework, session, tool, callId, resultText, error);
        }

        @Override
        public Object onToolResultObject(String framework, String session, String tool, String callId, Object result) {
            return ready().onToolResultObject(framework, session, tool, callId, result);
        }

        @Override
        public String onUserMessage(String framework, String session, String text) {
            return ready().onUserMessage(framework, session, text);
        }

        @Override
        public String sessionId(String session) {
            return ready().sessionId(session);
        }

        @Override
        public String onAssistantMessage(String framework, String session, String text) {
            return ready().onAssistantMessage(framework, session, text);
        }

        @Override
        public Ruling onMethodCall(String origin, Object[] arguments, String callId) {
            return ready().onMethodCall(origin, arguments, callId);
        }

        @Override
        public boolean supervisesNested(String origin) {
            return ready().supervisesNested(origin);
        }

        @Override
        public boolean futureTakesText(String origin) {
            return ready().futureTakesText(origin);
        }

        @Override
        public Object refusedValue(String origin, Class<?> owner, dev.tracegate.agent.bootstrap.Ruling refusal) {
            return ready().refusedValue(origin, owner, refusal);
        }

        @Override
        public void onToolThrown(String framework, String session, String tool, String callId, String text) {
            ready().onToolThrown(framework, session, tool, callId, text);
        }

        @Override
        public Object onMethodResult(String origin, Object[] arguments, Object result, String callId) {
            return ready().onMethodResult(origin, arguments, result, callId);
        }

        @Override
        public Ruling onSuspendCall(String origin, Class<?> owner, Object[] arguments, String callId) {
            return ready().onSuspendCall(origin, owner, arguments, callId);
        }

        @Override
        public Object onSuspendResult(String origin, Object[] arguments, Object result, String callId) {
            return ready().onSuspendResult(origin, arguments, result, callId);
        }

        @Override
        public void onMethodThrown(String origin, Object[] arguments, Throwable thrown, String callId) {
            ready().onMethodThrown(origin, arguments, thrown, callId);
        }

        @Override
        public Ruling onMethodCall(String origin, Object receiver, Object[] arguments, String callId) {
            return ready().onMethodCall(origin, receiver, arguments, callId);
        }

        @Override
        public Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
            return ready().onMethodResult(origin, receiver, arguments, result, callId);
        }

        @Override
        public Ruling onSuspendCall(String origin, Class<?> owner, Object receiver, Object[] arguments, String callId) {
            return ready().onSuspendCall(origin, owner, receiver, arguments, callId);
        }

        @Override
        public Object onSuspendResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
            return ready().onSuspendResult(origin, receiver, arguments, result, callId);
        }

        @Override
        public void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, String callId) {
            ready().onMethodThrown(origin, receiver, arguments, thrown, callId);
        }

        @Override
        public Ruling onMethodCall(String origin, Object receiver, Object[] arguments, long callNumber) {
            return ready().onMethodCall(origin, receiver, arguments, callNumber);
        }

        @Override
        public Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, long callNumber) {
            return ready().onMethodResult(origin, receiver, arguments, result, callNumber);
        }

        @Override
        public void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, long callNumber) {
            ready().onMethodThrown(origin, receiver, arguments, thrown, callNumber);
        }

        @Override
        public String toJson(Object value) {
            return bridge.toJson(value);
        }

        @Override
        public Object fromJson(String json) {
            return bridge.fromJson(json);
        }

        @Override
        public Ruling onInternalError(String where, Throwable error) {
            return ready().onInternalError(where, error);
        }

        @Override
        public Ruling onAdviceFailure(String where, Throwable error, boolean repeated) {
            return ready().onAdviceFailure(where, error, repeated);
        }

        @Override
        public void onWarning(String text) {
            ready().onWarning(text);
        }
    }

    /** The running bridge (null before start). */
    public static SupervisorBridge bridge() {
        return bridge;
    }
}
