package dev.tracegate.matchers.replay;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.predicate.Grounding;
import dev.tracegate.matchers.predicate.Latch;
import dev.tracegate.matchers.predicate.Policy;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A RETURN latch that reads {@code arg(order_id)} of the CALL its RETURN answers, with tool calls that overlap
 * (LangChain4j's executeToolsConcurrently, parallel calls of one model message), against an independent oracle:
 * plain code that recomputes from the whole trace which order ids were looked up successfully before each refund
 * (the accepted lookup CALL with the RETURN's id; the last accepted lookup CALL for a RETURN without id; nothing for
 * a RETURN whose call was refused, or whose id two pending calls carried). The engine's {@link Replay} decides,
 * so refused CALLs are not applied, as online.
 */
class LatchCallIdOracleTest {
    private static final String LOOKUP = "lookup_order", REFUND = "issue_refund";
    /** X orders: their lookups are refused by a second contract. */
    private static final String[] ORDERS = {"A1", "B2", "C3", "X4", "X5"};
    private static final int MAX_IN_FLIGHT = 8;

    private static Replay<Event> replay() {
        List<Contract> contracts = List.of(
                Contract.of("refund-after-lookup", Parser.parse("G(call(issue_refund) -> arg_eq_ctx(issue_refund, order_id, looked_up))")),
                Contract.of("no-x-lookups", Parser.parse("G(call(lookup_order) -> !arg_matches(lookup_order, order_id, \"^X\"))")));
        ContractSet set = ContractSet.compile(contracts, new DfaCompiler(10_000));
        Policy policy = Policy.builder().latch(Latch.on(EventKind.RETURN, LOOKUP).add("looked_up").fromArg("order_id")).build();
        return new Replay<>(set, Grounding.compile(set.atoms(), policy), policy.refuseUnevaluable(), "s");
    }

    @Provide Arbitrary<List<Integer>> scripts() {
        return Arbitraries.integers().between(0, 9_999).list().ofMinSize(1).ofMaxSize(40);
    }

    /** Turns a script of numbers into a trace of lookups (some overlapping, some failing, some refused) and refunds. */
    static List<Event> trace(List<Integer> script) {
        List<Event> out = new ArrayList<>();
        List<Event> inFlight = new ArrayList<>();
        int n = 0;
        for (int a : script) {
            int op = a % 10, pick = a / 10, flavour = a / 1000;
            if (op <= 3 && inFlight.size() < MAX_IN_FLIGHT) {
                // a lookup: mostly its own id, sometimes none (a framework without ids), sometimes an id another call has
                String id = flavour == 0 ? null : flavour == 1 ? "dup" : "c" + n;
                Event call = Event.toolEvent(EventKind.CALL, "s", ++n, 0, LOOKUP, id,
                        Args.ofJson("{\"order_id\":\"" + ORDERS[pick % ORDERS.length] + "\"}"), null, false);
                out.add(call);
                inFlight.add(call);
            } else if (op <= 6 && !inFlight.isEmpty()) {
                // the RETURN of any call in flight (out of order), failing now and then, with its own args now and then
                Event call = inFlight.remove(pick % inFlight.size());
                boolean error = flavour % 3 == 0;
                Args args = flavour == 7 ? call.args() : Args.NONE;
                out.add(Event.toolEvent(EventKind.RETURN, "s", ++n, 0, LOOKUP, call.callId(), args,
                        error ? "no such order" : "Order found", error));
            } else {
                out.add(Event.toolEvent(EventKind.CALL, "s", ++n, 0, REFUND, "r" + n,
                        Args.ofJson("{\"order_id\":\"" + ORDERS[pick % ORDERS.length] + "\",\"amount\":10}"), null, false));
            }
        }
        return out;
    }

    @Property(tries = 500)
    void aRefundPassesExactlyWhenItsOrderWasLookedUpSuccessfully(@ForAll("scripts") List<Integer> script) {
        List<Event> trace = trace(script);
        Replay<Event> replay = replay();
        for (int k = 0; k < trace.size(); k++) {
            Decision.Kind got = replay.next(trace.get(k), trace.get(k).controlledByAgent(), true).decision();
            assertThat(got).as("event %d of %s", k, trace).isEqualTo(accepted(trace, k) ? Decision.Kind.PASS : Decision.Kind.BLOCK);
        }
    }

    // ------------------------------------------------------------------ the oracle: plain scans of the whole trace

    private static boolean isLookupCall(Event e) { return e.kind() == EventKind.CALL && e.tool().equals(LOOKUP); }

    private static boolean isLookupReturn(Event e) { return e.kind() == EventKind.RETURN && e.tool().equals(LOOKUP); }

    private static String order(Event e) {
        var v = e.args().get(Args.Path.of("order_id"));
        return v == null ? null : v.asText();
    }

    /** Whether event {@code k} is accepted: a lookup of an X order is refused, a refund of an order not looked up. */
    static boolean accepted(List<Event> trace, int k) {
        Event e = trace.get(k);
        if (e.kind() != EventKind.CALL) return true;
        if (e.tool().equals(LOOKUP)) return !order(e).startsWith("X");
        return lookedUp(trace, k).contains(order(e));
    }

    /** The order ids the successful lookup RETURNs before {@code k} credit. */
    static Set<String> lookedUp(List<Event> trace, int k) {
        Set<String> out = new HashSet<>();
        for (int j = 0; j < k; j++) {
            Event r = trace.get(j);
            if (!isLookupReturn(r) || r.error()) continue;
            String v = credited(trace, j);
            if (v != null) out.add(v);
        }
        return out;
    }

    /** The order id the lookup RETURN at {@code j} credits, or null. */
    static String credited(List<Event> trace, int j) {
        Event r = trace.get(j);
        if (order(r) != null) return order(r);                        // the RETURN's own args
        String id = r.callId();
        if (id == null) {                                               // no id: the last accepted lookup CALL
            for (int c = j - 1; c >= 0; c--) if (isLookupCall(trace.get(c)) && accepted(trace, c)) return order(trace.get(c));
            return null;
        }
        int c = lastAcceptedCallWithId(trace, j, id);
        if (c < 0 || returnWithIdBetween(trace, c, j, id)) return null;  // refused, or another RETURN with the id took it
        int before = lastAcceptedCallWithId(trace, c, id);
        if (before >= 0 && !returnWithIdBetween(trace, before, c, id)) return null;  // two pending calls had the id
        return order(trace.get(c));
    }

    private static int lastAcceptedCallWithId(List<Event> trace, int before, String id) {
        for (int c = before - 1; c >= 0; c--) {
            Event e = trace.get(c);
            if (isLookupCall(e) && id.equals(e.callId()) && accepted(trace, c)) return c;
        }
        return -1;
    }

    private static boolean returnWithIdBetween(List<Event> trace, int from, int to, String id) {
        for (int k = from + 1; k < to; k++) {
            Event e = trace.get(k);
            if (isLookupReturn(e) && Objects.equals(id, e.callId())) return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ the cases of the trial18 repro, by hand

    private static Event lookup(String id, String order) {
        return Event.toolEvent(EventKind.CALL, "s", 0, 0, LOOKUP, id, Args.ofJson("{\"order_id\":\"" + order + "\"}"), null, false);
    }

    private static Event lookupReturn(String id, boolean error) {
        return Event.toolEvent(EventKind.RETURN, "s", 0, 0, LOOKUP, id, Args.NONE, error ? "no such order" : "Order found", error);
    }

    private static Decision.Kind refund(Replay<Event> r, String order) {
        return r.next(Event.toolEvent(EventKind.CALL, "s", 0, 0, REFUND, "r-" + order,
                Args.ofJson("{\"order_id\":\"" + order + "\",\"amount\":10}"), null, false), true, true).decision();
    }

    @Test void twoOverlappingLookupsCreditEachItsOwnOrder() {
        Replay<Event> r = replay();
        for (Event e : List.of(lookup("c1", "SLOW-1"), lookup("c2", "SLOW-2"), lookupReturn("c1", false), lookupReturn("c2", false))) {
            assertThat(r.next(e, e.controlledByAgent(), true).decision()).isEqualTo(Decision.Kind.PASS);
        }
        assertThat(refund(r, "SLOW-1")).isEqualTo(Decision.Kind.PASS);   // BLOCK on the old code: both RETURNs added SLOW-2
        assertThat(refund(r, "SLOW-2")).isEqualTo(Decision.Kind.PASS);
    }

    @Test void theSuccessOfOneLookupIsNotCreditedToAnotherThatFailed() {
        Replay<Event> r = replay();
        for (Event e : List.of(lookup("c1", "SLOW-1"), lookup("c2", "BAD-2"), lookupReturn("c2", true), lookupReturn("c1", false))) {
            r.next(e, e.controlledByAgent(), true);
        }
        assertThat(refund(r, "BAD-2")).isEqualTo(Decision.Kind.BLOCK);   // PASS on the old code
        assertThat(refund(r, "SLOW-1")).isEqualTo(Decision.Kind.PASS);   // BLOCK on the old code
    }

    @Test void theReturnOfARefusedLookupCreditsNothing() {
        Replay<Event> r = replay();
        r.next(lookup("c1", "A1"), true, true);
        r.next(lookupReturn("c1", true), false, true);                    // A1 was not found
        assertThat(r.next(lookup("c2", "X4"), true, true).decision()).isEqualTo(Decision.Kind.BLOCK);
        r.next(lookupReturn("c2", false), false, true);                   // a hand trace may hold it
        assertThat(refund(r, "X4")).isEqualTo(Decision.Kind.BLOCK);
        assertThat(refund(r, "A1")).isEqualTo(Decision.Kind.BLOCK);      // PASS on the old code: the last accepted CALL
    }
}
