package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** A Spring AI 2.0.1 ChatClient with real @Tool methods, run in a forked JVM under the built agent jar. */
class SpringAiTest {

    private static final String APP = "demoapp.springai.SpringAiApp";

    private static ForkedJvm.Result run(String options, String... args) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), ForkedJvm.appClasspath(), APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static int count(String text, String needle) {
        Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void aToolCallIsSeenOnceWithTheAdvisorConversationIdAsSession() {
        ForkedJvm.Result r = run("trace=true", "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(count(r.stderr(), "CALL springai ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "RETURN springai ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-42 tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("USER springai session=conv-42 -> KEEP")
                .contains("ASSISTANT springai session=conv-42 -> KEEP")
                .doesNotContain("instrumentation springai matched nothing");
    }

    @Test
    void blockWithSubstitution() {
        ForkedJvm.Result r = run("block=sendEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
    }

    @Test
    void blockWithException() {
        ForkedJvm.Result r = run("block=sendEmail,onBlock=throw", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void redirectCallsTheOtherToolCallback() {
        ForkedJvm.Result r = run("redirect=sendEmail:draftEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: \"draft saved for bob@example.com\"");
    }

    @Test
    void suppressWithholdsTheResultAndTheUserMessage() {
        ForkedJvm.Result result = run("suppress=lookupCustomer", "lookup");
        assertThat(result.stdout()).as(result.toString())
                .contains("TOOL lookupCustomer ran name=Alice")
                .contains("MODEL SAW TOOL RESULT lookupCustomer: [withheld by tracegate")
                .doesNotContain("DE89370400440532013000");
        ForkedJvm.Result user = run("suppressUser=password", "email", "my password is hunter2");
        assertThat(user.stdout()).as(user.toString()).contains("MODEL SAW USER: [withheld by tracegate").doesNotContain("hunter2");
    }

    @Test
    void redactRemovesTheFieldBeforeTheToolRuns() {
        ForkedJvm.Result r = run("redact=email", "ticket");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL createTicket ran title=printer broken email=null");
    }

    @Test
    void shadowChangesNothing() {
        ForkedJvm.Result r = run("shadow=true,block=sendEmail", "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran").contains("MODEL SAW TOOL RESULT sendEmail: \"email sent to bob@example.com\"");
        assertThat(r.stderr()).contains("SHADOW would BLOCK springai session=conv-42 tool=sendEmail");
    }
}
