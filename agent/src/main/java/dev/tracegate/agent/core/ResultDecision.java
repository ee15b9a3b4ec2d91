package dev.tracegate.agent.core;

import java.util.Objects;

/** What the supervisor decided about a tool result: keep it, or withhold it from the model with a notice. */
public final class ResultDecision {

    private static final ResultDecision KEEP = new ResultDecision(null, null);

    private final String contract;
    private final String notice;

    private ResultDecision(String contract, String notice) {
        this.contract = contract;
        this.notice = notice;
    }

    public static ResultDecision keep() {
        return KEEP;
    }

    /** Withhold the result; the model receives {@code notice} instead. */
    public static ResultDecision suppress(String contract, String notice) {
        return new ResultDecision(Objects.requireNonNull(contract), Objects.requireNonNull(notice));
    }

    public boolean suppressed() {
        return notice != null;
    }

    public String contract() {
        return contract;
    }

    public String notice() {
        return notice;
    }

    @Override
    public String toString() {
        return suppressed() ? "SUPPRESS[" + contract + "]" : "KEEP";
    }
}
