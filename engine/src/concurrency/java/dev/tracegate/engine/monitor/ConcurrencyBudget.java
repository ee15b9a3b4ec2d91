package dev.tracegate.engine.monitor;

/**
 * How hard the concurrency tests work: short in the default build (well under a minute on two busy cores), long under
 * {@code -Plong} (the engine's pom passes {@code tracegate.concurrency.budget=long} to their surefire execution).
 */
final class ConcurrencyBudget {
    private ConcurrencyBudget() {}

    static boolean isLong() {
        return "long".equals(System.getProperty("tracegate.concurrency.budget", "short"));
    }

    /** {@code shortValue} in the default build, {@code longValue} under -Plong. */
    static int pick(int shortValue, int longValue) {
        return isLong() ? longValue : shortValue;
    }
}
