package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibrarySpec;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.reference.Semantics;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The built-in libraries read back in English as `tracegate explain` prints them (trial findings C13, C20). */
class EnglishTest {

    private static List<String> english(String builtin) {
        List<String> out = new ArrayList<>();
        for (LibrarySpec.ContractSpec c : Library.read(builtin, null).contracts()) {
            if (!c.assumeText().equals("true")) out.add(c.id() + " assume: " + English.of(c.assume()));
            out.add(c.id() + ": " + English.of(c.guarantee()));
        }
        return out;
    }

    @Test
    void gdpr() {
        assertThat(english("gdpr")).containsExactly(
                "gdpr.P1-consent: Whenever the agent calls a tool, every consent-based purpose of the event has the data subject's consent.",
                "gdpr.P2-purpose-limitation: Whenever the agent calls a tool and the event carries personal data and the event does not "
                        + "record a consent and the event does not request an erasure, the event serves a declared purpose and no undeclared one.",
                "gdpr.P3-minimisation: Whenever the agent calls a tool, the event carries only data its purposes need.",
                "gdpr.P4-erasure assume: Whenever a tool returns a result, the event does not mention an erased data subject.",
                "gdpr.P4-erasure: Whenever the agent calls a tool or the model answers, the event does not mention an erased data subject.");
    }

    @Test
    void injection() {
        assertThat(english("injection")).containsExactly("injection.untrusted-target: A side-effecting call never targets a value "
                + "that came from a tool output and not from the user.");
    }

    @Test
    void sopRefund() {
        assertThat(english("sop-refund")).containsExactly(
                "sop-refund.approval-first: Whenever the agent calls refund, the tool approve_refund returns a result at some point so far.",
                "sop-refund.within-approved-amount: Whenever the agent calls refund, argument amount of a call of refund is not above "
                        + "context value approved_amount.");
    }

    @Test
    void temporalClasses() {
        assertThat(english("temporal-classes")).containsExactly(
                "temporal.precedence: Whenever the agent calls transfer_funds, the tool verify_identity returns a result at some point so far.",
                "temporal.history: Whenever the agent calls send_external_email, at every event so far, the tool read_confidential_file "
                        + "does not return a result.",
                "temporal.count-bound: At every event, the number of calls to web_search so far is at most 3.",
                "temporal.reconfirm-after-untrusted: Whenever the agent calls transfer_funds, (at every event so far, the tool fetch_web_page "
                        + "does not return a result) or since the last time the user writes something matching "
                        + "/(?i)\\b(yes|confirm(ed)?|go ahead|approved?)\\b/ (which must have happened), the tool fetch_web_page does not return a result.");
    }

    @Test
    void aToolScopedArgumentNamesTheToolAndTheField() {
        assertThat(English.of(Parser.parse("G !untrusted(transfer, account)")))
                .isEqualTo("Argument account of a call of transfer never holds a value that came from a tool output and not from the user.");
        assertThat(English.of(Parser.parse("G(arg(refund, amount) <= 100)")))
                .isEqualTo("At every event, argument amount of a call of refund is at most 100.");
    }

    /** trial7 repro 20: "Lookup_order never fails." named no tool a reader could grep for. */
    @Test
    void aToolAtTheStartOfASentenceKeepsItsName() {
        assertThat(English.of(Parser.parse("G !failed(lookup_order)"))).isEqualTo("The tool lookup_order never fails.");
    }

    @Test
    void aNegatedAtomReadsAsANegativeClause() {
        assertThat(English.of(Parser.parse("!call(refund) W returned(approve_refund)")))
                .isEqualTo("The agent does not call refund until the tool approve_refund returns a result (or to the end).");
        assertThat(English.of(Parser.parse("G(call(pay) -> (!returned(fetch_web_page) S user))")))
                .isEqualTo("Whenever the agent calls pay, since the last time the user sends a message (which must have happened), "
                        + "the tool fetch_web_page does not return a result.");
    }

