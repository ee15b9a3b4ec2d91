package dev.tracegate.matchers.predicate;

/**
 * A pattern that is plain text (optionally {@code (?i)}, {@code ^}, {@code $}, and escaped punctuation
 * such as {@code \.}), matched without the regex engine: {@code "@evil\\.com$"} is "ends with
 * {@code @evil.com}". Same answers as RE2/J's unanchored find (a property test checks it), without
 * its per-match allocation.
 */
final class Literal {
    final String text;
    final boolean start;
    final boolean end;
    final boolean ignoreCase;

    private Literal(String text, boolean start, boolean end, boolean ignoreCase) {
        this.text = text;
        this.start = start;
        this.end = end;
        this.ignoreCase = ignoreCase;
    }

    /** The literal a pattern spells, or null when it uses any regex feature. */
    static Literal of(String pattern) {
        int i = 0, n = pattern.length();
        boolean ic = false;
        if (pattern.startsWith("(?i)")) {
            ic = true;
            i = 4;
        }
        boolean start = false, end = false;
        if (i < n && pattern.charAt(i) == '^') {
            start = true;
            i++;
        }
        StringBuilder b = new StringBuilder();
        while (i < n) {
            char c = pattern.charAt(i);
            if (c == '\\') {
                if (i + 1 >= n) return null;
                char d = pattern.charAt(i + 1);
                if (Character.isLetterOrDigit(d) || d > 127) return null; // \d \w \b \Q ...: a class or an assertion
                b.append(d);
                i += 2;
                continue;
            }
            if (c == '$' && i == n - 1) {
                end = true;
                i++;
                continue;
            }
            if (".[]{}()*+?|^$".indexOf(c) >= 0) return null;
            if (ic && c > 127) return null; // Unicode case folding: leave it to RE2/J
            b.append(c);
            i++;
        }
        return new Literal(b.toString(), start, end, ic);
    }

    boolean find(CharSequence s) {
        int m = text.length(), n = s.length();
        if (m > n) return false;
        if (start && end) return m == n && at(s, 0);
        if (start) return at(s, 0);
        if (end) return at(s, n - m);
        for (int p = 0; p + m <= n; p++) if (at(s, p)) return true;
        return false;
    }

    private boolean at(CharSequence s, int p) {
        for (int k = 0; k < text.length(); k++) {
            char a = s.charAt(p + k), b = text.charAt(k);
            if (a == b) continue;
            // RE2/J's folding, not Character.toLowerCase: (?i)s matches U+017F, (?i)i does not match U+0130
            if (!ignoreCase || TextPattern.fold(a) != TextPattern.fold(b)) return false;
        }
        return true;
    }
}
