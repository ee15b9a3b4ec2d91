package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The note of a hashed audit log replayed in enforce mode names a contract that reads no content exactly when an event it
 * observes was applied here and refused online, or the other way round. The online verdicts are the clear log's replay:
 * one session is supervised twice in enforce mode, writing a clear log and a hashed one, and each contract whose verdict
 * from the hashed log differs from the clear one's must be named.
 */
class HashedEnforceNoteTest {
    @TempDir Path dir;

    /** Contracts that read only structure: counts, runs, order, next, since, results. */
    private static final List<String> STRUCTURE = List.of(
            "s.two-refunds|G(count(issue_refund) <= 2)",
            "s.note-before-close|G(call(close_ticket) -> O call(send_note))",
            "s.run|G(run(lookup) <= 2)",
            "s.next|G(call(lookup) -> X !call(close_ticket))",
            "s.since|G(call(close_ticket) -> since(call(lookup)) <= 3)",
            "s.one-note|G(count(send_note) <= 1)",
            "s.looked-up|G(call(issue_refund) -> O returned(lookup))",
            "s.until|G(call(lookup) -> (!call(close_ticket) U returned(lookup)))",
            "s.refunded|G(call(close_ticket) -> O returned(issue_refund))");

    /** Contracts that read content: a digest makes the sum and the amount unevaluable, the patterns false. */
    private static final List<String> CONTENT = List.of(
            "c.budget|G(sum(issue_refund, amount) <= 300)",
            "c.no-card|G(call(send_note) -> !arg_matches(send_note, body, \"card number\"))",
            "c.amount|G(call(issue_refund) -> arg(issue_refund, amount) <= 100)",
            "c.no-fraud-result|assume|G(returned(lookup) -> !result_matches(lookup, \"fraud alert\"))");

    /**
     * Contracts over context keys and permissions that read no content (constant latches, a key only asked whether it is
     * set, a count against a context bound), with the {@link #LATCHES} that write them.
     */
    private static final List<String> CONTEXT = List.of(
            "x.looked|G(call(issue_refund) -> ctx(looked) == \"yes\")",
            "x.perm|G(call(close_ticket) -> permission(refunded))",
            "x.noted|G(call(close_ticket) -> ctx(noted))",
            "x.seen|G(call(issue_refund) -> ctx(seen))",
            "x.limit|G((call(issue_refund) & ctx(limit)) -> count(issue_refund) <= ctx(limit))",
            "x.cap|G(call(issue_refund) -> depth <= ctx(cap))");

    /** A content contract on the look-ups (false from digests): a VIP look-up refused online is applied here. */
    private static final String NO_VIP = "c.no-vip|G(call(lookup) -> !arg_matches(lookup, order, \"VIP\"))";

    /**
     * The latches: looked by a lookup's result (cleared by a close), the permission refunded by a refund's call, noted by
     * a note's call (its body: only whether it is set is read), seen by a lookup's result from the argument of the call it
     * answers, limit and cap by a close (cap only as a bound, beside what the event is: refunds are refused until it is set).
     */
    private static final String LATCHES = String.join("\n",
            "context:",
            "  - on: {kind: RETURN, tool: lookup}",
            "    set: looked",
            "    value: '\"yes\"'",
            "  - on: {kind: CALL, tool: close_ticket}",
            "    clear: looked",
            "  - on: {kind: CALL, tool: issue_refund}",
            "    add: permissions",
            "    value: '\"refunded\"'",
            "  - on: {kind: CALL, tool: send_note}",
            "    set: noted",
            "    value: arg(body)",
            "  - on: {kind: RETURN, tool: lookup}",
            "    set: seen",
            "    value: arg(order)",
            "  - on: {kind: CALL, tool: close_ticket}",
            "    set: limit",
            "    value: '\"1\"'",
            "  - on: {kind: CALL, tool: close_ticket}",
            "    set: cap",
            "    value: '\"2\"'", "");

    private Path library(List<String> contracts) throws Exception {
        return library(contracts, "");
    }

    private Path library(List<String> contracts, String context) throws Exception {
        StringBuilder y = new StringBuilder("library: t\n").append(context).append("contracts:\n");
        for (String c : contracts) {
            String[] p = c.split("\\|");
            y.append("  - id: ").append(p[0]).append('\n');
            if (p.length == 3) y.append("    assume: '").append(p[2]).append("'\n    guarantee: 'G !call(wipe)'\n");
            else y.append("    guarantee: '").append(p[1]).append("'\n");
        }
        return Files.writeString(dir.resolve("t.yaml"), y);
    }

