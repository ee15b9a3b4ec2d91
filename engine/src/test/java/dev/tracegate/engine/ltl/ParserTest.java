package dev.tracegate.engine.ltl;

import dev.tracegate.engine.ltl.Formula.BinOp;
import dev.tracegate.engine.ltl.Formula.UnOp;
import dev.tracegate.engine.reference.FormulaArbitraries;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static dev.tracegate.engine.ltl.Formulas.and;
import static dev.tracegate.engine.ltl.Formulas.binary;
import static dev.tracegate.engine.ltl.Formulas.not;
import static dev.tracegate.engine.ltl.Formulas.or;
import static dev.tracegate.engine.ltl.Formulas.unary;
import static org.assertj.core.api.Assertions.assertThat;

/** What users write parses to the tree they mean, and printed formulas read back unchanged. */
class ParserTest {
    private static final Atom A = Atom.of("a");
    private static final Atom B = Atom.of("b");
    private static final Atom C = Atom.of("c");

    private static Formula p(String s) { return Parser.parse(s); }

    @Test
    void booleanPrecedenceFromLoosestToTightest() {
        assertThat(p("a | b & c")).isEqualTo(or(A, and(B, C)));
        assertThat(p("a & b | c")).isEqualTo(or(and(A, B), C));
        assertThat(p("a | b -> c")).isEqualTo(binary(BinOp.IMPLIES, or(A, B), C));
        assertThat(p("a -> b <-> c")).isEqualTo(binary(BinOp.IFF, binary(BinOp.IMPLIES, A, B), C));
        assertThat(p("a <-> b -> c")).isEqualTo(binary(BinOp.IFF, A, binary(BinOp.IMPLIES, B, C)));
        assertThat(p("!a & b")).isEqualTo(and(not(A), B));
        assertThat(p("!(a & b)")).isEqualTo(not(and(A, B)));
    }

    @Test
    void associativity() {
        assertThat(p("a -> b -> c")).isEqualTo(binary(BinOp.IMPLIES, A, binary(BinOp.IMPLIES, B, C)));
        assertThat(p("a <-> b <-> c")).isEqualTo(binary(BinOp.IFF, binary(BinOp.IFF, A, B), C));
        assertThat(p("a & b & c")).isEqualTo(and(and(A, B), C));
        assertThat(p("a | b | c")).isEqualTo(or(or(A, B), C));
        assertThat(p("a U b U c")).isEqualTo(binary(BinOp.UNTIL, A, binary(BinOp.UNTIL, B, C)));
        assertThat(p("a S b U c")).isEqualTo(binary(BinOp.SINCE, A, binary(BinOp.UNTIL, B, C)));
        assertThat(p("a R b W c")).isEqualTo(binary(BinOp.RELEASE, A, binary(BinOp.WEAK_UNTIL, B, C)));
    }

    @Test
    void temporalBinaryOperatorsBindTighterThanAndOrButLooserThanPrefixOperators() {
        assertThat(p("a & b U c")).isEqualTo(and(A, binary(BinOp.UNTIL, B, C)));
        assertThat(p("a U b | c")).isEqualTo(or(binary(BinOp.UNTIL, A, B), C));
        assertThat(p("!b W a")).isEqualTo(binary(BinOp.WEAK_UNTIL, not(B), A));
        assertThat(p("F a U b")).isEqualTo(binary(BinOp.UNTIL, unary(UnOp.EVENTUALLY, A), B));
        assertThat(p("X !a")).isEqualTo(unary(UnOp.NEXT, not(A)));
        assertThat(p("G(a -> F b)")).isEqualTo(unary(UnOp.ALWAYS, binary(BinOp.IMPLIES, A, unary(UnOp.EVENTUALLY, B))));
        assertThat(p("G (b -> (!c S a))")).isEqualTo(unary(UnOp.ALWAYS,
                binary(BinOp.IMPLIES, B, binary(BinOp.SINCE, not(C), A))));
    }

    @Test
    void everyOperatorHasItsSpelling() {
        assertThat(p("WX a")).isEqualTo(unary(UnOp.WEAK_NEXT, A));
        assertThat(p("Y O H a")).isEqualTo(unary(UnOp.YESTERDAY, unary(UnOp.ONCE, unary(UnOp.HISTORICALLY, A))));
        assertThat(p("G F X a")).isEqualTo(unary(UnOp.ALWAYS, unary(UnOp.EVENTUALLY, unary(UnOp.NEXT, A))));
        assertThat(p("a && b || c")).isEqualTo(p("a & b | c"));
        assertThat(p("true | false")).isEqualTo(or(Formula.Const.TRUE, Formula.Const.FALSE));
        assertThat(p("!!a")).isEqualTo(not(not(A)));
        assertThat(p("X(a)")).isEqualTo(unary(UnOp.NEXT, A));
    }

    @Test
    void namesThatMerelyStartLikeOperatorsAreAtoms() {
        assertThat(p("Xa & Fb & WXc & true_1 & Under")).isEqualTo(
                and(and(and(and(Atom.of("Xa"), Atom.of("Fb")), Atom.of("WXc")), Atom.of("true_1")), Atom.of("Under")));
        assertThat(p("G.x")).isEqualTo(Atom.of("G.x"));
    }

