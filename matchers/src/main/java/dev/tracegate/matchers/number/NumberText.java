package dev.tracegate.matchers.number;

/**
 * Reads numbers the way people and models write them in tool arguments: {@code 5000}, {@code -2.5},
 * {@code 1e3}, {@code $5,000}, {@code 5000 USD}, {@code 5.000,50 €}, {@code EUR 1 250,00}. Returns NaN
 * for anything else, without allocating on the common path.
 *
 * <p>Rules (also in matchers/README.md): surrounding white space is ignored; one currency mark may
 * precede or follow the number (a symbol such as {@code $ € £ ¥ ₹}, or three ASCII letters such as
 * {@code USD}); a sign may stand before or after the leading currency mark. Grouping marks are
 * space, no-break space, apostrophe and underscore, and {@code ,} or {@code .} when they repeat or
 * when the other one is the decimal mark; groups after the first have exactly three digits. When
 * both {@code ,} and {@code .} occur, the last one is the decimal mark. A single {@code ,} followed by
 * exactly three digits groups ({@code 1,500} is 1500); otherwise it is a decimal comma ({@code 12,5}
 * is 12.5). A single {@code .} is always a decimal point ({@code 5.000} is 5, not 5000). An exponent
 * ({@code e3}) is allowed only without grouping marks.
 */
