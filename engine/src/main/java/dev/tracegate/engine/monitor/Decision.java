package dev.tracegate.engine.monitor;

import java.util.Arrays;

/**
 * What the monitor decided for one event. {@link #PASS} is a shared constant, so the common path
 * allocates nothing; every other decision lists the contracts (indices into
 * {@link ContractSet#contracts()}) that caused it.
 */
public final class Decision {

    /** The kinds of decision. */
    public enum Kind {
        /** Applied; no contract is freshly violated. */
        PASS,
        /** An agent event would make these contracts FAIL: refused (the strategy acts). */
        BLOCK,
        /** An environment event would break these contracts' assumptions: withheld. */
        SUPPRESS,
        /** An agent event reads atoms that cannot be evaluated, and some value of them would make these contracts FAIL. */
        UNEVALUABLE,
        /** An environment event made these contracts FAIL: applied (it already happened) and reported. */
        VIOLATION,
        /** The session was closed before this event; nothing was applied. */
        CLOSED
    }

    public static final Decision PASS = new Decision(Kind.PASS, true, new int[0]);
    static final Decision CLOSED = new Decision(Kind.CLOSED, false, new int[0]);

    private final Kind kind;
    private final boolean applied;
    private final int[] contracts;

    Decision(Kind kind, boolean applied, int[] contracts) {
        this.kind = kind;
        this.applied = applied;
        this.contracts = contracts;
    }

    public Kind kind() { return kind; }

    /** Whether the event changed the session's state (always for PASS and VIOLATION; for a refusal only in shadow mode). */
    public boolean applied() { return applied; }

    /** Whether the event is refused (BLOCK, SUPPRESS or UNEVALUABLE), whether or not shadow mode applied it. */
    public boolean refused() { return kind == Kind.BLOCK || kind == Kind.SUPPRESS || kind == Kind.UNEVALUABLE; }

    /** The contracts that caused this decision (a copy). */
    public int[] contracts() { return contracts.clone(); }

    /** Number of contracts that caused this decision. */
    public int contractCount() { return contracts.length; }

    /** The {@code i}-th contract that caused this decision. */
    public int contract(int i) { return contracts[i]; }

    @Override public boolean equals(Object o) {
        return o instanceof Decision d && d.kind == kind && d.applied == applied && Arrays.equals(d.contracts, contracts);
    }

    @Override public int hashCode() { return kind.hashCode() * 31 + Arrays.hashCode(contracts) + (applied ? 1 : 0); }

    @Override public String toString() {
        return kind + (contracts.length == 0 ? "" : Arrays.toString(contracts)) + (applied || kind == Kind.PASS ? "" : " (not applied)");
    }
}
