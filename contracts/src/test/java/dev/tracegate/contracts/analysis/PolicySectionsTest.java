package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibrarySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PolicySectionsTest {
    @TempDir Path dir;

    @Test
    void thePlainBuiltinsCarryNeitherSectionSoTheStartNeedNotReadThem() {
        // the agent's start skips reading them on this ground: if one ever carries a section, the shortcut is wrong
        for (String b : Library.BUILTINS) {
            LibrarySpec spec = Library.read(b, null);
            assertThat(spec.gdpr()).as(b).isNull();
            assertThat(spec.injection()).as(b).isNull();
        }
    }

    @Test
    void byNameTheNotesAreTheSameAsFromTheLoadedSpecs() throws Exception {
        Path inj = Files.writeString(dir.resolve("inj.yaml"), "library: inj\ninjection:\n  side-effecting:\n    send_money: [recipient]\n");
        Path gd = Files.writeString(dir.resolve("gd.yaml"), "library: gd\ngdpr:\n  purposes: {billing: [email]}\n  tools: {invoice: [billing]}\n");
        for (List<String> sources : List.of(List.of("gdpr", "injection"), List.of("builtin:gdpr", "inj.yaml"), List.of("injection", "gd.yaml"),
                List.of("gdpr", "gd.yaml", "injection", "inj.yaml"), List.of("sop-refund", "inj.yaml"), List.of("builtin:agentdojo/banking", "gdpr"))) {
            List<LibrarySpec> specs = new ArrayList<>();
            for (String s : sources) specs.add(Library.read(s, dir));
            assertThat(PolicySections.notes(sources, dir)).as(sources.toString()).isEqualTo(PolicySections.notes(specs));
        }
        assertThat(PolicySections.notes(List.of("gdpr", "injection"), dir)).containsExactly(PolicySections.GDPR, PolicySections.INJECTION);
        assertThat(PolicySections.notes(List.of("builtin:agentdojo/banking", "injection"), dir)).as("the suite carries injection:").isEmpty();
        assertThat(PolicySections.notes(List.of("gdpr", "missing.yaml"), dir)).as("a library that does not load reports itself").isEmpty();
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
