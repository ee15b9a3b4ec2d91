package dev.tracegate.engine.reference;

/** Thrown when deciding a verdict by progression would have to explore more residuals than allowed. */
public final class ResidualLimitException extends RuntimeException {
    private final int limit;

    ResidualLimitException(String formula, int limit) {
        super("formula " + formula + ": more than " + limit
                + " distinct residuals are reachable; raise the limit or use a smaller formula");
        this.limit = limit;
    }

    /** The number of residuals that was exceeded. */
    public int limit() { return limit; }
}
