package dev.tracegate.matchers.predicate;

/**
 * The ways an IBAN is written, compact ({@code de89370400440532013000}) or with separators between its chars
 * ({@code de89 3704 0044 0532 0130 00}, as invoices print it; white space of any kind ({@link TextHash#white}: tabs,
 * line breaks, no-break and em spaces too) or dashes), so whole-word provenance finds it in any of them, as the hashed
 * identifiers (which ignore those marks) do.
 */
final class IbanSpelling {
    private IbanSpelling() {}

    /**
     * The compact form of a folded (lower-case, stripped) IBAN: written compact, in groups of four (each boundary between
     * groups with or without a run of separators, the last group 1 to 4 chars), or with runs of separators anywhere
     * between its chars when its check digits are right ({@code de8937 0400 ...}, {@code de 89 3704 ...}: a payee's
     * parser drops them, so it is the same account); null for any other value. An IBAN: two letters, two digits, then
     * 11 to 30 letters or digits.
     */
    static String compact(String v) {
        int n = v.length();
        if (n < 15) return null;
        StringBuilder b = new StringBuilder(Math.min(n, 34));
        boolean inFours = true;
        int i = 0;
        while (i < n) {
            char c = v.charAt(i);
            if (separator(c)) {
                if (b.length() == 0) return null;
                if (b.length() % 4 != 0) inFours = false;
                while (i < n && separator(v.charAt(i))) i++;
                if (i == n) return null;
                continue;
            }
            if (!letter(c) && !digit(c)) return null;
            if (b.length() == 34) return null;
            b.append(c);
            i++;
        }
        return iban(b) && (inFours || checked(b)) ? b.toString() : null;
    }

    /**
     * True when the IBAN {@code compact} occurs in the folded {@code text}, compact or with runs of separators between
     * its chars, not preceded or followed by a letter or digit.
     */
    static boolean occursIn(String text, String compact) {
        char head = compact.charAt(0);
        int n = text.length(), m = compact.length();
        for (int at = text.indexOf(head); at >= 0; at = text.indexOf(head, at + 1)) {
            if (at > 0 && Character.isLetterOrDigit(text.charAt(at - 1))) continue;
            int i = at + 1, k = 1;
            while (k < m && i < n) {
                char c = text.charAt(i);
                if (c == compact.charAt(k)) {
                    i++;
                    k++;
                } else if (separator(c) && !separator(text.charAt(i - 1))) { // a run between two chars
                    while (i < n && separator(text.charAt(i))) i++;
                } else {
                    break;
                }
            }
            if (k == m && (i == n || !Character.isLetterOrDigit(text.charAt(i)))) return true;
        }
        return false;
    }

    /** Marks people put between an IBAN's groups: white space ({@link TextHash#white}) and dashes. */
    static boolean separator(char c) { return c == '-' || TextHash.white(c); }

    /** True when the check digits of the IBAN {@code v} (compact, lower case) are right: ISO 13616's modulo 97. */
    static boolean checked(CharSequence v) {
        int r = 0, n = v.length();
        for (int k = 0; k < n; k++) {
            char c = v.charAt((k + 4) % n); // the first four chars moved to the end
            r = digit(c) ? (r * 10 + c - '0') % 97 : (r * 100 + c - 'a' + 10) % 97;
        }
        return r == 1;
    }

    private static boolean iban(CharSequence v) {
        int n = v.length();
        if (n < 15 || n > 34) return false;
        if (!letter(v.charAt(0)) || !letter(v.charAt(1)) || !digit(v.charAt(2)) || !digit(v.charAt(3))) return false;
        return true; // the rest was checked while reading: letters or digits
    }

    private static boolean letter(char c) { return c >= 'a' && c <= 'z'; }

    private static boolean digit(char c) { return c >= '0' && c <= '9'; }
}
