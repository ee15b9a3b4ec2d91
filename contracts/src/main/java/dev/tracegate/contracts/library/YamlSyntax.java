package dev.tracegate.contracts.library;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A YAML syntax mistake as its writer should see it: the line and column to fix (where the parser
 * stopped past the real mistake, the place it most likely is), what is wrong, and how to fix it.
 *
 * @param line    1-based line of the mistake, or 0 when the parser gave no position
 * @param column  1-based column
 * @param problem what is wrong, in the user's terms
 * @param hint    how to fix it, or null when there is nothing more specific than "check the syntax"
 */
public record YamlSyntax(int line, int column, String problem, String hint) {

    /** Reads the parser's error for {@code text}, the whole YAML document it was parsing. */
    public static YamlSyntax of(String text, JsonProcessingException e) {
        JsonLocation l = e.getLocation();
        int line = l == null ? 0 : l.getLineNr();
        int column = l == null ? 0 : l.getColumnNr();
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        int nl = message.indexOf('\n');
        String problem = (nl > 0 ? message.substring(0, nl) : message).trim();
        String context = null;
        Mark contextMark = null;
        if (e.getCause() instanceof MarkedYAMLException y) {
            // the scanner's problem and its mark are more precise than the parser's current location
            if (y.getProblem() != null) problem = y.getProblem().replaceAll("\\s+", " ").trim();
            Mark m = y.getProblemMark();
            if (m != null) {
                line = m.getLine() + 1;
                column = m.getColumn() + 1;
            }
            context = y.getContext();
            contextMark = y.getContextMark();
        }
        String[] lines = text.split("\r?\n|\r", -1);
        if (problem.contains("(TAB)") || problem.contains("\t")) {
            int[] tab = tabAt(lines, line, column);
            return new YamlSyntax(tab[0], tab[1], "a tab in the indentation: tabs are not allowed for indentation in YAML",
                    "use spaces: indent with as many spaces as the lines around it");
        }
        if (context != null && context.contains("scanning a tag") && contextMark != null) {
            // the reader's own hint explains tags: name the value that YAML took for one, where it starts
            return new YamlSyntax(contextMark.getLine() + 1, contextMark.getColumn() + 1,
                    "YAML reads the value that starts here with '!' as a tag and cannot scan it", null);
        }
        if (context != null && contextMark != null && contextMark.getLine() + 1 < line) {
            // the parser read on to a later line before it gave up: the mistake is where the construct began
            int cl = contextMark.getLine() + 1;
            int cc = contextMark.getColumn() + 1;
            String written = cl <= lines.length ? lines[cl - 1].strip() : "";
            if (context.contains("simple key") && problem.contains("expected ':'")) {
                boolean parent = written.indexOf(' ') < 0 && cl < lines.length && indent(lines[cl]) > indent(lines[cl - 1])
                        && !lines[cl].isBlank();
                return new YamlSyntax(cl, cc, "'" + written + "' has no ':' after its key", parent
                        ? "write '" + written + ":' (the indented lines below it are its keys)"
                        : "write '" + withColon(written) + "' (a ':' and a space after the key)");
            }
            if (context.contains("quoted scalar")) {
                return new YamlSyntax(cl, cc, "the quoted text that starts here is not closed (the parser read on to line " + line + ")",
                        "add the closing quote at the end of the value, or escape a quote inside it");
            }
            if (context.contains("flow sequence") || context.contains("flow mapping")) {
                boolean list = context.contains("sequence");
                return new YamlSyntax(cl, cc, "the " + (list ? "list opened with '['" : "mapping opened with '{'")
                        + " here is not closed (the parser read on to line " + line + ")",
                        "close it with '" + (list ? "]" : "}") + "' at the end of the value, on the same line");
            }
        }
        if (problem.contains("mapping values are not allowed") && line >= 1 && line <= lines.length) {
            YamlSyntax y = strayColon(lines, line, column);
            if (y != null) return y;
        }
        if (problem.contains("expected <block end>") && line >= 1 && line <= lines.length) {
            YamlSyntax block = blockTextOutdented(lines, line, column);
            if (block != null) return block;
            int[] like = alignedWith(lines, line);
            if (like != null) {
                boolean item = lines[line - 1].stripLeading().startsWith("- ");
                String above = lines[like[0] - 1].strip();
                return new YamlSyntax(line, column, "the indentation of this line (" + indent(lines[line - 1]) + " spaces) matches none of"
                        + " the mappings above it", (item ? "indent it like the list items it belongs with: the '-' on line "
                        : "indent it like the keys it belongs with: the first key on line ") + like[0] + " ('" + above + "') has "
                        + like[1] + " spaces before it" + (!item && above.startsWith("- ") ? " ('- ' counts)" : ""));
            }
        }
        return new YamlSyntax(line, column, problem, null);
    }