    @Test
    void atomsCarryArgumentsComparisonsAndPositions() {
        Atom refund = (Atom) p("call(refund, amount)");
        assertThat(refund).isEqualTo(Atom.of("call", new Term.Name("refund"), new Term.Name("amount")));

        Atom count = (Atom) p("count(search) <= 3");
        assertThat(count.comparison()).isEqualTo("<=");
        assertThat(count.bound()).isEqualTo(new Term.Num("3"));
        assertThat(count.key()).isEqualTo("count(search) <= 3");

        Atom arg = (Atom) p("arg(refund, amount) > ctx(approved)");
        assertThat(arg.bound()).isEqualTo(new Term.Call("ctx", List.of(new Term.Name("approved"))));

        Atom bare = (Atom) p("amount>=-2.5");
        assertThat(bare.name()).isEqualTo("amount");
        assertThat(bare.args()).isEmpty();
        assertThat(bare.comparison()).isEqualTo(">=");
        assertThat(bare.bound()).isEqualTo(new Term.Num("-2.5"));

        assertThat(p("ctx.approved != ctx.limit")).isEqualTo(
                new Atom("ctx.approved", List.of(), "!=", new Term.Name("ctx.limit"), 0, 0));
        assertThat(p("p()")).isEqualTo(Atom.of("p"));
        assertThat(((Atom) p("x == 5")).comparison()).isEqualTo("==");
        assertThat(((Atom) p("x < 5")).comparison()).isEqualTo("<");
        assertThat(((Atom) p("x<-5")).bound()).isEqualTo(new Term.Num("-5"));
        // trial36 02: an exponent, as JSON writes numbers (it was "malformed number '1e3'")
        assertThat(((Atom) p("arg(pay, amount) <= 1e3")).bound()).isEqualTo(new Term.Num("1e3"));
        assertThat(((Term.Num) ((Atom) p("x <= 1.5E-2")).bound()).value()).isEqualTo(0.015);
        assertThat(((Term.Num) ((Atom) p("x > -2e+2")).bound()).value()).isEqualTo(-200.0);
    }

    @Test
    void termsOfEveryKind() {
        Atom a = (Atom) p("f(\"q\\\"uo\\\\te\\n\", [a, 1, [ ]], g(h(), -0.5), F, true, x.y.z)");
        assertThat(a.args()).containsExactly(
                new Term.Str("q\"uo\\te\n"),
                new Term.ListOf(List.of(new Term.Name("a"), new Term.Num("1"), new Term.ListOf(List.of()))),
                new Term.Call("g", List.of(new Term.Call("h", List.of()), new Term.Num("-0.5"))),
                new Term.Name("F"),
                new Term.Name("true"),
                new Term.Name("x.y.z"));
        assertThat(((Atom) p("call(F)")).args()).containsExactly(new Term.Name("F"));
        assertThat(((Atom) p("s == \"a # not a comment\"")).bound()).isEqualTo(new Term.Str("a # not a comment"));
    }

    @Test
    void multiLineInputWithCommentsKeepsAtomPositions() {
        Formula f = p("# response\n  G (req ->   # each request\n\tF resp(x))\n");
        List<Atom> atoms = Formulas.atoms(f);
        assertThat(atoms).hasSize(2);
        assertThat(atoms.get(0).line()).isEqualTo(2);
        assertThat(atoms.get(0).column()).isEqualTo(6);
        assertThat(atoms.get(1).line()).isEqualTo(3);
        assertThat(atoms.get(1).column()).isEqualTo(4);
        assertThat(f).isEqualTo(p("G(req -> F resp(x))"));
    }

    @Test
    void commentAtEndWithoutNewline() {
        assertThat(p("a # done")).isEqualTo(A);
        assertThat(p("a\r\n& b")).isEqualTo(and(A, B));
    }

    // ---------------------------------------------------------------- round trip

    @Property(tries = 2000)
    void printedFormulasParseBackToEqualTrees(@ForAll("richFormulas") Formula f) {
        String printed = Formulas.print(f);
        Formula back = Parser.parse(printed);
        assertThat(back).as(printed).isEqualTo(f);
        assertThat(Formulas.print(back)).isEqualTo(printed);
        assertThat(structure(back)).isEqualTo(structure(f));
    }

    /**
     * trial25 02: a comparison under a prefix operator prints in parentheses, as the reading rule ("prefix operators
     * bind first") needs: {@code !arg(refund, amount) > 100} reads as {@code (!arg(refund, amount)) > 100}.
     */
    @Test
    void aComparisonUnderAPrefixOperatorPrintsInParentheses() {
        assertThat(Formulas.print(p("G(call(refund) -> !(arg(refund, amount) > 100))")))
                .isEqualTo("G (call(refund) -> !(arg(refund, amount) > 100))");
        assertThat(Formulas.print(p("X count(search) <= 3"))).isEqualTo("X (count(search) <= 3)");
        assertThat(Formulas.print(p("!call(a) & arg(pay, amount) > 5"))).isEqualTo("(!call(a) & arg(pay, amount) > 5)");
        for (String f : List.of("!(arg(refund, amount) > 100)", "G !(count(search) <= 3)", "F X (len(arg(t, x)) >= 2)")) {
            assertThat(Parser.parse(Formulas.print(p(f)))).as(f).isEqualTo(p(f));
        }
    }

