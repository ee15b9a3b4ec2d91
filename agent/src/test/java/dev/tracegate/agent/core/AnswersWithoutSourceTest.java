package dev.tracegate.agent.core;

import dev.tracegate.contracts.library.Library.ContractInfo;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** trial40 06: with only configured methods woven, a contract on the model's answers can never act; the exit names it. */
class AnswersWithoutSourceTest {

    private static ContractInfo contract(String id, String guarantee) {
        return new ContractInfo(id, "vendor", "policy.yaml", 1, null, "block", "m", null, null, null, guarantee);
    }

    @Test
    void answerContractsAreNamedAndToolContractsAreNot() {
        String line = AgentCore.answersWithoutSource(List.of(contract("vendor.allow", "G(call -> (call(pay) | call(lookup)))"),
                contract("vendor.redact", "G(assistant -> !category(email))")));
        assertThat(line).startsWith("contract vendor.redact is about the model's answers (assistant) and never acted")
                .contains("only configured methods were woven").doesNotContain("vendor.allow");
        assertThat(AgentCore.answersWithoutSource(List.of(contract("vendor.allow", "G(call -> call(pay))"),
                contract("assistants.cap", "G(sum(pay_assistants, amount) <= 100)")))).isNull();
    }
}
