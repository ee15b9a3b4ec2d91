package dev.tracegate.matchers.predicate;

/**
 * The two ways an IBAN is written, compact ({@code de89370400440532013000}) and in groups of four
 * ({@code de89 3704 0044 0532 0130 00}, as invoices print it), so whole-word provenance finds one
 * where the other was written (the hashed identifiers ignore the spaces anyway).
 */
final class IbanSpelling {
    private IbanSpelling() {}

    /**
     * The other spelling of a folded (lower-case, stripped) IBAN: in groups of four when {@code v} is
     * compact, compact when it is in groups of four (single spaces, the last group 1 to 4 chars); null
     * for any other value. An IBAN: two letters, two digits, then 11 to 30 letters or digits.
     */
    static String other(String v) {
        int n = v.length();
        if (n < 15 || n > 42) return null;
        if (v.indexOf(' ') < 0) {
            if (!iban(v)) return null;
            StringBuilder b = new StringBuilder(n + n / 4);
            for (int i = 0; i < n; i++) {
                if (i > 0 && i % 4 == 0) b.append(' ');
                b.append(v.charAt(i));
            }
            return b.toString();
        }
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            char c = v.charAt(i);
            boolean groupEnd = (i + 1) % 5 == 0;
            if (groupEnd != (c == ' ')) return null; // a space exactly after every fourth char, nowhere else
            if (c != ' ') b.append(c);
        }
        if (v.charAt(n - 1) == ' ') return null;
        String compact = b.toString();
        return iban(compact) ? compact : null;
    }

    private static boolean iban(String v) {
        int n = v.length();
        if (n < 15 || n > 34) return false;
        if (!letter(v.charAt(0)) || !letter(v.charAt(1)) || !digit(v.charAt(2)) || !digit(v.charAt(3))) return false;
        for (int i = 4; i < n; i++) if (!letter(v.charAt(i)) && !digit(v.charAt(i))) return false;
        return true;
    }

    private static boolean letter(char c) { return c >= 'a' && c <= 'z'; }

    private static boolean digit(char c) { return c >= '0' && c <= '9'; }
}
