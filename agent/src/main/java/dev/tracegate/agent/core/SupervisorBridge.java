package dev.tracegate.agent.core;

import dev.tracegate.agent.bootstrap.DispatchTarget;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import dev.tracegate.agent.instrumentation.configured.ConfiguredMethods;
import dev.tracegate.matchers.event.Args;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Turns the dispatcher's JDK-typed hooks into {@link Supervisor} calls and the supervisor's decisions
 * into what the advice enforces, applying the agent-wide options: shadow mode (decide and log, change
 * nothing), how a block reaches the host ({@code onBlock=substitute|throw}), the failure policy
 * ({@code fail=closed|open}), and deduplication of a call seen twice by its tool-call id.
 *
 * <p>Thread-safe; called from any host thread.
 */
public final class SupervisorBridge implements DispatchTarget {

    /** Counter slots, see {@link #counts()}: what the bridge itself did (events are counted by the supervisor's metrics). */
    public static final int BLOCKED = 0, REDIRECTED = 1, REDACTED = 2, SUPPRESSED = 3, SHADOWED = 4, DUPLICATES = 5, INTERNAL_ERRORS = 6;

    private static final int RECENT_IDS = 4096;

    private final Supervisor supervisor;
    private final boolean shadow;
    private final boolean throwOnBlock;
    private final boolean failClosed;
    private final boolean trace;
    /** Whether a decision that changes something prints its line ({@code stderr.decisions}, default true). */
    private final boolean decisionLines;
    /** The configuration key (and bridge option) that turns the decision lines off. */
    static final String DECISION_LINES = "stderr.decisions";
    private final JsonCodec json;
    private final ConfiguredMethods configured;
    private final AtomicLongArray counts;

    /** Recent tool-call ids and the instrumentation that saw each first. */
    private final ConcurrentHashMap<String, String> recentIds;
    private final String[] recentRing;
    private final AtomicLong recentNext;

    public SupervisorBridge(Supervisor supervisor, AgentArguments options, JsonCodec json, ConfiguredMethods configured) {
        this.supervisor = supervisor;
        this.shadow = options.flag("shadow", false);
        String onBlock = options.get("onBlock", "substitute");
        if (!onBlock.equals("substitute") && !onBlock.equals("throw")) {
            throw new IllegalArgumentException("tracegate: option onBlock=" + onBlock + " is unknown; use onBlock=substitute (the model gets"
                    + " an error result naming the contract) or onBlock=throw (the host gets a TracegateViolation)");
        }
        this.throwOnBlock = onBlock.equals("throw");
        String fail = options.get("fail", "closed");
        if (!fail.equals("closed") && !fail.equals("open")) {
            throw new IllegalArgumentException("tracegate: option fail=" + fail + " is unknown; use fail=closed or fail=open");
        }
        this.failClosed = fail.equals("closed");
        this.trace = options.flag("trace", false);
        this.decisionLines = options.flag(DECISION_LINES, true);
        this.json = json;
        this.configured = configured;
        this.counts = new AtomicLongArray(INTERNAL_ERRORS + 1);
        this.recentIds = new ConcurrentHashMap<>();
        this.recentRing = new String[RECENT_IDS];
        this.recentNext = new AtomicLong();
    }

    public Supervisor supervisor() {
        return supervisor;
    }

    /** Counters by slot (BLOCKED, ...): a snapshot for tests and metrics. */
    public long[] counts() {
        long[] snapshot = new long[counts.length()];
        for (int i = 0; i < snapshot.length; i++) {
            snapshot[i] = counts.get(i);
        }
        return snapshot;
    }

    @Override
    public Ruling onToolCall(String framework, String session, String tool, String argumentsJson, String callId) {
        return onToolCall(framework, session, tool, argumentsJson, callId, true);
    }

    /** True when another hook already supervised this call id (it is then counted as a duplicate). */
    private boolean duplicate(String framework, String tool, String callId) {
        // a generated id is one invocation's own: no other hook sees the call by it (and no map work per call)
        if (callId == null || Dispatcher.generatedId(callId) || !seenByAnother(framework, callId)) return false;
        counts.incrementAndGet(DUPLICATES);
        AgentLog.debug("CALL " + framework + " tool=" + AgentLog.field(tool) + " id=" + callId + " seen before: not supervised twice");
        return true;
    }

