package dev.tracegate.engine.ltl;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An atom's identity is its canonical text: what the library compiler's maps of atoms rely on. */
class AtomTest {

    @Test
    void atomsOfTheSameTextAreEqualWhereverTheyStand() {
        Atom here = new Atom("arg", List.of(new Term.Name("refund"), new Term.Name("amount")), "<=", new Term.Num("100"), 3, 7);
        Atom there = new Atom("arg", List.of(new Term.Name("refund"), new Term.Name("amount")), "<=", new Term.Num("100"), 12, 1);
        assertThat(here).isEqualTo(there).hasSameHashCodeAs(there);
        assertThat(here.key()).isEqualTo("arg(refund, amount) <= 100").isSameAs(here.key());
        assertThat(here.line()).isEqualTo(3);
        assertThat(there.column()).isEqualTo(1);

        Map<Atom, Integer> index = new HashMap<>();
        index.put(here, 0);
        assertThat(index).containsEntry(there, 0);
    }

    @Test
    void atomsOfAnotherTextDiffer() {
        Atom bare = Atom.of("call", new Term.Name("refund"));
        assertThat(bare).isNotEqualTo(Atom.of("call", new Term.Name("search")))
                .isNotEqualTo(Atom.of("returned", new Term.Name("refund")))
                .isNotEqualTo(new Atom("call", List.of(new Term.Name("refund")), "==", new Term.Num("1"), 0, 0))
                .isNotEqualTo("call(refund)");
        assertThat(Atom.of("p")).isEqualTo(new Atom("p", List.of(), null, null, 0, 0));
        assertThatThrownBy(() -> new Atom("count", List.of(new Term.Name("search")), "<=", null, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
