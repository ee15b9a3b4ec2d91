package dev.tracegate.matchers.predicate;

import java.util.ArrayList;
import java.util.List;

/**
 * Test oracle: the identifier scan as it was before the single-pass rewrite (commit 49ceada), kept
 * verbatim so {@code IdentifiersEquivalenceTest} can check that the rewrite finds the same values.
 *
 * Finds the values in a text that could later flow into a tool call: e-mail addresses, URLs and
 * domain names, tokens with four or more digits (account, order and card numbers), IBANs and phone
 * numbers written in space-separated groups, and quoted strings. Bounded: only the first
 * {@value #MAX_SCAN} characters are read, quoted strings longer than {@value #MAX_QUOTED} are
 * skipped, and at most as many values as the caller's array holds are kept. Linear in the text and
 * allocation-free.
 *
 * <p>Since session 16 white space is one definition (Java's white space or space chars, and NEL) and an IBAN's groups
 * may be separated by any run of it, line breaks included, where its check digits (checked here with BigInteger) say
 * where a wrapped IBAN ends.
 */
final class ReferenceIdentifiers {
    /** Characters of a text that are scanned. */
    public static final int MAX_SCAN = 65_536;
    /** Longest quoted string kept as a value. */
    public static final int MAX_QUOTED = 256;
    /** Values kept per text by the grounding. */
    public static final int MAX_PER_TEXT = 64;

    private ReferenceIdentifiers() {}

    /**
     * Appends the {@link TextHash} of each value found in {@code s} to {@code out} from index
     * {@code n} until {@code out} is full; returns the new count.
     */
    public static int scan(CharSequence s, long[] out, int n) {
        if (s == null) return n;
        // session 16: compatibility chars read as the ASCII char NFKC or IDNA makes of them (CompatTest.nfkcAscii)
        s = CompatTest.nfkcAscii(s.toString());
        n = scanWritten(s, out, n);
        // session 16: then the text's first MAX_SCAN chars with their escapes decoded (EscapesTest.oracle), when any were
        String head = s.subSequence(0, Math.min(s.length(), MAX_SCAN)).toString();
        // session 17: and its spelled-out addresses ([at], (dot), " at ... dot ..."; SpelledOutTest.oracle)
        String decoded = EscapesTest.oracle(SpelledOutTest.oracle(head));
        return decoded.equals(head) ? n : scanWritten(decoded, out, n);
    }

    /** {@link #scan} of the text as written, no escape decoded. */
    public static int scanWritten(CharSequence s, long[] out, int n) {
        if (s == null) return n;
        int len = Math.min(s.length(), MAX_SCAN);
        int i = 0;
        while (i < len && n < out.length) {
            char c = s.charAt(i);
            char close = closingQuote(c);
            if (close != 0) {
                int j = i + 1;
                int limit = Math.min(len, i + 1 + MAX_QUOTED);
                while (j < limit && s.charAt(j) != close) j++;
                if (j < limit && j - i - 1 >= 3) n = add(out, n, TextHash.of(s, i + 1, j));
                i++;
                continue;
            }
            if (tokenChar(c)) {
                int j = i;
                while (j < len && tokenChar(s.charAt(j))) j++;
                int a = i, b = j;
                while (b > a && trailingMark(s.charAt(b - 1))) b--;
                while (a < b && (s.charAt(a) == '.' || s.charAt(a) == ':')) a++;
                if (isMailto(s, a, b)) { a += 7; b = cutQuery(s, a, b); }
                if (qualifies(s, a, b)) {
                    n = add(out, n, TextHash.of(s, a, b));
                    for (String part : parts(s.subSequence(a, b).toString())) if (n < out.length) n = add(out, n, TextHash.of(part));
                }
                if (n < out.length) {
                    int g = groupedEnd(s, a, len);
                    if (g > b) {
                        n = add(out, n, TextHash.of(s, a, g));
                        j = Math.max(j, g);
                    }
                }
                i = j;
                continue;
            }
            i++;
        }
        return n;
    }

