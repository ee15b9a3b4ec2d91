package dev.tracegate.agent.bootstrap;

import java.lang.annotation.Annotation;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * <li>the user's words ({@link #runStarts}): what the application passed to the outermost workflow or supervisor
 *     invocation, one USER event; the prompts the module builds for the AI services inside the run (a sub-agent's
 *     {@code @UserMessage} filled from the scope's state, i.e. other agents' outputs; a planner's prompt with the last
 *     response) are not the user's words and are not USER events ({@link Turn});</li>
 * <li>the module's own AI services (its interfaces, {@code dev.langchain4j.agentic.*}: the supervisor's
 *     {@code PlannerAgent} and {@code ResponseAgent}) answer with routing data (a JSON plan, a score) that LangChain4j
 *     parses into a record: not an answer of the conversation, not an ASSISTANT event ({@link #internalAnswer}).</li>
 * <li>the run's answer ({@link #runEnds}): what the outermost invocation returns to the application, when it is text no
 *     agent of the run answered (a supervisor's {@code SUMMARY}, a workflow's {@code output} function), is checked as
 *     the run's ASSISTANT event; an agent's answer was checked when the agent gave it.</li>
 * </ul>
 * JDK types only (the module's classes are reached by name and reflection): the advice calls it from LangChain4j's own
 * class loader, and the agent never links to the module.
 */
public final class AgenticRuns {
    private AgenticRuns() {}

    /** The interface of the module's scope, the key of its entry among an invocation's managed parameters. */
    static final String SCOPE_TYPE = "dev.langchain4j.agentic.scope.AgenticScope";
    /** The package of the module's own AI service interfaces (planner, response scorer). */
    static final String MODULE_PACKAGE = "dev.langchain4j.agentic.";
    /** The chat memory id LangChain4j gives an AI service invocation without {@code @MemoryId}. */
    public static final String NO_MEMORY_ID = "default";
    static final String MEMORY_ID_ANNOTATION = "dev.langchain4j.service.MemoryId";

    /**
     * The scopes the agent has seen (identity: the module's scope does not override equals; weak keys: an entry goes when
     * the module lets its scope go, and holds no reference to it), each with its memory id's text (read once) and its runs.
     * A scope of a memory id is kept by the module across that id's runs (a run per invocation), and two runs of one memory
     * id at once share it: each run is its own {@link Run}. Read on every event inside a run: no lock (until session 19 a
     * synchronized {@code WeakHashMap}, one JVM-wide lock per event, the scope's own hashCode called under it).
     */
    private static final WeakIdentityMap<Object, Runs> SCOPES = new WeakIdentityMap<Object, Runs>();

    /**
     * The key of the scope among managed parameters, as last found ({@link #scope}): a look-up by it allocates nothing
     * (a scan of the map's entries allocates an iterator). Weak: the class does not keep the module's class loader.
     */
    private static volatile WeakReference<Class<?>> scopeKey = new WeakReference<Class<?>>(null);

    /** The outermost run this thread is in ({@link #enterRun}, {@link #runStarts}, {@link #exitRun}). */
    private static final ThreadLocal<Run> CURRENT_RUN = new ThreadLocal<Run>();

    /** How many answers of a run's agents a run keeps, the newest (what its result is read from comes last). */
    static final int ANSWERS_KEPT = 64;

    /**
     * What the agent keeps of one scope: its memory id's text, read once (the module's scope holds it in a final field);
     * its runs in flight (usually one; two runs of one memory id at once share the module's scope), and the newest, kept
     * after it ended (AI services it started may still run: a streamed sub-agent the application consumes after the run
     * returned). No reference to the scope.
     */
    static final class Runs {
        /** The scope's memory id as text, or null (unreadable). */
        final String session;
        private final ArrayList<Run> active = new ArrayList<Run>(2);
        private Run last;

        Runs(String session) {
            this.session = session;
        }

        /** Some run of this scope has started: an AI service of it is inside a run. */
        synchronized boolean hadRun() {
            return last != null;
        }

        synchronized void started(Run run) {
            active.add(run);
            last = run;
        }

        synchronized void ended(Run run) {
            for (int i = active.size() - 1; i >= 0; i--) {
                if (active.get(i) == run) {
                    active.remove(i);
                }
            }
        }

        /** The scope's one run (the one in flight, else the newest ended), or null while several are in flight. */
        synchronized Run only() {
            return active.isEmpty() ? last : active.size() == 1 ? active.get(0) : null;
        }

        /**
         * An agent's answer whose run is not known (several runs of the scope in flight, the agent on a thread none of
         * them runs on: a parallel or async agent): noted for each run in flight. They are one session (one memory id),
         * and the text was checked in it.
         */
        synchronized void noteAll(String text) {
            if (active.isEmpty() && last != null) {
                last.note(text);
            }
            for (int i = 0; i < active.size(); i++) {
                active.get(i).note(text);
            }
        }
    }

    /** One invocation of a workflow or supervisor by the application: the answers its agents gave, as the application would get them. */
    static final class Run {
        final Runs scope;
        /** The run's session: its scope's memory id. */
        final String session;
        private final ArrayDeque<String> answers = new ArrayDeque<String>();

        Run(Runs scope, String session) {
            this.scope = scope;
            this.session = session;
        }

        synchronized void note(String text) {
            if (answers.size() == ANSWERS_KEPT) {
                answers.removeFirst();
            }
            answers.addLast(text);
        }

        synchronized boolean gave(Object text) {
            for (String a : answers) {
                if (a.equals(text)) {
                    return true;
                }
            }
            return false;
        }
    }

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

    /**
     * The conversation of an AI service invocation (this thread's session while it runs): inside an agentic run, a
     * {@link Turn} whose prompts are not the user's words; else the session as before.
     */
    public static final class Turn {
        final String session;
        final boolean moduleOwn;
        /** The run it is part of, or null: not known ({@link #runs}), or none (the module's own service of an agent invoked directly). */
        final Run run;
        /** The runs of its scope, when which of them it is part of is not known (several in flight), else null. */
        final Runs runs;

        Turn(String session, boolean moduleOwn, Run run, Runs runs) {
            this.session = session;
            this.moduleOwn = moduleOwn;
            this.run = run;
            this.runs = runs;
        }

        @Override
        public String toString() {
            return session;
        }
    }

    /**
     * The agentic scope among an invocation's managed parameters, or null (a plain AI service's are null or empty). A
     * look-up by the key found before; the entries are scanned only when that finds nothing (the first time, another
     * class loader's module, a map without a scope).
     */
    static Object scope(Map<?, ?> managed) {
        if (managed == null || managed.isEmpty()) {
            return null;
        }
        try {
            Class<?> known = scopeKey.get();
            Object found = known == null ? null : managed.get(known);
            if (found != null) {
                return found;
            }
            for (Map.Entry<?, ?> entry : managed.entrySet()) {
                Object key = entry.getKey();
                if (key instanceof Class && SCOPE_TYPE.equals(((Class<?>) key).getName())) {
                    if (key != known) {
                        scopeKey = new WeakReference<Class<?>>((Class<?>) key);
                    }
                    return entry.getValue();
                }
            }
        } catch (RuntimeException concurrentlyChanged) {
            // a map the framework changes while it is read: no scope
        }
        return null;
    }

    /**
     * What the agent keeps of {@code scope}, made (its memory id read) the first time the scope is seen. No allocation
     * and no lock for a scope seen before: a weak-map look-up by identity.
     */
    static Runs runs(Object scope) {
        Runs runs = SCOPES.get(scope);
        return runs != null ? runs : firstSeen(scope);
    }

    /** {@link #runs} of a scope not seen before (two threads at once: one entry wins, both use it). */
    private static Runs firstSeen(Object scope) {
        Object id = memoryId(scope);
        Runs made = new Runs(id == null ? null : id.toString());
        Runs won = SCOPES.putIfAbsent(scope, made);
        return won != null ? won : made;
    }

    /** How many scopes the agent holds an entry for (tests: none left once the module let them go). */
    static int scopesHeld() {
        return SCOPES.size();
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
     * with a chat memory id of its own, one null check for a plain one without; inside a run two map look-ups (the scope
     * among the managed parameters, the scope's memory id as read the first time it was seen), no allocation.
     */
    public static String conversation(Object memoryId, Map<?, ?> managed) {
        if (memoryId != null && !NO_MEMORY_ID.equals(memoryId)) {
            return memoryId.toString();
        }
        Object scope = managed == null ? null : scope(managed);
        String id = scope == null ? null : runs(scope).session;
        return id != null ? id : memoryId == null ? NO_MEMORY_ID : memoryId.toString();
    }

    /**
     * What an AI service invocation sets as this thread's session while it runs ({@code Dispatcher#swapSession}): the chat
     * memory id as before, unless the invocation runs inside a workflow or supervisor run (its managed parameters hold a
     * scope {@link #runStarts} saw), then a {@link Turn} in {@link #conversation}'s session. An agent the application
     * invokes directly (the module gives it a scope of its own) is not inside a run: its prompt is built from the
     * application's arguments, as a plain AI service's is, and stays a USER event.
     */
    public static Object invocationSession(Object memoryId, Map<?, ?> managed, String interfaceName) {
        Object scope = managed == null ? null : scope(managed);
        if (scope == null) {
            return memoryId;
        }
        Runs runs = runs(scope);
        Object id = memoryId != null && !NO_MEMORY_ID.equals(memoryId) ? memoryId : runs.session;
        if (id == null) {
            id = memoryId;
        }
        boolean moduleOwn = interfaceName != null && interfaceName.startsWith(MODULE_PACKAGE);
        if (!runs.hadRun()) {
            if (!moduleOwn) {
                return id;
            }
            runs = null;   // the module's own service of an agent invoked directly: no run
        }
        // the run this thread is in, when it is one of this scope's (a sub-agent the run invokes on its own thread);
        // else the scope's only run; else not known (several runs of one memory id at once, an agent on another thread)
        Run own = runs == null ? null : CURRENT_RUN.get();
        Run run = own != null && own.scope == runs ? own : runs == null ? null : runs.only();
        return new Turn(id == null ? NO_MEMORY_ID : id.toString(), moduleOwn, run, run == null ? runs : null);
    }

    /**
     * The AI service invocation running on this thread runs inside an agentic run: its prompt is the module's, not the
     * user's words. One thread-local read, no allocation.
     */
    public static boolean internalPrompt() {
        return Dispatcher.sessionValue() instanceof Turn;
    }

    /**
     * The AI service invocation running on this thread is one of the module's own (the supervisor's planner, its response
     * scorer): its answer is routing data that LangChain4j parses into a record (a plan, scores), not an answer of the
     * conversation, and no ASSISTANT event. One thread-local read, no allocation.
     */
    public static boolean internalAnswer() {
        return internalAnswer(Dispatcher.sessionValue());
    }

    /** This thread's session value (one thread-local read), for {@link #internalAnswer(Object)} and {@link #answered}. */
    public static Object turn() {
        return Dispatcher.sessionValue();
    }

    /** {@link #internalAnswer()} of a session value read before ({@link #turn}). */
    public static boolean internalAnswer(Object session) {
        return session instanceof Turn && ((Turn) session).moduleOwn;
    }

    /**
     * An agent of a run answered (its model's answer as the agent returns it: checked, or the checked answer's
     * replacement): the run's result, when it is this text, was checked already ({@link #runEnds}). {@code session}: this
     * thread's session value ({@link #turn}); nothing outside a run.
     */
    public static void answered(Object session, String text) {
        if (session instanceof Turn && text != null) {
            Turn turn = (Turn) session;
            if (turn.run != null) {
                turn.run.note(text);
            } else if (turn.runs != null) {
                turn.runs.noteAll(text);
            }
        }
    }

    /**
     * The application's invocation of a workflow or supervisor starts on this thread (the handler's
     * {@code executeAgentMethod} without a scope of its own): returns the run this thread was in (a run invoked from a
     * tool of another run's agent), for {@link #exitRun}.
     */
    public static Object enterRun() {
        Run outer = CURRENT_RUN.get();
        CURRENT_RUN.remove();
        return outer;
    }

    /**
     * That invocation ends: returns its run (null: none started), no longer in flight, for {@link #runEnds}; and puts
     * back the run this thread was in.
     */
    public static Object exitRun(Object outer) {
        Run run = CURRENT_RUN.get();
        if (outer instanceof Run) {
            CURRENT_RUN.set((Run) outer);
        } else {
            CURRENT_RUN.remove();
        }
        if (run != null) {
            run.scope.ended(run);
        }
        return run;
    }

    /**
     * The outermost invocation of a workflow or supervisor returns {@code result} to the application: the answer of
     * {@code run} ({@link #exitRun}).
     * Text that an agent of the run answered was checked when the agent gave it (and is not recorded twice); other text
     * (a supervisor's {@code SUMMARY}, i.e. its planner's {@code done} response, or {@code SCORED} choosing it; a
     * workflow's {@code output} function's text) is checked now as the run's ASSISTANT event, in the run's session.
     * Returns the replacement (a block notice, a redacted text), or null; throws a {@code TracegateViolation} under
     * {@code block.style: exception}. A result that is not a {@code String} (a typed agent's record,
     * {@code ResultWithAgenticScope}) is not checked here.
     */
    public static String runEnds(Object run, Object result) {
        if (!(run instanceof Run) || !(result instanceof String)) {
            return null;
        }
        if (((Run) run).gave(result)) {
            return null;
        }
        return Dispatcher.onAssistantMessage("langchain4j", ((Run) run).session, (String) result);
    }

    /**
     * The application invokes a workflow or a supervisor (the outermost one: a nested workflow is invoked by the module
     * with arguments read from the scope). Notes the run's scope, and records the application's arguments (their text,
     * the {@code @MemoryId} one left out; a map's values, for an untyped agent) as the run's USER event, in the scope's
     * memory id: the user's words of the whole run. A replacement (a contract that refuses the user's input) takes the
     * place of the first text argument and blanks the others, so the run starts from the notice.
     */
    public static void runStarts(Object scope, Method method, Object[] args) {
        if (scope == null) {
            return;
        }
        Runs runs = runs(scope);
        String session = runs.session == null ? NO_MEMORY_ID : runs.session;
        Run run = new Run(runs, session);
        runs.started(run);
        CURRENT_RUN.set(run);
        if (args == null || args.length == 0) {
            return;
        }
        Annotation[][] annotations = method == null ? null : method.getParameterAnnotations();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < args.length; i++) {
            if (isMemoryId(annotations, i)) {
                continue;
            }
            Object arg = args[i];
            if (arg instanceof Map) {
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) arg).entrySet()) {
                    if (!"memoryId".equals(entry.getKey())) {
                        append(text, entry.getValue());
                    }
                }
            } else {
                append(text, arg);
            }
        }
        if (text.length() == 0) {
            return;
        }
        String replacement = Dispatcher.onUserMessage("langchain4j", session, text.toString());
        if (replacement == null) {
            return;
        }
        boolean[] placed = new boolean[1];
        for (int i = 0; i < args.length; i++) {
            if (isMemoryId(annotations, i)) {
                continue;
            }
            Object arg = args[i];
            if (arg instanceof String) {
                args[i] = placed[0] ? "" : replacement;
                placed[0] = true;
            } else if (arg instanceof Map) {
                Map<Object, Object> copy = new LinkedHashMap<Object, Object>((Map<?, ?>) arg);
                for (Map.Entry<Object, Object> entry : copy.entrySet()) {
                    if (entry.getValue() instanceof String && !"memoryId".equals(entry.getKey())) {
                        entry.setValue(placed[0] ? "" : replacement);
                        placed[0] = true;
                    }
                }
                args[i] = copy;
            }
        }
    }

    private static boolean isMemoryId(Annotation[][] annotations, int i) {
        if (annotations == null || i >= annotations.length) {
            return false;
        }
        for (Annotation a : annotations[i]) {
            if (MEMORY_ID_ANNOTATION.equals(a.annotationType().getName())) {
                return true;
            }
        }
        return false;
    }

    private static void append(StringBuilder text, Object value) {
        if (value == null) {
            return;
        }
        String s = String.valueOf(value);
        if (s.isEmpty()) {
            return;
        }
        if (text.length() > 0) {
            text.append('\n');
        }
        text.append(s);
    }
}
