package dev.tracegate.matchers.fuzz;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.engine.monitor.TestStates;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.predicate.Grounding;
import dev.tracegate.matchers.predicate.Latch;
import dev.tracegate.matchers.predicate.Policy;

import java.util.ArrayList;
import java.util.List;

/** One grounding over the whole vocabulary with a policy that exercises latches, GDPR and injection, and one session state. */
final class Grounded {
    static final String[] ATOMS = {
        "call(refund)", "call(send, \"@evil\")", "returned(transfer)", "failed(send)", "arg(amount) > 5000",
        "arg(refund, amount) <= ctx(approved)", "arg(order.total) == \"12.50\"", "arg_matches(to, \"^[a-z]+@\")",
        "arg_in(send, to, [\"a\", 1])", "path_within(path, [\"/srv\"])", "len(arg(body)) < 10", "len(result) > 5",
        "result_matches(\"(?i)ignore (all|previous)\")", "user_matches(\"x\")", "output_matches(\"\\\\d+\")", "ctx(approved)",
        "ctx(customer) == \"c\"", "arg_eq_ctx(customer, customer)", "permission(write)", "flow(to)", "untrusted(send, to)",
        "untrusted_target", "side_effect", "category(email)", "category(iban)", "personal_data", "excess_data", "purpose(ads)",
        "consent(ads)", "consented", "mentions_erased", "count(send) <= 3", "run(read) >= 2", "sum(refund, amount) > 100",
        "context_len > 50", "output_chars > 5", "tokens > 9", "depth > 0", "since(call(verify)) < 3", "user", "assistant",
        "call", "return", "consent", "erasure", "end"};

    final Grounding g;
    final SessionState st;
    private final long[] val, unev;

    Grounded() {
        List<Atom> atoms = new ArrayList<>();
        for (String a : ATOMS) atoms.add((Atom) Parser.parse(a));
        g = Grounding.compile(atoms, Policy.builder()
                .latch(Latch.on(EventKind.RETURN, "approve").set("approved").fromArg("amount"))
                .latch(Latch.on(EventKind.RETURN, "lookup").set("customer").fromResultField("id"))
                .latch(Latch.on(EventKind.CALL, "grant").add("permissions").fromArg("who"))
                .purpose("ads", "email").toolPurposes("send", "ads")
                .fieldCategory("send", "note", "health")
                .consentTool("record_consent", "subject", "purposes", "granted")
                .erasureTool("forget", "who")
                .sideEffecting("send", "to").sideEffecting("transfer", "iban")
                .setCapacity(64)
                .build());
        st = TestStates.create(g.words(), g.refs());
        g.init(st);
        val = new long[g.valuationWords()];
        unev = new long[g.valuationWords()];
    }

    /** Grounds {@code e} twice (the answers must agree) and applies it; returns the number of unevaluable atoms. */
    int step(Event e) {
        java.util.Arrays.fill(val, 0);
        java.util.Arrays.fill(unev, 0);
        int n = g.ground(e, st, val, unev);
        long[] first = val.clone();
        java.util.Arrays.fill(val, 0);
        java.util.Arrays.fill(unev, 0);
        int again = g.ground(e, st, val, unev);
        if (again != n || !java.util.Arrays.equals(first, val)) throw new AssertionError("grounding is not a function of (event, state) for " + e);
        int marked = 0;
        for (int w = 0; w < val.length; w++) {
            if ((val[w] & unev[w]) != 0) throw new AssertionError("an atom is both true and unevaluable for " + e);
            marked += Long.bitCount(unev[w]);
        }
        if (n != marked) throw new AssertionError("ground returned " + n + " unevaluable atoms but marked " + marked + " for " + e);
        g.apply(e, val, st);
        return n;
    }

    /** Truth of one atom of {@link #ATOMS} at {@code e} without applying it: 1 true, 0 false, -1 unevaluable. */
    int truth(Event e, String atom) {
        int i = java.util.Arrays.asList(ATOMS).indexOf(atom);
        if (i < 0) throw new IllegalArgumentException(atom + " is not one of the fuzzed atoms");
        java.util.Arrays.fill(val, 0);
        java.util.Arrays.fill(unev, 0);
        g.ground(e, st, val, unev);
        if ((unev[i >>> 6] & (1L << i)) != 0) return -1;
        return (val[i >>> 6] & (1L << i)) != 0 ? 1 : 0;
    }
}
