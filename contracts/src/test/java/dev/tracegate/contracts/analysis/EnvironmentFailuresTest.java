package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A guarantee that an event the agent does not control can make fail (session 9: {@code G(returned(lookup_customer) ->
 * !category(iban))} with {@code redact} passed {@code check} and then failed on a result that no strategy acts on);
 * {@link EnvironmentFailures} names such contracts, checked against the monitor itself on every short trace of
 * concrete events.
 */
class EnvironmentFailuresTest {

    private static Library lib(String yaml) {
        return Library.compile(List.of(LibraryReader.read("lib.yaml", yaml)));
    }

    private static List<EnvironmentFailures.Finding> find(String guarantee) {
        return EnvironmentFailures.find(lib("library: x\ncontracts:\n  - id: x.c\n    guarantee: '" + guarantee + "'\n    message: m\n"));
    }

    @Test
    void aGuaranteeOnAToolResultIsNotedWithWhatToWriteInstead() {
        Library lib = lib("library: pii\ncontracts:\n  - id: pii.no-iban\n    guarantee: G(returned(lookup_customer) -> !category(iban))\n"
                + "    strategy: redact\n    message: no IBANs\n");
        assertThat(EnvironmentFailures.notes(lib)).containsExactly("lib.yaml:3: contract pii.no-iban's guarantee"
                + " (G(returned(lookup_customer) -> !category(iban))) can be made to fail by an event the agent does not control:"
                + " a tool result where returned(lookup_customer), category(iban) hold as the first event. tracegate refuses only"
                + " the agent's own calls and answers, so that event is applied and the contract is violated for good in that"
                + " session, whatever its strategy (redact never rewrites a result or a user message). To withhold such an"
                + " event, make the condition the assumption (assume: G(returned(lookup_customer) -> !category(iban)), strategy:"
                + " suppress; the model then gets a notice instead of the content); to keep the data out of what the agent does"
                + " with it, put the condition on the agent's own events (G(assistant -> ...) with strategy: redact masks the"
                + " answer; G(call(T) -> ...) guards a call) (docs/LIBRARY.md, Analysis)");
    }

    @Test
    void theRewritesItSuggestsAreNotNoted() {
        assertThat(EnvironmentFailures.find(lib("library: pii\ncontracts:\n  - id: pii.withhold\n"
                + "    assume: G(returned(lookup_customer) -> !category(iban))\n    guarantee: G !call(export)\n    strategy: suppress\n"
                + "    message: m\n  - id: pii.answer\n    guarantee: G(assistant -> !category(iban))\n    strategy: redact\n    message: m\n"
                + "  - id: pii.call\n    guarantee: G(call(update_note) -> !category(iban))\n    strategy: redact\n    message: m\n"))).isEmpty();
    }

    @Test
    void aResultAnotherContractsAssumptionWithholdsIsNotNoted() {
        String noIban = "  - id: pii.no-iban\n    guarantee: G(returned(lookup_customer) -> !category(iban))\n    message: m\n";
        String withhold = "  - id: pii.withhold\n    assume: G(returned(lookup_customer) -> !category(iban))\n    guarantee: G !call(export)\n"
                + "    strategy: suppress\n    message: m\n";
        assertThat(EnvironmentFailures.find(lib("library: pii\ncontracts:\n" + noIban + withhold))).isEmpty();
        // once the agent breaks the other assumption (an export of its own), the result is no longer withheld
        String agentBreaks = withhold.replace("G(returned(lookup_customer)", "G !call(debug) & G(returned(lookup_customer)");
        assertThat(EnvironmentFailures.find(lib("library: pii\ncontracts:\n" + noIban + agentBreaks))).singleElement()
                .satisfies(f -> assertThat(f.prefix()).containsExactly("[call(debug)]"));
    }

    @Test
    void aBadStepThatNeedsTheAgentsEventIsNotNoted() {
        assertThat(find("G(call(pay) -> arg(pay, amount) <= 100)")).isEmpty();
        assertThat(find("G(call(refund) -> O returned(approve))")).isEmpty();
        assertThat(find("!call(refund) W returned(approve)")).isEmpty();
        assertThat(find("G(count(search) <= 3)")).as("a count moves only at calls").isEmpty();
        assertThat(find("G(sum(pay, amount) <= 1000)")).isEmpty();
        assertThat(find("G(call(open) -> F returned(close))")).as("a response fails only at the end").isEmpty();
        assertThat(find("G(returned(a) & returned(b) -> call(c))")).as("one result names one tool").isEmpty();
        assertThat(find("G(returned(a) & failed(a) -> call(c))")).as("a result succeeds or fails").isEmpty();
    }