    /**
     * A ':' the parser did not expect at {@code line}:{@code column}: a value holding ': ' (to be quoted), a key above
     * written without its ':', or a line indented under a key that already has a value; null when it is none of these.
     */
    private static YamlSyntax strayColon(String[] lines, int line, int column) {
        String s = lines[line - 1];
        int start = indent(s) + (s.stripLeading().startsWith("- ") ? 2 : 0);
        int first = s.indexOf(": ", start);
        if (first >= 0 && first + 1 < column - 1) {
            String key = s.substring(start, first).strip();
            String value = s.substring(first + 2).strip();
            return new YamlSyntax(line, first + 3, "the value of '" + key + "' contains ': ', which YAML reads as the start of another key",
                    "quote the value: " + key + ": \"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        }
        int above = previousContentLine(lines, line);
        if (above <= 0 || indent(s) <= indent(lines[above - 1])) return null;
        String prev = lines[above - 1].strip();
        String prevKey = prev.startsWith("- ") ? prev.substring(2).strip() : prev;
        if (!prevKey.contains(":")) {
            return new YamlSyntax(above, indent(lines[above - 1]) + 1, "'" + prev + "' has no ':' after its key",
                    "write '" + prev + ":' (the indented lines below it are its keys)");
        }
        String key = prevKey.substring(0, prevKey.indexOf(':')).strip();
        String a = lines[above - 1];
        int keyAt = indent(a);
        while (a.startsWith("- ", keyAt)) {   // a list item's keys start after its '- '
            keyAt += 2;
            while (keyAt < a.length() && a.charAt(keyAt) == ' ') keyAt++;
        }
        int[] item = s.stripLeading().startsWith("- ") ? alignedWith(lines, line) : null;
        String like = item != null ? "the list items it belongs with: the '-' on line " + item[0] + " ('" + lines[item[0] - 1].strip()
                + "') has " + item[1] + " spaces before it"
                : keyAt == indent(a) ? "line " + above + " (" + keyAt + " spaces)"
                : "line " + above + "'s key '" + key + "' (" + keyAt + " spaces, '- ' counts)";
        return new YamlSyntax(line, indent(s) + 1, "this line is indented under '" + key + "' (line " + above + "), which already has a value",
                "indent it like " + like + ", or, if it belongs under '" + key + "', write '" + key + ":' with nothing after it");
    }

    /**
     * For a line whose indentation matches no open block: {line, column - 1} of the block above it that it most likely
     * belongs with, or null. The open blocks are read upwards from the line, each less indented than all lines
     * between it and the line: a key's mapping starts where its key does ({@code - id: x} has its keys after the
     * {@code - }), a list where its {@code -} is. A {@code - } line belongs with a list, any other with a mapping; of
     * those the one nearest in indentation, the deeper one on a tie (the line most likely continues what is above).
     */
    private static int[] alignedWith(String[] lines, int line) {
        boolean item = lines[line - 1].stripLeading().startsWith("- ");
        int want = indent(lines[line - 1]);
        int least = Integer.MAX_VALUE;
        int[] best = null;
        for (int l = line - 1; l >= 1; l--) {
            String s = lines[l - 1];
            String t = s.strip();
            if (t.isEmpty() || t.startsWith("#")) continue;
            int at = indent(s);
            if (at > least) continue;
            boolean open = at < least;   // less indented than all below: its item's mapping is still open, a sibling's is not
            least = at;
            int col = -1;
            if (item) {
                if (t.startsWith("- ") || t.equals("-")) col = at;
            } else {
                int k = at;
                while (open && s.startsWith("- ", k)) {
                    k += 2;
                    while (k < s.length() && s.charAt(k) == ' ') k++;
                }
                if (!s.startsWith("- ", k) && KEY.matcher(s.substring(k)).lookingAt()) col = k;
            }
            if (col >= 0 && (best == null || Math.abs(col - want) < Math.abs(best[1] - want))) best = new int[] {l, col};
        }
        return best;
    }

    private static final java.util.regex.Pattern KEY = java.util.regex.Pattern.compile("[^\\s#'\"\\[{][^:#]*:(\\s|$)");

    private static final java.util.regex.Pattern BLOCK_KEY = java.util.regex.Pattern.compile(":\\s+[|>][-+0-9]*\\s*(#.*)?$");

    /**
     * A line right under {@code key: >} or {@code key: |} that is not indented more than that key: the block's text,
     * which YAML only reads as such when it is indented deeper; null when the line above opens no block.
     */
    private static YamlSyntax blockTextOutdented(String[] lines, int line, int column) {
        int above = previousContentLine(lines, line);
        if (above <= 0 || !BLOCK_KEY.matcher(lines[above - 1]).find()) return null;
        String a = lines[above - 1];
        int keyAt = indent(a);
        while (a.startsWith("- ", keyAt)) {
            keyAt += 2;
            while (keyAt < a.length() && a.charAt(keyAt) == ' ') keyAt++;
        }
        int want = keyAt + 2;
        for (int l = line + 1; l <= lines.length && !lines[l - 1].isBlank(); l++) {   // the block's other lines, if deeper
            if (indent(lines[l - 1]) > keyAt) {
                want = indent(lines[l - 1]);
                break;
            }
        }
        String key = a.strip().replaceFirst("^(- +)*", "");
        key = key.substring(0, key.indexOf(':')).strip();
        return new YamlSyntax(line, column, "this line is the text of '" + key + "' (line " + above + ") but is not indented more than '"
                + key + "', so YAML reads it as a new key", "indent the text of '" + key + "' more than its key: " + want + " spaces");
    }

    /** The last line above {@code line} that holds something other than a comment, or 0. */
    private static int previousContentLine(String[] lines, int line) {
        for (int l = line - 1; l >= 1; l--) {
            String t = lines[l - 1].strip();
            if (!t.isEmpty() && !t.startsWith("#")) return l;
        }
        return 0;
    }

    private static int indent(String s) {
        int n = 0;
        while (n < s.length() && s.charAt(n) == ' ') n++;
        return n;
    }

    /** The line and column of the tab the parser complained about: at its mark, else the first tab of that line's indentation. */
    private static int[] tabAt(String[] lines, int line, int column) {
        if (line >= 1 && line <= lines.length) {
            String s = lines[line - 1];
            if (column >= 1 && column <= s.length() && s.charAt(column - 1) == '\t') return new int[] {line, column};
            int t = s.indexOf('\t');
            if (t >= 0) return new int[] {line, t + 1};
        }
        return new int[] {line, column};
    }

    /** The line as it should read: its key followed by ": " (a list item's "- " kept). */
    private static String withColon(String written) {
        String item = written.startsWith("- ") ? "- " : "";
        String rest = written.substring(item.length()).strip();
        int space = rest.indexOf(' ');
        if (space < 0) return item + rest + ": <value>";
        return item + rest.substring(0, space) + ": " + rest.substring(space + 1).strip();
    }
}