public final class NumberText {
    private static final double[] POW10 = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    };
    private static final long EXACT_LIMIT = 1L << 53;

    private NumberText() {}

    /** The number written in {@code s}, or NaN when it is not one (null and blank included). */
    public static double parse(CharSequence s) {
        return s == null ? Double.NaN : parse(s, 0, s.length());
    }

    /** The number written in {@code s[from, to)}, or NaN. */
    public static double parse(CharSequence s, int from, int to) {
        int i = from;
        int j = to;
        while (i < j && isSpace(s.charAt(i))) i++;
        while (j > i && isSpace(s.charAt(j - 1))) j--;
        if (i >= j) return Double.NaN;

        boolean negative = false;
        boolean signed = false;
        char c = s.charAt(i);
        if (c == '-' || c == '+') {
            negative = c == '-';
            signed = true;
            i++;
        }
        // leading currency mark, then maybe the sign
        int k = currencyAt(s, i, j);
        if (k > i) {
            i = k;
            while (i < j && isSpace(s.charAt(i))) i++;
            if (i < j && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
                if (signed) return Double.NaN; // two signs
                negative = s.charAt(i) == '-';
                i++;
            }
        } else {
            // trailing currency mark
            int t = currencyBefore(s, i, j);
            if (t < j) {
                j = t;
                while (j > i && isSpace(s.charAt(j - 1))) j--;
            }
        }
        if (i >= j) return Double.NaN;
        return core(s, i, j, negative);
    }

    private static double core(CharSequence s, int from, int to, boolean negative) {
        // find exponent and separators
        int exp = to;
        int commas = 0, dots = 0, lastComma = -1, lastDot = -1, spaces = 0;
        for (int p = from; p < to; p++) {
            char c = s.charAt(p);
            if (c >= '0' && c <= '9') continue;
            if (c == ',') { commas++; lastComma = p; }
            else if (c == '.') { dots++; lastDot = p; }
            else if (isGroupMark(c)) spaces++;
            else if ((c == 'e' || c == 'E') && exp == to) { exp = p; break; }
            else return Double.NaN;
        }
        char decimal = 0;
        char group = 0;
        if (commas > 0 && dots > 0) {
            if (lastDot > lastComma) { decimal = '.'; group = ','; if (dots > 1) return Double.NaN; }
            else { decimal = ','; group = '.'; if (commas > 1) return Double.NaN; }
        } else if (commas > 0) {
            if (commas == 1 && digitsAfter(s, lastComma + 1, exp) != 3) decimal = ',';
            else group = ',';
        } else if (dots > 0) {
            if (dots == 1) decimal = '.';
            else group = '.';
        }
        boolean grouped = group != 0 || spaces > 0;
        if (grouped && exp < to) return Double.NaN;

        long mantissa = 0;
        int digits = 0;          // significant digits kept in mantissa
        boolean overflow = false;
        int fraction = 0;        // fraction digits kept
        boolean sawDigit = false;
        boolean inFraction = false;
        int groupLen = -1;       // digits in the current group; -1 before the first grouping mark
        int firstGroup = 0;
        for (int p = from; p < exp; p++) {
            char c = s.charAt(p);
            if (c >= '0' && c <= '9') {
                sawDigit = true;
                if (!inFraction) {
                    if (groupLen >= 0) groupLen++;
                    else firstGroup++;
                }
                if (mantissa == 0 && c == '0' && !inFraction) continue;
                if (digits < 18) {
                    mantissa = mantissa * 10 + (c - '0');
                    digits++;
                    if (inFraction) fraction++;
                } else {
                    overflow = true; // more than 18 significant digits: the exact slow path below
                }
            } else if (c == decimal && decimal != 0) {
                if (inFraction) return Double.NaN;
                if (groupLen >= 0 && groupLen != 3) return Double.NaN;
                inFraction = true;
            } else {
                // grouping mark
                if (inFraction) return Double.NaN;
                if (groupLen < 0) {
                    if (firstGroup < 1 || firstGroup > 3) return Double.NaN;
                } else if (groupLen != 3) {
                    return Double.NaN;
                }
                groupLen = 0;
            }
        }
        if (!sawDigit) return Double.NaN;
        if (!inFraction && groupLen >= 0 && groupLen != 3) return Double.NaN;
        int e10 = -fraction;
        if (exp < to) {
            int p = exp + 1;
            boolean eneg = false;
            if (p < to && (s.charAt(p) == '-' || s.charAt(p) == '+')) { eneg = s.charAt(p) == '-'; p++; }
            if (p >= to) return Double.NaN;
            int ev = 0;
            for (; p < to; p++) {
                char c = s.charAt(p);
                if (c < '0' || c > '9') return Double.NaN;
                if (ev < 100_000) ev = ev * 10 + (c - '0');
            }
            e10 += eneg ? -ev : ev;
        }
        double v;
        if (overflow) v = slow(s, from, exp, to, decimal);
        else if (mantissa == 0) v = 0.0;
        else if (mantissa < EXACT_LIMIT && e10 >= -22 && e10 <= 22) {
            v = e10 >= 0 ? mantissa * POW10[e10] : mantissa / POW10[-e10];
        } else {
            v = Double.parseDouble(mantissa + "E" + e10); // rare: more than 15 digits or a large exponent
        }
        return negative ? -v : v;
    }

    /** Exact conversion through the JDK for long digit strings (allocates; rare). */
    private static double slow(CharSequence s, int from, int exp, int to, char decimal) {
        StringBuilder b = new StringBuilder(to - from);
        for (int p = from; p < exp; p++) {
            char c = s.charAt(p);
            if (c >= '0' && c <= '9') b.append(c);
            else if (c == decimal) b.append('.');
        }
        for (int p = exp; p < to; p++) b.append(s.charAt(p));
        return Double.parseDouble(b.toString());
    }

    private static int digitsAfter(CharSequence s, int from, int to) {
        int n = 0;
        for (int p = from; p < to; p++) {
            char c = s.charAt(p);
            if (c >= '0' && c <= '9') n++;
            else break;
        }
        return n;
    }

    /** End of a currency mark starting at {@code i}, or {@code i} when there is none. */
    private static int currencyAt(CharSequence s, int i, int j) {
        if (i >= j) return i;
        if (isCurrencySymbol(s.charAt(i))) return i + 1;
        if (i + 3 <= j && isLetter(s.charAt(i)) && isLetter(s.charAt(i + 1)) && isLetter(s.charAt(i + 2))
                && (i + 3 == j || !isLetter(s.charAt(i + 3)))) {
            return i + 3;
        }
        return i;
    }

    /** Start of a currency mark ending at {@code j}, or {@code j} when there is none. */
    private static int currencyBefore(CharSequence s, int i, int j) {
        if (j <= i) return j;
        if (isCurrencySymbol(s.charAt(j - 1))) return j - 1;
        if (j - 3 >= i && isLetter(s.charAt(j - 1)) && isLetter(s.charAt(j - 2)) && isLetter(s.charAt(j - 3))
                && (j - 3 == i || !isLetter(s.charAt(j - 4)))) {
            return j - 3;
        }
        return j;
    }

    private static boolean isLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

    private static boolean isCurrencySymbol(char c) {
        return c == '$' || c == '€' || c == '£' || c == '¥' || c == '₹' || c == '₩' || c == '₽' || c == '₺'
                || c == '₪' || c == '₫' || c == '₦' || c == '฿' || c == '¢' || c == '₴' || c == '₱';
    }

    private static boolean isGroupMark(char c) {
        return c == ' ' || c == '\u00A0' || c == '\u202F' || c == '\'' || c == '_';
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u00A0' || c == '\u202F';
    }
}
