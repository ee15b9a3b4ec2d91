package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial19 05-check-agent-config-misleading: {@code check tracegate.yaml} on the agent's configuration file read it as a
 * broken library ("unknown key 'configured-methods' in the library", or for {@code libraries:} "did you mean
 * 'library'?", whose advice gives a library named {@code [gdpr]}). It now says the file is an agent configuration and
 * prints the command with the libraries it lists, resolved as the agent resolves them; following that command works.
 * Also: an unknown key is named where it first is in the file (the reader kept the keys' positions in a hash map, so a
 * later key's line could be named first). trial26 05: check of an agent configuration (agent/CONFIG.md gives it) now
 * checks the libraries it lists, with check's exit codes; replay and explain still say it is one and give the command.
 */
class CheckAgentConfigurationTest {
    @TempDir Path dir;

    private static final String BANK = "library: bank\ngdpr:\n  purposes: {support: [email]}\n  consent-purposes: none\n"
            + "  tools: {lookupAccount: [support]}\n";
    private static final String CONFIG = "libraries: [gdpr, bank.yaml]\nconfigured-methods:\n"
            + "  - {class: \"bank.App$Privacy\", method: forget, kind: erasure, session-param: 0, subject-param: 1}\n";

    /** The command the message ends with, as arguments. */
    private static String[] advised(CliRun r) {
        List<String> lines = r.err().strip().lines().toList();
        return lines.get(lines.size() - 1).strip().split(" ");
    }

    @Test
    void anAgentConfigurationIsSaidToBeOneWithTheCommandForItsLibraries() throws Exception {
        Path conf = Files.createDirectory(dir.resolve("conf"));
        Path bank = Files.writeString(conf.resolve("bank.yaml"), BANK);
        Path config = Files.writeString(conf.resolve("tracegate.yaml"), CONFIG);
        // trial26 05: check of the agent configuration checks the libraries it lists, with check's exit codes
        CliRun r = CliRun.of("check", config.toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).as(r.out())
                .startsWith(config + ": agent configuration; checking the libraries it lists (relative entries resolved against the"
                        + " file's directory, as the agent resolves them): gdpr " + bank + System.lineSeparator())   // bank.yaml against the file's directory, as the agent
                .contains("loaded gdpr, bank").contains("analysis: consistent, compatible, conflict-free, no dead ends");
        assertThat(r.err()).as(r.err()).doesNotContain("unknown key").doesNotContain("did you mean").doesNotContain("not a contract library");
        // a finding gives 1, a broken library 2, as for libraries given by name
        Files.writeString(conf.resolve("bank.yaml"), BANK + "contracts:\n  - {id: bank.a, guarantee: \"G call(x)\"}\n"
                + "  - {id: bank.b, guarantee: \"G !call(x)\"}\n");
        CliRun findings = CliRun.of("check", config.toString());
        assertThat(findings.code()).as(findings.out() + findings.err()).isEqualTo(1);
        Files.writeString(conf.resolve("bank.yaml"), BANK + "contracts:\n  - {id: bank.a, guarantee: \"G call(x\"}\n");
        CliRun broken = CliRun.of("check", config.toString());
        assertThat(broken.code()).as(broken.out() + broken.err()).isEqualTo(2);
        assertThat(broken.err()).contains(conf.resolve("bank.yaml").toString());
        Files.writeString(conf.resolve("bank.yaml"), BANK);

        // only libraries: checked too, no advice to rename it to 'library'
        Path only = Files.writeString(dir.resolve("only.yaml"), "libraries: [gdpr]\n");
        CliRun o = CliRun.of("check", only.toString());
        assertThat(o.code()).as(o.out() + o.err()).isZero();
        assertThat(o.out()).contains("checking the libraries it lists").contains("loaded gdpr");
        assertThat(o.err()).doesNotContain("did you mean");

        // replay and explain say it too, with their own command
        Path trace = Files.writeString(dir.resolve("t.jsonl"), "{\"session\":\"s\",\"kind\":\"user\",\"text\":\"hi\"}\n");
        CliRun replay = CliRun.of("replay", config.toString(), trace.toString(), "--no-progress");
        assertThat(replay.code()).isEqualTo(2);
        assertThat(replay.err()).as(replay.err()).contains("replay reads contract libraries")
                .endsWith("  replay gdpr," + bank + " " + trace + System.lineSeparator());
        assertThat(CliRun.of(advised(replay)).code()).isNotEqualTo(2);
        CliRun explain = CliRun.of("explain", config.toString());
        assertThat(explain.err()).as(explain.err()).endsWith("  explain gdpr " + bank + System.lineSeparator());

        // a configuration the agent would refuse: what it would say, no command
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "libraries: [gdpr]\nmode: enforcing\n");
        CliRun b = CliRun.of("check", bad.toString());
        assertThat(b.code()).isEqualTo(2);
        assertThat(b.err()).as(b.err()).contains("an agent configuration file, and the agent would not start with it: " + bad + ":2:7: mode must be")
                .doesNotContain("  check ");
        assertThat(b.out()).doesNotContain("loaded");
        // one that lists no library: nothing to check
        Path none = Files.writeString(dir.resolve("none.yaml"), "libraries: []\nmode: shadow\n");
        CliRun n = CliRun.of("check", none.toString());
        assertThat(n.code()).isEqualTo(2);
        assertThat(n.err()).as(n.err()).contains("lists no libraries");
    }

    /**
     * trial21 07: an erasure method configured without session-param, as CONFIG.md's example, under a contract that reads
     * {@code erasure} as the session's event (FORMULAS.md's pattern): check of the agent configuration notes that an
     * erasure called outside any conversation reaches only the register; not with session-param, nor for gdpr's P2 alone.
     */
    @Test
    void anErasureMethodWithoutSessionParamIsNotedWhenAContractReadsTheSessionsErasure() throws Exception {
        Files.writeString(dir.resolve("er.yaml"), "library: er\ncontracts:\n  - id: er.absence-after-erasure\n"
                + "    guarantee: G(erasure -> G !call(send_newsletter))\n    message: no newsletter after an erasure\n");
        String entry = "  - {class: com.acme.Privacy, method: forget, kind: erasure, subject-param: 0%s}\n";
        Path without = Files.writeString(dir.resolve("tg.yaml"), "libraries: [gdpr, er.yaml]\nconfigured-methods:\n" + entry.formatted(""));
        CliRun r = CliRun.of("check", without.toString());
        assertThat(r.err()).as(r.err()).contains("note: configured-methods entry " + without + ":3:5 (erasure, class com.acme.Privacy,"
                + " method forget) has no session-param").contains("it reaches only the GDPR register, and er.absence-after-erasure reads"
                + " `erasure` as an event of the session").contains("Add session-param").doesNotContain("gdpr.P2");
        Path with = Files.writeString(dir.resolve("tg2.yaml"), "libraries: [gdpr, er.yaml]\nconfigured-methods:\n" + entry.formatted(", session-param: 1"));
        assertThat(CliRun.of("check", with.toString()).err()).doesNotContain("has no session-param");
        Path gdprOnly = Files.writeString(dir.resolve("tg3.yaml"), "libraries: [gdpr]\nconfigured-methods:\n" + entry.formatted(""));
        assertThat(CliRun.of("check", gdprOnly.toString()).err()).doesNotContain("has no session-param");
    }

    @Test
    void aLibraryWithAnUnknownKeyIsStillOneAndTheFirstUnknownKeyIsNamed() throws Exception {
        // a library key makes it a library: the library's own error, at the first unknown key in the file
        Path mixed = Files.writeString(dir.resolve("mixed.yaml"), "library: x\nlibraries: [a]\nconfigured-methods: []\nmode: shadow\n");
        CliRun r = CliRun.of("check", mixed.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).as(r.err()).startsWith(mixed + ":2:1: unknown key 'libraries' in the library").doesNotContain("agent configuration");
    }
}