    /** Supervises {@code events} in enforce mode, logged with {@code personalData}, under the one file name {@code name}. */
    private Path log(Path lib, String personalData, String name, List<Consumer<ContractSupervisor>> events) throws Exception {
        return log(lib, personalData, name, events, "");
    }

    /** As above, with more configuration ({@code ,mode=shadow}). */
    private Path log(Path lib, String personalData, String name, List<Consumer<ContractSupervisor>> events, String more) throws Exception {
        Path log = Files.createDirectories(dir.resolve(personalData)).resolve(name);
        Files.deleteIfExists(log);
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=" + personalData + ",audit.path=" + log + more,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        for (Consumer<ContractSupervisor> e : events) e.accept(s);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        return log;
    }

    private static Consumer<ContractSupervisor> user(String session, String text) {
        return s -> s.onUserMessage(new Message("x", session, text));
    }

    private static Consumer<ContractSupervisor> call(String session, String tool, String args, String id) {
        return s -> s.onToolCall(new ToolCall("x", session, tool, args, id));
    }

    private static Consumer<ContractSupervisor> result(String session, String tool, String id, String text) {
        return s -> s.onToolResult(new ToolResult("x", session, tool, id, text, false));
    }

    /**
     * A call that, when the agent lets it run, returns {@code text}, as a framework runs a tool only when it is not refused:
     * replay does not apply the result of a call it refuses, which a hashed log may hold (applied online).
     */
    private static Consumer<ContractSupervisor> ran(String session, String tool, String args, String id, String text) {
        return s -> {
            if (s.onToolCall(new ToolCall("x", session, tool, args, id)).kind() == dev.tracegate.agent.core.ToolDecision.Kind.PROCEED) {
                s.onToolResult(new ToolResult("x", session, tool, id, text, false));
            }
        };
    }

    /** A call whose id goes to {@code refused} when the agent refuses it (the same online in both logs' runs). */
    private static Consumer<ContractSupervisor> call(String session, String tool, String args, String id, Set<String> refused) {
        return s -> {
            if (s.onToolCall(new ToolCall("x", session, tool, args, id)).kind() == dev.tracegate.agent.core.ToolDecision.Kind.BLOCK) refused.add(id);
        };
    }

    /**
     * The result of call {@code id} if it ran: a refused call has none (as under the agent; replay in enforce mode does not
     * apply the result of a call it refused, so a result fed after a refusal would make the clear log's replay differ
     * from the online verdicts it stands for).
     */
    private static Consumer<ContractSupervisor> result(String session, String tool, String id, String text, Set<String> refused) {
        return s -> {
            if (!refused.contains(id)) s.onToolResult(new ToolResult("x", session, tool, id, text, false));
        };
    }