    /**
     * trial21 leftover: G(run(search) <= 2) was noted as made to fail by "a user message as the first event" (the run's
     * comparison was left free at every event), yet a run moves only at calls, as a count and a sum do; checked with
     * the monitor both ways.
     */
    @Test
    void aRunMovesOnlyAtCalls() {
        assertThat(find("G(run(search) <= 2)")).isEmpty();
        Library lib = lib("library: r\ncontracts:\n  - id: r.run\n    guarantee: G(run(search) <= 2)\n    message: m\n");
        Replay<Event> replay = lib.replay("s");
        assertThat(replay.next(Event.user("s", 1, "hello"), false, true).decision()).isEqualTo(Decision.Kind.PASS);
        replay.next(Event.call("s", 2, "search", "{}"), true, true);
        replay.next(Event.call("s", 3, "search", "{}"), true, true);
        assertThat(replay.next(Event.returned("s", 4, "search", "ok", false), false, true).decision()).isEqualTo(Decision.Kind.PASS);
        assertThat(replay.next(Event.call("s", 5, "search", "{}"), true, true).decision()).isEqualTo(Decision.Kind.BLOCK);
        // a result read with the run it ends is still found, and the monitor agrees
        assertThat(find("G(returned(search) -> run(search) >= 2)")).hasSize(1);
        Replay<Event> two = lib("library: r\ncontracts:\n  - id: r.run\n    guarantee: G(returned(search) -> run(search) >= 2)\n"
                + "    message: m\n").replay("s");
        two.next(Event.call("s", 1, "search", "{}"), true, true);
        assertThat(two.next(Event.returned("s", 2, "search", "ok", false), false, true).decision()).isEqualTo(Decision.Kind.VIOLATION);
    }

