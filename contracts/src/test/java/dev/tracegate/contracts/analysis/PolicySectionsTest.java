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
}
