package dev.tracegate.matchers.event;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which RETURN {@link RefusedCalls} leaves out, on random traces whose call ids repeat (a model that numbers its tool
 * calls per response, trial24 04), against a brute-force pairing written apart from it: a RETURN with an id answers the
 * latest earlier CALL of its tool (names folded) with that id, one without an id, or with an id that no earlier CALL of
 * its tool had (trial27 08), the latest earlier CALL of its tool; it is left out when that CALL was refused and no
 * earlier RETURN answered it.
 */
class RefusedCallsPropertyTest {
    /** One event of a trace: a CALL (refused or applied) or a RETURN, of a tool, with an id or none. */
    record Step(boolean call, String tool, String id, boolean refused) {
        Event event(int seq) {
            return Event.builder(call ? EventKind.CALL : EventKind.RETURN).session("s").seq(seq).tool(tool).callId(id)
                    .build();
        }

        @Override public String toString() {
            return (call ? (refused ? "refused call " : "call ") : "return ") + tool + (id == null ? "" : " #" + id);
        }
    }

    @Provide Arbitrary<List<Step>> traces() {
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(true, false), Arbitraries.of("pay", "ship", "Pay "),
                Arbitraries.of("call_0", "call_1").injectNull(0.25), Arbitraries.of(true, false)).as(Step::new);
        return step.list().ofMaxSize(24);
    }

    /** The oracle: for each event, the index of the refused CALL whose RETURN it is (left out), or -1. */
    static int[] oracle(List<Step> trace) {
        int[] answers = new int[trace.size()];   // per RETURN: the CALL it answers, or -1
        int[] leftOut = new int[trace.size()];
        Arrays.fill(answers, -1);
        Arrays.fill(leftOut, -1);
        for (int i = 0; i < trace.size(); i++) {
            Step r = trace.get(i);
            if (r.call()) continue;
            // an id that no earlier CALL of its tool had answers as no id does (trial27 08)
            boolean known = false;
            for (int j = 0; j < i; j++) {
                Step s = trace.get(j);
                known |= s.call() && fold(s.tool()).equals(fold(r.tool())) && r.id() != null && r.id().equals(s.id());
            }
            String id = known ? r.id() : null;
            int c = -1;
            for (int j = i - 1; j >= 0 && c < 0; j--) {
                Step s = trace.get(j);
                if (s.call() && fold(s.tool()).equals(fold(r.tool())) && (id == null || id.equals(s.id()))) c = j;
            }
            answers[i] = c;
            if (c < 0 || !trace.get(c).refused()) continue;
            boolean answeredBefore = false;
            for (int k = c + 1; k < i; k++) answeredBefore |= answers[k] == c;
            if (!answeredBefore) leftOut[i] = c;
        }
        return leftOut;
    }

    private static String fold(String tool) {
        return tool.trim().toLowerCase(Locale.ROOT);
    }

    static int[] refusedCalls(List<Step> trace) {
        RefusedCalls rc = new RefusedCalls();
        int[] leftOut = new int[trace.size()];
        for (int i = 0; i < trace.size(); i++) {
            Step s = trace.get(i);
            Event e = s.event(i + 1);
            String where = rc.answered(e);
            leftOut[i] = where == null ? -1 : Integer.parseInt(where);
            rc.call(e, !s.refused(), Integer.toString(i));
        }
        return leftOut;
    }

    @Property(tries = 3000)
    void leavesOutTheReturnsOfRefusedCallsAsTheBruteForcePairingDoes(@ForAll("traces") List<Step> trace) {
        assertThat(refusedCalls(trace)).as("%s", trace).containsExactly(oracle(trace));
    }

    /** trial24 04: every turn's first call is call_0; lookup_order's RETURN answers lookup_order's call, not the refund. */
    @Test
    void aReturnAnswersTheLatestCallOfItsOwnToolWithItsId() {
        List<Step> trace = List.of(
                new Step(true, "refund", "call_0", true),          // 0: refused, never answered
                new Step(true, "lookup_order", "call_0", false),   // 1
                new Step(false, "lookup_order", "call_0", false),  // 2: answers 1, applied
                new Step(true, "refund", "call_0", false),         // 3: supersedes 0
                new Step(false, "refund", "call_0", false),        // 4: answers 3, applied
                new Step(true, "refund", "call_0", true),          // 5
                new Step(true, "lookup_order", "call_0", false),   // 6
                new Step(false, "refund", "call_0", false),        // 7: answers 5 (refused): left out
                new Step(false, "refund", "call_0", false));       // 8: 5 was answered already: applied
        int[] expected = {-1, -1, -1, -1, -1, -1, -1, 5, -1};
        assertThat(refusedCalls(trace)).containsExactly(expected);
        assertThat(oracle(trace)).containsExactly(expected);
    }

    /** trial27 08: C1 answers no call (the call was c1): it is taken as the answer of the latest approve call, refused. */
    @Test
    void aReturnWhoseIdNoCallHadAnswersTheLatestCallOfItsTool() {
        List<Step> trace = List.of(
                new Step(true, "approve", "c1", true),     // 0: refused
                new Step(false, "approve", "C1", false),   // 1: no call had C1: answers 0, left out
                new Step(true, "lookup", "a", false),      // 2
                new Step(false, "lookup", "b", false));    // 3: no call had b: answers 2, applied
        int[] expected = {-1, 0, -1, -1};
        assertThat(refusedCalls(trace)).containsExactly(expected);
        assertThat(oracle(trace)).containsExactly(expected);
        RefusedCalls rc = new RefusedCalls();
        rc.call(trace.get(0).event(1), false, "0");
        assertThat(rc.answersNoCall(trace.get(1).event(2))).isTrue();
        assertThat(rc.answersNoCall(Event.builder(EventKind.RETURN).session("s").tool("approve").callId("c1").build())).isFalse();
        assertThat(rc.answersNoCall(Event.builder(EventKind.RETURN).session("s").tool("approve").build())).isFalse();
    }

    @Test
    void otherKindsAreNeverLeftOut() {
        RefusedCalls rc = new RefusedCalls();
        rc.call(Event.call("s", 1, "pay", "{}"), false, "1");
        assertThat(rc.answered(Event.user("s", 2, "hi"))).isNull();
        assertThat(rc.answered(Event.returned("s", 3, "pay", "ok", false))).isEqualTo("1");
        List<Step> none = new ArrayList<>();
        assertThat(refusedCalls(none)).isEmpty();
    }
}
