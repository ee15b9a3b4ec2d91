package dev.tracegate.bench.agent;

import example.host.ScriptedSupportModel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Without the agent, the LangChain4j tool loop really runs the tools, and an attached measurement cannot run in a JVM without the agent. */
class ToolLoopBenchmarkTest {

    @Test
    void detachedInvocationsRunOneToolCallEachAndAnswerWithItsResult() {
        ToolLoopBenchmark.Service s = new ToolLoopBenchmark.Service();
        s.agent = "detached";
        s.setUp();
        ToolLoopBenchmark b = new ToolLoopBenchmark();
        for (int i = 0; i < 5; i++) {
            assertThat(b.passedInvocation(s)).isEqualTo(ScriptedSupportModel.DONE + "found 3 articles");
            assertThat(b.blockedInvocation(s)).isEqualTo(ScriptedSupportModel.DONE + "refunded");
        }
        // the setup's two probe invocations plus the ten measured ones, one tool run each
        assertThat(s.toolRuns()).containsExactly(6L, 6L);
        s.check();
    }

    /** The varied invocation searches for a different text each time, the text of its question. */
    @Test
    void theVariedInvocationSearchesForItsOwnQuestion() {
        ToolLoopBenchmark.Service s = new ToolLoopBenchmark.Service();
        s.agent = "detached";
        s.setUp();
        ToolLoopBenchmark b = new ToolLoopBenchmark();
        java.util.Set<String> queries = new java.util.HashSet<>();
        for (int i = 0; i < 20; i++) {
            assertThat(b.passedInvocationVaried(s)).isEqualTo(ScriptedSupportModel.DONE + "found 3 articles");
            String question = s.questions[i];
            assertThat(s.tools.lastQuery()).isEqualTo(question.substring(ScriptedSupportModel.SEARCH_FOR.length()));
            queries.add(s.tools.lastQuery());
        }
        assertThat(queries).hasSize(20);
        // some queries mention "refund", which would otherwise make the model ask for a refund
        assertThat(s.questions).anyMatch(q -> q.contains("refund"));
        assertThat(s.toolRuns()).containsExactly(21L, 1L);   // the setup's probe search and refund, then the 20
        s.check();
    }

    @Test
    void theTeardownNoticesAnInvocationThatDidNotRunItsTool() {
        ToolLoopBenchmark.Service s = new ToolLoopBenchmark.Service();
        s.agent = "detached";
        s.setUp();
        new ToolLoopBenchmark().passedInvocation(s);
        s.countOneMoreSearchInvocation();
        assertThatThrownBy(s::check).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("2 search invocations ran the search tool 1 times");
    }

    @Test
    void anAttachedMeasurementInAJvmWithoutTheAgentFailsItsSetup() {
        ToolLoopBenchmark.Service s = new ToolLoopBenchmark.Service();
        s.agent = "attached";
        assertThatThrownBy(s::setUp).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("launched with -Dbench.agent=detached but measures agent=attached");
        System.setProperty("bench.agent", "attached");
        try {
            assertThatThrownBy(s::setUp).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was not blocked").hasMessageContaining("the agent is not active in this JVM");
        } finally {
            System.clearProperty("bench.agent");
        }
    }
}
