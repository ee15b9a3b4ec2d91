package dev.tracegate.agent.core;

/**
 * The text a refusal hands to the host or the model, the same for a blocked call and a blocked answer:
 * what was blocked, the contract, why (without the contract's id a second time) and what to do instead.
 */
public final class BlockText {
    private BlockText() {}

    /**
     * E.g. {@code tracegate blocked the call to transfer (contract bank.no-transfer): Transfers need approval. Instead: ask first.}
     *
     * @param what    what was blocked: {@code the call to transfer}, {@code the answer}
     * @param reason  why, as the supervisor gives it ({@code contract: reason ...}); may be null
     * @param instead what to do instead (the contract's {@code next}); may be null or blank
     */
    public static String of(String what, String contract, String reason, String instead) {
        StringBuilder text = new StringBuilder(160).append("tracegate blocked ").append(what)
                .append(" (contract ").append(contract).append(')');
        if (reason != null && contract != null && reason.startsWith(contract + ": ")) {
            reason = reason.substring(contract.length() + 2);   // the contract is named just before
        }
        if (reason != null && !reason.isBlank()) {
            text.append(": ").append(reason);
        }
        if (instead != null && !instead.isBlank()) {
            char last = text.charAt(text.length() - 1);
            text.append(last == '.' || last == '!' || last == '?' ? " Instead: " : ". Instead: ").append(instead);
        }
        return text.toString();
    }
}
