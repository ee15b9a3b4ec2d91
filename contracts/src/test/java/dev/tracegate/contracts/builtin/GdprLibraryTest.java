package dev.tracegate.contracts.builtin;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.tracegate.contracts.builtin.Traces.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The gdpr built-in library with a shop's policy: P1 consent, P2 purpose limitation, P3 minimisation, P4 erasure. */
class GdprLibraryTest {
    private static final String SHOP = """
            library: shop-policy
            gdpr:
              purposes:
                marketing: [email]
                fulfilment: [name, postal_address]
              consent-purposes: [marketing]
              tools:
                send_newsletter: [marketing]
                create_shipment: [fulfilment]
                lookup_order: [fulfilment]
                customer_profile: [fulfilment]
              consent-tools:
                record_consent: {subject: customer_id, purposes: purpose}
              erasure-tools:
                forget_customer: {subject: customer_id}
            contracts:
              - id: shop.refund-budget
                guarantee: G(count(refund) <= 10)
            """;

    private final Library lib = load(SHOP, "gdpr");

    @Test
    void p1ConsentIsNeededPerSubjectForConsentBasedPurposesOnly() {
        assertThat(replay(lib, List.of(
                call("send_newsletter", "{\"customer_id\": \"C-1\", \"email\": \"ada@example.com\"}"),
                call("record_consent", "{\"customer_id\": \"C-1\", \"purpose\": \"marketing\"}"),
                ok("record_consent", "recorded"),
                call("send_newsletter", "{\"customer_id\": \"C-1\", \"email\": \"ada@example.com\"}"),
                call("send_newsletter", "{\"customer_id\": \"C-2\", \"email\": \"bob@example.com\"}"),
                // fulfilment rests on the contract with the customer, not on consent
                call("create_shipment", "{\"customer_id\": \"C-2\", \"name\": \"Bob Stone\", \"address\": \"1 High Street, Leeds LS1 4AP\"}"))))
                .containsExactly("BLOCK:gdpr.P1-consent", "PASS", "PASS", "PASS", "BLOCK:gdpr.P1-consent", "PASS");
    }

    /** 'consent-purposes: none': every purpose rests on another lawful basis, so P1 never asks for consent; P2-P4 still act. */
    @Test
    void p1AsksNoConsentWhenThePolicySaysNoPurposeRestsOnIt() {
        Library none = load(SHOP.replace("consent-purposes: [marketing]", "consent-purposes: none"), "gdpr");
        assertThat(replay(none, List.of(
                call("send_newsletter", "{\"customer_id\": \"C-1\", \"email\": \"ada@example.com\"}"),
                call("export_contacts", "{\"email\": \"ada@example.com\"}"))))
                .containsExactly("PASS", "BLOCK:gdpr.P2-purpose-limitation");
        Library all = load(SHOP.replace("  consent-purposes: [marketing]\n", ""), "gdpr");
        assertThat(replay(all, List.of(
                call("create_shipment", "{\"customer_id\": \"C-2\", \"name\": \"Bob Stone\", \"address\": \"1 High Street, Leeds LS1 4AP\"}"))))
                .as("without the key every purpose rests on consent").containsExactly("BLOCK:gdpr.P1-consent");
    }

    @Test
    void p1ConsentEventsFromTheHostCountToo() {
        assertThat(replay(lib, List.of(
                consent("C-1", "marketing", true),
                call("send_newsletter", "{\"customer_id\": \"C-1\", \"email\": \"ada@example.com\"}"),
                consent("C-1", "marketing", false),
                call("send_newsletter", "{\"customer_id\": \"C-1\", \"email\": \"ada@example.com\"}"))))
                .containsExactly("PASS", "PASS", "PASS", "BLOCK:gdpr.P1-consent");
    }

    @Test
    void p2PersonalDataOnlyForDeclaredPurposes() {
        assertThat(replay(lib, List.of(
                call("export_contacts", "{\"email\": \"ada@example.com\"}"),
                call("weather", "{\"city\": \"Oslo\"}"))))
                .containsExactly("BLOCK:gdpr.P2-purpose-limitation", "PASS");
    }

    /** The trial's bank: the consent and erasure tools name the subject by e-mail address and serve no purpose. */
    private static final String BANK = """
            library: bank
            gdpr:
              purposes:
                marketing: [email]
              consent-purposes: [marketing]
              subject-fields: [email]
              tools:
                send_newsletter: [marketing]
              consent-tools:
                grant: {subject: email, purposes: purpose, granted: granted}
              erasure-tools:
                forget: {subject: email}
            contracts:
              - id: bank.no-transfer
                guarantee: G !call(transfer)
            """;

