package dev.tracegate.agent.bootstrap;

/**
 * How one framework's streamed answer chunks read, for {@link StreamCheck}: implemented in the agent's own class
 * loader (which cannot see the framework's types, so by reflection) and registered with {@link Dispatcher#installChunks}.
 *
 * <p>Called from whatever thread delivers the stream's chunks; implementations must be thread-safe. Whatever they
 * throw is an internal error, mapped to the failure policy.
 */
public interface AnswerChunks {

    /** The answer text this chunk adds, or null. */
    String text(Object chunk);

    /** True if this chunk asks for tools: the text before it was a tool-calling round's, not the answer. */
    boolean asksForTools(Object chunk);

    /** A chunk of the same framework carrying {@code text} (a notice), built like {@code last}, the stream's last chunk. */
    Object notice(Object last, String text);
}