    @Test
    void anAtomOutsideEveryTemporalOperatorIsReadAtTheFirstEvent() {
        // trial2 R9: a bare `user` guarantee means the session opens with a user message
        assertThat(English.of(Parser.parse("user"))).isEqualTo("At the first event, the user sends a message.");
        assertThat(English.of(Parser.parse("call(search)"))).isEqualTo("At the first event, the agent calls search.");
        assertThat(English.of(Parser.parse("!returned(fetch)"))).isEqualTo("At the first event, the tool fetch does not return a result.");
        assertThat(English.of(Parser.parse("count(search) <= 3")))
                .isEqualTo("At the first event, the number of calls to search so far is at most 3.");
        assertThat(English.of(Parser.parse("user -> !call(pay)")))
                .isEqualTo("At the first event, if the user sends a message, then the agent does not call pay.");
        assertThat(English.of(Parser.parse("user & G !call(pay)")))
                .isEqualTo("At the first event, the user sends a message and the agent never calls pay.");
        // under a temporal operator the operator says where the atom is read
        assertThat(English.of(Parser.parse("G user"))).isEqualTo("At every event, the user sends a message.");
        assertThat(English.of(Parser.parse("F user"))).isEqualTo("Eventually the user sends a message.");
        assertThat(English.of(Parser.parse("X user"))).isEqualTo("At the next event (which must exist), the user sends a message.");
    }

    @Test
    void anImplicationInsideAConditionIsBracketed() {
        // trial13 explain-nested-implication: both read "if if the agent calls a, then ..." / "if the agent calls a, then if ..."
        assertThat(English.of(Parser.parse("(call(a) -> call(b)) -> call(c)")))
                .isEqualTo("At the first event, if (if the agent calls a, then the agent calls b), then the agent calls c.");
        assertThat(English.of(Parser.parse("call(a) -> (call(b) -> call(c))")))
                .isEqualTo("At the first event, if the agent calls a, then if the agent calls b, then the agent calls c.");
        assertThat(English.of(Parser.parse("G((call(a) -> call(b)) -> call(c))"))).doesNotContain("whenever if");
        assertThat(English.of(Parser.parse("(call(a) U call(b)) U call(c)")))
                .isNotEqualTo(English.of(Parser.parse("call(a) U (call(b) U call(c))")));
    }

    /**
     * trial21 (05): a prefix operator before an until read the same as the operator applied to the until
     * ({@code X X call(a) W call(b)} and {@code X X (call(a) W call(b))}, {@code F call(a) U call(b)} and
     * {@code F (call(a) U call(b))}). Brute force as below, over a prefix operator and a temporal or Boolean binary one
     * nested either way: any two formulas that read the same agree on every trace of up to three events (the engine's
     * reference semantics).
     */
    @Test
    void aPrefixOperatorAndAnUntilReadDifferentlyWhenTheyGroupDifferently() {
        assertThat(English.of(Parser.parse("X X call(a) W call(b)"))).isNotEqualTo(English.of(Parser.parse("X X (call(a) W call(b))")));
        assertThat(English.of(Parser.parse("F call(a) U call(b)"))).isNotEqualTo(English.of(Parser.parse("F (call(a) U call(b))")));
        assertThat(English.of(Parser.parse("F (call(a) U call(b))")))
                .isEqualTo("Eventually (the agent calls a until the agent calls b (which must happen)).");
        List<Formula> leaves = List.of(Parser.parse("call(a)"), Parser.parse("call(b)"), Parser.parse("call(c)"));
        Formula.UnOp[] unary = Formula.UnOp.values();
        Formula.BinOp[] binary = Formula.BinOp.values();
        List<Formula> all = new ArrayList<>();
        for (Formula.UnOp u : unary) {
            for (Formula.BinOp op : binary) {
                for (Formula l : leaves) {
                    for (Formula r : leaves) {
                        if (l.equals(r)) continue;
                        all.add(Formulas.unary(u, Formulas.binary(op, l, r)));
                        all.add(Formulas.binary(op, Formulas.unary(u, l), r));
                        all.add(Formulas.binary(op, l, Formulas.unary(u, r)));
                        for (Formula.UnOp v : unary) all.add(Formulas.binary(op, Formulas.unary(u, Formulas.unary(v, l)), r));
                    }
                }
            }
        }
        List<Atom> atoms = Formulas.atoms(Parser.parse("call(a) & call(b) & call(c)"));
        List<long[]> traces = new ArrayList<>();
        for (int n = 1; n <= 3; n++) {
            for (int code = 0; code < 1 << (3 * n); code++) {
                long[] t = new long[n];
                for (int i = 0; i < n; i++) t[i] = code >>> (3 * i) & 7;
                traces.add(t);
            }
        }
        java.util.Map<String, Formula> byEnglish = new java.util.HashMap<>();
        int compared = 0;
        for (Formula f : all) {
            Formula seen = byEnglish.putIfAbsent(English.of(f), f);
            if (seen == null || seen.equals(f)) continue;
            compared++;
            for (long[] t : traces) {
                assertThat(Semantics.holds(f, atoms, t)).as("%s and %s both read '%s'; trace %s", Formulas.print(f),
                        Formulas.print(seen), English.of(f), java.util.Arrays.toString(t)).isEqualTo(Semantics.holds(seen, atoms, t));
            }
        }
        assertThat(all).hasSizeGreaterThan(1000);
    }

