package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentArgumentsTest {
    @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

    @Test
    void aRefusedStartPrintsTheAgentArgumentsListHintUnderOnePrefixInARealJvm() throws Exception {
        ForkedAgent.Run run = ForkedAgent.run(dir, "libraries=sop-refund,gdpr,audit.path=" + dir.resolve("a.jsonl"),
                "example.warmup.Host", null, null);
        assertThat(run.code()).as(run.err()).isEqualTo(78);
        assertThat(run.err()).contains("tracegate: the agent cannot start:\nagent option 'gdpr' at character 22 of 'libraries=sop-refund,gdpr,"
                + "audit.path=" + dir.resolve("a.jsonl") + "' is not key=value; inside the agent argument ',' separates options, so separate"
                + " list values with ';': libraries=sop-refund;gdpr\n");
        assertThat(run.err().split("tracegate:", -1)).as("one prefix").hasSize(2);
    }

    @Test
    void theStartNotesGdprAndInjectionWithoutTheirPolicySectionsInARealJvm() throws Exception {
        ForkedAgent.Run run = ForkedAgent.run(dir, "libraries=gdpr;injection,audit.path=" + dir.resolve("a.jsonl"),
                "example.warmup.Host", null, null);
        assertThat(run.code()).as(run.err()).isZero();
        // each note whole, on one line of its own, once, after the start line (the wording check prints as "note: ...")
        String gdpr = "[tracegate] WARN the built-in library gdpr reads the gdpr: section of one of your libraries, and none of the"
                + " loaded libraries has one, so P1 consent, P2 purpose limitation and P3 minimisation have nothing to check (only P4"
                + " erasure acts). Add a gdpr: section to one of your libraries with purposes (purpose -> data categories), tools"
                + " (tool -> purposes), consent-purposes and subject-fields; see docs/LIBRARY.md, \"The GDPR section and the gdpr library\"";
        String injection = "[tracegate] WARN the built-in library injection reads the injection: section of one of your libraries,"
                + " and none of the loaded libraries has one, so no tool is side-effecting and injection.untrusted-target never acts."
                + " Add an injection: section to one of your libraries with side-effecting (tool -> its target arguments, e.g."
                + " send_money: [recipient]); see docs/LIBRARY.md, \"A complete example\" (the injection: block) and"
                + " \"Provenance (injection.provenance)\"";
        java.util.List<String> lines = run.err().lines().toList();
        assertThat(lines).containsOnlyOnce(gdpr, injection);
        int startedAt = -1;
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains("agent started")) startedAt = i;
        assertThat(startedAt).as(run.err()).isNotNegative().isLessThan(lines.indexOf(gdpr)).isLessThan(lines.indexOf(injection));
        java.nio.file.Path policy = java.nio.file.Files.writeString(dir.resolve("injpol.yaml"),
                "library: injpol\ninjection:\n  side-effecting:\n    send_money: [recipient]\n");
        ForkedAgent.Run covered = ForkedAgent.run(dir, "libraries=injection;" + policy + ",audit.path=" + dir.resolve("b.jsonl"),
                "example.warmup.Host", null, null);
        assertThat(covered.code()).as(covered.err()).isZero();
        assertThat(covered.err()).contains("agent started").doesNotContain("built-in library");
    }

    @Test
    void parsesPairsAndKeepsListsInsideValues() {
        AgentArguments a = AgentArguments.parse("block=a;b, shadow=true,redirect=x:y");
        assertThat(a.get("block")).isEqualTo("a;b");
        assertThat(a.flag("shadow", false)).isTrue();
        assertThat(a.get("redirect")).isEqualTo("x:y");
        assertThat(a.get("missing", "fallback")).isEqualTo("fallback");
    }

    @Test
    void theAgentArgumentWinsOverTheSystemProperty() {
        System.setProperty("tracegate.testKey", "fromProperty");
        try {
            assertThat(AgentArguments.parse("").get("testKey")).isEqualTo("fromProperty");
            assertThat(AgentArguments.parse("testKey=fromArgument").get("testKey")).isEqualTo("fromArgument");
        } finally {
            System.clearProperty("tracegate.testKey");
        }
    }

    @Test
    void aPairWithoutEqualsSignIsNamedWithItsPosition() {
        assertThatThrownBy(() -> AgentArguments.parse("shadow=true,oops"))
                .hasMessageContaining("'oops' at character 13")
                .hasMessageContaining("is not key=value")
                .hasMessageContaining("write e.g. -javaagent:tracegate-agent.jar=config=/etc/tracegate/tracegate.yaml,mode=shadow")
                .hasMessageNotContaining("onBlock");
    }

    @Test
    void aListValueAfterACommaIsToldToUseSemicolonsAndTheMessageHasNoPrefix() {
        // AgentCore prints "tracegate: the agent cannot start:" above this paragraph: it must not say "tracegate:" again
        assertThatThrownBy(() -> AgentArguments.parse("libraries=shop.yaml,gdpr"))
                .hasMessage("agent option 'gdpr' at character 21 of 'libraries=shop.yaml,gdpr' is not key=value; inside the agent"
                        + " argument ',' separates options, so separate list values with ';': libraries=shop.yaml;gdpr");
        assertThatThrownBy(() -> AgentArguments.parse("libraries=a.yaml,gdpr,injection,mode=shadow"))
                .hasMessageEndingWith("separate list values with ';': libraries=a.yaml;gdpr;injection");
        assertThatThrownBy(() -> AgentArguments.parse("shadow=true,oops")).message().doesNotStartWith("tracegate:");
        assertThatThrownBy(() -> AgentArguments.parse("debug=maybe").flag("debug", false))
                .hasMessage("option debug=maybe is not a boolean; use true or false");
    }

    @Test
    void aFlagThatIsNotABooleanIsRefused() {
        assertThatThrownBy(() -> AgentArguments.parse("shadow=maybe").flag("shadow", false))
                .hasMessageContaining("shadow=maybe is not a boolean");
    }
}
