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

    /**
     * trial46 10: gdpr.P4-erasure ({@code G((call | assistant) -> !mentions_erased)}) blocked calls in the run and the exit
     * said it "never acted". A contract that reads tool events too is said to lose only its part about answers.
     */
    @Test
    void aContractOnAnswersAndCallsIsSaidToLoseOnlyItsPartAboutAnswers() {
        String line = AgentCore.answersWithoutSource(List.of(contract("gdpr.P4-erasure", "G((call | assistant) -> !mentions_erased)"),
                contract("vendor.redact", "G(assistant -> !category(email))")));
        assertThat(line).startsWith("contract vendor.redact is about the model's answers (assistant) and never acted")
                .contains("; contract gdpr.P4-erasure reads the model's answers (assistant) as well as tool events: what it says about"
                        + " answers could not act (only configured methods were woven")
                .contains("what it says about tool calls and results was checked as usual")
                .doesNotContain("gdpr.P4-erasure is").doesNotContainPattern("P4-erasure[^;]*never acted");
    }
}
