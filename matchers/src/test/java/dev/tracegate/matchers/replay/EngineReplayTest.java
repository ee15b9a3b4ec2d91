package dev.tracegate.matchers.replay;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.predicate.Grounding;
import dev.tracegate.matchers.predicate.Latch;
import dev.tracegate.matchers.predicate.Policy;
import dev.tracegate.matchers.trace.TraceReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole offline path as the contracts module will drive it: a JSONL trace, contracts parsed by
 * the engine, a {@link Policy}, {@link Grounding#compile} over the contract set's atom order, and the
 * engine's {@link Replay}.
 */
class EngineReplayTest {
    @Test void refundAndInjectionContractsDecideEachEvent() throws IOException {
        List<Contract> contracts = List.of(
                Contract.of("refund-after-approval", Parser.parse("G(call(refund) -> O returned(approve_refund))")),
                Contract.of("refund-within-approval", Parser.parse("G(call(refund) -> arg(refund, amount) <= ctx(approved))")),
                Contract.of("no-untrusted-side-effect", Parser.parse("G(!untrusted_target)")));
        ContractSet set = ContractSet.compile(contracts, new DfaCompiler(10_000));
        Policy policy = Policy.builder()
                .latch(Latch.on(EventKind.RETURN, "approve_refund").set("approved").fromArg("amount"))
                .sideEffecting("send_email", "to")
                .build();
        Grounding grounding = Grounding.compile(set.atoms(), policy);
        Replay<Event> replay = new Replay<>(set, grounding, policy.refuseUnevaluable(), "s1");

        List<Decision.Kind> decisions = new ArrayList<>();
        try (TraceReader r = new TraceReader(new InputStreamReader(
                EngineReplayTest.class.getResourceAsStream("/traces/refund.jsonl"), StandardCharsets.UTF_8),
                "refund.jsonl", TraceReader.Mode.STRICT)) {
            for (Event e = r.next(); e != null; e = r.next()) {
                decisions.add(replay.next(e, e.controlledByAgent(), true).decision());
            }
        }
        assertThat(decisions).containsExactly(
                Decision.Kind.PASS,         // user asks
                Decision.Kind.BLOCK,        // refund before any approval
                Decision.Kind.PASS,         // approve_refund call
                Decision.Kind.PASS,         // its successful return latches ctx.approved = $100
                Decision.Kind.BLOCK,        // $120 > $100
                Decision.Kind.BLOCK,        // no amount: the unevaluable atom's bit stays 0, so the contract fails
                Decision.Kind.PASS,         // 100.00 USD <= $100
                Decision.Kind.PASS,         // read_inbox
                Decision.Kind.PASS,         // its result introduces billing@attacker.example
                Decision.Kind.BLOCK,        // MCP-qualified send_email to the introduced address
                Decision.Kind.PASS,         // the user names their own address
                Decision.Kind.PASS,         // sending there is fine
                Decision.Kind.PASS);        // end
    }
}
