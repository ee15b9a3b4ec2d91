package dev.tracegate.agent.bootstrap;

import java.lang.reflect.Method;
import java.util.Map;

/**
 * LangChain4j's agentic module ({@code langchain4j-agentic}) as the LangChain4j advice sees it. The module runs each
 * sub-agent, and the supervisor's own planner and response scorer, as an AI service invocation whose invocation context
 * holds the run's {@code AgenticScope} among its managed parameters ({@code InvocationContext#managedParameters}, keyed by
 * the {@code AgenticScope} interface). From it:
 * <ul>
 * <li>the conversation ({@link #conversation}): an AI service without a chat memory id of its own (LangChain4j's
 *     {@code "default"}) is checked in the scope's memory id, so that a run is one session per scope (before, every
 *     such sub-agent of every user's run was checked in the one session {@code default});</li>
 * </ul>
 * JDK types only (the module's classes are reached by name and reflection): the advice calls it from LangChain4j's own
 * class loader, and the agent never links to the module.
 */
public final class AgenticRuns {
    private AgenticRuns() {}

    /** The interface of the module's scope, the key of its entry among an invocation's managed parameters. */
    static final String SCOPE_TYPE = "dev.langchain4j.agentic.scope.AgenticScope";
    /** The chat memory id LangChain4j gives an AI service invocation without {@code @MemoryId}. */
    public static final String NO_MEMORY_ID = "default";

    private static final ClassValue<Method> MEMORY_ID = new ClassValue<Method>() {
        @Override
        protected Method computeValue(Class<?> type) {
            try {
                return type.getMethod("memoryId");
            } catch (Throwable none) {
                return null;
            }
        }
    };

    /** The agentic scope among an invocation's managed parameters, or null (a plain AI service's are null or empty). */
    static Object scope(Map<?, ?> managed) {
        if (managed == null || managed.isEmpty()) {
            return null;
        }
        try {
            for (Map.Entry<?, ?> entry : managed.entrySet()) {
                Object key = entry.getKey();
                if (key instanceof Class && SCOPE_TYPE.equals(((Class<?>) key).getName())) {
                    return entry.getValue();
                }
            }
        } catch (RuntimeException concurrentlyChanged) {
            // a map the framework changes while it is read: no scope
        }
        return null;
    }

    /** The scope's memory id ({@code AgenticScope#memoryId}: the workflow's {@code @MemoryId}, else a UUID per invocation), or null. */
    static Object memoryId(Object scope) {
        if (scope == null) {
            return null;
        }
        try {
            Method read = MEMORY_ID.get(scope.getClass());
            return read == null ? null : read.invoke(scope);
        } catch (Throwable unreadable) {
            return null;
        }
    }

    /**
     * The session of an AI service invocation's tool call or answer: its chat memory id; without one of its own
     * ({@code "default"}) inside an agentic run, the run's scope's memory id. No allocation and no look-up for an invocation
     * with a chat memory id of its own, one null check for a plain one without.
     */
    public static String conversation(Object memoryId, Map<?, ?> managed) {
        if (memoryId != null && !NO_MEMORY_ID.equals(memoryId)) {
            return memoryId.toString();
        }
        Object id = managed == null ? null : memoryId(scope(managed));
        return id != null ? id.toString() : memoryId == null ? NO_MEMORY_ID : memoryId.toString();
    }
}
