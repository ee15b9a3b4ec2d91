package dev.tracegate.agent.bootstrap;

/**
 * Thrown into the host when tracegate blocks an event and the configuration asks for an
 * exception rather than a substituted result; the message names the contract, why, and what to do instead.
 */
public class TracegateViolation extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TracegateViolation(String message) {
        super(message, null, false, false);
    }
}