    @Property(tries = 500)
    void plainFormulasWithPastRoundTrip(@ForAll("plainFormulas") Formula f) {
        assertThat(Parser.parse(Formulas.print(f))).isEqualTo(f);
    }

    /**
     * Layout does not matter: every space of the printed form may become any run of blanks, tabs,
     * newlines and comments, and parentheses may gain redundant copies.
     */
    @Property(tries = 1000)
    void layoutAndCommentsDoNotChangeTheTree(@ForAll("plainFormulas") Formula f,
                                              @ForAll("separators") List<String> separators) {
        String printed = Formulas.print(f);
        StringBuilder b = new StringBuilder("# contract\n(");
        int k = 0;
        for (char c : printed.toCharArray()) {
            if (c == ' ') b.append(separators.isEmpty() ? " " : separators.get(k++ % separators.size()));
            else b.append(c);
        }
        b.append(")  # end");
        assertThat(Parser.parse(b.toString())).as(b.toString()).isEqualTo(f);
    }

    @Provide
    Arbitrary<List<String>> separators() {
        return Arbitraries.of(" ", "  ", "\t", "\n", "\r\n", " # note ) ( & \n", "\n\n   ").list().ofMaxSize(8);
    }

    /** The tree with atoms by their full key, so the comparison does not rest on record equality alone. */
    private static String structure(Formula f) {
        if (f instanceof Atom a) return "atom[" + a.name() + "|" + a.args() + "|" + a.comparison() + "|" + a.bound() + "]";
        if (f instanceof Formula.Unary u) return u.op() + "(" + structure(u.arg()) + ")";
        if (f instanceof Formula.Binary b) return b.op() + "(" + structure(b.left()) + "," + structure(b.right()) + ")";
        return f.toString();
    }

    @Provide
    Arbitrary<Formula> plainFormulas() { return FormulaArbitraries.formulas(4, 5, true); }

    @Provide
    Arbitrary<Formula> richFormulas() { return FormulaArbitraries.formulas(richAtoms(), 4, true, true); }

    private static final Set<String> RESERVED = Set.of("X", "WX", "F", "G", "U", "W", "R", "Y", "O", "H", "S", "true", "false");

    static Arbitrary<String> identifiers() {
        Arbitrary<String> segment = Combinators.combine(
                Arbitraries.strings().withChars("abcXYFGUWRSH_").ofLength(1),
                Arbitraries.strings().withChars("abcxyzXFG019_").ofMaxLength(4)).as(String::concat);
        Arbitrary<String> reserved = Arbitraries.of(RESERVED);
        Arbitrary<String> first = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, segment), net.jqwik.api.Tuple.of(1, reserved));
        Arbitrary<String> tail = Combinators.combine(
                Arbitraries.strings().withChars("abcXF_019").ofMinLength(1).ofMaxLength(3),
                Arbitraries.just(".")).as((s, dot) -> dot + s).list().ofMaxSize(2).map(l -> String.join("", l));
        return Combinators.combine(first, tail).as(String::concat);
    }

    static Arbitrary<Term> terms(int depth) {
        Arbitrary<Term> name = identifiers().map(Term.Name::new);
        Arbitrary<Term> num = Arbitraries.of("0", "5000", "-1", "2.5", "-0.25", "007").map(Term.Num::new);
        Arbitrary<Term> str = Arbitraries.strings().withChars("ab \"\\\n#(),[]\t'é").ofMaxLength(6).map(Term.Str::new);
        if (depth == 0) return Arbitraries.oneOf(name, num, str);
        Arbitrary<Term> sub = terms(depth - 1);
        Arbitrary<Term> call = Combinators.combine(identifiers(), sub.list().ofMaxSize(3))
                .as((n, args) -> (Term) new Term.Call(n, args));
        Arbitrary<Term> list = sub.list().ofMaxSize(3).map(Term.ListOf::new);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, name), net.jqwik.api.Tuple.of(2, num),
                net.jqwik.api.Tuple.of(2, str), net.jqwik.api.Tuple.of(1, call), net.jqwik.api.Tuple.of(1, list));
    }

    static Arbitrary<Formula> richAtoms() {
        Arbitrary<String> name = identifiers().filter(n -> !RESERVED.contains(n));
        Arbitrary<List<Term>> args = terms(2).list().ofMaxSize(3);
        Arbitrary<String> cmp = Arbitraries.of("<", "<=", ">", ">=", "==", "!=");
        Arbitrary<Term> bound = terms(1);
        Arbitrary<Boolean> compared = Arbitraries.of(true, false);
        return Combinators.combine(name, args, cmp, bound, compared).as((n, a, c, b, has) ->
                (Formula) new Atom(n, a, has ? c : null, has ? b : null, 0, 0));
    }
}
