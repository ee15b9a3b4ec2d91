package dev.tracegate.contracts.fuzz;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.contracts.library.LibrarySpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The library loader ({@link LibraryReader#read} then {@link Library#compile}), fed mutated
 * built-in libraries and random YAML-ish text, either yields a library or throws
 * {@link LibraryException} with a message, and always answers. {@code -Plong} runs {@link #longRun}
 * for {@code tracegate.fuzz.minutes} minutes (default 10).
 */
class LibraryFuzzTest {
    private static final List<String> CORPUS = Library.BUILTINS.stream().map(Library::builtinText).toList();
    private static final Bounded BOUNDED = new Bounded();

    @Provide Arbitrary<String> mutatedBuiltin() {
        return Combinators.combine(Arbitraries.of(CORPUS), Arbitraries.integers().between(1, 8), Arbitraries.longs())
                .as((base, n, seed) -> Mutation.mutate(base, n, new Random(seed)));
    }

    @Provide Arbitrary<String> yamlSoup() {
        return Combinators.combine(Arbitraries.of(Mutation.PIECES).list().ofMaxSize(60), Arbitraries.of("", " ", "\n"))
                .as((l, sep) -> "library: x\n" + String.join(sep, l));
    }

    @Property(tries = 150) void mutatedBuiltinsLoadOrExplain(@ForAll("mutatedBuiltin") String yaml) throws Throwable { check(yaml); }

    @Property(tries = 400) void yamlSoupLoadsOrExplains(@ForAll("yamlSoup") String yaml) throws Throwable { check(yaml); }

    @Property(tries = 300) void arbitraryTextLoadsOrExplains(@ForAll String yaml) throws Throwable { check(yaml); }

    @Test void unmutatedBuiltinsLoad() throws Throwable {
        for (String yaml : CORPUS) assertThat(check(yaml)).isNotNull();
    }

    @Test @Tag("long") void longRun() throws Throwable {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(Long.getLong("tracegate.fuzz.minutes", 10));
        List<Iterator<String>> sources = List.of(mutatedBuiltin().sampleStream().iterator(), yamlSoup().sampleStream().iterator(),
                Arbitraries.strings().ofMaxLength(300).sampleStream().iterator());
        long inputs = 0;
        while (System.nanoTime() < end) {
            for (Iterator<String> s : sources) { check(s.next()); inputs++; }
        }
        System.out.println("LibraryFuzzTest.longRun: " + inputs + " inputs, 0 findings");
    }

    /** Reads and compiles within the deadline; a library or a LibraryException is fine, anything else fails. */
    static Library check(String yaml) throws Throwable {
        try {
            return BOUNDED.run(yaml, () -> {
                LibrarySpec spec = LibraryReader.read("fuzz.yaml", yaml);
                return Library.compile(List.of(spec));
            });
        } catch (LibraryException e) {
            assertThat(e.getMessage()).as("message for %s", Bounded.abbreviate(yaml)).isNotBlank();
            return null;
        } catch (Throwable t) {
            return fail("the library loader threw " + t + " (only LibraryException is documented) for input:\n" + yaml, t);
        }
    }
}
