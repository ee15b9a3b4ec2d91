package dev.tracegate.agent.core;

import dev.tracegate.agent.bootstrap.Dispatcher;
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

/**
 * Starts the agent inside the agent's class loader: reads the options, creates the supervisor, installs
 * the dispatcher's delegate and the instrumentations, and ends all sessions at shutdown.
 */
public final class AgentCore {

    private static volatile SupervisorBridge bridge;
    private static volatile Weaver weaver;

    private AgentCore() {
    }

    /** Called reflectively by the launcher; a bad option stops the start unless {@code fail=open}. */
    public static synchronized void start(String arguments, Instrumentation instrumentation, boolean attached, File jar) {
        AgentArguments options;
        try {
            options = AgentArguments.parse(arguments);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage(), null);
        }
        AgentLog.debug(options.flag("debug", false));
        long started = System.nanoTime();
        try {
            JsonCodec json = new JsonCodec();
            String methodsFile = options.get("methods");
            ConfiguredMethods methods = methodsFile == null ? ConfiguredMethods.none() : ConfiguredMethods.load(Path.of(methodsFile));
            Supervisor supervisor = createSupervisor(options, json);
            SupervisorBridge created = new SupervisorBridge(supervisor, options, json, methods);
            List<Hooks> hooks = List.of(new LangChain4jHooks(), new SpringAiHooks(), new McpHooks.Server(), new McpHooks.Client(),
                    new ConfiguredHooks(methods));
            Dispatcher.install(created);
            bridge = created;
            long configured = System.nanoTime();
            Weaver installed = new Weaver(hooks);
            installed.install(instrumentation, AgentCore.class.getClassLoader());
            AgentLog.debug("start-up: options and supervisor " + (configured - started) / 1_000_000 + " ms, instrumentation "
                    + (System.nanoTime() - configured) / 1_000_000 + " ms");
            weaver = installed;
            Runtime.getRuntime().addShutdownHook(new Thread(AgentCore::shutdown, "tracegate-shutdown"));
            AgentLog.info("agent started (" + (attached ? "attached" : "premain") + ") supervisor=" + supervisor.getClass().getSimpleName()
                    + (options.flag("shadow", false) ? " mode=shadow" : "") + " onBlock=" + options.get("onBlock", "substitute")
                    + " instrumentations=" + installed.names() + (methods.isEmpty() ? "" : " configuredMethods=" + methods.rules().size()));
            if (attached) {
                installed.reportUnmatched();
            }
        } catch (RuntimeException | LinkageError e) {
            if (options.get("fail", "closed").equals("open")) {
                AgentLog.error("agent could not start and runs UNSUPERVISED because fail=open", e);
                return;
            }
            throw e;
        }
    }

    private static Supervisor createSupervisor(AgentArguments options, JsonCodec json) {
        String name = options.get("supervisor", "rules");
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

    private static void shutdown() {
        SupervisorBridge b = bridge;
        if (b != null) {
            try {
                b.endAll();
            } catch (RuntimeException e) {
                AgentLog.error("ending sessions at shutdown failed", e);
            }
        }
        Weaver w = weaver;
        if (w != null) {
            w.reportUnmatched();
        }
    }

    /** The running bridge (null before start). */
    public static SupervisorBridge bridge() {
        return bridge;
    }
}