    /**
     * Brute force: formulas of depth 2 over three atoms with implication, and, or, until; any two that read the same in
     * English agree on every trace of up to three events (the engine's reference semantics).
     */
    @Test
    void formulasThatReadTheSameAgreeOnEveryShortTrace() {
        List<Formula> leaves = List.of(Parser.parse("call(a)"), Parser.parse("call(b)"), Parser.parse("call(c)"));
        Formula.BinOp[] ops = {Formula.BinOp.IMPLIES, Formula.BinOp.AND, Formula.BinOp.OR, Formula.BinOp.UNTIL};
        List<Formula> one = new ArrayList<>(leaves);
        for (Formula.BinOp op : ops) for (Formula l : leaves) for (Formula r : leaves) if (!l.equals(r)) one.add(Formulas.binary(op, l, r));
        java.util.Map<String, Formula> byEnglish = new java.util.HashMap<>();
        List<Atom> atoms = Formulas.atoms(Parser.parse("call(a) & call(b) & call(c)"));
        List<long[]> traces = new ArrayList<>();
        for (int n = 1; n <= 3; n++) {
            for (int code = 0; code < 1 << (3 * n); code++) {
                long[] t = new long[n];
                for (int i = 0; i < n; i++) t[i] = code >>> (3 * i) & 7;
                traces.add(t);
            }
        }
        int compared = 0;
        for (Formula.BinOp op : ops) {
            for (Formula l : one) {
                for (Formula r : one) {
                    Formula f = Formulas.binary(op, l, r);
                    Formula seen = byEnglish.putIfAbsent(English.of(f), f);
                    if (seen == null) continue;
                    compared++;
                    for (long[] t : traces) {
                        assertThat(Semantics.holds(f, atoms, t)).as("%s and %s both read '%s'; trace %s", Formulas.print(f),
                                Formulas.print(seen), English.of(f), java.util.Arrays.toString(t)).isEqualTo(Semantics.holds(seen, atoms, t));
                    }
                }
            }
        }
        assertThat(compared).as("some formulas do read the same (a and b and c)").isPositive();
    }