    @Test
    void aBadStepAnEnvironmentEventCanTakeIsNotedWithAShortestWay() {
        var unguarded = find("G(arg(pay, amount) <= 100)");
        assertThat(unguarded).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(EventKind.USER);
            assertThat(f.prefix()).isEmpty();
        });
        var deadline = find("G(returned(quote) -> X call(book))");
        assertThat(deadline).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(EventKind.USER);
            assertThat(f.prefix()).containsExactly("[returned(quote)]");
        });
        assertThat(find("G(call(a) -> G !user_matches(\"stop\"))")).singleElement().satisfies(f -> {
            assertThat(f.prefix()).containsExactly("[call(a)]");
            assertThat(f.atoms()).containsExactly("user_matches(\"stop\")");
        });
        assertThat(find("G(count(search) >= 1)")).as("0 searches before the first call").singleElement()
                .satisfies(f -> assertThat(f.prefix()).isEmpty());
        // the first call of a counts 1, so only the event after a second call of a can break it
        assertThat(find("G(call(a) -> X(count(a) <= 1))")).singleElement()
                .satisfies(f -> assertThat(f.prefix()).filteredOn(e -> e.contains("call(a)")).hasSize(2));
    }

    /**
     * trial21 (04): {@code G(call(prepare) -> X call(commit))} is broken by prepare's own result, the session's next
     * event after the call; the note said only "a user message" and advised an assumption that would withhold every
     * such result. Now it names the result and the pattern to write; checked with the monitor: after the call, a
     * success and a failure of prepare are both a VIOLATION.
     */
    @Test
    void aNextStepReadRightAfterACallIsNotedAsBrokenByThatCallsOwnResult() {
        Library lib = lib("library: tx\ncontracts:\n  - id: tx.prepare-commit\n    guarantee: G(call(prepare) -> X call(commit))\n    message: m\n");
        assertThat(EnvironmentFailures.find(lib)).singleElement().satisfies(f -> {
            assertThat(f.ownResultOf()).isEqualTo("prepare");
            assertThat(f.prefix()).containsExactly("[call(prepare)]");
        });
        assertThat(EnvironmentFailures.notes(lib)).singleElement().asString()
                .contains("is made to fail by the result of prepare after [call(prepare)], whatever that result holds")
                .contains("G(returned(prepare) -> X call(...))").doesNotContain("make the condition the assumption");
        for (boolean failed : new boolean[] {false, true}) {
            Replay<Event> replay = lib.replay("s");
            assertThat(replay.next(Event.call("s", 1, "prepare", "{}"), true, true).decision()).isNotEqualTo(Decision.Kind.VIOLATION);
            assertThat(replay.next(Event.returned("s", 2, "prepare", "ok", failed), false, true).decision())
                    .as("failed=" + failed).isEqualTo(Decision.Kind.VIOLATION);
        }
        // only a failure of a breaks it, or nothing a result can do: not the call's own result
        assertThat(find("G(call(a) -> X returned(a))")).allSatisfy(f -> assertThat(f.ownResultOf()).isNull());
        assertThat(find("G(call(a) -> X return)")).allSatisfy(f -> assertThat(f.ownResultOf()).isNull());
        assertThat(find("G(returned(a) -> X call(b))")).allSatisfy(f -> assertThat(f.ownResultOf()).isNull());
        assertThat(find("G(call(a) -> X X call(b))")).allSatisfy(f -> assertThat(f.ownResultOf()).isNull());
        assertThat(find("G(call(mcp__s__a) -> WX call(b))")).singleElement()
                .satisfies(f -> assertThat(f.ownResultOf()).isEqualTo("mcp__s__a"));
    }

    /**
     * trial36 (09): with an unrelated contract beside it, the recommended G(call(prepare) -> X X call(commit)) was noted
     * as failing "in every session in which that call runs", from two calls of prepare in a row (and, in a library that
     * also named call(a), by "the result of a"): a path no session takes, since the next event after a call is its own
     * result. The note must be true of the contract: replay keeps it on call, result, commit.
     */
    @Test
    void anOwnResultNoteComesOnlyFromSessionsWhereEachCallIsFollowedByItsResult() {
        String commit = "  - id: pc.commit\n    guarantee: G(call(prepare) -> X X call(commit))\n    message: m\n";
        Library lib = lib("library: pc\ncontracts:\n" + commit
                + "  - id: pc.search-cap\n    guarantee: G(count(search) <= 3)\n    message: m\n");
        assertThat(EnvironmentFailures.find(lib)).allSatisfy(f -> assertThat(f.ownResultOf()).as(f.toString()).isNull());
        assertThat(EnvironmentFailures.notes(lib)).noneMatch(n -> n.contains("whatever that result holds"));
        Replay<Event> replay = lib.replay("s");
        replay.next(Event.user("s", 1, "go"), false, true);
        replay.next(Event.call("s", 2, "prepare", "{}"), true, true);
        replay.next(Event.returned("s", 3, "prepare", "ok", false), false, true);
        assertThat(replay.next(Event.call("s", 4, "commit", "{}"), true, true).decision()).isEqualTo(Decision.Kind.PASS);
        Library other = lib("library: pc\ncontracts:\n  - id: pc.cd\n    guarantee: G(call(c) -> X X call(d))\n    message: m\n"
                + "  - id: pc.a\n    guarantee: G(call(a) -> count(a) <= 5)\n    message: m\n");
        assertThat(EnvironmentFailures.find(other)).allSatisfy(f -> assertThat(f.ownResultOf()).as(f.toString()).isNull());
        // the note it keeps is still given, and its claim is about the session that reaches the call so
        Library x = lib("library: tx\ncontracts:\n  - id: tx.c\n    guarantee: G(call(prepare) -> X call(commit))\n    message: m\n"
                + "  - id: tx.cap\n    guarantee: G(count(search) <= 3)\n    message: m\n");
        assertThat(EnvironmentFailures.notes(x)).singleElement().asString()
                .contains("by the result of prepare after [call(prepare)").contains("a session that calls prepare violates")
                .doesNotContain("every session in which");
    }

    /** The agent's warning: the advice fits the guarantee (trial21 04: it advised an argument guard for an X after a call). */
    @Test
    void theWarningsAdviceFitsTheGuarantee() {
        java.util.function.Function<String, dev.tracegate.engine.ltl.Formula> f = dev.tracegate.engine.ltl.Parser::parse;
        assertThat(EnvironmentFailures.advice(f.apply("G(call(prepare) -> X call(commit))"), EventKind.RETURN, "prepare"))
                .contains("that call's own result").contains("G(returned(prepare) -> X call(...))").doesNotContain("guard");
        assertThat(EnvironmentFailures.advice(f.apply("G(arg(pay, amount) <= 100)"), EventKind.USER, null))
                .contains("lacks a guard: G(call(T) -> arg(T, f) <= n)");
        assertThat(EnvironmentFailures.advice(f.apply("G(returned(a) -> !category(iban))"), EventKind.RETURN, "a"))
                .doesNotContain("guard").contains("the agent's own events");
        // a count that a session starts below: the obligation, as check's first-event note says, not a condition on calls
        assertThat(EnvironmentFailures.advice(f.apply("G(count(refund) >= 1)"), EventKind.USER, null))
                .isEqualTo("If that event should not have mattered: count(refund) >= 1 is false before the first call of refund"
                        + " (count, run and sum are 0 when a session starts), and G asks for it from the first event on; for a"
                        + " number to reach by the end of the session put it under F: F(count(refund) >= 1) (replay and the"
                        + " session's end record report it unmet if the session ends short of it); a cap is G(count(refund) <= n)"
                        + " (docs/FORMULAS.md)");
        assertThat(EnvironmentFailures.advice(f.apply("G(count(refund) <= 3 & !returned(x))"), EventKind.RETURN, "x"))
                .as("a cap holds at 0").contains("the agent's own events");
    }

    /**
     * Against the monitor: where the analysis says a contract is broken by the own result of the call that ends a
     * one-event prefix, some concrete first call of that tool is followed, for every result of it (successes with
     * either content, a failure), by a VIOLATION of that contract.
     */
    @Test
    void anOwnResultFindingIsAViolationByEveryResultOfThatCall() {
        Random random = new Random(13);
        int checked = 0;
        for (int i = 0; i < 400; i++) {
            String guarantee = "G(call(a) -> " + (random.nextBoolean() ? "X" : "WX") + " " + FORMULAS.future(random, 2) + ")";
            Library lib = lib("library: r\ncontracts:\n  - id: r.c\n    guarantee: '" + guarantee + "'\n    message: m\n");
            for (EnvironmentFailures.Finding f : EnvironmentFailures.find(lib)) {
                if (f.ownResultOf() == null || f.prefix().size() != 1) continue;
                checked++;
                boolean some = false;
                for (int call : new int[] {6, 7}) {
                    boolean every = true;
                    for (int result = 0; result < 3; result++) {
                        Replay<Event> replay = lib.replay("s");
                        Event c = event(call, 1);
                        if (!replay.next(c, true, true).applied()) { every = false; break; }
                        Event r = result < 2 ? event(2 + result, 2) : Event.returned("s", 2, "a", "boom", true);
                        every &= replay.next(r, false, true).decision() == Decision.Kind.VIOLATION;
                    }
                    some |= every;
                }
                assertThat(some).as(guarantee + ": " + f).isTrue();
            }
        }
        assertThat(checked).as("own-result findings checked").isGreaterThan(20);
    }

    @Test
    void noBuiltinLibraryIsNoted() {
        for (String b : Library.BUILTINS) assertThat(EnvironmentFailures.find(Library.load(List.of(b), null))).as(b).isEmpty();
        for (String suite : List.of("banking", "slack", "travel", "workspace")) {
            String name = "builtin:agentdojo/" + suite;
            assertThat(EnvironmentFailures.find(Library.load(List.of(name, "injection"), null))).as(name).isEmpty();
        }
    }

    /**
     * fix22a's leftover: {@code undeclared_purpose} at a user message is decided by the policy (true when it declares
     * purposes, false when it declares none), so a guarantee that a user message could only break through the other
     * value is not noted, and one it breaks through this value is; each answer checked against the monitor.
     */
    @Test
    void undeclaredPurposeAtAUserMessageIsAsThePolicyDecides() {
        String declared = "library: up\ngdpr:\n  purposes:\n    support: [email]\n  tools:\n    send: [support]\ncontracts:\n";
        String none = "library: up\ncontracts:\n";
        String clean = "  - id: up.c\n    guarantee: G((user & !undeclared_purpose) -> X call(a))\n    message: m\n";
        String dirty = "  - id: up.c\n    guarantee: G((user & undeclared_purpose) -> X call(a))\n    message: m\n";
        for (String[] c : new String[][] {{declared + clean, "no"}, {none + dirty, "no"}, {declared + dirty, "yes"}, {none + clean, "yes"}}) {
            Library lib = lib(c[0]);
            java.util.Set<Integer> monitor = new java.util.TreeSet<>();
            violatedByEnvironment(lib, new ArrayList<>(), 2, monitor);
            assertThat(monitor.contains(0)).as("the monitor: " + c[0]).isEqualTo(c[1].equals("yes"));
            assertThat(EnvironmentFailures.find(lib)).as(c[0]).hasSize(c[1].equals("yes") ? 1 : 0);
        }
    }

    // ---- oracle: the monitor on every trace of concrete events up to a length ----

    private static final FormulaText FORMULAS = new FormulaText("call(a)", "call(b)", "returned(a)", "user",
            "user_matches(\"yes\")", "result_matches(\"mail\")", "count(a) <= 1", "arg(a, n) > 5");

    /** Events that give every letter the analysis allows for the atoms above some event (a call of c: neither call). */
    private static Event event(int i, long seq) {
        return switch (i) {
            case 0 -> Event.user("s", seq, "yes please");
            case 1 -> Event.user("s", seq, "no");
            case 2 -> Event.returned("s", seq, "a", "ok", false);
            case 3 -> Event.returned("s", seq, "a", "mail sent", false);
            case 4 -> Event.returned("s", seq, "b", "ok", false);
            case 5 -> Event.returned("s", seq, "b", "mail sent", false);
            case 6 -> Event.call("s", seq, "a", "{\"n\":1}");
            case 7 -> Event.call("s", seq, "a", "{\"n\":9}");
            case 8 -> Event.call("s", seq, "b", "{\"n\":9}");
            case 9 -> Event.call("s", seq, "c", "{\"n\":9}");
            case 10 -> Event.assistant("s", seq, "hi");
            default -> Event.builder(EventKind.CONSENT).session("s").seq(seq).subject("ann").purposes("marketing").build();
        };
    }

    private static final int EVENTS = 12;
    private static final int LEN = 4;

    /**
     * Random libraries of one or two contracts (an assumption half the time): the analysis names a contract exactly when
     * some trace, stepped by the monitor as online (refused agent events and withheld events not applied), has an event
     * of the environment whose decision is a VIOLATION of that contract. Traces are enumerated up to {@code LEN} events,
     * so a finding whose shortest way is longer is only checked in the other direction (every violation the monitor
     * shows is found).
     */
    @Test
    void agreesWithTheMonitorOnEveryShortTrace() {
        Random random = new Random(10);
        int compared = 0;
        int noted = 0;
        for (int i = 0; i < 120; i++) {
            StringBuilder yaml = new StringBuilder("library: r\ncontracts:\n");
            int contracts = 1 + random.nextInt(2);
            for (int c = 0; c < contracts; c++) {
                String guarantee = random.nextInt(3) == 0 ? FORMULAS.future(random, 3) : "G(" + FORMULAS.future(random, 2) + ")";
                String assume = random.nextBoolean() ? "true" : FORMULAS.future(random, 2);
                yaml.append("  - id: r.c").append(c).append("\n    assume: '").append(assume).append("'\n    guarantee: '")
                        .append(guarantee).append("'\n    message: m\n");
            }
            Library lib = lib(yaml.toString());
            List<EnvironmentFailures.Finding> found = EnvironmentFailures.find(lib);
            java.util.Set<Integer> monitor = new java.util.TreeSet<>();
            violatedByEnvironment(lib, new ArrayList<>(), LEN, monitor);
            for (int c = 0; c < contracts; c++) {
                final int contract = c;
                var finding = found.stream().filter(f -> f.contract() == contract).findFirst();
                String what = yaml + "r.c" + c + ": " + finding;
                if (monitor.contains(c)) assertThat(finding).as(what).isPresent();
                if (finding.isPresent() && finding.get().prefix().size() < LEN) assertThat(monitor).as(what).contains(c);
                if (finding.isEmpty() || finding.get().prefix().size() < LEN) {
                    compared++;
                    if (monitor.contains(c)) noted++;
                }
            }
        }
        assertThat(compared).as("contracts compared exactly").isGreaterThan(150);
        assertThat(noted).as("both answers among them").isBetween(20, compared - 20);
    }

    /** Adds to {@code violated} the contracts that an environment event makes FAIL in an extension of {@code prefix} by up to {@code left} events. */
    private static void violatedByEnvironment(Library lib, List<Integer> prefix, int left, java.util.Set<Integer> violated) {
        if (left == 0) return;
        for (int e = 0; e < EVENTS; e++) {
            Replay<Event> replay = lib.replay("s");
            for (int i = 0; i < prefix.size(); i++) {
                Event ev = event(prefix.get(i), i + 1);
                replay.next(ev, ev.controlledByAgent(), true);
            }
            Event ev = event(e, prefix.size() + 1);
            Replay.Step step = replay.next(ev, ev.controlledByAgent(), true);
            if (step.decision() == Decision.Kind.VIOLATION) for (int c : step.contracts()) violated.add(c);
            // a refused event leaves the session as it was, and a contract IDLE or FAIL for good has nothing left to show
            if (!step.applied() || !java.util.Arrays.asList(step.verdicts()).contains(dev.tracegate.engine.monitor.Verdict.ACTIVE)) continue;
            prefix.add(e);
            violatedByEnvironment(lib, prefix, left - 1, violated);
            prefix.remove(prefix.size() - 1);
        }
    }
}
