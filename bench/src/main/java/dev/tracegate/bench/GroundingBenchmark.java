package dev.tracegate.bench;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.engine.monitor.Worker;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.predicate.Grounding;
import dev.tracegate.matchers.predicate.Policy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Grounding real events with the matchers ({@link Grounding}) for three typical events: a tool call
 * with 3 arguments, a 2 KB tool result and a 1 KB user message, against {@code library}: the bench's
 * own ten-contract support-agent library ({@code support}: refund procedure, injection, personal
 * data, allowlist, written in the interaction-predicate vocabulary) or one of the contracts module's
 * built-in libraries ({@code gdpr}, {@code injection}, {@code sop-refund}). {@code ground*}: grounding alone; {@code step*}: grounding plus the engine
 * step (target ≤ 300 ns); {@code baseline*}: a stateless per-call guard ({@link StatelessGuard}, plain RE2/J or
 * with a literal prefilter as the matchers have: {@code baselinePrefiltered*}) on
 * the same event. The events are built once (parsing JSON arguments is the interception's cost,
 * not grounding's). With the built-in libraries the measured events need not pass (a library may
 * refuse them); the smoke test prints each library's decisions.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class GroundingBenchmark {

    /** The library's guarantees (assumption: tool results carry no injection). */
    static final String[] GUARANTEES = {
        "G(call(refund) -> O returned(lookup_order))",
        "G(call(refund) -> arg(refund, amount) <= 500)",
        "G(call(refund) -> count(refund) <= 3)",
        "G(call(send_email) -> !untrusted(send_email, to))",
        "G(!call(send_email, \"(?i)password|secret\"))",
        "G(!output_matches(\"\\\\b\\\\d{3}-\\\\d{2}-\\\\d{4}\\\\b\"))",
        "G(call(delete_account) -> permission(admin))",
        "G(call -> (call(lookup_order) | call(refund) | call(send_email) | call(search_kb)))",
        "G(call(send_email) -> !mentions_erased)",
        "G(call(refund) -> !(Y call(refund)))",
    };
    static final String ASSUME = "G !result_matches(\"(?i)ignore (all )?previous instructions\")";

    /** The compiled library, a monitor with one session per measured event, and the events. */
    @State(Scope.Thread)
    public static class Subject {
        @Param({"support", "gdpr", "injection", "sop-refund"})
        public String library = "support";

        SessionMonitor<Event> monitor;
        Grounding grounding;
        Worker worker;
        Session callSession;
        Session resultSession;
        Session userSession;
        SessionState state;
        long[] valuation;
        long[] unevaluable;
        Event call3;
        Event result2k;
        Event user1k;
        /** call3's argument values as the host passes them (non-final: not constants to the JIT). */
        String callQuery = CALL_QUERY;
        int callLimit = CALL_LIMIT;
        String callLang = CALL_LANG;

        @Setup(Level.Trial)
        public void setUp() {
            ContractSet set;
            if (library.equals("support")) {
                Formula assume = Parser.parse(ASSUME);
                List<Contract> contracts = new ArrayList<>();
                for (int i = 0; i < GUARANTEES.length; i++) {
                    contracts.add(new Contract("support-" + i, assume, Parser.parse(GUARANTEES[i]), "block", ""));
                }
                set = ContractSet.compile(contracts, new DfaCompiler(Workload.MAX_STATES));
                Policy policy = Policy.builder()
                        .sideEffecting("send_email", "to")
                        .erasureTool("erase_customer", "customer_id")
                        .grant("support")
                        .build();
                grounding = Grounding.compile(set.atoms(), policy);
                monitor = new SessionMonitor<>(set, grounding);
            } else {
                Library lib = Library.load(List.of(library), null);
                set = lib.contracts();
                grounding = lib.grounding();
                monitor = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
            }
            worker = monitor.newWorker();
            valuation = new long[set.valuationWords()];
            unevaluable = new long[set.valuationWords()];
            call3 = call3();
            result2k = result2k();
            user1k = user1k();
            callSession = opened("call");
            resultSession = opened("result");
            userSession = opened("user");
            state = monitor.snapshot(callSession);
        }

        /** A session past a realistic opening: the user names an order, the agent looks it up. */
        private Session opened(String id) {
            Session s = monitor.session(id);
            Event[] opening = {
                Event.user(id, 0, "Hi, my order A-1234 arrived damaged, can I get a refund?"),
                Event.call(id, 1, "lookup_order", "{\"order_id\":\"A-1234\"}"),
                Event.returned(id, 2, "lookup_order", orderJson(2048), false),
            };
            for (Event e : opening) {
                Decision d = monitor.step(s, e, e.controlledByAgent(), true, worker);
                if (d != Decision.PASS && library.equals("support")) {
                    throw new IllegalStateException("opening event " + e + " was decided " + d);
                }
            }
            return s;
        }

        /**
         * A new CALL event equal to {@link #call3} in every reading, built the way the agent builds one for an
         * intercepted method: one JSON scalar per parameter value, {@link Args#ofFields} (no JSON text, no tree),
         * {@link Event#toolEvent}. Nothing the matchers remember on an event or its arguments carries over.
         */
        Event freshCall() {
            JsonNode[] values = {TextNode.valueOf(callQuery), IntNode.valueOf(callLimit), TextNode.valueOf(callLang)};
            return Event.toolEvent(EventKind.CALL, "s", 10, 0L, "search_kb", null, Args.ofFields(CALL_FIELDS, values, values.length),
                    null, false);
        }

        int ground(Event e) {
            Arrays.fill(valuation, 0L);
            Arrays.fill(unevaluable, 0L);
            return grounding.ground(e, state, valuation, unevaluable);
        }
    }

    static String orderJson(int size) {
        StringBuilder b = new StringBuilder("{\"order_id\":\"A-1234\",\"status\":\"delivered\",\"customer\":{\"name\":\"Jane Roe\","
                + "\"email\":\"jane.roe@example.com\",\"city\":\"Lyon\"},\"items\":[");
        int i = 0;
        while (b.length() < size - 40) {
            if (i > 0) b.append(',');
            b.append("{\"sku\":\"SKU-").append(1000 + i).append("\",\"name\":\"ceramic mug, blue, 350 ml\",\"qty\":")
                    .append(1 + i % 3).append(",\"price\":").append(9 + i).append(".90}");
            i++;
        }
        b.append("],\"total\":").append(i * 12).append(".00}");
        return b.toString();
    }

    static String userText(int size) {
        String sentence = "The mug in order A-1234 arrived with a crack along the handle and the box was wet; "
                + "I would like a refund to my card or a replacement, whichever is faster. ";
        StringBuilder b = new StringBuilder("Hello, ");
        while (b.length() < size) b.append(sentence);
        return b.substring(0, size);
    }

    @Benchmark public int groundCall(Subject l) { return l.ground(l.call3); }

    @Benchmark public int groundResult(Subject l) { return l.ground(l.result2k); }

    @Benchmark public int groundUser(Subject l) { return l.ground(l.user1k); }

    @Benchmark public Decision stepCall(Subject l) { return l.monitor.step(l.callSession, l.call3, true, true, l.worker); }

    @Benchmark public Decision stepResult(Subject l) { return l.monitor.step(l.resultSession, l.result2k, false, true, l.worker); }

    @Benchmark public Decision stepUser(Subject l) { return l.monitor.step(l.userSession, l.user1k, false, true, l.worker); }

    /*
     * The step* benchmarks above step one Event object again and again. The matchers remember what they
     * derive from an event's text on the event (categories, the values a text introduces: like
     * String.hashCode), so from the second operation on those figures leave out the per-event scans.
     * Live traffic brings a new event every time: the *Fresh variants build a new Event from the same
     * text per operation (the text String itself is shared), so they pay every per-event first computation;
     * stepCallFresh builds its call as the agent does (Subject.freshCall), allocation of the event included.
     * They are the figures to hold against the 300 ns target.
     */

    @Benchmark public Decision stepCallFresh(Subject l) {
        return l.monitor.step(l.callSession, l.freshCall(), true, true, l.worker);
    }

    @Benchmark public Decision stepResultFresh(Subject l) {
        return l.monitor.step(l.resultSession, Event.returned("s", 11, "lookup_order", l.result2k.result(), false), false, true, l.worker);
    }

    @Benchmark public Decision stepUserFresh(Subject l) {
        return l.monitor.step(l.userSession, Event.user("s", 12, l.user1k.text()), false, true, l.worker);
    }

    /** The same three events and the stateless guard; no library, no session. */
    @State(Scope.Thread)
    public static class Baseline {
        Event call3;
        Event result2k;
        Event user1k;
        StatelessGuard guard;
        StatelessGuard prefiltered;

        @Setup(Level.Trial)
        public void setUp() {
            call3 = call3();
            result2k = result2k();
            user1k = user1k();
            guard = new StatelessGuard(Set.of("lookup_order", "refund", "send_email", "search_kb"), 500);
            prefiltered = StatelessGuard.prefiltered(Set.of("lookup_order", "refund", "send_email", "search_kb"), 500);
        }
    }

    static final String[] CALL_FIELDS = {"query", "limit", "lang"};
    static final String CALL_QUERY = "refund policy for damaged items";
    static final int CALL_LIMIT = 5;
    static final String CALL_LANG = "en";

    static Event call3() {
        return Event.call("s", 10, "search_kb", "{\"query\":\"" + CALL_QUERY + "\",\"limit\":" + CALL_LIMIT + ",\"lang\":\"" + CALL_LANG + "\"}");
    }

    static Event result2k() { return Event.returned("s", 11, "lookup_order", orderJson(2048), false); }

    static Event user1k() { return Event.user("s", 12, userText(1024)); }

    @Benchmark public boolean baselineCall(Baseline b) { return b.guard.allows(b.call3); }

    @Benchmark public boolean baselineResult(Baseline b) { return b.guard.allows(b.result2k); }

    @Benchmark public boolean baselineUser(Baseline b) { return b.guard.allows(b.user1k); }

    /*
     * The baseline* bodies above run RE2/J over the whole text for every pattern; the matchers search first for
     * literals every match contains. The baselinePrefiltered* bodies give the guard such a prefilter too
     * (StatelessGuard.prefiltered, same answers): the fair figures for a cost comparison.
     */

    @Benchmark public boolean baselinePrefilteredCall(Baseline b) { return b.prefiltered.allows(b.call3); }

    @Benchmark public boolean baselinePrefilteredResult(Baseline b) { return b.prefiltered.allows(b.result2k); }

    @Benchmark public boolean baselinePrefilteredUser(Baseline b) { return b.prefiltered.allows(b.user1k); }
}
