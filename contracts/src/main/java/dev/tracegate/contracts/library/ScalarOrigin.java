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

    private static int lineStart(String source, int line) {
        int at = 0;
        for (int l = 1; l < line; l++) {
            int nl = source.indexOf('\n', at);
            if (nl < 0) return -1;
            at = nl + 1;
        }
        return at;
    }

    private static int[] lineColumn(String source, int offset) {
        int line = 1;
        int start = 0;
        for (int i = 0; i < offset && i < source.length(); i++) {
            if (source.charAt(i) == '\n') {
                line++;
                start = i + 1;
            }
        }
        return new int[] {line, offset - start + 1};
    }
}