    /** The values found in {@code s}, as text (for tests and reports; allocates). */
    public static List<String> find(String s) {
        List<String> out = new ArrayList<>();
        // the same walk as scan(), collecting text instead of hashes
        int len = Math.min(s.length(), MAX_SCAN);
        int i = 0;
        while (i < len && out.size() < MAX_PER_TEXT) {
            char c = s.charAt(i);
            char close = closingQuote(c);
            if (close != 0) {
                int j = i + 1;
                int limit = Math.min(len, i + 1 + MAX_QUOTED);
                while (j < limit && s.charAt(j) != close) j++;
                if (j < limit && j - i - 1 >= 3) out.add(s.substring(i + 1, j));
                i++;
                continue;
            }
            if (tokenChar(c)) {
                int j = i;
                while (j < len && tokenChar(s.charAt(j))) j++;
                int a = i, b = j;
                while (b > a && trailingMark(s.charAt(b - 1))) b--;
                while (a < b && (s.charAt(a) == '.' || s.charAt(a) == ':')) a++;
                if (isMailto(s, a, b)) { a += 7; b = cutQuery(s, a, b); }
                if (qualifies(s, a, b)) {
                    out.add(s.substring(a, b));
                    out.addAll(parts(s.substring(a, b)));
                }
                int g = groupedEnd(s, a, len);
                if (g > b) {
                    out.add(s.substring(a, g));
                    j = Math.max(j, g);
                }
                i = j;
                continue;
            }
            i++;
        }
        return out;
    }

    /**
     * The addresses inside a token with an '@' and no "://", cut at : ： / = (none when it has no such cut); then (session
     * 17) the identifiers without an '@' inside such a token cut at = : &.
     */
    private static List<String> parts(String token) {
        List<String> out = new ArrayList<>();
        if (token.contains("://")) return out;
        String[] ps = token.split("[:/=\uFF1A]", -1);
        if (ps.length >= 2 && token.indexOf('@') >= 0) {
            for (String p : ps) if (p.indexOf('@') >= 0 && qualifies(p, 0, p.length())) out.add(p);
        }
        // session 17: the ASCII addresses glued to letters or marks of another script than Latin (请发给bob@corp.example谢谢)
        if (token.indexOf('@') >= 0) out.addAll(scriptAddresses(token));
        // session 17: the values glued to a key, cut at = : & (no '@' in them), trimmed as a token is
        String[] vs = token.split("[:=&\uFF1A]", -1);
        if (vs.length < 2) return out;
        for (String v : vs) {
            v = v.replaceAll("[.:!?*]+$", "").replaceAll("^\\.+", "");
            if (v.length() < token.length() && v.indexOf('@') < 0 && qualifies(v, 0, v.length())) out.add(v);
        }
        return out;
    }

    private static final java.util.regex.Pattern LOCAL_END = java.util.regex.Pattern.compile("[A-Za-z0-9._%+-]*$");
    private static final java.util.regex.Pattern DOMAIN_START = java.util.regex.Pattern.compile("^[A-Za-z0-9.-]*");

    /**
     * For each '@' of the token: the longest run of local-part chars before it and of domain chars after it (trailing dots
     * and hyphens dropped), when a char of another script than Latin touches the run on one side inside the token, and on
     * the other side such a char, a cut char (: / = ：) or the token's end; and the run is an identifier.
     */
    private static boolean otherScript(String c) {
        return !c.isEmpty() && c.charAt(0) >= 128 && !c.matches("\\p{IsLatin}");
    }

