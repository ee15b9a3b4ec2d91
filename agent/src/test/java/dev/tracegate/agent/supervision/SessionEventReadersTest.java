package dev.tracegate.agent.supervision;

import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which contracts a consent or erasure that belongs to no session escapes, for the WARN said when a configured method
 * without session-param is called outside any conversation (trial21 07): a formula that reads {@code erasure} as an
 * event of the session does; gdpr's P2, which reads it of a call (a call of an erasure tool), does not.
 */
class SessionEventReadersTest {

    private static boolean reads(String formula, String atom) {
        return ContractSupervisor.readsEvent(Parser.parse(formula), atom);
    }

    @Test
    void theAbsenceAfterPatternReadsTheErasureOfTheSessionAndGdprP2ReadsItOfACall() {
        assertThat(reads("G(erasure -> G !call(send_newsletter))", "erasure")).isTrue();
        assertThat(reads("G(call(send) -> O consent)", "consent")).isTrue();
        assertThat(reads("G((erasure & user) -> F call(ack))", "erasure")).isTrue();
        // gdpr.P2-purpose-limitation
        assertThat(reads("G((call & personal_data & !consent & !erasure) -> !undeclared_purpose)", "erasure")).isFalse();
        assertThat(reads("G((call & personal_data & !consent & !erasure) -> !undeclared_purpose)", "consent")).isFalse();
        // consent(p) is the register's, not the event
        assertThat(reads("G(call(send) -> consent(marketing))", "consent")).isFalse();
        assertThat(reads("G(call(send) -> O erasure)", "consent")).isFalse();
    }
}