    /**
     * A tool call whose arguments are already a tree (a configured method's Java values, converted without JSON
     * text in between); otherwise as {@link #onToolCall(String, String, String, String, String)}.
     */
    public Ruling onToolCall(String framework, String session, String tool, Args arguments, String callId) {
        return onToolCall(framework, session, tool, arguments, callId, true);
    }

    /**
     * As {@link #onToolCall(String, String, String, Args, String)}; {@code textResult} false for a method that cannot
     * return the substitute text of a block (it does not return {@code String}): its block throws whatever
     * {@code block.style} says, and the stderr line says so.
     */
    public Ruling onToolCall(String framework, String session, String tool, Args arguments, String callId, boolean textResult) {
        return onToolCall(framework, session, tool, arguments, callId, textResult, CallReach.FULL);
    }

    /** As above, from a call site that can carry out only what {@code reach} says (a configured method: no redirect, no primitive removed). */
    public Ruling onToolCall(String framework, String session, String tool, Args arguments, String callId, boolean textResult, CallReach reach) {
        if (duplicate(framework, tool, callId)) return null;
        session = Applications.session(session);
        // field by field: the ToolCall is made only when the decision acts or the trace asks (a passed call makes none)
        ToolDecision decision = supervisor.onToolCall(framework, session, tool, callId, arguments, reach);
        if (proceeds(decision)) {
            if (trace) traceProceed(new ToolCall(framework, session, tool, null, callId, arguments, reach));
            return null;
        }
        return enforce(new ToolCall(framework, session, tool, null, callId, arguments, reach), decision, textResult);
    }

    /**
     * As above, for a call whose id the agent generated ({@code tg-callNumber}, {@link Dispatcher#newCallNumber}): the
     * number goes to the supervisor as it is, and its text is made only for a decision that acts or the trace (a passed
     * call makes none: 88 B, session 24). A generated id is the invocation's own, so no other hook saw it (no duplicate).
     */
    public Ruling onToolCall(String framework, String session, String tool, Args arguments, long callNumber, boolean textResult, CallReach reach) {
        session = Applications.session(session);
        ToolDecision decision = supervisor.onToolCall(framework, session, tool, callNumber, arguments, reach);
        if (proceeds(decision)) {
            if (trace) traceProceed(new ToolCall(framework, session, tool, null, Dispatcher.callId(callNumber), arguments, reach));
            return null;
        }
        return enforce(new ToolCall(framework, session, tool, null, Dispatcher.callId(callNumber), arguments, reach), decision, textResult);
    }

    /** As {@link #onToolCall(String, String, String, String, String)}, for a method that may not return text (see above). */
    public Ruling onToolCall(String framework, String session, String tool, String argumentsJson, String callId, boolean textResult) {
        return onToolCall(framework, session, tool, argumentsJson, callId, textResult, CallReach.FULL);
    }

    /** As above, from a call site that can carry out only what {@code reach} says. */
    public Ruling onToolCall(String framework, String session, String tool, String argumentsJson, String callId, boolean textResult, CallReach reach) {
        if (duplicate(framework, tool, callId)) return null;
        return decide(new ToolCall(framework, Applications.session(session), tool, argumentsJson == null || argumentsJson.isBlank() ? "{}" : argumentsJson, callId,
                null, reach), textResult);
    }

    private Ruling decide(ToolCall call, boolean textResult) {
        ToolDecision decision = supervisor.onToolCall(call);
        if (proceeds(decision)) {
            if (trace) traceProceed(call);
            return null;
        }
        return enforce(call, decision, textResult);
    }

    /** Whether the call runs as it is. */
    private static boolean proceeds(ToolDecision decision) {
        // the shared PROCEED by reference first: reading its kind walks to the page it was made on at start-up (session 19)
        return decision == null || decision == ToolDecision.proceed() || decision.kind() == ToolDecision.Kind.PROCEED;
    }

    private static void traceProceed(ToolCall call) {
        AgentLog.info("CALL " + call.framework() + " session=" + AgentLog.field(call.session()) + " tool=" + AgentLog.field(call.tool()) + " args="
                + call.argumentsJson() + " -> PROCEED");
    }

    /** The rare path: a decision that acts. Kept apart so the pass-through path stays small. */
    Ruling enforce(ToolCall call, ToolDecision decision) {
        return enforce(call, decision, true);
    }

