package dev.tracegate.agent.core;

/** A user message reaching the agent or model output leaving it, as text. */
public record Message(String framework, String session, String text) {

    /**
     * What the framework name of a streamed answer ends with ({@code springai-stream}, {@code langchain4j-stream}): its
     * text reached the application chunk by chunk before the complete answer is checked.
     */
    public static final String STREAM_SUFFIX = "-stream";

    /** Whether this is a streamed answer, already shown when it is checked (see {@link #STREAM_SUFFIX}). */
    public boolean streamed() {
        return framework != null && framework.endsWith(STREAM_SUFFIX);
    }
}
