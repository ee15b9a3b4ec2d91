package dev.tracegate.engine.ltl;

import java.util.List;
import java.util.Objects;

/**
 * An opaque atomic proposition: a name, an optional argument list and an optional comparison
 * ({@code count(search) <= 3}, {@code arg(refund, amount) > ctx(approved)}). Two atoms are equal
 * when their canonical text is equal; the source position is not part of identity.
 *
 * @param name       identifier ({@code call}, {@code approved})
 * @param args       arguments; empty both for {@code p} and {@code p()}
 * @param comparison one of {@code < <= > >= == !=}, or null
 * @param bound      the right-hand side of the comparison, or null
 * @param line       1-based line where the atom starts (0 when built in code)
 * @param column     1-based column where the atom starts (0 when built in code)
 */
public record Atom(String name, List<Term> args, String comparison, Term bound, int line, int column)
        implements Formula {

    public Atom {
        Objects.requireNonNull(name);
        args = List.copyOf(args);
        if ((comparison == null) != (bound == null)) {
            throw new IllegalArgumentException("comparison and bound go together");
        }
    }

    /** A bare atom {@code name}. */
    public static Atom of(String name) { return new Atom(name, List.of(), null, null, 0, 0); }

    /** An atom {@code name(args)}. */
    public static Atom of(String name, Term... args) { return new Atom(name, List.of(args), null, null, 0, 0); }

    /** Canonical text: what the atom means, independent of spacing and position. */
    public String key() {
        StringBuilder b = new StringBuilder(name);
        if (!args.isEmpty()) b.append(Formulas.printArgs(args));
        if (comparison != null) b.append(' ').append(comparison).append(' ').append(bound);
        return b.toString();
    }

    @Override public boolean equals(Object o) { return o instanceof Atom a && a.key().equals(key()); }

    @Override public int hashCode() { return key().hashCode(); }

    @Override public String toString() { return key(); }
}
