package dev.tracegate.engine.ltl;

/**
 * RV-LTL's four values of a formula at a finite prefix u: permanently satisfied (every extension of
 * u, the empty one included, satisfies it), permanently violated (none does), and otherwise
 * presumably satisfied or presumably violated according to whether u itself satisfies it.
 */
public enum RvVerdict {
    PERMANENTLY_SATISFIED, PERMANENTLY_VIOLATED, PRESUMABLY_SATISFIED, PRESUMABLY_VIOLATED;

    /** Whether the prefix itself satisfies the formula. */
    public boolean accepting() { return this == PERMANENTLY_SATISFIED || this == PRESUMABLY_SATISFIED; }

    /** Whether no extension can change the answer. */
    public boolean isFinal() { return this == PERMANENTLY_SATISFIED || this == PERMANENTLY_VIOLATED; }

    public static RvVerdict of(boolean accepting, boolean sink) {
        if (sink) return accepting ? PERMANENTLY_SATISFIED : PERMANENTLY_VIOLATED;
        return accepting ? PRESUMABLY_SATISFIED : PRESUMABLY_VIOLATED;
    }
}
