package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Session 20: {@code check} of a library of fifty invariants, one per atom of every kind (HashedReplayOracleTest's), ran
 * out of a 6 GB heap (exit 3) since session 19's related atoms; before, it passed in about a second. Run in a JVM of its
 * own with a 256 MB heap, as a CI step on a small runner would: it passes, with no skipped check.
 */
class CheckMemoryBoundTest {
    @TempDir Path dir;

    private static final List<String> ATOMS = List.of(
            "user", "assistant", "call", "return", "consent", "erasure", "call(send_money)", "call(send_money, \"DE89\")",
            "returned(read_invoice)", "failed(send_money)", "arg(amount) > 100", "arg(send_money, amount) <= 1000",
            "arg_matches(recipient, \"DE\")", "arg_in(recipient, [\"DE89370400440532013000\"])", "path_within(path, [\"/srv/\"])",
            "len(arg(email)) > 14", "result_matches(\"Pay to\")", "user_matches(\"invoice\")", "output_matches(\"wrote\")",
            "ctx(approved)", "ctx(approved) > 100", "ctx(mode) == \"strict\"", "ctx(total)", "arg_eq_ctx(recipient, payee)",
            "permission(admin)", "permission(read_orders)", "flow(recipient)", "untrusted(recipient)", "untrusted_target",
            "side_effect", "named_link", "category(email)", "personal_data", "excess_data", "purpose(billing)",
            "consent(billing)", "consented", "purpose(billing) & !consented", "undeclared_purpose", "mentions_erased", "count(send_money) >= 1",
            "count(send_money) <= ctx(approved)", "count(send_money) <= ctx(limit)", "run(send_money) >= 1",
            "sum(send_money, amount) > 10", "context_len > 100", "output_chars > 20", "tokens > 20",
            "since(call(send_money)) > 2", "since(personal_data) > 2");

    private static final String HEADER = """
            library: probe
            gdpr:
              purposes: {billing: [email], ads: []}
              subject-fields: [customer]
              tools: {send_invoice: [billing], mail_ads: [ads]}
              consent-tools:
                give_consent: {subject: customer, purposes: purposes, granted: granted}
              erasure-tools:
                forget: {subject: customer}
            injection:
              side-effecting:
                send_money: [recipient]
                get_webpage: [url]
              provenance:
                fetch-tools: [get_webpage]
            permissions: [read_orders]
            context:
              - on: {kind: CALL, tool: approve}
                set: approved
                value: arg(amount)
              - on: {kind: CALL, tool: approve}
                set: payee
                value: "DE89370400440532013000"
              - on: {kind: CALL, tool: login}
                set: mode
                value: "strict"
              - on: {kind: CALL, tool: login}
                set: limit
                value: "3"
              - on: {kind: CALL, tool: promote}
                add: permissions
                value: arg(role)
              - on: {kind: RETURN, tool: quote}
                set: total
                value: result(total)
            contracts:
            """;

    @Test
    void fiftyInvariantsOverAtomsOfEveryKindPassCheckInA256MbHeap() throws Exception {
        StringBuilder y = new StringBuilder(HEADER);
        for (int i = 0; i < ATOMS.size(); i++) y.append("  - id: probe.a").append(i).append("\n    guarantee: 'G !(").append(ATOMS.get(i)).append(")'\n");
        Path lib = Files.writeString(dir.resolve("probe50.yaml"), y);
        Path out = dir.resolve("out.txt");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "check", lib.toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        // a guard against a hang, not a timing: the run takes seconds (before session 20: minutes, then out of memory)
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("check did not end in 10 minutes: " + Files.readString(out, StandardCharsets.UTF_8));
        }
        String said = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(said).isZero();
        assertThat(said).contains("loaded probe: 50 contracts").contains("analysis: consistent, compatible, conflict-free, no dead ends")
                .doesNotContain("TOO_LARGE").doesNotContain("OutOfMemoryError");
    }

    @Test
    void aDeadEndSearchThatNeedsMoreMemoryThanTheBoundAllowsIsSkippedWithTheWayToRaiseIt() throws Exception {
        // eight obligations over conditions one message can meet together, and a contract that reads all of them: the
        // search's join keeps the 2^8 ways they can be
        StringBuilder y = new StringBuilder("library: wide\ncontracts:\n"), any = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            y.append("  - {id: o").append(i).append(", guarantee: 'F user_matches(\"w").append(i).append("\")', message: m}\n");
            any.append(i == 0 ? "" : " | ").append("user_matches(\"w").append(i).append("\")");
        }
        y.append("  - {id: after, guarantee: 'G((").append(any).append(") -> X call(z))', message: m}\n");
        Path lib = Files.writeString(dir.resolve("wide.yaml"), y);
        CliRun r = CliRun.of("check", lib.toString(), "--max-states", "20");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("dead-end check skipped: the product of 9 contracts over")
                .contains("atoms needs more than the 40 KB of working memory that the bound of 20 states allows (2 KB a state);"
                        + " raise the bound with --max-states N (this command's bound for the analysis)")
                .contains("analysis incomplete: ").contains("or more working memory, than that bound allows");
        assertThat(CliRun.of("check", lib.toString(), "--max-states", "5000").out()).as("a bound that allows it")
                .doesNotContain("working memory").doesNotContain("TOO_LARGE");
    }
}
