package dev.tracegate.matchers.predicate;

/**
 * The ways an IBAN is written, compact ({@code de89370400440532013000}) or in groups of four separated
 * by spaces, no-break spaces, tabs or dashes ({@code de89 3704 0044 0532 0130 00}, as invoices print
 * it), so whole-word provenance finds it in any of them, as the hashed identifiers (which ignore those
 * marks) do.
 */
final class IbanSpelling {
    private IbanSpelling() {}

    /**
     * The compact form of a folded (lower-case, stripped) IBAN written compact or in groups of four,
     * each boundary between groups with or without a run of separators (the last group 1 to 4 chars);
     * null for any other value. An IBAN: two letters, two digits, then 11 to 30 letters or digits.
     */
    static String compact(String v) {
        int n = v.length();
        if (n < 15) return null;
        StringBuilder b = new StringBuilder(Math.min(n, 34));
        int i = 0;
        while (i < n) {
            char c = v.charAt(i);
            if (separator(c)) {
                // separators only between groups: after a whole group of four, and before another group
                if (b.length() == 0 || b.length() % 4 != 0) return null;
                while (i < n && separator(v.charAt(i))) i++;
                if (i == n) return null;
                continue;
            }
            if (!letter(c) && !digit(c)) return null;
            if (b.length() == 34) return null;
            b.append(c);
            i++;
        }
        return iban(b) ? b.toString() : null;
    }

    /**
     * True when the IBAN {@code compact} occurs in the folded {@code text}, compact or in groups of four
     * (each boundary with or without a run of separators), not preceded or followed by a letter or digit.
     */
    static boolean occursIn(String text, String compact) {
        String head = compact.substring(0, 4);
        int n = text.length(), m = compact.length();
        for (int at = text.indexOf(head); at >= 0; at = text.indexOf(head, at + 1)) {
            if (at > 0 && Character.isLetterOrDigit(text.charAt(at - 1))) continue;
            int i = at + 4, k = 4;
            while (k < m && i < n) {
                char c = text.charAt(i);
                if (c == compact.charAt(k)) {
                    i++;
                    k++;
                } else if (k % 4 == 0 && separator(c) && !separator(text.charAt(i - 1))) { // a run between two groups
                    while (i < n && separator(text.charAt(i))) i++;
                } else {
                    break;
                }
            }
            if (k == m && (i == n || !Character.isLetterOrDigit(text.charAt(i)))) return true;
        }
        return false;
    }

    /** Marks people put between an IBAN's groups. */
    static boolean separator(char c) { return c == ' ' || c == '\u00A0' || c == '\t' || c == '-'; }

    private static boolean iban(CharSequence v) {
        int n = v.length();
        if (n < 15 || n > 34) return false;
        if (!letter(v.charAt(0)) || !letter(v.charAt(1)) || !digit(v.charAt(2)) || !digit(v.charAt(3))) return false;
        return true; // the rest was checked while reading: letters or digits
    }

    private static boolean letter(char c) { return c >= 'a' && c <= 'z'; }

    private static boolean digit(char c) { return c >= '0' && c <= '9'; }
}
