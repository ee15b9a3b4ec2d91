package dev.tracegate.contracts.library;

import dev.tracegate.engine.ltl.Atom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A position inside a formula names the place in the file where it was written, whatever YAML style the formula is
 * written in (trial10 repro multiline-formula-error-position: a syntax error on the second line of a folded, literal,
 * plain or double-quoted formula was reported at the scalar's first line plus the column inside the folded text, a
 * place that does not exist in the file). Oracle: the file itself; the character at the reported line:column is the
 * offending one, and an atom's recorded position is where its text starts.
 */
class FormulaPositionTest {

    /** One formula written in one YAML style: the library text. */
    private record Written(String style, List<String> tokens, List<Boolean> breaks, String yaml) {}

    private static final List<String> ATOMS = List.of("call(refund)", "returned(approve_refund)", "user_matches(\"yes please\")",
            "count(search) <= 3", "p", "arg(pay, amount) > 100");
    private static final List<String> STYLES = List.of("plain", "folded", "folded-strip", "folded-deeper", "literal", "double", "single",
            "double-one-line", "plain-crlf");

    @Test
    void theReposTwoLibrariesNameTheOffendingCharacter() {
        assertThat(error("library: folded\ncontracts:\n  - id: folded.b\n    guarantee: >-\n      G(call(refund)\n"
                + "        -> O returned(approve_refund) &&& x)\n    message: m\n")).startsWith("lib.yaml:6:41: ");
        assertThat(error("library: plain\ncontracts:\n  - id: plain.b\n    guarantee: G(call(refund)\n"
                + "      -> O returned(approve_refund) &&& x)\n    message: m\n")).startsWith("lib.yaml:5:39: ");
    }

    /** trial42 03: the bracket an error at the end asks to close was placed inside the formula ("at 1:2"), not in the file. */
    @Test
    void anUnclosedBracketIsPlacedInTheFile() {
        String yaml = "library: b\ncontracts:\n  - id: b.c\n    guarantee: 'G(call(a) -> F call(b)'\n    message: m\n";
        LibraryException e = catchThrowableOfType(LibraryException.class, () -> LibraryReader.read("lib.yaml", yaml));
        assertThat(e.problem()).endsWith("to close '(' at 4:18");
        assertThat(charAt(yaml, 4, 18)).isEqualTo("(");
        String folded = "library: b\ncontracts:\n  - id: b.c\n    guarantee: >-\n      G(call(a)\n        -> F (call(b)\n    message: m\n";
        LibraryException f = catchThrowableOfType(LibraryException.class, () -> LibraryReader.read("lib.yaml", folded));
        assertThat(f.problem()).endsWith("to close '(' at 6:14");
        assertThat(charAt(folded, 6, 14)).isEqualTo("(");
    }

    @Property(tries = 300)
    void aSyntaxErrorIsReportedWhereItIsWritten(@ForAll("broken") Written w) {
        LibraryException e = catchThrowableOfType(LibraryException.class, () -> LibraryReader.read("lib.yaml", w.yaml()));
        assertThat(e).as(w.yaml()).isNotNull();
        assertThat(e.problem()).as(w.yaml()).contains("unexpected character '@'");
        assertThat(charAt(w.yaml(), e.line(), e.column())).as(e.getMessage() + "\n" + w.yaml()).isEqualTo("@");
    }

    @Property(tries = 300)
    void everyAtomIsRecordedWhereItIsWritten(@ForAll("valid") Written w) {
        LibrarySpec spec = LibraryReader.read("lib.yaml", w.yaml());
        for (Map.Entry<Atom, LibrarySpec.Position> e : spec.atomPositions().entrySet()) {
            String name = e.getKey().name();
            LibrarySpec.Position at = e.getValue();
            assertThat(rest(w.yaml(), at.line(), at.column())).as(e.getKey().key() + " at " + at + "\n" + w.yaml()).startsWith(name);
        }
        assertThat(spec.atomPositions()).as(w.yaml()).isNotEmpty();
    }

    @Provide Arbitrary<Written> broken() {
        return written(true);
    }

    @Provide Arbitrary<Written> valid() {
        return written(false);
    }

    private static Arbitrary<Written> written(boolean withError) {
        return Combinators.combine(Arbitraries.of(STYLES), Arbitraries.integers().between(1, 6), Arbitraries.longs())
                .as((style, atoms, seed) -> write(style, atoms, seed, withError));
    }

    /** G(a1 op a2 op ... ) with line breaks between random tokens, one operator replaced by '@' when broken. */
    private static Written write(String style, int atoms, long seed, boolean withError) {
        Random r = new Random(seed);
        List<String> tokens = new ArrayList<>();
        tokens.add("G(");
        for (int i = 0; i < atoms; i++) {
            if (i > 0) tokens.add(List.of("&", "|", "->").get(r.nextInt(3)));
            tokens.add(ATOMS.get(r.nextInt(ATOMS.size())));
        }
        if (withError) {
            int at = tokens.size() == 2 ? 1 : 1 + r.nextInt(tokens.size() - 1);
            tokens.add(at, "@");
        }
        tokens.add(")");
        List<Boolean> breaks = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) breaks.add(i > 0 && r.nextInt(3) == 0 && !style.equals("double-one-line"));
        String head = "library: x\ncontracts:\n  - id: x.c\n    guarantee: ";
        StringBuilder b = new StringBuilder(head);
        switch (style) {
            case "folded", "folded-strip", "folded-deeper", "literal" -> {
                b.append(style.equals("literal") ? "|" : style.equals("folded") ? ">" : ">-").append("\n      ");
                for (int i = 0; i < tokens.size(); i++) {
                    if (breaks.get(i)) b.append("\n      ").append(style.equals("folded-deeper") && r.nextBoolean() ? "   " : "");
                    else if (i > 0) b.append(' ');
                    b.append(tokens.get(i));
                }
            }
            case "double", "double-one-line", "single" -> {
                char q = style.equals("single") ? '\'' : '"';
                b.append(q);
                for (int i = 0; i < tokens.size(); i++) {
                    if (breaks.get(i)) b.append("\n        ");
                    else if (i > 0) b.append(' ');
                    String t = tokens.get(i);
                    b.append(q == '"' ? t.replace("\"", "\\\"") : t);
                }
                b.append(q);
            }
            default -> {   // plain, continuation lines more indented than the key
                for (int i = 0; i < tokens.size(); i++) {
                    if (breaks.get(i)) b.append("\n      ");
                    else if (i > 0) b.append(' ');
                    b.append(tokens.get(i));
                }
            }
        }
        b.append("\n    message: m\n");
        String yaml = style.endsWith("crlf") ? b.toString().replace("\n", "\r\n") : b.toString();
        return new Written(style, tokens, breaks, yaml);
    }

    private static String error(String yaml) {
        return catchThrowableOfType(LibraryException.class, () -> LibraryReader.read("lib.yaml", yaml)).getMessage();
    }

    /** The file's text from 1-based line:column to the end of that line, or a note that the file has no such place. */
    private static String rest(String text, int line, int column) {
        String[] lines = text.split("\n", -1);
        if (line < 1 || line > lines.length || column < 1 || column > lines[line - 1].length()) return "<no such place " + line + ":" + column + ">";
        return lines[line - 1].substring(column - 1);
    }

    private static String charAt(String text, int line, int column) {
        String rest = rest(text, line, column);
        return rest.startsWith("<no such place") ? rest : rest.substring(0, 1);
    }
}
