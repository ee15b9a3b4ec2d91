package dev.tracegate.engine.ltl;

import java.util.List;
import java.util.Objects;

/**
 * An opaque atomic proposition: a name, an optional argument list and an optional comparison
 * ({@code count(search) <= 3}, {@code arg(refund, amount) > ctx(approved)}). Two atoms are equal
 * when their canonical text is equal; the source position is not part of identity.
 */
public final class Atom implements Formula {
    private final String name;
    private final List<Term> args;
    private final String comparison;
    private final Term bound;
    private final int line;
    private final int column;
    /**
     * {@link #key()}, made on first use and kept (a race makes it twice, equal: String's own hash is cached the same way).
     * A class, not a record, for this field alone: as a record, every {@code hashCode} and {@code equals} built the key
     * again, and the JIT compiling {@code HashMap#put} over the library compiler's atom maps inlined that string building
     * (one C2 compile of 800 ms at a 10-contract agent's start, session 25).
     */
    private String key;

    /**
     * @param name       identifier ({@code call}, {@code approved})
     * @param args       arguments; empty both for {@code p} and {@code p()}
     * @param comparison one of {@code < <= > >= == !=}, or null
     * @param bound      the right-hand side of the comparison, or null
     * @param line       1-based line where the atom starts (0 when built in code)
     * @param column     1-based column where the atom starts (0 when built in code)
     */
    public Atom(String name, List<Term> args, String comparison, Term bound, int line, int column) {
        Objects.requireNonNull(name);
        args = List.copyOf(args);
        if ((comparison == null) != (bound == null)) {
            throw new IllegalArgumentException("comparison and bound go together");
        }
        this.name = name;
        this.args = args;
        this.comparison = comparison;
        this.bound = bound;
        this.line = line;
        this.column = column;
    }

    /** A bare atom {@code name}. */
    public static Atom of(String name) { return new Atom(name, List.of(), null, null, 0, 0); }

    /** An atom {@code name(args)}. */
    public static Atom of(String name, Term... args) { return new Atom(name, List.of(args), null, null, 0, 0); }

    public String name() { return name; }

    public List<Term> args() { return args; }

    public String comparison() { return comparison; }

    public Term bound() { return bound; }

    public int line() { return line; }

    public int column() { return column; }

    /** Canonical text: what the atom means, independent of spacing and position. */
    public String key() {
        String k = key;
        return k != null ? k : (key = spell());
    }

    /** The canonical text, written out (a method of its own, so that {@link #key()}, called by every map look-up, stays small). */
    private String spell() {
        StringBuilder b = new StringBuilder(name);
        if (!args.isEmpty()) b.append(Formulas.printArgs(args));
        if (comparison != null) b.append(' ').append(comparison).append(' ').append(bound);
        return b.toString();
    }

    @Override public boolean equals(Object o) { return o == this || o instanceof Atom a && a.key().equals(key()); }

    @Override public int hashCode() { return key().hashCode(); }

    @Override public String toString() { return key(); }
}
