package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;

import static dev.tracegate.matchers.predicate.Session.F;
import static dev.tracegate.matchers.predicate.Session.T;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A RETURN latch's {@code arg(f)} comes from the accepted CALL with the RETURN's call id: the table of pending calls'
 * values is bounded (the oldest forgotten first), an id two pending calls carry credits nothing, and the table
 * survives the session's byte form. (The semantics against an oracle: replay.LatchCallIdOracleTest.)
 */
class LatchCallIdTest {
    private static final Policy POLICY = Policy.builder()
            .latch(Latch.on(EventKind.RETURN, "lookup").add("looked_up").fromArg("order_id")).build();

    private static Session session() { return new Session(POLICY, "arg_eq_ctx(refund, order_id, looked_up)"); }

    private static Event lookup(String id, String order) {
        return Event.toolEvent(EventKind.CALL, "s", 0, 0, "lookup", id, Args.ofJson("{\"order_id\":\"" + order + "\"}"), null, false);
    }

    private static Event returned(String id, boolean error) {
        return Event.toolEvent(EventKind.RETURN, "s", 0, 0, "lookup", id, Args.NONE, error ? "no such order" : "found", error);
    }

    private static Event refund(String order) {
        return Event.call("s", 0, "refund", "{\"order_id\":\"" + order + "\"}");
    }

    @Test void beyondTheBoundTheOldestPendingCallIsForgottenAndItsReturnCreditsNothing() {
        Session s = session();
        int n = PendingCalls.MAX + 1;
        for (int i = 0; i < n; i++) s.feed(lookup("c" + i, "O" + i));
        for (int i = 0; i < n; i++) s.feed(returned("c" + i, false));
        assertThat(s.one(refund("O0"))).isEqualTo(F);                       // forgotten: fails safe, as a CALL without the argument
        for (int i = 1; i < n; i++) assertThat(s.one(refund("O" + i))).as("O%d", i).isEqualTo(T);
        assertThat(s.st.refs).noneMatch(r -> r instanceof PendingCalls);     // every call returned: the table is gone
    }

    @Test void anIdThatTwoPendingCallsCarryCreditsNeither() {
        Session s = session();
        s.feed(lookup("0", "A1"), lookup("0", "B2"), returned("0", false), returned("0", false));
        assertThat(s.one(refund("A1"))).isEqualTo(F);
        assertThat(s.one(refund("B2"))).isEqualTo(F);
        // the id is free again afterwards (frameworks that number the calls of each message from 0)
        s.feed(lookup("0", "C3"), returned("0", false));
        assertThat(s.one(refund("C3"))).isEqualTo(T);
    }

    @Test void aFailedReturnEndsItsCall() {
        Session s = session();
        s.feed(lookup("c1", "A1"), returned("c1", true), returned("c1", false));   // a second RETURN of c1 finds nothing
        assertThat(s.one(refund("A1"))).isEqualTo(F);
    }

    @Test void withoutCallIdsTheReturnReadsTheLastAcceptedCall() {
        Session s = session();
        s.feed(lookup(null, "A1"), lookup(null, "B2"), returned(null, false));
        assertThat(s.one(refund("B2"))).isEqualTo(T);                       // the documented fallback: no id links the two
        assertThat(s.one(refund("A1"))).isEqualTo(F);
    }

    @Test void pendingCallsSurviveTheSessionsByteForm() throws Exception {
        Session s = session();
        s.feed(lookup("c1", "A1"), lookup("c2", "B2"), lookup("d", "C3"), lookup("d", "D4"),
                Event.toolEvent(EventKind.CALL, "s", 0, 0, "lookup", "c3", Args.ofJson("{}"), null, false));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        s.g.writeRefs(s.st.refs, new DataOutputStream(bytes));
        // another replica (its own grounding of the same library) reads the bytes
        Session other = session();
        other.g.readRefs(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), other.st.refs);
        assertThat(other.st.refs).containsExactly(s.st.refs);
        assertThat(other.st.refs).anyMatch(r -> r instanceof PendingCalls p && p.size() == 4);

        // and goes on: c2's RETURN credits B2 (not the last call's order), the ambiguous id and c3 credit nothing
        other.feed(returned("c2", false), returned("d", false), returned("c3", false));
        assertThat(other.one(refund("B2"))).isEqualTo(T);
        assertThat(other.one(refund("A1"))).isEqualTo(F);
        assertThat(other.one(refund("C3"))).isEqualTo(F);
        assertThat(other.one(refund("D4"))).isEqualTo(F);
    }
}
