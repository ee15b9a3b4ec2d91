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
}