    @Test
    void p2LetsTheSubjectRecordConsentAndRequestErasureByPersonalDataButNotOtherUnboundTools() {
        Library bank = load(BANK, "gdpr");
        assertThat(replay(bank, List.of(
                call("send_newsletter", "{\"email\": \"ada@example.com\"}"),
                call("grant", "{\"email\": \"ada@example.com\", \"purpose\": \"marketing\", \"granted\": true}"),
                ok("grant", "recorded"),
                call("send_newsletter", "{\"email\": \"ada@example.com\"}"),
                call("export_contacts", "{\"email\": \"ada@example.com\"}"),
                call("grant", "{\"email\": \"ada@example.com\", \"purpose\": \"marketing\", \"granted\": false}"),
                call("send_newsletter", "{\"email\": \"ada@example.com\"}"),
                call("forget", "{\"email\": \"bob@example.com\"}"),
                call("send_newsletter", "{\"email\": \"bob@example.com\"}"))))
                // P1 before consent, the grant, P1 satisfied, P2 for an unbound tool, the withdrawal, P1 again,
                // the erasure request, P4 (and P1) after it
                .containsExactly("BLOCK:gdpr.P1-consent", "PASS", "PASS", "PASS", "BLOCK:gdpr.P2-purpose-limitation", "PASS",
                        "BLOCK:gdpr.P1-consent", "PASS", "BLOCK:gdpr.P1-consent,gdpr.P4-erasure");
    }

    /**
     * trial26 02: consent-tools entries with fixed values. {@code granted: false} is a tool that always withdraws (it was
     * read as an argument named "false", so the withdrawal did nothing), {@code purposes: [marketing]} a tool that always
     * records consent to marketing.
     */
    @Test
    void aConsentToolWithFixedGrantedOrPurposesRecordsThem() {
        Library bank = load(BANK.replace("    grant: {subject: email, purposes: purpose, granted: granted}\n",
                "    grant: {subject: email, purposes: purpose}\n"
                        + "    withdraw: {subject: email, purposes: purpose, granted: false}\n"
                        + "    optin: {subject: email, purposes: [marketing], granted: true}\n"
                        + "    optout: {subject: email, purposes: [marketing], granted: false}\n"), "gdpr");
        assertThat(replay(bank, List.of(
                call("grant", "{\"email\": \"ada@example.com\", \"purpose\": \"marketing\"}"),
                ok("grant", "recorded"),
                call("send_newsletter", "{\"email\": \"ada@example.com\"}"),
                call("withdraw", "{\"email\": \"ada@example.com\", \"purpose\": \"marketing\"}"),
                ok("withdraw", "withdrawn"),
                call("send_newsletter", "{\"email\": \"ada@example.com\"}"),
                call("optin", "{\"email\": \"ada@example.com\"}"),
                ok("optin", "done"),
                call("send_newsletter", "{\"email\": \"ada@example.com\"}"),
                call("optout", "{\"email\": \"ada@example.com\"}"),
                call("send_newsletter", "{\"email\": \"ada@example.com\"}"))))
                .containsExactly("PASS", "PASS", "PASS", "PASS", "PASS", "BLOCK:gdpr.P1-consent", "PASS", "PASS", "PASS", "PASS",
                        "BLOCK:gdpr.P1-consent");
    }

    /** trial26 02: a consent-tools value that can only have meant a fixed purpose is refused, with where and how to fix. */
    @Test
    void aConsentToolsPurposeThatNamesADeclaredPurposeIsRefused() {
        String yaml = BANK.replace("    grant: {subject: email, purposes: purpose, granted: granted}\n",
                "    optin: {subject: email, purposes: marketing}\n");
        assertThatThrownBy(() -> load(yaml, "gdpr")).isInstanceOf(LibraryException.class)
                .hasMessageContaining(":10:")
                .hasMessageContaining("gdpr.consent-tools.optin.purposes: 'marketing' names the tool's argument that holds the purposes,"
                        + " but marketing is a declared purpose")
                .hasMessageContaining("purposes: [marketing]");
        String undeclared = BANK.replace("    grant: {subject: email, purposes: purpose, granted: granted}\n",
                "    optin: {subject: email, purposes: [newsletter]}\n");
        assertThatThrownBy(() -> load(undeclared, "gdpr")).isInstanceOf(LibraryException.class)
                .hasMessageContaining("gdpr.consent-tools.optin.purposes lists 'newsletter', which is not a declared purpose")
                .hasMessageContaining("declared: marketing");
    }

