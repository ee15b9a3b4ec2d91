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
                return new YamlSyntax(cl, cc, "'" + written + "' has no ':' after its key",
                        "write '" + withColon(written) + "' (a ':' and a space after the key)");
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
        return new YamlSyntax(line, column, problem, null);
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