    /** As above; {@code textResult} false: the call site cannot return a substitute text, so a block throws. */
    Ruling enforce(ToolCall call, ToolDecision decision, boolean textResult) {
        boolean throwing = throwOnBlock || !textResult;
        String prefix = !decisionLines ? null : (shadow ? "SHADOW would " : "") + decision.kind() + " " + call.framework() + " session=" + AgentLog.field(call.session())
                + " tool=" + AgentLog.field(call.tool()) + " contract=" + decision.contract();
        switch (decision.kind()) {
            case BLOCK: {
                if (decisionLines) AgentLog.decision(prefix + (shadow ? "" : throwing ? " (throw)" : " (substitute)") + " reason=" + decision.reason());
                if (shadow) {
                    counts.incrementAndGet(SHADOWED);
                    return null;
                }
                counts.incrementAndGet(BLOCKED);
                String text = blockMessage(call.tool(), decision);
                return new Ruling(throwing ? Ruling.THROW : Ruling.SUBSTITUTE, text, null, null, null);
            }
            case REDIRECT: {
                if (decisionLines) AgentLog.decision(prefix + " target=" + decision.targetTool());   // no argument values on stderr: they may be personal data
                if (shadow) {
                    counts.incrementAndGet(SHADOWED);
                    return null;
                }
                counts.incrementAndGet(REDIRECTED);
                String fallback = "tracegate: the call to " + call.tool() + " was redirected to " + decision.targetTool()
                        + " by contract " + decision.contract() + ", but " + decision.targetTool() + " is not reachable from this call site;"
                        + " the call did not run. " + orEmpty(decision.reason());
                return new Ruling(Ruling.REDIRECT, fallback, decision.targetTool(), decision.argumentsJson(), null);
            }
            case REDACT: {
                if (decisionLines) AgentLog.decision(prefix + " " + redactedFields(call.argumentsJson(), decision.argumentsJson()) + " reason=" + decision.reason());
                if (shadow) {
                    counts.incrementAndGet(SHADOWED);
                    return null;
                }
                counts.incrementAndGet(REDACTED);
                return new Ruling(Ruling.REWRITE, null, null, decision.argumentsJson(), null);
            }
            default:
                return null;
        }
    }

    /**
     * The top-level argument fields a redaction removed or changed, by name ({@code removed=[email] masked=[note]}): the
     * stderr line says what was dropped and prints no value (the audit log hashes personal data unless configured
     * otherwise; the operator's console should not show it either).
     */
    static String redactedFields(String before, String after) {
        Args was = Args.ofJson(before == null ? "{}" : before);
        Args now = Args.ofJson(after == null ? "{}" : after);
        List<String> removed = new java.util.ArrayList<>();
        List<String> masked = new java.util.ArrayList<>();
        // paths at any depth (profile.card, notes.1); a top-level field still there with another value was masked
        for (String p : dev.tracegate.matchers.predicate.Redaction.removedPaths(was.root(), now.root())) {
            if (now.root().has(p) && !was.root().get(p).equals(now.root().get(p))) masked.add(p);
            else removed.add(p);
        }
        return "removed=" + removed + " masked=" + masked;
    }

    private static String blockMessage(String tool, ToolDecision decision) {
        return BlockText.of("the call to " + tool, decision.contract(), decision.reason(), decision.instead());
    }

    @Override
    public String onToolResult(String framework, String session, String tool, String callId, String resultText, boolean error) {
        return onToolResult(framework, session, tool, callId, resultText, error, null);
    }

    /**
     * As above, from a call site that cannot replace this result when {@code cannotWithhold} (why) is not null: a
     * contract that would withhold it is then only logged, and its audit record says that the result went through.
     */
    public String onToolResult(String framework, String session, String tool, String callId, String resultText, boolean error, String cannotWithhold) {
        session = Applications.session(session);
        // field by field: no ToolResult (48 B a passed call, session 21)
        return onToolResult(framework, session, tool, cannotWithhold,
                supervisor.onToolResult(framework, session, tool, callId, resultText, error, cannotWithhold));
    }

    /** As above, for the RETURN of a call whose id the agent generated ({@code tg-callNumber}): no String of the id. */
    public String onToolResult(String framework, String session, String tool, long callNumber, String resultText, boolean error) {
        session = Applications.session(session);
        return onToolResult(framework, session, tool, null,
                supervisor.onToolResult(framework, session, tool, callNumber, resultText, error, null));
    }

