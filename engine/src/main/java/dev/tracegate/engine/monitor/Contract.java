package dev.tracegate.engine.monitor;

import dev.tracegate.engine.ltl.Formula;

import java.util.Objects;

/**
 * An assume-guarantee contract: while the environment keeps {@code assume}, the agent must keep
 * {@code guarantee}; {@code strategy} names what enforcement does on a violation and
 * {@code message} tells the agent why.
 */
public record Contract(String id, Formula assume, Formula guarantee, String strategy, String message) {
    public Contract {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(assume, "assume");
        Objects.requireNonNull(guarantee, "guarantee");
        if (strategy == null) strategy = "block";
        if (message == null) message = "";
    }

    /** A contract with assumption {@code true}, strategy block and no message. */
    public static Contract of(String id, Formula guarantee) {
        return new Contract(id, Formula.Const.TRUE, guarantee, "block", "");
    }
}