    /** The contract's entries of every session in a replay's JSON output. */
    private static List<JsonNode> entries(String json, String contract) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode s : new ObjectMapper().readTree(json).path("sessions")) {
            for (JsonNode c : s.path("contracts")) if (c.path("id").asText().equals(contract)) out.add(c);
        }
        return out;
    }

    /**
     * A refused note with a card number online passes here (the digest matches no pattern), so the close after it, which
     * online was refused for want of a note, passes too: the contract that orders them is named with that note, and the
     * refund count, which neither event moves, is not (the note named every contract that reads no content before).
     */
    @Test
    void onlyTheContractsThatObserveAnEventAppliedUnlikeOnlineAreNamed() throws Exception {
        Path lib = library(List.of(STRUCTURE.get(0), STRUCTURE.get(1), CONTENT.get(1)));
        List<Consumer<ContractSupervisor>> events = List.of(
                user("a", "Refund order A1 and close the ticket"),
                call("a", "issue_refund", "{\"order\":\"A1\",\"amount\":10}", "c1"),
                call("a", "send_note", "{\"body\":\"refunded to card number 4111 1111 1111 1111\"}", "c2"),
                call("a", "close_ticket", "{}", "c3"));
        Path clear = log(lib, "clear", "notes.jsonl", events);
        Path hashed = log(lib, "hashed", "notes.jsonl", events);
        CliRun c = CliRun.of("replay", lib.toString(), clear.toString(), "--format", "json");
        CliRun h = CliRun.of("replay", lib.toString(), hashed.toString(), "--format", "json");
        // what a user relies on: the named contract does differ, the one left out does not
        assertThat(entries(h.out(), "s.note-before-close")).isNotEqualTo(entries(c.out(), "s.note-before-close"));
        assertThat(entries(h.out(), "s.two-refunds")).isEqualTo(entries(c.out(), "s.two-refunds"));
        assertThat(h.err()).contains("c.no-card (arg_matches(send_note, body, \"card number\")). Replayed in enforce mode,"
                        + " whether an event is applied follows their verdicts from digests (a refused event is not applied): 2 events"
                        + " were applied here and refused online or the other way round, so these other contracts, which observe such an"
                        + " event (their automata or a count, run or context value they read changes with it), may differ too, each with"
                        + " the first one: s.note-before-close (notes.jsonl:5 (seq 3, call send_note): applied here, refused online).")
                .doesNotContain("s.two-refunds");
    }

    /**
     * A log written in shadow mode applied every event, so its decisions cannot tell which events an enforcing run would
     * have refused: replayed with --mode enforce, every contract that reads no content is named, and the note says why.
     */
    @Test
    void aShadowLogReplayedInEnforceModeNamesEveryOtherContract() throws Exception {
        Path lib = library(List.of(STRUCTURE.get(0), STRUCTURE.get(1), CONTENT.get(1)));
        Path hashed = log(lib, "hashed", "shadow.jsonl", List.of(
                user("a", "Close the ticket"),
                call("a", "send_note", "{\"body\":\"card number 4111\"}", "c1"),
                call("a", "close_ticket", "{}", "c2")), ",mode=shadow");
        CliRun h = CliRun.of("replay", lib.toString(), hashed.toString(), "--mode", "enforce", "--no-progress");
        assertThat(h.err()).contains("c.no-card (arg_matches(send_note, body, \"card number\")). Replayed in enforce mode, whether an"
                + " event is applied follows their verdicts from digests (a refused event is not applied), and the log, written in shadow"
                + " mode, applied every event, so its decisions cannot show which events the online run would have refused: the events the"
                + " other contracts see, count and sum may differ from the online ones, and so may their verdicts: s.two-refunds,"
                + " s.note-before-close.");
    }

    /** The note names every contract whose verdict from the hashed log differs from the clear log's, on random sessions. */
    @Test
    void everyContractWhoseVerdictDiffersFromTheOnlineOneIsNamed() throws Exception {
        Random rnd = new Random(12);
        int differed = 0;
        int leftOut = 0;
        List<String> missed = new ArrayList<>();
        for (int trial = 0; trial < 60; trial++) {
            List<String> contracts = new ArrayList<>();
            for (String s : STRUCTURE) if (rnd.nextInt(3) > 0) contracts.add(s);
            for (String s : CONTENT) if (rnd.nextInt(2) > 0) contracts.add(s);
            if (contracts.stream().noneMatch(s -> s.startsWith("c."))) contracts.add(CONTENT.get(rnd.nextInt(CONTENT.size())));
            Path lib = library(contracts);
            List<Consumer<ContractSupervisor>> events = new ArrayList<>();
            Set<String> refused = new java.util.HashSet<>();
            int sessions = 1 + rnd.nextInt(2);
            for (int s = 0; s < sessions; s++) events.add(user("s" + s, "Please sort out my order"));
            int n = 6 + rnd.nextInt(8);
            for (int i = 0; i < n; i++) {
                String sess = "s" + rnd.nextInt(sessions);
                String id = "c" + i;
                switch (rnd.nextInt(5)) {
                    case 0 -> events.add(ran(sess, "issue_refund", "{\"order\":\"A" + i + "\",\"amount\":" + (10 + 40 * rnd.nextInt(5)) + "}", id, "refunded"));
                    case 1 -> events.add(call(sess, "send_note", "{\"body\":\"" + (rnd.nextBoolean() ? "all done" : "card number 4111") + "\"}", id));
                    case 2 -> events.add(call(sess, "close_ticket", "{}", id));
                    default -> {
                        events.add(call(sess, "lookup", "{\"order\":\"A" + i + "\"}", id, refused));
                        if (rnd.nextBoolean()) events.add(result(sess, "lookup", id, rnd.nextBoolean() ? "status ok" : "fraud alert on this order", refused));
                    }
                }
            }
            Path clear = log(lib, "clear", "t.jsonl", events);
            Path hashed = log(lib, "hashed", "t.jsonl", events);
            CliRun c = CliRun.of("replay", lib.toString(), clear.toString(), "--format", "json");
            CliRun h = CliRun.of("replay", lib.toString(), hashed.toString(), "--format", "json");
            assertThat(h.err()).contains("is an audit log with personal data hashed");
            String note = h.err().lines().filter(l -> l.contains("personal data hashed")).findFirst().orElseThrow();
            for (String s : contracts) {
                String id = s.split("\\|")[0];
                if (id.startsWith("c.")) continue;
                boolean named = note.contains(" " + id + " (");
                if (!entries(h.out(), id).equals(entries(c.out(), id))) {
                    differed++;
                    if (!named) missed.add("trial " + trial + ": " + id + "; " + note);
                } else if (!named && note.contains("applied here and refused online or the other way round")) {
                    leftOut++;
                }
            }
        }
        assertThat(missed).as("contracts whose verdict differs from the online one, not named").isEmpty();
        // the sessions exercise both sides: verdicts that differ, and contracts rightly left out although events differed
        assertThat(differed).isGreaterThan(5);
        assertThat(leftOut).isGreaterThan(5);
    }

    /**
     * A contract over a context key is named when an event that a latch of its key fires on was applied here and refused
     * online (or the other way round), not whenever any event differs (9b521be named them all): the refused note with a
     * card number, applied here, writes noted (its latch's call), so x.noted is named and its verdict differs (the close is
     * refused online for want of a note, passes here); neither it nor the close writes looked or the permission refunded,
     * so x.looked and x.perm are not named and their verdicts are the online ones.
     */
    @Test
    void aContextContractIsNamedOnlyWhenAnEventThatWritesItsKeyDiffers() throws Exception {
        String latches = String.join("\n", "context:",
                "  - on: {kind: RETURN, tool: lookup}", "    set: looked", "    value: '\"yes\"'",
                "  - on: {kind: CALL, tool: issue_refund}", "    add: permissions", "    value: '\"refunded\"'",
                "  - on: {kind: CALL, tool: send_note}", "    set: noted", "    value: arg(body)", "");
        Path lib = library(List.of(CONTEXT.get(0), CONTEXT.get(1), CONTEXT.get(2), CONTENT.get(1)), latches);
        List<Consumer<ContractSupervisor>> events = List.of(
                user("a", "Look up A1, refund it, note it and close the ticket"),
                call("a", "lookup", "{\"order\":\"A1\"}", "c1"),
                result("a", "lookup", "c1", "status ok"),
                call("a", "issue_refund", "{\"order\":\"A1\",\"amount\":10}", "c2"),
                call("a", "send_note", "{\"body\":\"refunded to card number 4111 1111 1111 1111\"}", "c3"),
                call("a", "close_ticket", "{}", "c4"),
                call("a", "issue_refund", "{\"order\":\"A2\",\"amount\":10}", "c5"));
        Path clear = log(lib, "clear", "ctx.jsonl", events);
        Path hashed = log(lib, "hashed", "ctx.jsonl", events);
        CliRun c = CliRun.of("replay", lib.toString(), clear.toString(), "--format", "json");
        CliRun h = CliRun.of("replay", lib.toString(), hashed.toString(), "--format", "json");
        assertThat(entries(h.out(), "x.noted")).isNotEqualTo(entries(c.out(), "x.noted"));
        assertThat(entries(h.out(), "x.looked")).isEqualTo(entries(c.out(), "x.looked"));
        assertThat(entries(h.out(), "x.perm")).isEqualTo(entries(c.out(), "x.perm"));
        assertThat(h.err()).contains("may differ too, each with the first one: x.noted (ctx.jsonl:")
                .doesNotContain("x.looked (").doesNotContain("x.perm (");
    }

    /**
     * A context key read only as a bound ({@code depth <= ctx(cap)}: the refund is refused while cap is empty) is written
     * by the close: the note refused online for its card number is applied here, so is the close that x.noted refused
     * online for want of a note, so cap is set here and the refund after it passes here while online it was refused. The
     * close writes cap, so x.cap is named (with the note: the first event that differs and writes a key it reads).
     */
    @Test
    void aContractThatReadsAContextKeyOnlyAsABoundIsNamedWhenAnEventThatWritesTheKeyDiffers() throws Exception {
        String latches = String.join("\n", "context:",
                "  - on: {kind: CALL, tool: send_note}", "    set: noted", "    value: arg(body)",
                "  - on: {kind: CALL, tool: close_ticket}", "    set: cap", "    value: '\"2\"'", "");
        Path lib = library(List.of(CONTEXT.get(2), CONTEXT.get(5), CONTENT.get(1)), latches);
        List<Consumer<ContractSupervisor>> events = List.of(
                user("a", "Note it, close the ticket and refund A1"),
                call("a", "send_note", "{\"body\":\"refunded to card number 4111 1111 1111 1111\"}", "c1"),
                call("a", "close_ticket", "{}", "c2"),
                call("a", "issue_refund", "{\"order\":\"A1\",\"amount\":10}", "c3"));
        Path clear = log(lib, "clear", "cap.jsonl", events);
        Path hashed = log(lib, "hashed", "cap.jsonl", events);
        CliRun c = CliRun.of("replay", lib.toString(), clear.toString(), "--format", "json");
        CliRun h = CliRun.of("replay", lib.toString(), hashed.toString(), "--format", "json");
        assertThat(entries(h.out(), "x.cap")).isNotEqualTo(entries(c.out(), "x.cap"));
        assertThat(h.err()).contains("x.cap (cap.jsonl:").contains("x.noted (cap.jsonl:");
    }

    /**
     * The oracle of {@link #everyContractWhoseVerdictDiffersFromTheOnlineOneIsNamed} over libraries with context
     * contracts and latches: every content-free contract whose verdict from the hashed log differs from the clear log's
     * is named, and context contracts are left out where no event that writes their keys differed.
     */
    @Test
    void everyContextContractWhoseVerdictDiffersIsNamedAndTheOthersAreLeftOut() throws Exception {
        Random rnd = new Random(13);
        int differed = 0;
        int leftOut = 0;
        List<String> missed = new ArrayList<>();
        for (int trial = 0; trial < 50; trial++) {
            List<String> contracts = new ArrayList<>();
            for (String s : CONTEXT) if (rnd.nextInt(3) > (s.startsWith("x.cap") ? 1 : 0)) contracts.add(s);
            for (String s : STRUCTURE) if (rnd.nextInt(4) == 0) contracts.add(s);
            for (String s : CONTENT) if (rnd.nextInt(2) > 0) contracts.add(s);
            if (rnd.nextBoolean()) contracts.add(NO_VIP);
            if (contracts.stream().noneMatch(s -> s.startsWith("c."))) contracts.add(CONTENT.get(rnd.nextInt(CONTENT.size())));
            Path lib = library(contracts, LATCHES);
            List<Consumer<ContractSupervisor>> events = new ArrayList<>();
            Set<String> refused = new java.util.HashSet<>();
            int sessions = 1 + rnd.nextInt(2);
            for (int s = 0; s < sessions; s++) events.add(user("s" + s, "Please sort out my order"));
            int n = 6 + rnd.nextInt(8);
            for (int i = 0; i < n; i++) {
                String sess = "s" + rnd.nextInt(sessions);
                String id = "c" + i;
                switch (rnd.nextInt(5)) {
                    case 0 -> events.add(call(sess, "issue_refund", "{\"order\":\"A" + i + "\",\"amount\":" + (10 + 40 * rnd.nextInt(5)) + "}", id));
                    case 1 -> events.add(call(sess, "send_note", "{\"body\":\"" + (rnd.nextBoolean() ? "all done" : "card number 4111") + "\"}", id));
                    case 2 -> events.add(call(sess, "close_ticket", "{}", id));
                    default -> {
                        events.add(call(sess, "lookup", "{\"order\":\"" + (rnd.nextInt(3) == 0 ? "VIP" : "A") + i + "\"}", id, refused));
                        if (rnd.nextInt(4) > 0) events.add(result(sess, "lookup", id, rnd.nextBoolean() ? "status ok" : "fraud alert on this order", refused));
                    }
                }
            }
            Path clear = log(lib, "clear", "x.jsonl", events);
            Path hashed = log(lib, "hashed", "x.jsonl", events);
            CliRun c = CliRun.of("replay", lib.toString(), clear.toString(), "--format", "json");
            CliRun h = CliRun.of("replay", lib.toString(), hashed.toString(), "--format", "json");
            assertThat(h.err()).contains("is an audit log with personal data hashed");
            String note = h.err().lines().filter(l -> l.contains("personal data hashed")).findFirst().orElseThrow();
            for (String s : contracts) {
                String id = s.split("\\|")[0];
                if (id.startsWith("c.")) continue;
                boolean named = note.contains(" " + id + " (");
                if (!entries(h.out(), id).equals(entries(c.out(), id))) {
                    differed++;
                    if (!named) missed.add("trial " + trial + ": " + id + "; " + note);
                } else if (!named && id.startsWith("x.") && note.contains("applied here and refused online or the other way round")) {
                    leftOut++;
                }
            }
        }
        assertThat(missed).as("contracts whose verdict differs from the online one, not named").isEmpty();
        // both sides: verdicts that differ, and context contracts rightly left out although events differed
        assertThat(differed).as("differing verdicts (%d left out)", leftOut).isGreaterThan(5);
        assertThat(leftOut).as("context contracts left out (%d differing verdicts)", differed).isGreaterThan(5);
    }
}