    /**
     * As above for a result the call site withholds whatever the contracts decide ({@code withheld} says why): it is
     * checked and recorded as withheld; the notice of a contract that withholds it too, or null.
     */
    public String onWithheldToolResult(String framework, String session, String tool, String callId, String resultText, String withheld) {
        return onToolResult(new ToolResult(framework, Applications.session(session), tool, callId, resultText, false, null, withheld));
    }

    private String onToolResult(ToolResult result) {
        return onToolResult(result.framework(), result.session(), result.tool(), result.cannotWithhold(), supervisor.onToolResult(result));
    }

    /** What the call site does with the supervisor's {@code decision} on a result. */
    private String onToolResult(String framework, String session, String tool, String cannotWithhold, ResultDecision decision) {
        if (decision == null || decision == ResultDecision.keep() || !decision.suppressed()) {   // KEEP by reference, as PROCEED
            if (trace) {
                AgentLog.info("RETURN " + framework + " session=" + AgentLog.field(session) + " tool=" + AgentLog.field(tool) + " -> KEEP");
            }
            return null;
        }
        if (cannotWithhold != null) {
            if (decisionLines) AgentLog.decision("contract " + decision.contract() + " would withhold the result of " + AgentLog.field(tool) + " (session=" + session
                    + "), but " + cannotWithhold);
            return null;
        }
        if (decisionLines) AgentLog.decision((shadow ? "SHADOW would " : "") + "SUPPRESS " + framework + " session=" + AgentLog.field(session) + " tool=" + AgentLog.field(tool)
                + " contract=" + decision.contract());
        if (shadow) {
            counts.incrementAndGet(SHADOWED);
            return null;
        }
        counts.incrementAndGet(SUPPRESSED);
        return decision.notice();
    }

    @Override
    public Object onToolResultObject(String framework, String session, String tool, String callId, Object result) {
        if (result == null) {
            return null;
        }
        ReflectiveResult view = ReflectiveResult.of(result, json);
        if (view.cut != null) {
            // fail: closed withholds a result whose structured content no contract could see whole; the RETURN is recorded
            // with what could be read, as withheld (open: as the contracts decide)
            Ruling refusal = unreadValue(framework + " tool " + tool, "the structured content", view.cut);
            if (refusal != null) {
                String notice = onWithheldToolResult(framework, session, tool, callId, view.text,
                        "the structured content could not be read whole (" + view.cut + "), so the result was withheld (fail: closed). The client got: " + refusal.text);
                return view.replaceWith(notice != null ? notice : refusal.text);
            }
        }
        String notice = onToolResult(framework, session, tool, callId, view.text, view.error);
        return notice == null ? null : view.replaceWith(notice);
    }

    @Override
    public String sessionId(String session) {
        return Applications.session(session);
    }

    @Override
    public String onUserMessage(String framework, String session, String text) {
        MessageDecision decision = supervisor.onUserMessage(new Message(framework, session = Applications.session(session), text));
        if (decision == null || decision.kind() == MessageDecision.Kind.KEEP) {
            if (trace) {
                AgentLog.info("USER " + framework + " session=" + AgentLog.field(session) + " -> KEEP");
            }
            return null;
        }
        if (decisionLines) AgentLog.decision((shadow ? "SHADOW would " : "") + "SUPPRESS USER " + framework + " session=" + AgentLog.field(session) + " contract=" + decision.contract());
        if (shadow) {
            counts.incrementAndGet(SHADOWED);
            return null;
        }
        counts.incrementAndGet(SUPPRESSED);
        return decision.text();
    }

    @Override
    public String onAssistantMessage(String framework, String session, String text) {
        MessageDecision decision = supervisor.onAssistantMessage(new Message(framework, session = Applications.session(session), text));
        if (decision == null || decision.kind() == MessageDecision.Kind.KEEP) {
            if (trace) {
                AgentLog.info("ASSISTANT " + framework + " session=" + AgentLog.field(session) + " -> KEEP");
            }
            return null;
        }
        if (decisionLines) AgentLog.decision((shadow ? "SHADOW would " : "") + decision.kind() + " ASSISTANT " + framework + " session=" + AgentLog.field(session)
                + " contract=" + decision.contract());
        if (shadow) {
            counts.incrementAndGet(SHADOWED);
            return null;
        }
        if (decision.kind() == MessageDecision.Kind.BLOCK) {
            counts.incrementAndGet(BLOCKED);
            if (throwOnBlock) {
                throw new TracegateViolation(decision.text());
            }
        } else {
            counts.incrementAndGet(REDACTED);
        }
        return decision.text();
    }

