package dev.tracegate.contracts.library;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** An unknown atom that is a near miss of a named atom or a vocabulary predicate gets a did-you-mean (trial finding C7). */
class UnknownAtomTest {

    private static LibraryException compile(String yaml) {
        return catchThrowableOfType(LibraryException.class, () -> Library.compile(List.of(LibraryReader.read("lib.yaml", yaml))));
    }

    @Test
    void aTypoOfANamedAtomNamesTheNamedAtom() {
        LibraryException e = compile("""
                library: refunds
                atoms:
                  approved: returned(approve_refund)
                contracts:
                  - id: refunds.approval-first
                    guarantee: G(call(refund) -> O aproved)
                """);
        assertThat(e.getMessage()).startsWith("lib.yaml:6:36: atom `aproved`: unknown atom name 'aproved'\n"
                + "  hint: did you mean 'approved' (a named atom of this library)? valid forms: user, assistant, call, ");
    }

    @Test
    void anotherToolsPastOperatorWithParenthesesSaysWhatToWriteInstead() {
        // Z(call(b)) parses as an atom named Z (its argument is a term), so the hint comes from the loader, not the parser
        LibraryException e = compile("library: x\ncontracts:\n  - id: c\n    guarantee: G(call(a) -> Z(call(b)))\n");
        assertThat(e.getMessage()).isEqualTo("lib.yaml:4:29: atom `Z(call(b))`: unknown atom name 'Z'\n"
                + "  hint: 'Z' is no operator here, so it is read as an atom's name; the past operators are Y, O, H and S, and weak"
                + " yesterday Z φ is written !Y !φ");
    }

    @Test
    void aTypoOfAVocabularyPredicateNamesThePredicate() {
        LibraryException e = compile("library: x\ncontracts:\n  - id: c\n    guarantee: G(call -> !personal_dat)\n");
        assertThat(e.getMessage()).startsWith("lib.yaml:4:27: atom `personal_dat`: unknown atom name 'personal_dat'\n"
                + "  hint: did you mean 'personal_data'? valid forms: ");
    }

    @Test
    void twoEquallyNearCandidatesAreBothNamed() {
        LibraryException e = compile("library: x\ncontracts:\n  - id: c\n    guarantee: G(returnd -> F call(x))\n");
        assertThat(e.hint()).startsWith("did you mean 'return' or 'returned'? valid forms: ");
    }

    @Test
    void aNamedAtomOfAnotherLibraryIsNotSuggested() {
        LibrarySpec other = LibraryReader.read("other.yaml", "library: o\natoms:\n  approved: returned(a)\ncontracts:\n  - id: o\n    guarantee: G !approved\n");
        LibrarySpec mine = LibraryReader.read("lib.yaml", "library: x\ncontracts:\n  - id: c\n    guarantee: G !aproved\n");
        LibraryException e = catchThrowableOfType(LibraryException.class, () -> Library.compile(List.of(other, mine)));
        assertThat(e.hint()).startsWith("did you mean call(aproved) or returned(aproved)? or define aproved under atoms: valid forms: ");
    }

    @Test
    void aNameNearNothingKeepsTheListOfForms() {
        LibraryException e = compile("library: x\ncontracts:\n  - id: c\n    guarantee: G !zebra_crossing\n");
        assertThat(e.problem()).isEqualTo("atom `zebra_crossing`: unknown atom name 'zebra_crossing'");
        assertThat(e.hint()).startsWith("did you mean call(zebra_crossing) or returned(zebra_crossing)? or define zebra_crossing under atoms:"
                + " valid forms: user, assistant, call, return, ");
    }

    /** trial7 repro 20: a tool written as if it were an atom gets the atoms that name a tool, not only the list of forms. */
    @Test
    void aBareToolNameIsShownTheAtomsThatNameATool() {
        LibraryException e = compile("library: x\ncontracts:\n  - id: c\n    guarantee: G(refund -> O approved)\n");
        assertThat(e.hint()).startsWith("did you mean call(refund) or returned(refund)? or define refund under atoms:");
    }

    /** trial18 repro 07: two adjacent letters swapped are one slip (a transposition), not two substitutions. */
    @Test
    void twoSwappedLettersGetADidYouMean() {
        for (String typo : List.of("cuont", "conut", "ocunt")) {
            LibraryException e = compile("library: x\ncontracts:\n  - id: c\n    guarantee: G(" + typo + "(issue_refund) <= 2)\n");
            assertThat(e.hint()).as(typo).startsWith("did you mean 'count'");
        }
        LibraryException e = compile("library: x\ncontracts:\n  - id: c\n    guarantee: G(call(x) -> O untrsuted_target)\n");
        assertThat(e.hint()).startsWith("did you mean 'untrusted_target'");
    }
}
