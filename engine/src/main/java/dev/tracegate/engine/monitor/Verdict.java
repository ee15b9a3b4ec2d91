package dev.tracegate.engine.monitor;

/**
 * A contract's verdict at a prefix: {@code IDLE} when the environment broke the assumption for good,
 * {@code FAIL} when the assumption still stands and the guarantee is broken for good, else
 * {@code ACTIVE}. At session end the finite-trace reading applies instead (see {@link EndReport}).
 */
public enum Verdict { IDLE, ACTIVE, FAIL }
