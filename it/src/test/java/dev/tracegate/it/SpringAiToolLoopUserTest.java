package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user message tracegate withholds (here {@code suppressUser=password}) stays withheld in every round of a Spring AI
 * 2.0.1 {@code ChatClient}'s tool loop: its {@code ToolCallingAdvisor} builds the round after the tools ran from the
 * request's own messages, so before session 18 the model got the original (the password) in the second round, blocking,
 * streamed and with a structured output. Real Spring AI 2.0.1, the agent jar in a forked JVM; the application
 * (demoapp.springai.ToolLoopUserApp) imports nothing of tracegate.
 */
class SpringAiToolLoopUserTest {
    private static final String APP = "demoapp.springai.ToolLoopUserApp";

    @Test
    void aWithheldUserMessageIsWithheldInEveryRoundOfTheToolLoop() {
        for (List<String> args : List.of(List.of("call"), List.of("stream"), List.of("call", "entity"))) {
            ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("suppressUser=password")),
                    ForkedJvm.appClasspath(), APP, args.toArray(new String[0]));
            String what = args + ": " + r;
            assertThat(r.exit()).as(what).isZero();
            assertThat(r.stdout()).as(what).contains("RAN lookup").contains("DONE").doesNotContain("hunter2")
                    .contains("ROUND 1 USER [withheld by tracegate").contains("ROUND 2 USER [withheld by tracegate");
            if (args.size() > 1) {
                // the format instructions follow the notice in both rounds, and the answer parses
                assertThat(r.stdout()).as(what).contains("ENTITY Account[status=active]");
                assertThat(r.stdout().lines().filter(l -> l.startsWith("ROUND "))).as(what)
                        .allMatch(l -> l.contains("JSON Schema"));
            }
        }
    }

    /**
     * Review of 11937e2: the agent kept the newest 64 replaced user messages of the whole JVM, so that once more than 64
     * conversations had a message replaced between a conversation's rounds, its second round got the original. Here 70
     * other conversations run their loop while c1's tool runs: c1's second round still gets the notice.
     */
    @Test
    void aWithheldUserMessageStaysWithheldAfterMoreThan64OtherConversationsHadTheirsWithheld() {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("suppressUser=password")),
                ForkedJvm.appClasspath(), APP, "call", "many");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("OTHERS DONE").contains("DONE").doesNotContain("hunter2")
                .contains("ROUND 2 USER [withheld by tracegate");
        // c1's second round is the last one printed: after the 70 others
        List<String> rounds = r.stdout().lines().filter(l -> l.startsWith("ROUND ")).toList();
        assertThat(rounds).as(r.toString()).hasSize(2 * 71);
        assertThat(rounds.get(rounds.size() - 1)).startsWith("ROUND 2 USER [withheld by tracegate");
    }
}
