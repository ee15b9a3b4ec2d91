package dev.tracegate.engine.monitor;

import java.util.List;

/**
 * The finite-trace reading of a session at its end: per contract IDLE (the trace does not satisfy
 * the assumption), FAIL (it satisfies the assumption and not the guarantee) or ACTIVE; and the
 * obligations still open, i.e. the contracts that FAIL only because the trace ended.
 *
 * @param sessionId the session
 * @param verdicts  one verdict per contract, indexed like {@link ContractSet#contracts()}
 * @param unmet     the obligations the trace left open
 * @param events    the number of events offered to the session (applied or refused), so that a record
 *                  of its end can follow them in sequence
 * @param held      the work the caller still had running in the session when it ended ({@link Session#holds()}:
 *                  for the agent, tool calls let run whose results had not come); 0 offline
 */
public record EndReport(String sessionId, List<Verdict> verdicts, List<Obligation> unmet, long events, int held) {

    /** An end with nothing running in the session (offline replay, tests). */
    public EndReport(String sessionId, List<Verdict> verdicts, List<Obligation> unmet, long events) {
        this(sessionId, verdicts, unmet, events, 0);
    }

    /**
     * A guarantee that was not permanently violated during the session but is not satisfied at its end
     * (an {@code F resp} never met).
     *
     * @param contract   index of the contract
     * @param contractId its id
     * @param pending    the open obligation in formula syntax, when the automaton records it
     */
    public record Obligation(int contract, String contractId, String pending) {}
}
