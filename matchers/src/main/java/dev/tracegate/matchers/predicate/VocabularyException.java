package dev.tracegate.matchers.predicate;

import dev.tracegate.engine.ltl.Atom;

import java.util.List;

/**
 * An atom that the predicate vocabulary does not know, or that has the wrong arguments: carries the
 * atom's line and column, what is wrong, and the valid forms.
 */
public final class VocabularyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Atom atom;
    private final String problem;
    private final List<String> validForms;

    public VocabularyException(Atom atom, String problem, List<String> validForms) {
        super(atom.line() + ":" + atom.column() + ": atom `" + atom.key() + "`: " + problem
                + (validForms.isEmpty() ? "" : ". Valid forms: " + String.join(", ", validForms)));
        this.atom = atom;
        this.problem = problem;
        this.validForms = List.copyOf(validForms);
    }

    /** The offending atom. */
    public Atom atom() { return atom; }
    /** 1-based line of the atom (0 when built in code). */
    public int line() { return atom.line(); }
    /** 1-based column of the atom (0 when built in code). */
    public int column() { return atom.column(); }
    /** What is wrong, without position or forms. */
    public String problem() { return problem; }
    /** The valid forms of this atom name (all forms when the name is unknown). */
    public List<String> validForms() { return validForms; }
}
