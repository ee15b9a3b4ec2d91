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
            int above = previousContentLine(lines, line);
            if (above > 0) {
                return new YamlSyntax(line, column, "the indentation of this line (" + indent(lines[line - 1]) + " spaces) matches none of"
                        + " the mappings above it", "indent it like the keys it belongs with: line " + above + " ('" + lines[above - 1].strip()
                        + "') has " + indent(lines[above - 1]) + " spaces");
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
        return new YamlSyntax(line, indent(s) + 1, "this line is indented under '" + key + "' (line " + above + "), which already has a value",
                "indent it like line " + above + " (" + indent(lines[above - 1]) + " spaces), or, if it belongs under '" + key
                        + "', write '" + key + ":' with nothing after it");
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
