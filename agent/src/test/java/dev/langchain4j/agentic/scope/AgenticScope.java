package dev.langchain4j.agentic.scope;

/**
 * Test stand-in for langchain4j-agentic's scope interface (not on the agent's class path): AgenticRuns finds the scope
 * among an invocation's managed parameters by this name, and reads its memoryId().
 */
public interface AgenticScope {
    Object memoryId();
}
