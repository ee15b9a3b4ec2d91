package dev.tracegate.matchers.predicate;

/**
 * File-path normalisation for {@code path_within}: backslashes become slashes, {@code %2e %2f %5c}
 * are decoded, repeated slashes collapse, {@code .} segments vanish and {@code ..} removes the
 * previous segment (never above the root), so {@code /srv/../etc/passwd} is {@code /etc/passwd}.
 */
final class Paths {
    private Paths() {}

    /** Writes the normalised form of {@code p} into {@code out}; returns its length, or -1 when it does not fit. */
    static int normalise(String p, char[] out) {
        int len = p.length();
        int n = 0;
        for (int i = 0; i < len; i++) {
            char c = p.charAt(i);
            if (c == '%' && i + 2 < len) {
                char h1 = p.charAt(i + 1), h2 = Character.toLowerCase(p.charAt(i + 2));
                if (h1 == '2' && h2 == 'e') { c = '.'; i += 2; }
                else if ((h1 == '2' && h2 == 'f') || (h1 == '5' && h2 == 'c')) { c = '/'; i += 2; }
            }
            if (c == '\\') c = '/';
            if (n >= out.length) return -1;
            out[n++] = c;
        }
        boolean absolute = n > 0 && out[0] == '/';
        int w = absolute ? 1 : 0;
        int base = w;
        int r = w;
        while (r < n && out[r] == '/') r++;
        while (r < n) {
            int s = r;
            while (r < n && out[r] != '/') r++;
            int segLen = r - s;
            while (r < n && out[r] == '/') r++;
            if (segLen == 1 && out[s] == '.') continue;
            if (segLen == 2 && out[s] == '.' && out[s + 1] == '.') {
                if (w > base) {
                    w--; // the slash after the last segment
                    while (w > base && out[w - 1] != '/') w--;
                } else if (!absolute) {
                    if (w + 3 > out.length) return -1;
                    out[w++] = '.';
                    out[w++] = '.';
                    out[w++] = '/';
                    base = w; // a relative path that climbs out cannot be judged against absolute prefixes
                }
                continue;
            }
            System.arraycopy(out, s, out, w, segLen);
            w += segLen;
            out[w++] = '/';
        }
        if (w > 1 && out[w - 1] == '/') w--;
        return w;
    }

    /** True when the normalised path {@code buf[0, n)} equals {@code prefix} or lies below it. */
    static boolean within(char[] buf, int n, String prefix) {
        int m = prefix.length();
        if (m == 1 && prefix.charAt(0) == '/') return n > 0 && buf[0] == '/';
        if (n < m) return false;
        for (int i = 0; i < m; i++) if (buf[i] != prefix.charAt(i)) return false;
        return n == m || buf[m] == '/';
    }

    /** The normalised form of a prefix as a string. */
    static String normalise(String p) {
        char[] buf = new char[p.length() + 4];
        int n = normalise(p, buf);
        return new String(buf, 0, n);
    }
}
