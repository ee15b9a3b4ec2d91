package dev.tracegate.engine.automaton;

/** A formula that cannot be compiled to an automaton; the message says what, where and how to fix it. */
public class CompileException extends RuntimeException {
    public CompileException(String message) { super(message); }
}
