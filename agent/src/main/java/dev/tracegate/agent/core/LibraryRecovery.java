package dev.tracegate.agent.core;

import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.instrumentation.Weaver;
import dev.tracegate.agent.instrumentation.configured.ConfiguredMethods;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A start with {@code -javaagent}, {@code fail: open} and {@code hot-reload} whose libraries did not load: the application
 * runs unsupervised, the weaver is in place with no target, and this thread watches the library files as hot reload
 * does (a change, then one check with no further change). Once they load, the agent builds its supervisor as the start
 * would have and supervises from then on ({@link AgentCore#supervise}); until then each change that still does not load
 * is said once. Without it, fixing the file the start-up error names changed nothing until a restart (trial23).
 */
final class LibraryRecovery implements Runnable {

    /** What ends the unsupervised run while this watches (the attach command's refusal says it). */
    static final String WATCHING = "It watches its library files (hot-reload): once they load it starts supervising, so fix the"
            + " library the start-up ERROR names (write a new file, then rename it over the old one); other settings need a restart";

    private final AgentConfig config;
    private final AgentArguments options;
    private final AgentArguments bridgeOptions;
    private final JsonCodec json;
    private final ConfiguredMethods methods;
    private final Weaver installed;
    private final java.lang.instrument.Instrumentation instrumentation;
    private final Path base;
    private final long everyMillis;

    private LibraryRecovery(AgentConfig config, AgentArguments options, AgentArguments bridgeOptions, JsonCodec json,
                            ConfiguredMethods methods, Weaver installed, java.lang.instrument.Instrumentation instrumentation) {
        this.config = config;
        this.options = options;
        this.bridgeOptions = bridgeOptions;
        this.json = json;
        this.methods = methods;
        this.installed = installed;
        this.instrumentation = instrumentation;
        // as ContractSupervisor reads them: relative to the configuration file's directory
        this.base = config.configFile() == null ? Path.of("") : config.configFile().toAbsolutePath().getParent();
        this.everyMillis = config.hotReloadInterval().toMillis();
    }

    /** Starts watching on a daemon thread and says so. */
    static void start(AgentConfig config, AgentArguments options, AgentArguments bridgeOptions, JsonCodec json,
                      ConfiguredMethods methods, Weaver installed, java.lang.instrument.Instrumentation instrumentation) {
        LibraryRecovery recovery = new LibraryRecovery(config, options, bridgeOptions, json, methods, installed, instrumentation);
        AgentLog.warn("hot-reload watches the library files every " + config.hotReloadInterval().toMillis() + " ms: once they load,"
                + " tracegate starts supervising (until then calls run unchecked). Fix the library named above; other settings"
                + " need a restart");
        Thread t = new Thread(recovery, "tracegate-library-recovery");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void run() {
        String loaded = stamp();     // the files the start failed on
        String seen = loaded;
        while (true) {
            try {
                Thread.sleep(everyMillis);
            } catch (InterruptedException e) {
                return;
            }
            String now = stamp();
            String previous = seen;
            seen = now;
            if (now.equals(loaded)) continue;
            if (!now.equals(previous)) continue;   // changed since the last check: wait until it stays as it is
            loaded = now;
            if (tryToSupervise()) return;
        }
    }

    /**
     * Loads the libraries; if they load, builds the supervisor and hands it over. Whether the watch ends: supervision
     * started, or the JVM is past its shutdown hooks and can no longer be supervised ({@link AgentCore#supervise}).
     */
    private boolean tryToSupervise() {
        try {
            Library.load(config.libraries(), base);
        } catch (LibraryException | IllegalArgumentException e) {
            AgentLog.warn("library files changed but still do not load, so tracegate stays UNSUPERVISED and watches on:\n" + e.getMessage());
            return false;
        } catch (RuntimeException | LinkageError e) {
            AgentLog.error("library files changed but could not be loaded; tracegate stays UNSUPERVISED and watches on", e);
            return false;
        }
        try {
            SupervisorMetrics metrics = new SupervisorMetrics();
            Supervisor supervisor = AgentCore.contracts(options, config, metrics);
            AgentCore.supervise(supervisor, metrics, config, options, bridgeOptions, json, methods, installed, instrumentation);
            return true;   // supervising, or too late to: either way nothing is left to watch for
        } catch (RuntimeException | LinkageError e) {
            boolean mistake = e instanceof LibraryException || e instanceof IllegalArgumentException;
            AgentLog.error("the library files load now, but the supervisor could not be built, so tracegate stays UNSUPERVISED and"
                    + " watches on" + (mistake ? ":\n" + e.getMessage() : ""), mistake ? null : e);
            return false;
        }
    }

    /** The library files' real paths, sizes and modification times (built-ins are part of the agent). */
    private String stamp() {
        StringBuilder s = new StringBuilder();
        for (String l : config.libraries()) {
            if (Library.BUILTINS.contains(l) || l.startsWith("builtin:")) continue;
            try {
                Path p = base.resolve(l);
                s.append(p.toRealPath()).append(' ').append(Files.size(p)).append(' ')
                        .append(Files.getLastModifiedTime(p).to(TimeUnit.NANOSECONDS)).append('\n');
            } catch (Exception e) {
                s.append(l).append(" unreadable\n");
            }
        }
        return s.toString();
    }
}