    private static List<String> scriptAddresses(String token) {
        List<String> out = new ArrayList<>();
        for (int at = token.indexOf('@'); at >= 0; at = token.indexOf('@', at + 1)) {
            java.util.regex.Matcher l = LOCAL_END.matcher(token.substring(0, at));
            java.util.regex.Matcher d = DOMAIN_START.matcher(token.substring(at + 1));
            if (!l.find() || !d.find()) continue;
            String local = l.group(), domain = d.group().replaceAll("[.-]+$", "");
            if (local.isEmpty() || domain.isEmpty()) continue;
            String before = token.substring(0, at - local.length()), after = token.substring(at + 1 + d.group().length());
            String rest = after.replaceFirst("^[!?]+", ""); // marks between the address and the text are passed over
            String left = before.isEmpty() ? "" : before.substring(before.length() - 1), right = rest.isEmpty() ? "" : rest.substring(0, 1);
            boolean lo = otherScript(left), ro = otherScript(right);
            if (!lo && !ro) continue;
            if (!left.isEmpty() && !lo && !left.matches("[:/=\\uFF1A]")) continue;
            if (!after.isEmpty() && !ro && (rest.length() < after.length() || !after.substring(0, 1).matches("[:/=\\uFF1A]"))) continue;
            String v = local + "@" + domain;
            if (qualifies(v, 0, v.length())) out.add(v);
        }
        return out;
    }

    /** A mailto: URI (the scheme in any case) with an '@' after it: read as the address, its ?query cut. */
    private static boolean isMailto(CharSequence s, int a, int b) {
        return b - a >= 10 && s.subSequence(a, a + 7).toString().equalsIgnoreCase("mailto:")
                && s.subSequence(a + 7, b).toString().indexOf('@') >= 0;
    }

    private static int cutQuery(CharSequence s, int a, int b) {
        int q = s.subSequence(a, b).toString().indexOf('?');
        return q < 0 ? b : a + q;
    }

    private static int add(long[] out, int n, long h) {
        if (h == TextHash.EMPTY) return n;
        for (int k = 0; k < n; k++) if (out[k] == h) return n;
        out[n] = h;
        return n + 1;
    }

    private static char closingQuote(char c) {
        return switch (c) {
            case '"' -> '"';
            case '“' -> '”';
            case '«' -> '»';
            case '`' -> '`';
            default -> 0;
        };
    }