    @Test
    void aPolicyOnlyLibraryIsReadByTheBuiltIn() {
        String policyOnly = BANK.substring(0, BANK.indexOf("contracts:"));
        for (String yaml : List.of(policyOnly, policyOnly + "contracts: []\n")) {
            Library bank = load(yaml, "gdpr");
            assertThat(replay(bank, List.of(
                    call("send_newsletter", "{\"email\": \"ada@example.com\"}"),
                    call("grant", "{\"email\": \"ada@example.com\", \"purpose\": \"marketing\"}"),
                    ok("grant", "recorded"),
                    call("send_newsletter", "{\"email\": \"ada@example.com\"}"))))
                    .containsExactly("BLOCK:gdpr.P1-consent", "PASS", "PASS", "PASS");
        }
    }

    @Test
    void aPolicyOnlyLibraryAloneSaysWhichBuiltInReadsIt() {
        String policyOnly = BANK.substring(0, BANK.indexOf("contracts:"));
        assertThatThrownBy(() -> load(policyOnly))
                .isInstanceOf(LibraryException.class)
                .hasMessage("policy.yaml:1:1: no contracts in any loaded library: the gdpr: section of policy.yaml is read by the built-in "
                        + "library gdpr, which is not loaded\n  hint: load them together: on the command line gdpr,policy.yaml (replay gdpr,policy.yaml"
                        + " TRACE..., check gdpr policy.yaml), in the agent's configuration libraries: [gdpr, policy.yaml]");
    }

    @Test
    void p3DataThePurposeDoesNotNeedIsRefused() {
        assertThat(replay(lib, List.of(
                call("create_shipment", "{\"name\": \"Ada Lovelace\", \"address\": \"12 Baker Street, London NW1 6XE\", \"email\": \"ada@example.com\"}"),
                call("create_shipment", "{\"name\": \"Ada Lovelace\", \"address\": \"12 Baker Street, London NW1 6XE\"}"))))
                .containsExactly("BLOCK:gdpr.P3-minimisation", "PASS");
    }

    @Test
    void p4AfterErasureTheSubjectIsNeitherUsedNorDisclosed() {
        assertThat(replay(lib, List.of(
                call("forget_customer", "{\"customer_id\": \"C-1\"}"),
                ok("forget_customer", "erasure of C-1 scheduled"),
                call("lookup_order", "{\"order_id\": \"77\"}"),
                ok("lookup_order", "order 77 placed by C-1"),
                call("customer_profile", "{\"customer_id\": \"C-1\"}"),
                assistant("Customer C-1 lives in London."),
                assistant("That customer's data was erased at their request."))))
                .containsExactly("PASS", "PASS", "PASS", "SUPPRESS:gdpr.P4-erasure", "BLOCK:gdpr.P4-erasure",
                        "BLOCK:gdpr.P4-erasure", "PASS");
    }

    /**
     * trial26 03: after an erasure request, the tool that carries it out and a repeated request were refused by P4, so an
     * obligation "erasure -> F returned(delete_customer)" could never be met. A call of an erasure tool (a deletion tool
     * is declared under erasure-tools) is not a use of its subject's data; a tool not declared so still is, and an
     * erasure tool's other arguments naming an erased subject still are.
     */
    @Test
    void p4LetsAnErasureToolCarryOutOrRepeatTheErasureOfItsSubject() {
        Library shop = load(SHOP.replace("forget_customer: {subject: customer_id}",
                "forget_customer: {subject: customer_id}\n    delete_customer: {subject: customer_id}"), "gdpr");
        assertThat(replay(shop, List.of(
                call("forget_customer", "{\"customer_id\": \"C-1\"}"),
                ok("forget_customer", "erasure of C-1 scheduled"),
                call("delete_customer", "{\"customer_id\": \"C-1\"}"),
                ok("delete_customer", "C-1 deleted"),
                call("forget_customer", "{\"customer_id\": \"C-1\"}"),
                // an erasure tool's call for another subject that names the erased one elsewhere
                call("forget_customer", "{\"customer_id\": \"C-2\", \"note\": \"referred by C-1\"}"),
                // a tool not declared an erasure tool still may not use the subject's data
                call("customer_profile", "{\"customer_id\": \"C-1\"}"))))
                .containsExactly("PASS", "PASS", "PASS", "PASS", "PASS", "BLOCK:gdpr.P4-erasure", "BLOCK:gdpr.P4-erasure");
    }

    @Test
    void p4ErasureEventsFromTheHostCountToo() {
        assertThat(replay(lib, List.of(erasure("ada@example.com"), assistant("I wrote to ada@example.com"))))
                .containsExactly("PASS", "BLOCK:gdpr.P4-erasure");
    }
}