    /**
     * trial36 (01): G(call(a) -> X call(b)) & F user and G(call(a) -> X call(b) & F user) read the same ("Whenever the
     * agent calls a, at the next event ..., the agent calls b and eventually the user sends a message"), as did
     * G(count(a) <= 2) & F user and G(count(a) <= 2 & F user): the G's scope ran on into the conjunct after it. Now a
     * prefix operator beside a connective is bracketed. Brute force: a prefix operator over a connective, or beside it
     * on either side, with operands that are themselves implications, temporal or plain: any two formulas that read the
     * same agree on every trace of up to three events (the engine's reference semantics).
     */
    @Test
    void theScopeOfAPrefixOperatorBesideAConnectiveIsVisible() {
        assertThat(English.of(Parser.parse("G(call(a) -> X call(b)) & F user")))
                .isEqualTo("(Whenever the agent calls a, at the next event (which must exist), the agent calls b) and (eventually"
                        + " the user sends a message).");
        assertThat(English.of(Parser.parse("G(call(a) -> X call(b) & F user)")))
                .isEqualTo("Whenever the agent calls a, (at the next event (which must exist), the agent calls b) and (eventually"
                        + " the user sends a message).");
        assertThat(English.of(Parser.parse("G(count(a) <= 2) & F user")))
                .isNotEqualTo(English.of(Parser.parse("G(count(a) <= 2 & F user)")));
        List<Formula> inner = List.of(Parser.parse("call(a)"), Parser.parse("call(a) -> X call(b)"), Parser.parse("call(a) & call(b)"),
                Parser.parse("!call(a)"), Parser.parse("F call(b)"), Parser.parse("G call(b)"), Parser.parse("!F call(b)"),
                Parser.parse("X call(b)"));
        List<Formula> other = List.of(Parser.parse("call(c)"), Parser.parse("F call(c)"), Parser.parse("G call(c)"),
                Parser.parse("X call(c)"), Parser.parse("!G call(c)"));
        Formula.BinOp[] connectives = {Formula.BinOp.AND, Formula.BinOp.OR, Formula.BinOp.IMPLIES};
        List<Formula> all = new ArrayList<>();
        for (Formula.UnOp u : Formula.UnOp.values()) {
            for (Formula.BinOp op : connectives) {
                for (Formula x : inner) {
                    for (Formula y : other) {
                        all.add(Formulas.unary(u, Formulas.binary(op, x, y)));
                        all.add(Formulas.binary(op, Formulas.unary(u, x), y));
                        all.add(Formulas.binary(op, y, Formulas.unary(u, x)));
                        all.add(Formulas.binary(op, Formulas.binary(op, Formulas.unary(u, x), y), x));
                        all.add(Formulas.binary(op, Formulas.unary(u, Formulas.binary(op, x, y)), x));
                    }
                }
            }
        }
        List<Atom> atoms = Formulas.atoms(Parser.parse("call(a) & call(b) & call(c)"));
        List<long[]> traces = new ArrayList<>();
        for (int n = 1; n <= 3; n++) {
            for (int code = 0; code < 1 << (3 * n); code++) {
                long[] t = new long[n];
                for (int i = 0; i < n; i++) t[i] = code >>> (3 * i) & 7;
                traces.add(t);
            }
        }
        java.util.Map<String, Formula> byEnglish = new java.util.HashMap<>();
        for (Formula f : all) {
            Formula seen = byEnglish.putIfAbsent(English.of(f), f);
            if (seen == null || seen.equals(f)) continue;
            for (long[] t : traces) {
                assertThat(Semantics.holds(f, atoms, t)).as("%s and %s both read '%s'; trace %s", Formulas.print(f),
                        Formulas.print(seen), English.of(f), java.util.Arrays.toString(t)).isEqualTo(Semantics.holds(seen, atoms, t));
            }
        }
        assertThat(all).hasSizeGreaterThan(1000);
    }

    /**
     * trial36 (03): O call(b) read "The agent calls b at some point so far." and H !call(a) "At every event so far, ...",
     * yet at the top of a formula they read only the first event (a trace satisfies a formula at position 0), so O
     * call(b) is violated by a first event that is not b, as the bare call(b) is, which reads "At the first event".
     */
    @Test
    void aPastOperatorAtTheTopIsReadAtTheFirstEvent() {
        assertThat(English.of(Parser.parse("O call(b)"))).isEqualTo("At the first event, the agent calls b (a past operator outside"
                + " every future one reads only the first event; for \"by then\" put it under G: G(... -> O call(b))).");
        assertThat(English.of(Parser.parse("H !call(a)"))).startsWith("At the first event, the agent does not call a (");
        assertThat(English.of(Parser.parse("Y call(a)"))).startsWith("At the first event, false (");
        assertThat(English.of(Parser.parse("call(a) S call(b)"))).startsWith("At the first event, the agent calls b (");
        // under a future operator the past keeps its reading
        assertThat(English.of(Parser.parse("G(call(refund) -> O returned(approve))")))
                .isEqualTo("Whenever the agent calls refund, the tool approve returns a result at some point so far.");
        List<Atom> atoms = Formulas.atoms(Parser.parse("call(a) & call(b)"));
        for (String text : List.of("O call(b)", "H !call(a)", "call(a) S call(b)", "O call(a) -> H call(b)")) {
            Formula past = Parser.parse(text);
            String english = English.of(past);
            for (int n = 1; n <= 3; n++) {
                for (int code = 0; code < 1 << (2 * n); code++) {
                    long[] t = new long[n];
                    for (int i = 0; i < n; i++) t[i] = code >>> (2 * i) & 3;
                    // what it says at the first event is what it holds on the whole trace
                    boolean first = Semantics.holds(past, atoms, new long[] {t[0]});
                    assertThat(Semantics.holds(past, atoms, t)).as(text + " on " + java.util.Arrays.toString(t) + ": " + english)
                            .isEqualTo(first);
                }
            }
        }
    }
}