    private static boolean tokenChar(char c) {
        if (Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085') return false;
        return switch (c) {
            case '"', '\'', '“', '”', '‘', '’', '<', '>', '(', ')', '[', ']', '{', '}', ',', ';', '|', '`', '«', '»' -> false;
            default -> true;
        };
    }

    private static boolean trailingMark(char c) {
        return c == '.' || c == ':' || c == '!' || c == '?' || c == '*';
    }

    static boolean qualifies(CharSequence s, int a, int b) {
        int len = b - a;
        if (len < 3) return false;
        int digits = 0, at = -1, lastDot = -1, hostDot = -1, slash = b; // a host/path's domain ends at the first '/'
        for (int i = a; i < b; i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') digits++;
            else if (c == '@') at = i;
            else if (c == '.') {
                lastDot = i;
                if (slash == b) hostDot = i;
            } else if (c == '/' && slash == b) slash = i;
        }
        if (at > a && at < b - 1) return true;
        if (indexOf(s, a, b, "://") >= 0) return true;
        if (len > 4 && regionStartsWith(s, a, b, "www.")) return true;
        if (digits >= 4) return true;
        if (!Character.isLetterOrDigit(s.charAt(a))) return false;
        return domainEnd(s, a, lastDot, b) || (slash < b && domainEnd(s, a, hostDot, slash));
    }

    /** True when {@code s[dot + 1, end)} is a top-level label: 2 to 24 letters after a dot past {@code a}. */
    private static boolean domainEnd(CharSequence s, int a, int dot, int end) {
        if (dot <= a || end - dot - 1 < 2 || end - dot - 1 > 24) return false;
        for (int i = dot + 1; i < end; i++) if (!Character.isLetter(s.charAt(i))) return false;
        return true;
    }

    /**
     * End of a run of short groups starting at {@code a} (phone numbers, IBANs in groups of four)
     * holding at least seven digits in at least two groups, or {@code a} when none. Groups are separated
     * by one space or no-break space; after a first group like an IBAN's ({@code DE89}, {@code de89}) by
     * any run of them, as invoices and PDFs copy IBANs.
     */
    static int groupedEnd(CharSequence s, int a, int len) {
        int i = a;
        int groups = 0, digits = 0, end = a;
        boolean ibanLike = false, ibanStart = false;
        int wrapped = -1;
        while (i < len) {
            int g = i;
            while (g < len && groupChar(s.charAt(g))) g++;
            int glen = g - i;
            if (glen == 0 || glen > (groups == 0 ? 6 : 8)) break;
            int d = 0, upper = 0;
            for (int k = i; k < g; k++) {
                char c = s.charAt(k);
                if (c >= '0' && c <= '9') d++;
                else if (c >= 'A' && c <= 'Z') upper++;
            }
            if (groups == 0) {
                ibanLike = glen == 4 && upper == 2 && d == 2 && s.charAt(i) >= 'A' && s.charAt(i + 1) >= 'A';
                ibanStart = glen == 4 && d == 2 && asciiLetter(s.charAt(i)) && asciiLetter(s.charAt(i + 1));
                if (d == 0) break; // a number starts with a digit group (or +, ( before digits)
            } else if (d == 0 && !(ibanLike && upper == glen)) {
                break; // a word after the number is not part of it
            }
            digits += d;
            groups++;
            end = g;
            int k = g;
            if (ibanStart) {
                String run = "";
                while (k < len && white(s.charAt(k))) run += s.charAt(k++);
                if (run.matches("(?s).*[\\n\\u000B\\f\\r\\u0085\\u2028\\u2029].*") && wrapped < 0) {
                    if (glen != 4) break;
                    wrapped = g;
                }
            } else if (k < len && Character.getType(s.charAt(k)) == Character.SPACE_SEPARATOR) {
                k++;
            }
            if (k > g && k < len && groupChar(s.charAt(k))) i = k;
            else break;
        }
        if (wrapped >= 0 && end > wrapped) {
            // the longest run of groups past the line break whose letters and digits are an IBAN with right check digits
            int best = wrapped;
            for (int e = wrapped + 1; e <= end; e++) {
                if (e < end && !white(s.charAt(e))) continue;
                if (!white(s.charAt(e - 1))) {
                    String compact = s.subSequence(a, e).toString().replaceAll("[\\s\\p{Zs}\\u0085\\u001C-\\u001F\\u2028\\u2029]", "");
                    if (compact.matches("[A-Za-z0-9]{15,34}") && validIban(compact)) best = e;
                }
            }
            end = best;
            digits = (int) s.subSequence(a, end).chars().filter(c -> c >= '0' && c <= '9').count();
        }
        return groups >= 2 && digits >= 7 ? end : a;
    }

    private static boolean white(char c) { return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085'; }

    static boolean validIban(String compact) {
        String moved = (compact.substring(4) + compact.substring(0, 4)).toUpperCase(java.util.Locale.ROOT);
        StringBuilder digits = new StringBuilder();
        for (char c : moved.toCharArray()) digits.append(Character.isDigit(c) ? String.valueOf(c) : String.valueOf(c - 'A' + 10));
        return new java.math.BigInteger(digits.toString()).mod(java.math.BigInteger.valueOf(97)).intValue() == 1;
    }

    private static boolean asciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

    private static boolean groupChar(char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '+' || c == '-'
                || c == '(' || c == ')';
    }

    private static int indexOf(CharSequence s, int a, int b, String t) {
        outer:
        for (int i = a; i + t.length() <= b; i++) {
            for (int k = 0; k < t.length(); k++) if (s.charAt(i + k) != t.charAt(k)) continue outer;
            return i;
        }
        return -1;
    }

    private static boolean regionStartsWith(CharSequence s, int a, int b, String t) {
        if (b - a < t.length()) return false;
        for (int k = 0; k < t.length(); k++) if (Character.toLowerCase(s.charAt(a + k)) != t.charAt(k)) return false;
        return true;
    }
}
