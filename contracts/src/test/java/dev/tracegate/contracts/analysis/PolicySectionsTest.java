package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PolicySectionsTest {
    @TempDir Path dir;

    /** The notes of the libraries as loaded (what check and the agent's start pass). */
    private List<String> notes(String... sources) {
        return PolicySections.notes(Library.load(List.of(sources), dir).specs());
    }

    @Test
    void aBuiltinPolicyLibraryLoadedWithoutAnyLibraryCarryingItsSectionIsNoted() throws Exception {
        Files.writeString(dir.resolve("inj.yaml"), "library: inj\ninjection:\n  side-effecting:\n    send_money: [recipient]\n");
        Files.writeString(dir.resolve("gd.yaml"), "library: gd\ngdpr:\n  purposes: {billing: [email]}\n  tools: {invoice: [billing]}\n");
        assertThat(notes("gdpr", "injection")).containsExactly(PolicySections.GDPR, PolicySections.INJECTION);
        assertThat(notes("builtin:gdpr", "inj.yaml")).containsExactly(PolicySections.GDPR);
        assertThat(notes("injection", "gd.yaml")).containsExactly(PolicySections.INJECTION);
        assertThat(notes("gdpr", "gd.yaml", "injection", "inj.yaml")).isEmpty();
        assertThat(notes("inj.yaml", "injection")).as("in either order").isEmpty();
        assertThat(notes("sop-refund", "inj.yaml")).as("neither built-in is loaded").isEmpty();
        assertThat(notes("builtin:agentdojo/banking", "injection")).as("the suite carries injection:").isEmpty();
        assertThat(notes("builtin:agentdojo/banking", "gdpr")).containsExactly(PolicySections.GDPR);
    }

    /** A policy section nothing reads: the built-in that reads it is not loaded, and no contract of the user's reads it. */
    @Test
    void aSectionNoLoadedContractReadsIsNoted() throws Exception {
        Path inj = Files.writeString(dir.resolve("inj.yaml"), "library: inj\ninjection:\n  side-effecting:\n    send_money: [recipient]\n"
                + "contracts:\n  - id: inj.cap\n    guarantee: G(call(send_money) -> arg(send_money, amount) <= 500)\n");
        Path gd = Files.writeString(dir.resolve("gd.yaml"), "library: gd\ngdpr:\n  purposes: {billing: [email]}\n  tools: {invoice: [billing]}\n");
        assertThat(PolicySections.unread(Library.load(List.of("inj.yaml"), dir))).singleElement().asString()
                .startsWith("the injection: section of").contains("inj.yaml").contains("add injection to the libraries");
        assertThat(PolicySections.unread(Library.load(List.of("gd.yaml", "sop-refund"), dir))).singleElement().asString()
                .startsWith("the gdpr: section of").contains("add gdpr to the libraries");
        assertThat(PolicySections.unread(Library.load(List.of("injection", "inj.yaml", "gdpr", "gd.yaml"), dir))).isEmpty();
        assertThat(PolicySections.unread(Library.load(List.of("builtin:agentdojo/banking", "injection"), dir))).as("as eval loads it").isEmpty();
        assertThat(PolicySections.unread(Library.load(List.of("builtin:agentdojo/banking"), dir))).as("a policy-only suite alone").hasSize(1);
        Path own = Files.writeString(dir.resolve("own.yaml"), "library: own\ninjection:\n  side-effecting:\n    send_money: [recipient]\n"
                + "contracts:\n  - id: own.no-untrusted\n    guarantee: G !untrusted_target\n");
        assertThat(PolicySections.unread(Library.load(List.of("own.yaml"), dir))).as("a contract of the user's reads it").isEmpty();
    }
}
