package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedactionTest {
    private final Policy policy = Policy.builder()
            .purpose("billing", "email", "iban")
            .toolPurposes("send_invoice", "billing")
            .fieldCategory("send_invoice", "notes", "health")
            .build();
    private final Grounding g = Grounding.compile(java.util.List.of(Session.atom("excess_data")), policy);

    @Test void namesTheFieldsAndSpansThePurposeDoesNotNeed() {
        Event e = Event.builder(EventKind.CALL).tool("send_invoice")
                .args("{\"to\":\"ann@example.com\",\"phone\":\"+44 20 7946 0958\",\"customer\":{\"dob\":\"1990-01-01\",\"iban\":\"DE89370400440532013000\"},"
                        + "\"cc\":[\"bob@example.com\",\"call +1 202 555 0175\"],\"notes\":\"recovering\",\"amount\":120}")
                .text("Ann's number is +44 20 7946 0958, mail ann@example.com")
                .build();
        Redaction r = g.redaction(e);
        assertThat(r.excessCategories()).containsExactlyInAnyOrder("phone", "date_of_birth", "health");
        assertThat(r.argumentPaths()).containsExactly("phone", "customer.dob", "cc.1", "notes");
        assertThat(r.textSpans()).extracting(sp -> sp.in(e.text())).containsExactly("+44 20 7946 0958");
        assertThat(r.resultSpans()).isEmpty();
        assertThat(r.isEmpty()).isFalse();
    }

    @Test void nothingToRedactWithoutPurposeOrExcess() {
        Event noPurpose = Event.call("s", 1, "other", "{\"phone\":\"+44 20 7946 0958\"}");
        assertThat(g.redaction(noPurpose).isEmpty()).isTrue();
        Event needed = Event.call("s", 1, "send_invoice", "{\"to\":\"ann@example.com\"}");
        assertThat(g.redaction(needed).isEmpty()).isTrue();
    }
}
