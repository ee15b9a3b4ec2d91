package dev.tracegate.agent.audit;

import java.util.Objects;

/**
 * The contract ids and atom keys of one loaded library, in the engine's order: a format-3 audit log
 * writes them once in a {@code library} record and every event record after it names contracts and
 * atoms by their position in these tables. Immutable; create one per loaded library and share it.
 */
public final class LibraryTable {
    final String[] contracts;
    final String[] atoms;
    /** A digest of the libraries' definitions (Library#digest), or null: written in the library record when given. */
    final String digest;
    /**
     * The tables' lengths, read by each event's record ({@link AuditRecord#atoms(LibraryTable, long[])}, {@link
     * AuditRecord#verdicts(LibraryTable, long)}) from this object, so that a record does not read the two arrays themselves.
     */
    final int contractCount, atomCount;
    /**
     * Whether a record's atoms and packed verdicts (2 bits a contract) fit one long together ({@link AuditRecord#atomWord}):
     * at least one contract, and the atoms and twice the contracts at most 64 bits.
     */
    final boolean oneWord;
    /** The atoms' bits of a word ({@code atomCount} low bits; all of them for 64 atoms or more). */
    final long atomMask;

    /**
     * @param contractIds the library's contract ids, in the order verdicts are given
     * @param atomKeys    the library's atom keys, in the order of the valuation's bits
     */
    public LibraryTable(String[] contractIds, String[] atomKeys) {
        this(contractIds, atomKeys, null);
    }

    /**
     * @param digest a digest of everything the libraries define (formulas, strategies, messages, policy sections),
     *               which tells apart versions with the same ids and atoms; null writes none
     */
    public LibraryTable(String[] contractIds, String[] atomKeys, String digest) {
        this.contracts = Objects.requireNonNull(contractIds, "contractIds").clone();
        this.atoms = Objects.requireNonNull(atomKeys, "atomKeys").clone();
        this.digest = digest;
        this.contractCount = contracts.length;
        this.atomCount = atoms.length;
        this.oneWord = contractCount > 0 && atomCount + 2L * contractCount <= 64;
        this.atomMask = atomCount >= 64 ? -1L : (1L << atomCount) - 1;
    }

    /** Number of contracts. */
    public int contractCount() { return contractCount; }

    /** Number of atoms. */
    public int atomCount() { return atomCount; }
}
