package dev.tracegate.agent.bootstrap;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The static entry points that advice inlined into host classes calls; JDK types only, on the
 * bootstrap class path, so it is visible from every class loader (fat jars, app servers, OSGi).
 *
 * <p>Any thread may call any method. The delegate is published once through a volatile field; until
 * it is installed every hook answers "proceed". Internal errors of the delegate never reach the host:
 * they are counted and mapped to the configured failure policy ({@link DispatchTarget#onInternalError}), and so are
 * failures of the advice's own code that it hands to {@link #adviceFailed}.
 *
 * <p>Per-thread nesting guard: a tool call seen inside another supervised tool call on the same thread
 * (wrappers that delegate to each other, {@code call(String)} delegating to {@code call(String, ToolContext)},
 * a LangChain4j MCP tool calling the MCP client, a redirect running its target) is not supervised again.
 */
public final class Dispatcher {

    private static volatile DispatchTarget target;

    private static final AtomicLong INTERNAL_ERRORS = new AtomicLong();

    /** Advice failures already reported, by framework, place and error class; once full, every failure counts as repeated. */
    private static final java.util.concurrent.ConcurrentHashMap<String, Boolean> FAILURES_SEEN =
            new java.util.concurrent.ConcurrentHashMap<String, Boolean>();
    private static final int MAX_FAILURES_REMEMBERED = 256;

    /** How each framework's streamed answer chunks read, by the framework name its stream checks report. */
    private static final java.util.concurrent.ConcurrentHashMap<String, AnswerChunks> CHUNKS =
            new java.util.concurrent.ConcurrentHashMap<String, AnswerChunks>();

    /** Identifies this JVM's dispatcher (marks calls it already supervised, e.g. in MCP request metadata). */
    private static final String INSTANCE = java.util.UUID.randomUUID().toString();

    /**
     * [0] = nesting depth of supervised tool calls on this thread, [1] = of model calls; [2] and [3] = the entry and the
     * tool name's hash of the configured tool call running on this thread, noted only when an entry says {@code nested: true}
     * (0: none), saved and put back by each configured method's advice like [0].
     */
    private static final ThreadLocal<int[]> DEPTH = new ThreadLocal<int[]>() {
        @Override
        protected int[] initialValue() {
            return new int[4];
        }
    };

    /**
     * [0] = conversation id seen by a framework further up this thread's stack, [1] = the tool table, [2] = non-null
     * when [0] was adopted from a tool call rather than set by the invocation's own advice ({@link #adoptSession}),
     * [3] = the model's tool requests of the round a framework is running on this thread ({@link #swapRound}),
     * [4] = the conversation of the latest configured tool call on this thread ({@link #noteCallSession}), [5] = unused
     * (until session 17: set once the thread had run calls of several conversations), [6] = the conversation of the MCP
     * server tool call whose handler runs on this thread now ({@link #swapHandlerSession}; a {@link HandlerScope} frame
     * while the handler's Mono is subscribed), [7] = the framework name a streaming handler marks the tool it is about
     * to run with as an {@code IMMEDIATE} one ({@link #markImmediate}), [8] = the tool context of the AI service tool
     * loop running on this thread ({@link #swapToolContext}), [9] = the note of a user message a framework augmented on
     * this thread ({@link #augmented}; {@link #AUGMENTED_SLOT}).
     */
    private static final ThreadLocal<Object[]> SCOPE = new ThreadLocal<Object[]>() {
        @Override
        protected Object[] initialValue() {
            return new Object[10];
        }
    };

    /**
     * The chat memory and the user message last stored in it on this thread ([0], [1]; a LangChain4j AI service stores
     * the turn's user message before it calls the model): a user message tracegate replaces in the model's request is
     * replaced in that memory too, so that later turns do not send the original back ({@link #userMessageStored}).
     */
    private static final ThreadLocal<Object[]> STORED_USER = new ThreadLocal<Object[]>() {
        @Override
        protected Object[] initialValue() {
            return new Object[2];
        }
    };

    /** A framework's chat memory {@code memory} stored the user message {@code message} on this thread. */
    public static void userMessageStored(Object memory, Object message) {
        Object[] cell = STORED_USER.get();
        cell[0] = memory;
        cell[1] = message;
    }

    /**
     * The chat memory and user message {@link #userMessageStored} last noted on this thread, and forgets them (each is
     * taken by the model call that checks the message, so that a later model call never rewrites an older turn); null:
     * none since the last take.
     */
    public static Object[] takeStoredUserMessage() {
        Object[] cell = STORED_USER.get();
        if (cell[0] == null) {
            return null;
        }
        Object[] out = new Object[] {cell[0], cell[1]};
        cell[0] = null;
        cell[1] = null;
        return out;
    }

    /**
     * {@code SCOPE}'s slot of the user message a framework augmented on this thread: a note {@code {augmented, own, kept}}
     * ({@link #augmented}), made anew for each augmentation and never changed but for its taking ([0] set to null), so that
     * the schedule hook ({@link HandlerScope}) can carry it to the Reactor task that makes the model call (a streamed Spring
     * AI chain whose next {@code BaseAdvisor} runs on its scheduler's thread) and the note is taken once, wherever.
     */
    static final int AUGMENTED_SLOT = 9;

    /** A framework's retrieval augmentor turned the user's text {@code own} into {@code augmented} on this thread. */
    public static void augmented(String augmented, String own) {
        augmented(augmented, own, null);
    }

    /**
     * A framework turned the user's text {@code own} into {@code augmented} on this thread, and a replacement of the user's
     * text (a refused or masked user message) is to be followed by {@code kept} (a structured output's format instructions,
     * which the application's parser needs; null: the replacement goes alone, as for retrieved documents). The note stays
     * on this thread, and goes with the Reactor tasks it schedules, until a model call takes it ({@link #ownUserText}).
     */
    public static void augmented(String augmented, String own, String kept) {
        SCOPE.get()[AUGMENTED_SLOT] = new String[] {augmented, own, kept};
    }

    /**
     * What a replacement of the user's text keeps of the augmented text noted on this thread ({@link #augmented}), or null;
     * read before {@link #ownUserText}, which takes the note. Only for a text that {@link #ownUserText} changed.
     */
    public static String augmentedKept() {
        String[] note = (String[]) SCOPE.get()[AUGMENTED_SLOT];
        return note == null || note[0] == null ? null : note[2];
    }

    /**
     * The user's own text within {@code text}, the text of a model request's user message: {@code text} with the augmented
     * message {@link #augmented} noted on this thread replaced by the user's own text it was made from, or {@code text}
     * itself when none was noted or {@code text} does not hold it. Takes the note: off this thread, and from every thread
     * the schedule hook carried it to (a thread that scheduled the task making this call keeps no note to apply later).
     */
    public static String ownUserText(String text) {
        Object[] scope = SCOPE.get();
        String[] note = (String[]) scope[AUGMENTED_SLOT];
        if (note == null) {
            return text;
        }
        scope[AUGMENTED_SLOT] = null;
        String aug = note[0], own = note[1];
        if (aug == null) {
            return text;   // taken on another thread
        }
        note[0] = null;
        return text == null || own == null || !text.contains(aug) ? text : text.replace(aug, own);
    }

    /**
     * User messages replaced (withheld, masked) in a model request, by conversation (the session id the core gives it,
     * {@link DispatchTarget#sessionId}): each conversation's {text, replacement} pairs, the newest
     * {@value #REPLACED_PER_SESSION} (a copy-on-write array, oldest first; a text replaced again moves to the end with its
     * new replacement). A framework that sends the request's own messages again in a later round (Spring AI 2.0.1's
     * {@code ToolCallingAdvisor} rebuilds each round of its tool loop from them) or in a later turn (a chat memory that
     * stored the original) would otherwise give the model what was withheld. When its session ends ({@link #sessionEnded}:
     * explicitly, by sessions.idle-timeout or sessions.max, at shutdown) an entry moves to {@link #ENDED_USERS}, so that a
     * conversation resumed under the same id (a chat memory that kept the original) gets the same replacement. Until session 19 a
     * JVM-wide ring of the newest 64 under one lock: a 65th conversation's replacement made an earlier one's next round
     * send the original, and every model call took the lock once any message had been replaced.
     * <p>Any thread may call {@link #userReplaced}, {@link #replacedUsers}, {@link #replacedUser} and
     * {@link #sessionEnded}; a look-up takes no lock and allocates nothing (a map read and a scan of at most
     * {@value #REPLACED_PER_SESSION} pairs).
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, String[]> REPLACED_USERS =
            new java.util.concurrent.ConcurrentHashMap<String, String[]>();
    /** How many replaced user messages one conversation keeps (a chat memory's window of the turns sent again). */
    static final int REPLACED_PER_SESSION = 32;

    /**
     * The replaced user messages of conversations whose session ended ({@link #sessionEnded}), by the same key, for a
     * conversation resumed after its end (a chat memory that outlives sessions.idle-timeout sends its stored original
     * again, in the new session). Looked up only when {@link #REPLACED_USERS} has no entry of the conversation; moved back
     * there when the resumed conversation has a message replaced again ({@link #userReplaced}). Bounded: the newest
     * {@value #ENDED_MAX} ended conversations, at most {@value #ENDED_CHARS} characters of texts and replacements in all;
     * the oldest ended go first ({@link #ENDED_ORDER}). Before session 20 an entry went at its session's end.
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, String[]> ENDED_USERS =
            new java.util.concurrent.ConcurrentHashMap<String, String[]>();
    /** The ended conversations of {@link #ENDED_USERS}, oldest end first, with their characters; guarded by itself. */
    private static final java.util.LinkedHashMap<String, Integer> ENDED_ORDER = new java.util.LinkedHashMap<String, Integer>();
    /** The characters of {@link #ENDED_ORDER}'s entries; guarded by {@link #ENDED_ORDER}. */
    private static long endedChars;
    /** How many ended conversations keep their replaced user messages. */
    static final int ENDED_MAX = 4096;
    /** How many characters (texts and replacements) the ended conversations keep in all (16 MB of chars). */
    static final long ENDED_CHARS = 8L << 20;

    /** The user message {@code text} of {@code session} (a framework's conversation id) reached the model as {@code replacement}. */
    public static void userReplaced(String session, String text, String replacement) {
        if (session == null || text == null || replacement == null) {
            return;
        }
        String key = sessionId(session);
        if (key == null) {
            return;
        }
        if (!ENDED_USERS.isEmpty() && !REPLACED_USERS.containsKey(key)) {
            resumed(key);   // a conversation resumed after its session ended: its earlier replacements come back first
        }
        for (;;) {   // copy on write: rare (a refused or masked user message), readers never lock
            String[] was = REPLACED_USERS.get(key);
            String[] now = withReplaced(was, text, replacement);
            if (was == null ? REPLACED_USERS.putIfAbsent(key, now) == null : REPLACED_USERS.replace(key, was, now)) {
                return;
            }
        }
    }

    /** {@code pairs} with {@code text -> replacement} as its newest pair (an older one of {@code text} left out), at most {@link #REPLACED_PER_SESSION} pairs. */
    private static String[] withReplaced(String[] pairs, String text, String replacement) {
        int n = pairs == null ? 0 : pairs.length;
        String[] out = new String[Math.min(n + 2, 2 * REPLACED_PER_SESSION)];
        int at = out.length;
        out[--at] = replacement;
        out[--at] = text;
        for (int i = n - 2; i >= 0 && at > 0; i -= 2) {   // newest first, until full
            if (!text.equals(pairs[i])) {
                out[--at] = pairs[i + 1];
                out[--at] = pairs[i];
            }
        }
        if (at == 0) {
            return out;
        }
        String[] fit = new String[out.length - at];   // a pair of text was dropped: one pair shorter
        System.arraycopy(out, at, fit, 0, fit.length);
        return fit;
    }

    /**
     * The user messages of {@code session} (a framework's conversation id) that were replaced, for {@link #replacedUser},
     * or null: none (then nothing else needs asking). Once per model request; with none replaced in the JVM, no map read;
     * never a lock or an allocation (the core's session id of the conversation is found without one).
     */
    public static Object replacedUsers(String session) {
        if (session == null || REPLACED_USERS.isEmpty() && ENDED_USERS.isEmpty()) {
            return null;
        }
        String key = sessionId(session);
        if (key == null) {
            return null;
        }
        String[] live = REPLACED_USERS.get(key);
        return live != null || ENDED_USERS.isEmpty() ? live : ENDED_USERS.get(key);   // a resumed conversation: its ended session's
    }

    /** What the user message {@code text} was replaced by, among {@code replaced} ({@link #replacedUsers}), or null. */
    public static String replacedUser(Object replaced, String text) {
        if (!(replaced instanceof String[]) || text == null) {
            return null;
        }
        String[] pairs = (String[]) replaced;
        for (int i = pairs.length - 2; i >= 0; i -= 2) {
            if (text.equals(pairs[i])) {
                return pairs[i + 1];
            }
        }
        return null;
    }

    /** What the user message {@code text} of {@code session} was replaced by ({@link #userReplaced}), or null. */
    public static String replacedUser(String session, String text) {
        return replacedUser(replacedUsers(session), text);
    }

    /**
     * The core ended the session {@code sessionId} (its END record; explicitly, by sessions.idle-timeout or sessions.max,
     * at shutdown): what was noted for it ({@link #userReplaced}) moves to {@link #ENDED_USERS}, so that a later session of
     * the same id (a conversation resumed, its chat memory holding the original) replaces those messages the same way,
     * while the bound keeps it. Once per session end that replaced a message: a lock of its own, never taken by a look-up.
     */
    public static void sessionEnded(String sessionId) {
        if (sessionId == null) {
            return;
        }
        String[] pairs = REPLACED_USERS.remove(sessionId);
        if (pairs == null) {
            return;
        }
        synchronized (ENDED_ORDER) {
            String[] earlier = ENDED_USERS.get(sessionId);   // ended before and resumed without a replacement of its own since
            String[] all = pairs;
            if (earlier != null) {
                for (int i = 0; i < earlier.length; i += 2) {
                    if (replacedUser(pairs, earlier[i]) == null) {
                        all = withOlder(all, earlier[i], earlier[i + 1]);
                    }
                }
            }
            int chars = 0;
            for (String t : all) {
                chars += t.length();
            }
            Integer was = ENDED_ORDER.remove(sessionId);
            if (was != null) {
                endedChars -= was;
            }
            ENDED_USERS.put(sessionId, all);
            ENDED_ORDER.put(sessionId, chars);
            endedChars += chars;
            java.util.Iterator<java.util.Map.Entry<String, Integer>> oldest = ENDED_ORDER.entrySet().iterator();
            while ((ENDED_ORDER.size() > ENDED_MAX || endedChars > ENDED_CHARS) && oldest.hasNext()) {
                java.util.Map.Entry<String, Integer> gone = oldest.next();
                endedChars -= gone.getValue();
                ENDED_USERS.remove(gone.getKey());
                oldest.remove();
            }
        }
    }

    /** {@code pairs} with {@code text -> replacement} added as its oldest pair, if there is room. */
    private static String[] withOlder(String[] pairs, String text, String replacement) {
        if (pairs.length >= 2 * REPLACED_PER_SESSION) {
            return pairs;
        }
        String[] out = new String[pairs.length + 2];
        out[0] = text;
        out[1] = replacement;
        System.arraycopy(pairs, 0, out, 2, pairs.length);
        return out;
    }

    /** A conversation whose session ended replaces a message again: its ended entry becomes its live one (rare). */
    private static void resumed(String key) {
        synchronized (ENDED_ORDER) {
            String[] ended = ENDED_USERS.remove(key);
            Integer chars = ENDED_ORDER.remove(key);
            if (chars != null) {
                endedChars -= chars;
            }
            if (ended != null) {
                REPLACED_USERS.putIfAbsent(key, ended);
            }
        }
    }

    /** Forgets what was noted for {@code sessionId}, live or ended (tests). */
    static void forgetReplacedUsers(String sessionId) {
        REPLACED_USERS.remove(sessionId);
        synchronized (ENDED_ORDER) {
            ENDED_USERS.remove(sessionId);
            Integer chars = ENDED_ORDER.remove(sessionId);
            if (chars != null) {
                endedChars -= chars;
            }
        }
    }

    /** How many conversations have replaced user messages noted (tests, the bench). */
    static int sessionsWithReplacedUsers() {
        return REPLACED_USERS.size();
    }

    /** Whether the session {@code sessionId} ended with replaced user messages that a resumption would get (tests). */
    public static boolean endedWithReplacedUsers(String sessionId) {
        return sessionId != null && ENDED_USERS.containsKey(sessionId) && !REPLACED_USERS.containsKey(sessionId);
    }

    /** How many ended conversations keep replaced user messages (tests). */
    static int endedSessionsWithReplacedUsers() {
        return ENDED_USERS.size();
    }

    /** The core's session id of the framework's conversation {@code session} on this thread ({@link DispatchTarget#sessionId}). */
    private static String sessionId(String session) {
        DispatchTarget t = target;
        if (t == null) {
            return session;
        }
        try {
            return t.sessionId(session);
        } catch (Throwable e) {
            return session;
        }
    }

    /** Forgets what {@link #userMessageStored} noted on this thread (a message checked and kept); no allocation. */
    public static void forgetStoredUserMessage() {
        Object[] cell = STORED_USER.get();
        cell[0] = null;
        cell[1] = null;
    }

    /** {@code SCOPE[5]}: the thread ran configured tool calls of several conversations (a pool's thread). */

    /** How many call ids this JVM generated ({@link #newCallId}). */
    private static final AtomicLong CALL_IDS = new AtomicLong();

    /** How a generated call id begins: {@code tg-} and a decimal count, {@code tg-1} for the JVM's first. */
    public static final String GENERATED_ID = "tg-";

    private Dispatcher() {
    }

    /** Installs the agent core; called once by the agent at start. */
    public static void install(DispatchTarget core) {
        target = core;
    }

    public static boolean installed() {
        return target != null;
    }

    public static String instance() {
        return INSTANCE;
    }

    public static long internalErrors() {
        return INTERNAL_ERRORS.get();
    }

    // ---- nesting guard ----

    /** The depth that marks a thread tracegate runs for itself (an escalation approver): nothing on it is supervised. */
    private static final int OWN = 1 << 24;

    /**
     * Marks this thread as tracegate's own (or no longer): its tool and model calls are nested calls that nothing
     * supervises, not even a configured method with {@code nested: true}. An approver runs on such a thread, so that a
     * tool it calls to decide does not wait for the session its escalated call holds.
     */
    public static void ownThread(boolean own) {
        int[] depth = DEPTH.get();
        depth[0] = own ? OWN : 0;
        depth[1] = own ? OWN : 0;
    }

    /** Enters a tool call on this thread; true if it is the outermost one (the one to supervise). */
    public static boolean enter() {
        return DEPTH.get()[0]++ == 0;
    }

    /**
     * This thread's nesting cells: {@code [0]} for tool calls (the depth {@link #enter()} counts), {@code [1]} for model
     * calls ({@link #enterModel()}). Every framework's advice saves its cell on entry and writes the saved value back
     * as the first thing its exit does, with no call, so that a StackOverflowError unwinding through a deep recursion of
     * woven methods (whose exits may overflow again) cannot leave the thread marked as inside a call for good: the
     * outermost call's exit resets it. One look-up per call, as enter/exit took.
     */
    public static int[] depthCell() {
        return DEPTH.get();
    }

    /**
     * Whether a supervised tool call (a framework's tool, a configured method) runs further up this thread's stack with
     * no AI service invocation, {@code TokenStream} or {@code ChatClient} request opened since (those start a nesting
     * scope of their own: a sub-agent). A model call made now is one the tool's body makes (a summariser tool), whose
     * user message is text the tool built from its inputs and what it fetched, not the user's words: the model advice
     * records no USER event for it (trial47 05: before, a page the tool had the model summarise became the user's words,
     * and an IBAN it named passed {@code injection}). False on a thread of tracegate's own. One thread-local look-up.
     */
    public static boolean inToolBody() {
        int depth = DEPTH.get()[0];
        return depth > 0 && depth < OWN;
    }

    /** Leaves a tool call entered with {@link #enter()}; every enter must be paired with one exit. */
    public static void exit() {
        int[] depth = DEPTH.get();
        if (depth[0] > 0) {
            depth[0]--;
        }
    }

    /** Enters a model call on this thread; true if it is the outermost one (default methods delegate to each other). */
    public static boolean enterModel() {
        return DEPTH.get()[1]++ == 0;
    }

    /** Leaves a model call entered with {@link #enterModel()}. */
    public static void exitModel() {
        int[] depth = DEPTH.get();
        if (depth[1] > 0) {
            depth[1]--;
        }
    }

    // ---- call ids ----

    /**
     * A call id for one invocation of a hook whose framework gives none (a Spring AI tool callback called outside a model
     * round, the MCP SDK's server and client, configured methods): {@code tg-N}, N counting this JVM's generated ids
     * from 1, so it is unique in the run and links the invocation's RETURN (or failure) to its CALL, as a model's
     * tool-call id does. One atomic increment and one short String (with its bytes) per call.
     */
    public static String newCallId() {
        return callId(CALL_IDS.incrementAndGet());
    }

    /**
     * The number N of a new call id {@code tg-N} ({@link #newCallId}'s count), for a hook that keeps the id as the number:
     * its text ({@link #callId(long)}) is made only where it is read (the audit line, a decision that acts), not per call
     * (88 B of a passed configured call, session 24). One atomic increment, no allocation.
     */
    public static long newCallNumber() {
        return CALL_IDS.incrementAndGet();
    }

    /**
     * {@code tg-n} for {@code n >= 1}, as {@code GENERATED_ID + n} spells it: the bytes written here and copied once by the
     * String (72 B a call), where {@code "tg-" + n} compiles to a StringBuilder in the agent (-XDstringConcat=inline,
     * agent/pom.xml) whose buffer, String and copy took 112 B. Its twin is the matchers' {@code Event.generatedId}, which
     * spells the number an event carries: written twice because this class, on the bootstrap path, sees JDK types only;
     * DispatcherTest checks that both spell every digit count alike.
     */
    public static String callId(long n) {
        int digits = 1;
        for (long t = n; t >= 10; t /= 10) digits++;
        byte[] b = new byte[3 + digits];
        b[0] = 't';
        b[1] = 'g';
        b[2] = '-';
        for (int i = b.length - 1; i >= 3; i--, n /= 10) b[i] = (byte) ('0' + n % 10);
        return new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** True for an id {@link #newCallId} made (one invocation's own: no other hook can see the same call by it). */
    public static boolean generatedId(String callId) {
        // by its characters, not startsWith(GENERATED_ID): the literal is an object on a start-up page that a cold call
        // would walk to for every call (session 19)
        return callId != null && callId.length() >= 3 && callId.charAt(0) == 't' && callId.charAt(1) == 'g' && callId.charAt(2) == '-';
    }

    // ---- per-thread scope a framework sets further up the stack ----

    /** Sets this thread's conversation id (if non-null) and returns the previous one, to restore on exit. */
    public static Object swapSession(Object session) {
        Object[] scope = SCOPE.get();
        Object previous = scope[0];
        if (session != null) {
            scope[0] = session;
        }
        return previous;
    }

    /** {@code SCOPE[2]}: this thread's model call asked for tools and the thread has no conversation id. */
    private static final Object AWAITING_TOOLS = "awaiting tools";
    /** {@code SCOPE[2]}: {@code SCOPE[0]} was taken from a tool call by {@link #adoptSession}. */
    private static final Object ADOPTED = "adopted";

    /**
     * A model call on this thread answered with tool requests while the thread had no conversation id: an AI service
     * invocation that began before the agent attached (its own advice never ran). Its tools, run next on this thread,
     * tell the conversation ({@link #adoptSession}). Threads that only run tools (a concurrent executor, a streaming
     * provider) never get here, so they adopt nothing.
     */
    public static void awaitTools() {
        Object[] scope = SCOPE.get();
        if (scope[0] == null) {
            scope[2] = AWAITING_TOOLS;
        }
    }

    /**
     * A tool call of conversation {@code session} (the framework's invocation context) right after {@link #awaitTools}:
     * the thread takes that id for the model events that follow in the same turn (its answer), until
     * {@link #dropAdoptedSession}.
     */
    public static void adoptSession(Object session) {
        Object[] scope = SCOPE.get();
        if (scope[2] == AWAITING_TOOLS && scope[0] == null && session != null) {
            scope[0] = session;
            scope[2] = ADOPTED;
        }
    }

    /** Forgets a conversation id taken by {@link #adoptSession}: the turn's final answer has been checked, or a new invocation begins. */
    public static void dropAdoptedSession() {
        Object[] scope = SCOPE.get();
        if (scope[2] == ADOPTED) {
            scope[0] = null;
        }
        scope[2] = null;
    }

    /** Restores the conversation id returned by {@link #swapSession}. */
    public static void restoreSession(Object previous) {
        SCOPE.get()[0] = previous;
    }

    /** The tools frameworks registered with AI services in this run ({@link #toolsOffered}), at most {@link #MAX_OFFERED}. */
    private static final java.util.Set<String> OFFERED = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final int MAX_OFFERED = 4096;

    /**
     * A framework registered these tools with an AI service (LangChain4j: when the service is built, not per call): the
     * model is offered them, so the application has them. Read at shutdown by the WARN about contract tools that never
     * came, which leaves them out (a tool registered but unused is no misspelling).
     */
    public static void toolsOffered(java.util.Collection<String> names) {
        for (String name : names) {
            if (OFFERED.size() >= MAX_OFFERED) return;
            if (name != null) OFFERED.add(name);
        }
    }

    /** The tools models asked for in a response the agent saw ({@link #toolRequested}), with how often; at most {@link #MAX_OFFERED}. */
    private static final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> REQUESTED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A model response the agent saw asks for the tool {@code name} (LangChain4j: a {@code ToolExecutionRequest} of the
     * response {@code ChatModel#chat} returns). Read at shutdown: a tool asked for whose call never reached the agent runs
     * on a path it does not intercept, and is said once. Per requested tool: a map look-up and an increment (the first
     * request of a name adds it).
     */
    public static void toolRequested(String name) {
        if (name == null) return;
        java.util.concurrent.atomic.AtomicLong n = REQUESTED.get(name);
        if (n == null) {
            if (REQUESTED.size() >= MAX_OFFERED) return;
            n = REQUESTED.computeIfAbsent(name, k -> new java.util.concurrent.atomic.AtomicLong());
        }
        n.incrementAndGet();
    }

    /** The tools {@link #toolRequested} noted, with how often each was asked for. */
    public static java.util.Map<String, java.util.concurrent.atomic.AtomicLong> requestedTools() {
        return java.util.Collections.unmodifiableMap(REQUESTED);
    }

    /** The tools {@link #toolsOffered} noted. */
    public static java.util.Set<String> offeredTools() {
        return java.util.Collections.unmodifiableSet(OFFERED);
    }

    /** This thread's conversation id as it was set (an {@link AgenticRuns.Turn} inside an agentic run), or null. */
    static Object sessionValue() {
        return SCOPE.get()[0];
    }

    /** This thread's conversation id, or {@code fallback}. */
    public static String session(String fallback) {
        Object session = SCOPE.get()[0];
        return session == null ? fallback : session.toString();
    }

    /**
     * A configured tool call of conversation {@code session} starts on this thread: the conversation a consent or erasure
     * method without {@code session-param} called on this thread belongs to ({@link #callSession}). One look-up of this
     * thread's scope and one comparison per call; no allocation.
     */
    public static void noteCallSession(String session) {
        SCOPE.get()[4] = session;
    }

    /**
     * A configured suspend function resumes on this thread (its state machine re-entered, no call of its own): the
     * conversation noted last is not the resumed call's (another conversation's coroutine may have run a call on this
     * thread while it was suspended), so a consent or erasure its body makes now finds none ({@link #callSession}) rather
     * than another's. One thread-local look-up per resume; no allocation.
     */
    public static void forgetCallSession() {
        SCOPE.get()[4] = null;
    }

    /**
     * The conversation of the configured tool call running on this thread ({@link #noteCallSession}), for a consent or
     * erasure method that such a call makes; null when none was noted. Asked only while a call runs: between calls the
     * thread says nothing about the conversation (a coroutine dispatcher's thread and a pooled thread run several
     * conversations' work in turn; until session 17 the one conversation a thread had run calls of was taken, and c2's
     * erasure on a thread that had run only c1's calls went to c1, trial33 06).
     */
    public static String callSession() {
        Object last = SCOPE.get()[4];
        return last == null ? null : last.toString();
    }

    /**
     * An MCP server tool handler of conversation {@code session} starts running on this thread (the MCP hooks, around the
     * handler's body): a consent or erasure method without {@code session-param} that it calls belongs to that
     * conversation ({@link #handlerSession}). Returns the previous value, for {@link #restoreHandlerSession} when the
     * handler returns. One thread-local look-up; no allocation.
     */
    public static Object swapHandlerSession(Object session) {
        Object[] scope = SCOPE.get();
        Object previous = scope[6];
        scope[6] = session;
        return previous;
    }

    /** Puts back what {@link #swapHandlerSession} returned. */
    public static void restoreHandlerSession(Object previous) {
        SCOPE.get()[6] = previous;
    }

    /** The conversation of the MCP server tool handler running on this thread, or null. */
    public static String handlerSession() {
        Object session = SCOPE.get()[6];
        if (session instanceof HandlerScope.Frame) {
            return ((HandlerScope.Frame) session).toString();
        }
        return session == null ? null : session.toString();
    }

    /** {@code SCOPE}'s slot of the thread's conversation id and of the MCP handler's session ({@link HandlerScope}). */
    static final int CONVERSATION_SLOT = 0, HANDLER_SLOT = 6;

    /** This thread's scope cells as they are; for {@link HandlerScope} (its schedule hook reads two with one look-up). */
    static Object[] scope() {
        return SCOPE.get();
    }

    /**
     * The first source of the merge that subscribes a streamed Spring AI request's {@code Flux} in its conversation, or
     * the runnable before a signal of it is delivered ({@link HandlerScope}): sets {@code session} as this thread's
     * conversation, carried by the schedule hook to the Reactor tasks scheduled meanwhile; {@link
     * HandlerScope#CONVERSATION_EXIT} puts back what it found.
     */
    public static HandlerScope conversationEnter(String session) {
        return new HandlerScope(session, CONVERSATION_SLOT);
    }

    /** Whether this thread's conversation is a carried one ({@link #conversationEnter}) of {@code session}. */
    public static boolean carriesConversation(String session) {
        Object current = SCOPE.get()[CONVERSATION_SLOT];
        return current instanceof HandlerScope.Frame && session != null && session.equals(((HandlerScope.Frame) current).session);
    }

    /**
     * The first source of the zip that runs an MCP server tool handler's {@code Mono} in the call's conversation
     * ({@link HandlerScope}): sets {@code session} on the subscribing thread; {@link HandlerScope#EXIT} puts back what it found.
     */
    public static java.util.concurrent.Callable<Object> handlerEnter(String session) {
        return new HandlerScope(session);
    }

    /** Sets this thread's tool table (framework object: a map or list of executors) and returns the previous one. */
    public static Object swapTools(Object tools) {
        Object[] scope = SCOPE.get();
        Object previous = scope[1];
        scope[1] = tools;
        return previous;
    }

    /** The tool table a framework put here, for redirects; null if none. */
    public static Object tools() {
        return SCOPE.get()[1];
    }

    /**
     * Sets this thread's round (a framework object: the model's tool requests the framework is running now, one after
     * another, and how far it got) and returns the previous one, to restore on exit.
     */
    public static Object swapRound(Object round) {
        Object[] scope = SCOPE.get();
        Object previous = scope[3];
        scope[3] = round;
        return previous;
    }

    /** The round a framework put here ({@link #swapRound}); null if none. */
    public static Object round() {
        return SCOPE.get()[3];
    }

    // ---- IMMEDIATE tool results checked as answers ----

    /**
     * Marks the tool the calling thread runs next as one whose result is the turn's answer, checked as ASSISTANT of
     * {@code framework} (a streaming handler that knows a tool's return behaviour better than the tool service does);
     * taken by the tool service's advice with {@link #takeImmediateMark()}. Null clears it.
     */
    public static void markImmediate(String framework) {
        SCOPE.get()[7] = framework;
    }

    /** The mark {@link #markImmediate} left on this thread, cleared; null if none. */
    public static String takeImmediateMark() {
        Object[] scope = SCOPE.get();
        Object mark = scope[7];
        if (mark != null) {
            scope[7] = null;
        }
        return (String) mark;
    }

    /**
     * Sets the tool context (a framework object: which tools the running AI service tool loop has, and how each returns)
     * of this thread and returns the previous one, to restore on exit.
     */
    public static Object swapToolContext(Object context) {
        Object[] scope = SCOPE.get();
        Object previous = scope[8];
        scope[8] = context;
        return previous;
    }

    /** The tool context a framework's tool loop put here ({@link #swapToolContext}); null if none. */
    public static Object toolContext() {
        return SCOPE.get()[8];
    }

    /**
     * The pending marks and answer decisions below are kept by identity in fixed tables of 64 slots: a slot is free again
     * once its entry is taken, and a new entry takes a free slot; only when all 64 hold entries not yet taken is the oldest
     * one given up. Before (session 17 review), each table was a ring that overwrote its next slot, taken or not, so an
     * entry still waiting was lost after 64 more were noted by any thread, even with only one or two waiting at a time (a
     * listener's ToolExecutedEvent then got an immediate tool's result unchecked). {@code live} counts the entries held, so
     * that a look-up with none held is one volatile read.
     */
    private static int slotFor(Object[] keys, long[] ages) {
        int oldest = 0;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == null) {
                return i;
            }
            if (ages[i] < ages[oldest]) {
                oldest = i;
            }
        }
        return oldest;
    }

    private static final Object[] IMMEDIATE_REQUESTS = new Object[64];
    private static final long[] IMMEDIATE_AGES = new long[64];
    private static long immediateNoted;
    private static volatile int immediateLive;

    /**
     * Marks a tool request (a framework object, by identity) as one whose result is the turn's answer, where only the
     * tool loop knows it (a tool provider's immediate tool) and the thread that runs the tool may be another (tools run
     * concurrently); {@link #takeImmediateRequest} finds it there. 64 marks not yet taken are kept; past that the oldest
     * is given up.
     */
    public static void markImmediateRequest(Object request) {
        if (request == null) {
            return;
        }
        synchronized (IMMEDIATE_REQUESTS) {
            int slot = slotFor(IMMEDIATE_REQUESTS, IMMEDIATE_AGES);
            if (IMMEDIATE_REQUESTS[slot] == null) {
                immediateLive++;
            }
            IMMEDIATE_REQUESTS[slot] = request;
            IMMEDIATE_AGES[slot] = ++immediateNoted;
        }
    }

    /** Whether {@code request} was marked by {@link #markImmediateRequest}; forgets it. One volatile read while no mark is held. */
    public static boolean takeImmediateRequest(Object request) {
        if (immediateLive == 0 || request == null) {
            return false;
        }
        synchronized (IMMEDIATE_REQUESTS) {
            for (int i = 0; i < IMMEDIATE_REQUESTS.length; i++) {
                if (IMMEDIATE_REQUESTS[i] == request) {
                    IMMEDIATE_REQUESTS[i] = null;
                    immediateLive--;
                    return true;
                }
            }
        }
        return false;
    }

    /** {@link #checkedAnswer}'s answer for a result checked and left as it was. */
    public static final String KEPT = new String("(kept)");

    private static final int CHECKED_SLOTS = 64;
    private static final Object[] CHECKED_KEYS = new Object[CHECKED_SLOTS];
    private static final String[] CHECKED_TEXTS = new String[CHECKED_SLOTS];
    private static final boolean[] CHECKED_BY_EVENT = new boolean[CHECKED_SLOTS];
    private static final long[] CHECKED_AGES = new long[CHECKED_SLOTS];
    private static long checkedNoted;
    private static volatile int checkedLive;

    /**
     * Notes that the result of the tool request {@code request} (a framework object, by identity) was checked as an
     * answer as the tool ended, and what the check left: {@code replacement}, or null when it kept the text. What the
     * framework hands on of that result later (a listener's event, the AI service's return) takes the same decision
     * instead of a second check. {@code lastUseIsTheEvent}: nothing takes it after the listeners' event (a stream's), so
     * {@link #checkedAnswerForEvent} forgets it; else the AI service's return takes it ({@link #checkedAnswer}). 64
     * decisions not yet taken are kept; past that the oldest is given up.
     */
    public static void answerChecked(Object request, String replacement, boolean lastUseIsTheEvent) {
        if (request == null) {
            return;
        }
        synchronized (CHECKED_KEYS) {
            int slot = slotFor(CHECKED_KEYS, CHECKED_AGES);
            if (CHECKED_KEYS[slot] == null) {
                checkedLive++;
            }
            CHECKED_KEYS[slot] = request;
            CHECKED_TEXTS[slot] = replacement == null ? KEPT : replacement;
            CHECKED_BY_EVENT[slot] = lastUseIsTheEvent;
            CHECKED_AGES[slot] = ++checkedNoted;
        }
    }

    /**
     * What {@link #answerChecked} noted for {@code request}: the replacement, {@link #KEPT} (compare by identity), or
     * null when its result was not checked; {@code take} forgets it. One volatile read while no decision is held.
     */
    public static String checkedAnswer(Object request, boolean take) {
        return checkedAnswer(request, take, false);
    }

    /**
     * {@link #checkedAnswer} for the listeners' event of the tool's result: forgets a decision whose last use that event
     * is ({@link #answerChecked}'s {@code lastUseIsTheEvent}).
     */
    public static String checkedAnswerForEvent(Object request) {
        return checkedAnswer(request, false, true);
    }

    /** Whether any decision {@link #answerChecked} noted is held (not yet taken); one volatile read. */
    public static boolean anyCheckedAnswer() {
        return checkedLive != 0;
    }

    private static String checkedAnswer(Object request, boolean take, boolean event) {
        if (checkedLive == 0 || request == null) {
            return null;
        }
        synchronized (CHECKED_KEYS) {
            for (int i = 0; i < CHECKED_SLOTS; i++) {
                if (CHECKED_KEYS[i] == request) {
                    String text = CHECKED_TEXTS[i];
                    if (take || event && CHECKED_BY_EVENT[i]) {
                        CHECKED_KEYS[i] = null;
                        CHECKED_TEXTS[i] = null;
                        checkedLive--;
                    }
                    return text;
                }
            }
        }
        return null;
    }

    // ---- events ----

    public static Ruling onToolCall(String framework, String session, String tool, String argumentsJson, String callId) {
        DispatchTarget t = target;
        if (t == null) {
            return null;
        }
        try {
            return t.onToolCall(framework, session, tool, argumentsJson, callId);
        } catch (Throwable e) {
            return internalError(t, "tool call " + tool, e);
        }
    }

    public static String onToolResult(String framework, String session, String tool, String callId, String resultText, boolean error) {
        DispatchTarget t = target;
        if (t == null) {
            return null;
        }
        try {
            return t.onToolResult(framework, session, tool, callId, resultText, error);
        } catch (Throwable e) {
            Ruling r = internalError(t, "tool result " + tool, e);
            return r == null ? null : r.text;
        }
    }

    public static Object onToolResultObject(String framework, String session, String tool, String callId, Object result) {
        DispatchTarget t = target;
        if (t == null) {
            return result;
        }
        try {
            Object replacement = t.onToolResultObject(framework, session, tool, callId, result);
            return replacement == null ? result : replacement;
        } catch (Throwable e) {
            internalError(t, "tool result " + tool, e);
            return result;
        }
    }

    /**
     * A supervised tool call ended by throwing {@code thrown} where nothing lets tracegate withhold what the exception
     * says (the host gets it, no model reads it): reported as its RETURN with {@code error} set and {@link #thrownText}
     * as its text, so later contracts see the failure; what the supervisor would hand the model instead is dropped (a
     * suppression is logged and applied to the session as for any result, but the host's exception goes on). Never
     * throws: the host's exception must reach the host unchanged.
     */
    public static void onToolThrown(String framework, String session, String tool, String callId, Throwable thrown) {
        DispatchTarget t = target;
        if (t == null) {
            return;
        }
        try {
            t.onToolThrown(framework, session, tool, callId, thrownText(thrown));
        } catch (Throwable e) {
            internalError(t, "tool result " + tool, e);
        }
    }

    /**
     * The text of an error RETURN for a tool that threw {@code thrown}: its class and message ("java.io.IOException:
     * disk full"), as configured methods report theirs; the class alone when it has no message.
     */
    public static String thrownText(Throwable thrown) {
        if (thrown == null) {
            return "null";
        }
        String message = thrown.getMessage();
        return message == null ? thrown.getClass().getName() : thrown.getClass().getName() + ": " + message;
    }

    /**
     * The text a result that is exactly one JSON string encodes ({@code "\"flights ZRH-LIS\""} gives
     * {@code flights ZRH-LIS}), or null when {@code json} is anything else (an object, a list, a number, bare text, a string
     * followed by more, an escape JSON does not have). Spring AI's default tool result converter sends a {@code String}
     * result that is not JSON to the model as such a string; its RETURN is judged and recorded as the text it encodes.
     */
    public static String jsonStringText(String json) {
        int end = json == null ? 0 : json.length() - 1;
        if (end < 1 || json.charAt(0) != '"' || json.charAt(end) != '"') {
            return null;
        }
        StringBuilder out = null;
        for (int i = 1; i < end; i++) {
            char c = json.charAt(i);
            if (c == '"' || c < 0x20) {
                return null;   // an unescaped quote ends the string before the end; control characters must be escaped
            }
            if (c != '\\') {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(end).append(json, 1, i);
            }
            if (++i >= end) {
                return null;   // the closing quote escaped: not a complete string
            }
            char e = json.charAt(i);
            switch (e) {
                case '"': case '\\': case '/': out.append(e); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (i + 4 >= end) {
                        return null;
                    }
                    int code = 0;
                    for (int k = 1; k <= 4; k++) {
                        char h = json.charAt(i + k);
                        // ASCII hex digits only: Character.digit also reads full-width and other scripts' digits
                        int digit = h > 'f' ? -1 : Character.digit(h, 16);
                        if (digit < 0) {
                            return null;
                        }
                        code = code * 16 + digit;
                    }
                    out.append((char) code);
                    i += 4;
                    break;
                default:
                    return null;
            }
        }
        return out == null ? json.substring(1, end) : out.toString();
    }

    /**
     * The MCP SDK's error for a call of a tool its server does not have ({@code Unknown tool: invalid_tool_name}, code -32602,
     * in the 1.x and 2.x lines): the advice turns it into the refusal of a redirect to such a tool.
     */
    public static final java.util.function.Predicate<Throwable> UNKNOWN_TOOL =
            t -> t != null && t.getMessage() != null && t.getMessage().startsWith("Unknown tool");

    /**
     * A function for reactive errors ({@code mono.onErrorMap(Dispatcher.errorHook(...))}) that reports the error as the
     * tool's error RETURN and passes on the same throwable, or, when a contract withholds that result, a
     * {@link TracegateViolation} whose message is the withheld notice.
     */
    public static java.util.function.Function<Throwable, Throwable> errorHook(String framework, String session, String tool, String callId) {
        return new ErrorHook(framework, session, tool, callId);
    }

    /** A function for reactive results ({@code mono.map(Dispatcher.resultHook(...))}) that reports the result. */
    public static java.util.function.Function<Object, Object> resultHook(String framework, String session, String tool, String callId) {
        return new ResultHook(framework, session, tool, callId);
    }

    public static String onUserMessage(String framework, String session, String text) {
        DispatchTarget t = target;
        if (t == null || text == null) {
            return null;
        }
        try {
            return t.onUserMessage(framework, session, text);
        } catch (Throwable e) {
            Ruling r = internalError(t, "user message", e);
            return r == null ? null : r.text;
        }
    }

    /** May throw {@link TracegateViolation}: call it from exit advice, which lets it through to the host. */
    public static String onAssistantMessage(String framework, String session, String text) {
        DispatchTarget t = target;
        if (t == null || text == null) {
            return null;
        }
        try {
            return t.onAssistantMessage(framework, session, text);
        } catch (TracegateViolation v) {
            throw v;
        } catch (Throwable e) {
            Ruling r = internalError(t, "assistant message", e);
            if (r != null) {
                throw r.violation();
            }
            return null;
        }
    }

    /** Registers how {@code framework}'s streamed answer chunks read (by the instrumentation that checks them). */
    public static void installChunks(String framework, AnswerChunks chunks) {
        CHUNKS.put(framework, chunks);
    }

    /**
     * A check of one streamed answer of {@code session} (see {@link StreamCheck} for how advice wires it into the
     * stream), or null when there is nothing to check with: no agent core installed, or no chunk reader for the framework.
     */
    public static StreamCheck streamCheck(String framework, String session) {
        return streamCheck(framework, session, null);
    }

    /**
     * As {@link #streamCheck(String, String)}, for a stream made for {@code request}: a model call for the same request
     * while the stream is subscribed is nested in it ({@link StreamCheck#answering}).
     */
    public static StreamCheck streamCheck(String framework, String session, Object request) {
        AnswerChunks chunks = CHUNKS.get(framework);
        return target == null || chunks == null ? null : new StreamCheck(framework, session, chunks, request);
    }

    /**
     * For a configured method entered while another supervised call runs on this thread ({@link #enter()} said
     * false): whether it is supervised all the same. False when no agent is installed or the question fails
     * (counted as an internal error: the nested call then runs as a nested call always did).
     */
    public static boolean supervisesNested(String origin) {
        DispatchTarget t = target;
        if (t == null || DEPTH.get()[0] >= OWN) {
            return false;
        }
        try {
            return t.supervisesNested(origin);
        } catch (Throwable e) {
            INTERNAL_ERRORS.incrementAndGet();
            return false;
        }
    }

    /**
     * What a refused call of a configured method that declares {@code CompletableFuture}, {@code CompletionStage} or
     * {@code Future} returns instead of throwing: a future already completed with the refusal text when {@code refusal}
     * is a substitute and the method's future can hold text ({@link DispatchTarget#futureTakesText}), else one already
     * failed with {@link TracegateViolation}. So the caller's {@code exceptionally}, {@code handle} or {@code get()} sees
     * the refusal where it sees the method's own failures, as it sees a withheld value (trial30 03). Never throws.
     */
    public static Object refusedFuture(String origin, Ruling refusal) {
        boolean text = false;
        DispatchTarget t = target;
        if (t != null && refusal.kind == Ruling.SUBSTITUTE) {
            try {
                Object value = t.refusedValue(origin, null, refusal);   // a future of a Map: the refusal under "error"
                if (value instanceof java.util.concurrent.CompletableFuture) return value;
                text = t.futureTakesText(origin);
            } catch (Throwable e) {
                INTERNAL_ERRORS.incrementAndGet();   // the future fails: the refusal is delivered all the same
            }
        }
        return text ? java.util.concurrent.CompletableFuture.completedFuture(refusal.text)
                : java.util.concurrent.CompletableFuture.failedFuture(refusal.violation());
    }

    /**
     * What a refused call of a configured method that declares neither {@code String} nor a future returns instead of
     * throwing ({@link DispatchTarget#refusedValue}): a {@code Map} holding the refusal, a {@code Mono}, {@code Single} or
     * {@code Maybe} that emits it or fails with it; null when its result has no place for it (the advice throws). Never throws.
     */
    public static Object refusedValue(String origin, Class<?> owner, Ruling refusal) {
        DispatchTarget t = target;
        if (t == null) return null;
        try {
            return t.refusedValue(origin, owner, refusal);
        } catch (Throwable e) {
            INTERNAL_ERRORS.incrementAndGet();   // the advice throws the refusal: it is delivered all the same
            return null;
        }
    }

    /** A configured method is called; {@code callId} is the invocation's own ({@link #newCallId}), its RETURN carries it too. */
    public static Ruling onMethodCall(String origin, Object[] arguments, String callId) {
        return onMethodCall(origin, null, arguments, callId);
    }

    /**
     * A configured method is called on {@code receiver} (the object it is called on; null for a static method), which an
     * entry's {@code this} reads ({@code args-param: this}, {@code session-param: this.conversation.id}).
     */
    public static Ruling onMethodCall(String origin, Object receiver, Object[] arguments, String callId) {
        DispatchTarget t = target;
        if (t == null) {
            return null;
        }
        try {
            return t.onMethodCall(origin, receiver, arguments, callId);
        } catch (Throwable e) {
            // fail: open lets the call through unsupervised: the advice then reports no RETURN for it (no CALL was seen)
            Ruling refusal = internalError(t, origin, e);
            return refusal != null ? refusal : Ruling.LET_THROUGH;
        }
    }

    public static Object onMethodResult(String origin, Object[] arguments, Object result, String callId) {
        return onMethodResult(origin, null, arguments, result, callId);
    }

    /** As {@link #onMethodCall(String, Object, Object[], String)}, for the call {@code tg-callNumber} ({@link #newCallNumber}). */
    public static Ruling onMethodCall(String origin, Object receiver, Object[] arguments, long callNumber) {
        DispatchTarget t = target;
        if (t == null) {
            return null;
        }
        try {
            return t.onMethodCall(origin, receiver, arguments, callNumber);
        } catch (Throwable e) {
            Ruling refusal = internalError(t, origin, e);   // as the String id's: fail: open lets the call through unsupervised
            return refusal != null ? refusal : Ruling.LET_THROUGH;
        }
    }

    /** As {@link #onMethodResult(String, Object, Object[], Object, String)}, for the call {@code tg-callNumber}. */
    public static Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, long callNumber) {
        DispatchTarget t = target;
        if (t == null) {
            return null;
        }
        try {
            return t.onMethodResult(origin, receiver, arguments, result, callNumber);
        } catch (Throwable e) {
            Ruling r = internalError(t, origin, e);
            return r == null ? null : r.text;
        }
    }

    /** As {@link #onMethodThrown(String, Object, Object[], Throwable, String)}, for the call {@code tg-callNumber}. */
    public static void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, long callNumber) {
        DispatchTarget t = target;
        if (t == null) {
            return;
        }
        try {
            t.onMethodThrown(origin, receiver, arguments, thrown, callNumber);
        } catch (Throwable e) {
            internalError(t, origin, e);
        }
    }

    /** The result of a configured method called on {@code receiver} (null: a static method). */
    public static Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
        DispatchTarget t = target;
        if (t == null) {
            return null;
        }
        try {
            return t.onMethodResult(origin, receiver, arguments, result, callId);
        } catch (Throwable e) {
            // fail: closed withholds a result that could not be checked, as a contract withholds one (the advice throws
            // TracegateViolation from a method that does not return String); fail: open lets it through
            Ruling r = internalError(t, origin, e);
            return r == null ? null : r.text;
        }
    }

    // ---- Kotlin suspend functions (configured methods whose last parameter is a kotlin.coroutines.Continuation) ----

    /**
     * The {@code int label} field of a class the Kotlin compiler generated for a suspend function's state machine (its
     * continuation), or null for any other class (or one whose field cannot be read).
     */
    private static final ClassValue<java.lang.reflect.Field> LABEL = new ClassValue<java.lang.reflect.Field>() {
        @Override
        protected java.lang.reflect.Field computeValue(Class<?> type) {
            try {
                java.lang.reflect.Field f = type.getDeclaredField("label");
                if (f.getType() != int.class || java.lang.reflect.Modifier.isStatic(f.getModifiers())) return null;
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException | RuntimeException | LinkageError e) {
                return null;
            }
        }
    };

    /**
     * Whether {@code continuation}, the last argument of a configured suspend method, says that this invocation resumes a
     * call that suspended before: the compiler's state machine re-enters its function as {@code f(null, ..., itsOwn)} with
     * the sign bit of its continuation's {@code label} set (and clears it first thing), which a caller's continuation never
     * has when it calls. Such a re-entry is no call: the call's value is checked when it reaches the caller. One class-value
     * look-up and one field read per suspend call; no allocation.
     */
    public static boolean resumed(Object continuation) {
        if (continuation == null) return false;
        java.lang.reflect.Field label = LABEL.get(continuation.getClass());
        if (label == null) return false;
        try {
            return (label.getInt(continuation) & Integer.MIN_VALUE) != 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** Whether a suspend method's return value is Kotlin's {@code COROUTINE_SUSPENDED} marker (its value comes later). */
    public static boolean suspended(Object result) {
        return result instanceof Enum<?> && "COROUTINE_SUSPENDED".equals(((Enum<?>) result).name())
                && "kotlin.coroutines.intrinsics.CoroutineSingletons".equals(result.getClass().getName());
    }

    /** The first entry of a configured suspend method of class {@code owner} ({@link DispatchTarget#onSuspendCall}). */
    public static Ruling onSuspendCall(String origin, Class<?> owner, Object[] arguments, String callId) {
        return onSuspendCall(origin, owner, null, arguments, callId);
    }

    /** As above, of a suspend method called on {@code receiver} (null: a static one). */
    public static Ruling onSuspendCall(String origin, Class<?> owner, Object receiver, Object[] arguments, String callId) {
        DispatchTarget t = target;
        if (t == null) {
            return null;
        }
        try {
            return t.onSuspendCall(origin, owner, receiver, arguments, callId);
        } catch (Throwable e) {
            Ruling refusal = internalError(t, origin, e);
            return refusal != null ? refusal : Ruling.LET_THROUGH;
        }
    }

    /**
     * What the caller of a configured suspend method that returned {@code result} without suspending gets: the value, the
     * notice that withholds it (a String function), or a {@link TracegateViolation} the advice throws. Never throws.
     */
    public static Object onSuspendResult(String origin, Object[] arguments, Object result, String callId) {
        return onSuspendResult(origin, null, arguments, result, callId);
    }

    /** As above, of a suspend method called on {@code receiver} (null: a static one). */
    public static Object onSuspendResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
        DispatchTarget t = target;
        if (t == null) {
            return result;
        }
        try {
            return t.onSuspendResult(origin, receiver, arguments, result, callId);
        } catch (Throwable e) {
            Ruling r = internalError(t, origin, e);
            return r == null ? result : r.violation();
        }
    }

    /**
     * What a refused call of a configured suspend method gives its caller: the refusal text as the function's value when
     * the refusal is a substitute and the function returns {@code String} ({@link DispatchTarget#futureTakesText}), else
     * the {@link TracegateViolation} the advice throws into the coroutine. Never throws.
     */
    public static Object refusedSuspend(String origin, Ruling refusal) {
        DispatchTarget t = target;
        if (t != null && refusal.kind == Ruling.SUBSTITUTE) {
            try {
                if (t.futureTakesText(origin)) return refusal.text;
            } catch (Throwable e) {
                INTERNAL_ERRORS.incrementAndGet();   // thrown instead: the refusal is delivered all the same
            }
        }
        return refusal.violation();
    }

    /**
     * A configured method ended by throwing: reported as its RETURN with {@code error} set. Never
     * throws: the host's exception must reach the host unchanged, so a failure here is counted and
     * mapped to the failure policy, whose ruling has nothing left to refuse (the call already failed).
     */
    public static void onMethodThrown(String origin, Object[] arguments, Throwable thrown, String callId) {
        onMethodThrown(origin, null, arguments, thrown, callId);
    }

    /** As above, of a method called on {@code receiver} (null: a static method). */
    public static void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, String callId) {
        DispatchTarget t = target;
        if (t == null) {
            return;
        }
        try {
            t.onMethodThrown(origin, receiver, arguments, thrown, callId);
        } catch (Throwable e) {
            internalError(t, origin, e);
        }
    }

    // ---- JSON through the agent's (shaded) Jackson, JDK values only ----

    public static String toJson(Object value) {
        DispatchTarget t = target;
        if (t == null) {
            return String.valueOf(value);
        }
        try {
            return t.toJson(value);
        } catch (Throwable e) {
            INTERNAL_ERRORS.incrementAndGet();
            return String.valueOf(value);
        }
    }

    public static Object fromJson(String json) {
        DispatchTarget t = target;
        if (t == null) {
            return json;
        }
        try {
            return t.fromJson(json);
        } catch (Throwable e) {
            INTERNAL_ERRORS.incrementAndGet();
            return json;
        }
    }

    /**
     * An MCP {@code tools/call} params map rewritten by a REWRITE or REDIRECT ruling: the new
     * arguments, and for a redirect the new tool name. Shared by the MCP server advices.
     */
    public static java.util.Map<Object, Object> rewriteToolCall(java.util.Map<?, ?> params, Ruling ruling) {
        java.util.Map<Object, Object> rewritten = new java.util.LinkedHashMap<Object, Object>(params);
        rewritten.put("arguments", fromJson(ruling.arguments));
        if (ruling.kind == Ruling.REDIRECT) {
            rewritten.put("name", ruling.tool);
        }
        return rewritten;
    }

    /**
     * Inlined advice failed in its own code, outside this dispatcher (reading the framework's objects, a cast, a call
     * it makes for a redirect): counted as an internal error and mapped to the failure policy like one, so the event
     * is refused ({@code fail: closed}: the ruling returned, as for any internal error) or passes unsupervised
     * ({@code fail: open}: null). {@code decided} is the supervisor's ruling the advice was carrying out when it failed
     * (a redirect, a redaction), else null: a call whose ruling could not be carried out is refused under either
     * policy, since running it as it was would do what the supervisor refused. A failure seen before (same framework,
     * place and error class) is counted again but need not be logged again ({@link DispatchTarget#onAdviceFailure}).
     * Never throws.
     */
    public static Ruling adviceFailed(String framework, String where, Throwable error, Ruling decided) {
        INTERNAL_ERRORS.incrementAndGet();
        DispatchTarget t = target;
        Ruling refusal = null;
        if (t != null) {
            String place = framework + " " + where;
            boolean repeated = FAILURES_SEEN.size() >= MAX_FAILURES_REMEMBERED
                    || FAILURES_SEEN.putIfAbsent(place + ": " + (error == null ? "?" : error.getClass().getName()), Boolean.TRUE) != null;
            try {
                refusal = t.onAdviceFailure(place, error, repeated);
            } catch (Throwable ignored) {
                refusal = null;   // the policy could not be asked: fall back below as for fail: open
            }
        }
        if (refusal != null || decided == null) {
            return refusal;
        }
        if (decided.skips()) {
            return decided;
        }
        return Ruling.substitute(decided.text != null ? decided.text
                : "tracegate could not apply its decision on this call (" + framework + " " + where + "); the call did not run.");
    }

    /** Whether an MCP server's call advice has supervised a tool call in this JVM ({@link #mcpClientCallInDefault}). */
    private static volatile boolean mcpServing;

    /** The MCP client tools {@link #mcpClientCallInDefault} has warned about (at most {@link #MAX_FAILURES_REMEMBERED}). */
    private static final java.util.concurrent.ConcurrentHashMap<String, Boolean> MCP_DEFAULT_WARNED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Notes that this JVM serves MCP tool calls the agent supervises: one volatile read per call after the first. */
    public static void mcpServing() {
        if (!mcpServing) {
            mcpServing = true;
        }
    }

    /**
     * An MCP client call of {@code tool} goes to session {@code default}: made on a thread with no conversation and no MCP
     * server tool handler's session. In a JVM that also serves MCP tools, that is what a handler's call made on a thread
     * of the application's own (an executor, a {@code CompletableFuture}, an HTTP client's event loop) looks like, where
     * every connection's such calls count together: said once per tool (WARN), with the fix, not silently.
     */
    public static void mcpClientCallInDefault(String tool) {
        if (!mcpServing || MCP_DEFAULT_WARNED.size() >= MAX_FAILURES_REMEMBERED || MCP_DEFAULT_WARNED.putIfAbsent(String.valueOf(tool), Boolean.TRUE) != null) {
            return;
        }
        DispatchTarget t = target;
        if (t == null) {
            return;
        }
        try {
            t.onWarning("mcp-client call of " + tool + " is supervised in session default: it was made on a thread with no"
                    + " conversation and no MCP server tool handler's session, and this JVM serves MCP tools. If a server tool"
                    + " handler made it on a thread Reactor does not schedule (the application's own executor,"
                    + " CompletableFuture.supplyAsync, an HTTP client's event loop), the agent cannot tell whose call it is, and such"
                    + " calls of every connection count together in default. Make the call where the handler's session reaches:"
                    + " in the handler's body or its Mono, on a Reactor scheduler (Mono.fromCallable(() -> client.callTool(request))"
                    + ".subscribeOn(Schedulers.fromExecutor(executor)) in place of CompletableFuture.supplyAsync(..., executor));"
                    + " agent/README.md, \"MCP client calls in a server's tool handler\". Said once per tool.");
        } catch (Throwable ignored) {
            // a warning that cannot be written changes nothing about the call
        }
    }

    /** An internal error outside a delegate call (a stream check's chunk reader): counted and mapped to the failure policy. */
    static Ruling internalError(String where, Throwable e) {
        DispatchTarget t = target;
        if (t == null) {
            INTERNAL_ERRORS.incrementAndGet();
            return null;
        }
        return internalError(t, where, e);
    }

    private static Ruling internalError(DispatchTarget t, String where, Throwable e) {
        INTERNAL_ERRORS.incrementAndGet();
        try {
            return t.onInternalError(where, e);
        } catch (Throwable ignored) {
            return null;
        }
    }
}
