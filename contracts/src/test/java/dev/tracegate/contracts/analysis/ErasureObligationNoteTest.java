package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial26 03: {@code G(erasure -> F returned(delete_customer))} beside the gdpr library, with delete_customer bound to a
 * purpose, could never be met (P4 refused the deletion of the erased subject), and check said "conflict-free, no dead
 * ends": the dead-end search cannot see it, as whether a call names the erased subject is data. check now notes it, and
 * not once delete_customer is declared under erasure-tools (P4 then lets it carry the erasure out).
 */
class ErasureObligationNoteTest {

    private static final String CRM = """
            library: crm
            gdpr:
              purposes:
                support: [email]
              consent-purposes: none
              subject-fields: [email]
              tools:
                lookup_customer: [support]
                delete_customer: [support]
              erasure-tools:
                erase_subject: {subject: email}
            contracts:
              - id: crm.erasure-carried-out
                guarantee: G(erasure -> F returned(delete_customer))
                message: The erasure was not carried out.
              - id: crm.either
                guarantee: G(erasure -> F (returned(delete_customer) | returned(archive_customer)))
                message: m
            """;

    private static List<String> notes(String crm, boolean gdpr) {
        List<dev.tracegate.contracts.library.LibrarySpec> specs = new java.util.ArrayList<>();
        if (gdpr) specs.add(Library.read("gdpr", null));
        specs.add(LibraryReader.read("crm.yaml", crm));
        return LibraryNotes.notes(Library.compile(specs));
    }

    @Test
    void anObligationToCallAToolThatP4RefusesAfterTheErasureIsNoted() {
        assertThat(notes(CRM, true)).filteredOn(n -> n.contains("after an erasure")).singleElement().asString()
                .startsWith("crm.yaml:")
                .contains("contract crm.erasure-carried-out obliges a call of delete_customer after an erasure"
                        + " (G (erasure -> F returned(delete_customer))), but delete_customer is not under gdpr erasure-tools,"
                        + " so gdpr.P4-erasure refuses its call for the erased subject");
        // declared as an erasure tool, P4 lets it carry the erasure out: no note
        String declared = CRM.replace("    erase_subject: {subject: email}", "    erase_subject: {subject: email}\n    delete_customer: {subject: email}")
                .replace("    delete_customer: [support]\n", "");
        assertThat(notes(declared, true)).noneMatch(n -> n.contains("after an erasure"));
        // without the gdpr library nothing refuses the deletion
        assertThat(notes(CRM, false)).noneMatch(n -> n.contains("after an erasure"));
    }
}
