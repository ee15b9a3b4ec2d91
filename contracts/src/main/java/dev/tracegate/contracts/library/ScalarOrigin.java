package dev.tracegate.contracts.library;

/**
 * Where a character of a YAML string scalar's value was written in the file, for scalars that YAML folds
 * (plain or quoted over several lines, {@code >} and {@code |} blocks), quotes or escapes, so that a position the
 * formula parser gives inside the value names the right file:line:column.
 *
 * <p>Reading the value and the file side by side: between two characters of the value the file holds only what
 * YAML removes (line breaks, indentation, the spaces folding turns into one, a single-quoted scalar's doubled
 * quote, a double-quoted scalar's escapes), so each non-blank character of the value is the next one in the file.
 */
final class ScalarOrigin {
    private ScalarOrigin() {}

    /**
     * The file's {line, column} (1-based) of the character at {@code line}:{@code column} (1-based, lines split at
     * '\n') of {@code value}, the scalar written at {@code tokenLine}:{@code tokenColumn} of {@code source}; a
     * position past the value's end maps to just after its last character. Null when the file does not read as
     * that value (the caller then falls back to the scalar's own position).
     */
    static int[] position(String source, int tokenLine, int tokenColumn, String value, int line, int column) {
        if (source == null || value == null || line < 1 || column < 1) return null;
        int k = offset(value, line, column);
        if (k < 0) return null;
        int p = lineStart(source, tokenLine);
        if (p < 0) return null;
        p += tokenColumn - 1;
        if (p < 0 || p >= source.length()) return null;
        while (source.charAt(p) == '!' || source.charAt(p) == '&') {   // a tag or an anchor before the value
            while (p < source.length() && !Character.isWhitespace(source.charAt(p))) p++;
            while (p < source.length() && (source.charAt(p) == ' ' || source.charAt(p) == '\t')) p++;
            if (p >= source.length()) return null;
        }
        char open = source.charAt(p);
        boolean doubleQuoted = open == '"';
        boolean singleQuoted = open == '\'';
        if (open == '>' || open == '|') {            // a block scalar: its value starts on the line after the indicator
            p = source.indexOf('\n', p);
            if (p < 0) return null;
            p++;
        } else if (doubleQuoted || singleQuoted) {
            p++;
        }
        int after = p;                                // just after the last character matched
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isWhitespace(c)) {
                if (i == k) return lineColumn(source, after);
                continue;
            }
            int q = next(source, p, c, doubleQuoted, singleQuoted);
            if (q < 0) return null;
            if (i == k) return lineColumn(source, q);
            p = q + (doubleQuoted && source.charAt(q) == '\\' ? 2 : 1);
            after = p;
        }
        return lineColumn(source, after);
    }

    /** What {@code source} holds from 1-based {@code line}:{@code column} to the end of that line, or null. */
    static String written(String source, int line, int column) {
        int start = lineStart(source, line);
        if (start < 0 || column < 1 || start + column - 1 > source.length()) return null;
        int end = source.indexOf('\n', start);
        if (end < 0) end = source.length();
        int from = start + column - 1;
        if (from > end) return null;
        String rest = source.substring(from, end);
        return rest.endsWith("\r") ? rest.substring(0, rest.length() - 1) : rest;
    }

    /** The offset in {@code source} from {@code p} on where value character {@code c} was written, or -1. */
    private static int next(String source, int p, char c, boolean doubleQuoted, boolean singleQuoted) {
        while (p < source.length()) {
            char s = source.charAt(p);
            if (doubleQuoted && s == '\\' && p + 1 < source.length()) {
                char e = source.charAt(p + 1);
                if (e == '"' || e == '\\' || e == '/') return e == c ? p : -1;
                if ("tnr \t\n\r".indexOf(e) >= 0) {   // writes a blank, or joins the lines
                    p += 2;
                    continue;
                }
                return -1;                             // an escape that writes another character is not followed: fall back
            }
            if (s == c) return p;
            if (Character.isWhitespace(s) || (singleQuoted && s == '\'')) {
                p++;
                continue;
            }
            return -1;
        }
        return -1;
    }

    /** The offset in {@code value} of 1-based line:column, at most its length; -1 for a line it does not have. */
    private static int offset(String value, int line, int column) {
        int at = 0;
        for (int l = 1; l < line; l++) {
            int nl = value.indexOf('\n', at);
            if (nl < 0) return -1;
            at = nl + 1;
        }
        return Math.min(value.length(), at + column - 1);
    }

    /** The offset of 1-based {@code line}'s first character in {@code source}, or -1 for a line it does not have. */
    private static int lineStart(String source, int line) {
        int[] starts = lines(source);
        return line >= 1 && line <= starts.length ? starts[line - 1] : line < 1 ? 0 : -1;
    }

    /** The 1-based {line, column} of {@code offset} in {@code source} (an offset past its end: on its last line). */
    private static int[] lineColumn(String source, int offset) {
        int[] starts = lines(source);
        int o = Math.min(offset, source.length());
        // the last line that starts at or before o: its start is just after the last line break before o
        int lo = 0;
        int hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= o) lo = mid; else hi = mid - 1;
        }
        return new int[] {lo + 1, offset - starts[lo] + 1};
    }

    /** The line starts of the source last asked about: a library's atoms and formulas ask about one file many times. */
    private record LineIndex(String source, int[] starts) {}

    private static volatile LineIndex last;

    /**
     * Where each line of {@code source} starts (the first at 0, then one after each '\n'), computed once per file text:
     * every atom's position in a library is asked for, and scanning the text from its start for each made reading a
     * library of 1,500 contracts (217 KB) take seconds.
     */
    private static int[] lines(String source) {
        LineIndex index = last;
        if (index != null && index.source() == source) return index.starts();
        int count = 1;
        for (int at = source.indexOf('\n'); at >= 0; at = source.indexOf('\n', at + 1)) count++;
        int[] starts = new int[count];
        int k = 1;
        for (int at = source.indexOf('\n'); at >= 0; at = source.indexOf('\n', at + 1)) starts[k++] = at + 1;
        last = new LineIndex(source, starts);
        return starts;
    }
}
