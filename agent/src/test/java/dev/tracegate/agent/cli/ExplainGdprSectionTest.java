package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code explain} shows what a library's gdpr: section means, not only the four gdpr contracts (trial19). */
class ExplainGdprSectionTest {
    @TempDir Path dir;

    private Path library(String name, String gdpr) throws Exception {
        Path lib = dir.resolve(name);
        Files.writeString(lib, "library: bank\ngdpr:\n" + gdpr);
        return lib;
    }

    @Test
    void theSectionIsShownAsToolsPurposesConsentAndSubjects() throws Exception {
        Path lib = library("bank.yaml", """
                  purposes:
                    support: [email]
                    marketing: [email]
                  consent-purposes: [marketing]
                  subject-fields: [customer]
                  tools:
                    lookupAccount: [support]
                    sendNewsletter: [marketing]
                  fields:
                    sendNewsletter: {address: postal_address}
                  consent-tools:
                    record_consent: {subject: client_id, purposes: purpose, granted: granted}
                    withdraw_marketing: {subject: client_id, purposes: [marketing], granted: false}
                  erasure-tools:
                    forget_client: {subject: client_id}
                """);
        CliRun r = CliRun.of("explain", "gdpr," + lib);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("gdpr.P1-consent")
                .contains("gdpr: section of " + lib + " (library bank)")
                .contains("    marketing: email   (rests on consent)\n")
                .contains("    support: email\n")
                .contains("  consent: P1 asks the data subject's consent for marketing; support rests on another lawful basis\n")
                .contains("    lookupAccount -> support\n")
                .contains("    sendNewsletter -> marketing   (P1: needs consent for marketing)   fields: address = postal_address\n")
                .contains("any other tool: no declared purpose, so P2 refuses a call of it that carries personal data (the consent and erasure tools aside)")
                .contains("(each names a data subject of the calls that carry it; P1 asks every one's consent): customer, client_id (with the consent and erasure tools' subject fields)\n")
                .contains("    record_consent: subject in client_id, purposes in purpose, granted (or withdrawn) in granted"
                        + " (a grant at its call's successful return, a withdrawal at its call)\n")
                .contains("    withdraw_marketing: subject in client_id, always for marketing, always a withdrawal (at its call)\n")
                .contains("    forget_client: subject in client_id\n")
                .contains("  scope: global (a consent or an erasure counts in every conversation); register capacity 65536 (default)\n");
    }

    @Test
    void consentPurposesLeftOutOrNoneAndNoSubjectFieldsAreSpelledOut() throws Exception {
        Path all = library("all.yaml", """
                  purposes:
                    support: [email]
                  tools:
                    lookupAccount: [support]
                  scope: session
                  register-capacity: 500
                """);
        CliRun r = CliRun.of("explain", "gdpr", all.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("    support: email   (rests on consent)\n")
                .contains("  consent: every purpose rests on consent (consent-purposes is left out): P1 asks the data subject's consent for each\n")
                .contains("    lookupAccount -> support   (P1: needs consent for support)\n")
                .contains("none, so a call has no data subject and P1 counts only a consent given for the whole session\n")
                .contains("  consent tools: none\n  erasure tools: none\n")
                .contains("configured methods of kind consent / erasure")
                .contains("  scope: session (a consent or an erasure counts only in its own conversation); register capacity 500\n");

        Path none = library("none.yaml", """
                  purposes:
                    support: [email]
                  consent-purposes: none
                  subject-fields: [customer]
                  tools:
                    lookupAccount: [support]
                """);
        CliRun n = CliRun.of("explain", "gdpr," + none);
        assertThat(n.code()).as(n.err()).isZero();
        assertThat(n.out())
                .contains("  consent: no purpose rests on consent (consent-purposes: none), so P1 never asks\n")
                .contains("    lookupAccount -> support\n")
                .doesNotContain("rests on consent)");
    }

    @Test
    void aLibraryWithoutAGdprSectionPrintsNoSection() {
        CliRun r = CliRun.of("explain", "sop-refund");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain("gdpr: section");
    }
}