    @Override
    public Ruling onMethodCall(String origin, Object[] arguments, String callId) {
        return configured.onCall(origin, null, arguments, callId, this);
    }

    @Override
    public Ruling onMethodCall(String origin, Object receiver, Object[] arguments, String callId) {
        return configured.onCall(origin, receiver, arguments, callId, this);
    }

    @Override
    public Ruling onMethodCall(String origin, Object receiver, Object[] arguments, long callNumber) {
        return configured.onCall(origin, receiver, arguments, callNumber, this);
    }

    @Override
    public Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, long callNumber) {
        return configured.onResult(origin, receiver, arguments, result, callNumber, this);
    }

    @Override
    public void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, long callNumber) {
        configured.onThrown(origin, receiver, arguments, thrown, Dispatcher.callId(callNumber), this);   // the rare path: spelled
    }

    @Override
    public boolean supervisesNested(String origin) {
        return configured.supervisesNested(origin);
    }

    @Override
    public boolean futureTakesText(String origin) {
        return configured.futureTakesText(origin);
    }

    @Override
    public Object refusedValue(String origin, Class<?> owner, Ruling refusal) {
        return configured.refusedValue(origin, owner, refusal);
    }

    @Override
    public Object onMethodResult(String origin, Object[] arguments, Object result, String callId) {
        return configured.onResult(origin, null, arguments, result, callId, this);
    }

    @Override
    public Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
        return configured.onResult(origin, receiver, arguments, result, callId, this);
    }

    @Override
    public Ruling onSuspendCall(String origin, Class<?> owner, Object[] arguments, String callId) {
        return configured.onSuspendCall(origin, owner, null, arguments, callId, this);
    }

    @Override
    public Ruling onSuspendCall(String origin, Class<?> owner, Object receiver, Object[] arguments, String callId) {
        return configured.onSuspendCall(origin, owner, receiver, arguments, callId, this);
    }

    @Override
    public Object onSuspendResult(String origin, Object[] arguments, Object result, String callId) {
        return configured.suspendOutcome(origin, null, arguments, result, callId, this);
    }

    @Override
    public Object onSuspendResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
        return configured.suspendOutcome(origin, receiver, arguments, result, callId, this);
    }

    /**
     * A configured method threw: its RETURN is reported with {@code error} set and the exception's class
     * and message as the result text. Whatever this returns or throws, the host rethrows its own exception.
     */
    @Override
    public void onMethodThrown(String origin, Object[] arguments, Throwable thrown, String callId) {
        configured.onThrown(origin, null, arguments, thrown, callId, this);
    }

    @Override
    public void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, String callId) {
        configured.onThrown(origin, receiver, arguments, thrown, callId, this);
    }

    /** A tool that threw, as an error RETURN: nothing can be withheld (the host gets its own exception), so a suppression is only logged. */
    @Override
    public void onToolThrown(String framework, String session, String tool, String callId, String text) {
        onToolResult(framework, session, tool, callId, text, true, "the call threw: the host gets its own exception");
    }

    @Override
    public String toJson(Object value) {
        return json.write(value);
    }

    /** A value's JSON text and whether it was cut (see {@link ValueText}); {@link #unreadValue} decides what a cut means. */
    public ValueText.Written written(Object value) {
        return json.written(value);
    }

    /** Places whose cut values were logged already (a cut is counted every time, logged once per place and reason). */
    private final java.util.Set<String> cutsLogged = ConcurrentHashMap.newKeySet();

    /**
     * A configured method's {@code what} ("the arguments", "the result") at {@code where} could not be written whole
     * ({@code cut} says why: too deep, a cycle, too many elements, too long): counted as an internal error and decided by
     * the fail policy. {@code fail: closed}: the ruling that refuses (the call does not run, the result is withheld);
     * {@code fail: open}: null, and the cut text, with its markers, is what contracts see.
     */
    public Ruling unreadValue(String where, String what, String cut) {
        String key = where + " " + what + ": " + cut;
        boolean first = cutsLogged.size() < 256 && cutsLogged.add(key);
        return internalError(where, new UnreadValue(what + " could not be read whole: " + cut),
                first ? "; under fail=open contracts see what could be read of " + what + "; further cuts here are counted, not logged" : null);
    }

    /** A value the agent's writer cut (no stack trace: the cut is the whole story). */
    static final class UnreadValue extends RuntimeException {
        UnreadValue(String message) {
            super(message, null, false, false);
        }
    }

    @Override
    public Object fromJson(String text) {
        return json.read(text);
    }

    @Override
    public Ruling onInternalError(String where, Throwable error) {
        return internalError(where, error, "");
    }

    @Override
    public void onWarning(String text) {
        // the dispatcher's warnings name what a server chose (an MCP tool name): one line, its control characters escaped
        AgentLog.warn(AgentLog.oneLine(text));
    }

    /** As {@link #onInternalError}, logged only the first time a failure of this kind occurs (always counted). */
    @Override
    public Ruling onAdviceFailure(String where, Throwable error, boolean repeated) {
        return repeated ? internalError(where, error, null)
                : internalError(where, error, "; further failures of this kind are counted, not logged");
    }

    /**
     * A failure of the agent's own that it handled without the failure policy, said where it happened (a configured
     * method's {@code tool-name} parameter that held no tool name: the call is supervised as the method's name): counted
     * as an internal error, here and in the MBean's {@code InternalErrors} as let through ({@code open}) whatever
     * {@code fail} says, as nothing was refused. Not logged again; never throws.
     */
    public void countHandledError(String where) {
        counts.incrementAndGet(INTERNAL_ERRORS);
        try {
            supervisor.onInternalError(where, null, false);
        } catch (RuntimeException | LinkageError ignored) {
            // counting must not change the call
        }
    }

    /** Counts, logs unless {@code note} is null ({@code note} ends the log line's parenthesis), and decides by the fail policy. */
    private Ruling internalError(String where, Throwable error, String note) {
        counts.incrementAndGet(INTERNAL_ERRORS);
        try {
            supervisor.onInternalError(where, error, failClosed);   // the MBean counts these too
        } catch (RuntimeException | LinkageError ignored) {
            // counting must not change the decision
        }
        if (note != null) {
            AgentLog.error("internal error at " + where + " (fail=" + (failClosed ? "closed: refused" : "open: let through") + note + ")", error);
        }
        if (!failClosed) {
            return null;
        }
        String text = "tracegate could not check " + where + " (internal error: " + error.getClass().getSimpleName()
                + "); refused because fail=closed";
        return new Ruling(throwOnBlock ? Ruling.THROW : Ruling.SUBSTITUTE, text, null, null, null);
    }

    public boolean throwOnBlock() {
        return throwOnBlock;
    }

    public void endAll() {
        supervisor.endSession("*");
    }

    /**
     * True if another instrumentation already saw this tool-call id among the last {@value #RECENT_IDS}
     * ids (the same call reached through two frameworks, e.g. an adapter over an MCP client). The same
     * instrumentation seeing an id again is a new call (models and scripted models reuse ids across
     * turns) and is supervised again: a repeated id must never let a call through unchecked.
     */
    private boolean seenByAnother(String framework, String callId) {
        String first = recentIds.putIfAbsent(callId, framework);
        if (first != null) {
            return !first.equals(framework);
        }
        int slot = (int) (recentNext.getAndIncrement() % RECENT_IDS);
        String evicted;
        synchronized (recentRing) {
            evicted = recentRing[slot];
            recentRing[slot] = callId;
        }
        if (evicted != null) {
            recentIds.remove(evicted);
        }
        return false;
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    /**
     * A framework result object (MCP {@code CallToolResult}) read and rebuilt by reflection, never by linking to the framework.
     * Its text is everything of it a client (and its model) reads as text, in order: each content item's text (a text item's
     * text; an embedded resource's text, a resource link's uri, name, title and description), one a line, then the
     * structured content as JSON on a line of its own, unless a text item already is that JSON (the MCP specification asks
     * a server to send both). Images, audio and binary resources are not read.
     */
    static final class ReflectiveResult {
        final Object result;
        final String text;
        final boolean error;
        /** Why the structured content could not be written whole (too deep, too long, ...), or null. */
        final String cut;
        /** Whether it carries structured content (the tool may declare an outputSchema). */
        final boolean structured;

        private ReflectiveResult(Object result, String text, boolean error, String cut, boolean structured) {
            this.result = result;
            this.text = text;
            this.error = error;
            this.cut = cut;
            this.structured = structured;
        }

        static ReflectiveResult of(Object result, JsonCodec json) {
            StringBuilder text = new StringBuilder();
            boolean error = false;
            String cut = null;
            boolean hasStructured = false;
            try {
                Object content = result.getClass().getMethod("content").invoke(result);
                List<String> texts = new java.util.ArrayList<String>();
                if (content instanceof List) {
                    for (Object item : (List<?>) content) {
                        String itemText = itemText(item);
                        if (itemText != null) {
                            texts.add(itemText);
                            line(text, itemText);
                        }
                    }
                }
                Object structured = structuredContent(result);
                if (structured != null) {
                    hasStructured = true;
                    ValueText.Written written = json.written(structured);
                    cut = written.cut();
                    if (!alreadyInText(written.json(), texts, json)) {
                        line(text, written.json());
                    }
                }
                Object isError = result.getClass().getMethod("isError").invoke(result);
                error = Boolean.TRUE.equals(isError);
            } catch (ReflectiveOperationException e) {
                text.append(result);
            }
            return new ReflectiveResult(result, text.toString(), error, cut, hasStructured);
        }

        private static void line(StringBuilder text, Object line) {
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append(line);
        }

        /** A content item's text: a text item's, an embedded text resource's, a resource link's; null for images, audio, blobs. */
        private static String itemText(Object item) throws ReflectiveOperationException {
            Method text = method(item, "text");
            if (text != null) {
                return String.valueOf(text.invoke(item));
            }
            Method resource = method(item, "resource");
            if (resource != null) {
                Object contents = resource.invoke(item);
                Method resourceText = contents == null ? null : method(contents, "text");
                return resourceText == null ? null : String.valueOf(resourceText.invoke(contents));
            }
            Method uri = method(item, "uri");
            if (uri != null) {
                StringBuilder link = new StringBuilder(String.valueOf(uri.invoke(item)));
                for (String part : new String[]{"name", "title", "description"}) {
                    Method m = method(item, part);
                    Object value = m == null ? null : m.invoke(item);
                    if (value != null) {
                        link.append(' ').append(value);
                    }
                }
                return link.toString();
            }
            return null;
        }

        private static Method method(Object target, String name) {
            try {
                return target.getClass().getMethod(name);
            } catch (NoSuchMethodException absent) {
                return null;
            }
        }

        /** The result's {@code structuredContent} (SDK 1.x and 2.x), or null (none, or an SDK without it). */
        private static Object structuredContent(Object result) throws ReflectiveOperationException {
            Method m = method(result, "structuredContent");
            return m == null ? null : m.invoke(result);
        }

        /** Whether one of the text items is the structured content's JSON (compared as parsed values, not as spelt). */
        private static boolean alreadyInText(String structuredJson, List<String> texts, JsonCodec json) {
            Object structured = null;
            for (String t : texts) {
                String trimmed = t.trim();
                if (trimmed.isEmpty() || (trimmed.charAt(0) != '{' && trimmed.charAt(0) != '[')) {
                    continue;
                }
                try {
                    if (structured == null) {
                        structured = json.read(structuredJson);
                    }
                    if (structured != null && structured.equals(json.read(trimmed))) {
                        return true;
                    }
                } catch (RuntimeException notJson) {
                    // a text that only looks like JSON: not the structured content
                }
            }
            return false;
        }

        Object replaceWith(String notice) {
            try {
                Object builder = result.getClass().getMethod("builder").invoke(null);
                builder.getClass().getMethod("addTextContent", String.class).invoke(builder, notice);
                // a failed result stays one (isError: true): the client, its retry logic or its model, must not take it for a success.
                // One that had structured content is withheld as a failure too: its tool may declare an outputSchema, which a
                // success must then carry and a client may validate (the SDK's does, enableCallToolSchemaCaching, and rejects a
                // success without it); an error result is not validated, and no content conforming to any schema can be made up
                builder.getClass().getMethod("isError", Boolean.class).invoke(builder, Boolean.valueOf(error || structured));
                return builder.getClass().getMethod("build").invoke(builder);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("tracegate: cannot rebuild " + result.getClass().getName() + " to withhold it", e);
            }
        }
    }
}
