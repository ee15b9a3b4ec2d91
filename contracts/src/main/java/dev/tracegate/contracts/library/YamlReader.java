package dev.tracegate.contracts.library;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.yaml.snakeyaml.LoaderOptions;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads YAML into {@link Node}s that remember file:line:column; duplicate keys are errors. */
public final class YamlReader {
    /**
     * The longest text read, in characters (Unicode code points): 3 MiB, the YAML reader's own bound, which it is also
     * given. Checked before parsing, since the reader takes time quadratic in a long scalar before it gives up.
     */
    public static final int MAX_CODE_POINTS = 3 * 1024 * 1024;
    private static final YAMLFactory FACTORY = YAMLFactory.builder().loaderOptions(loaderOptions()).build();
    private static final int MAX_DEPTH = 64;

    private YamlReader() {}

    private static LoaderOptions loaderOptions() {
        LoaderOptions o = new LoaderOptions();
        o.setCodePointLimit(MAX_CODE_POINTS);
        return o;
    }

    /** Reads {@code text}, the contents of {@code file}; a text longer than {@link #MAX_CODE_POINTS} is refused unread. */
    public static Node read(String file, String text) {
        if (text.length() > MAX_CODE_POINTS) {
            int n = text.codePointCount(0, text.length());
            if (n > MAX_CODE_POINTS) throw tooLong(file, String.format(java.util.Locale.ROOT, "%,d characters", n));
        }
        try (Reader r = new StringReader(text); JsonParser p = FACTORY.createParser(r)) {
            JsonToken t = p.nextToken();
            if (t == null) throw new LibraryException(file, 1, 1, "the file is empty",
                    "a library starts with 'library: <name>' and has a 'contracts:' list");
            Node n = value(file, text, p, t, 0);
            JsonToken extra = p.nextToken();
            if (extra != null) {
                JsonLocation l = p.currentTokenLocation();
                throw new LibraryException(file, l.getLineNr(), l.getColumnNr(), "more than one YAML document",
                        "keep one library per file (remove the second '---')");
            }
            return n;
        } catch (StreamReadException e) {
            YamlSyntax y = YamlSyntax.of(text, e);
            String hint = y.problem().contains("as a tag")
                    ? "YAML reads a value that starts with '!' as a tag; quote a formula that starts with '!', e.g. guarantee: \"!call(x) W y\""
                    : y.problem().contains("unknown escape character")
                    ? "in a YAML double-quoted scalar a backslash starts a YAML escape: for a pattern's \\d (say) in a formula write \\\\\\\\d"
                            + " there (YAML reads it as \\\\d, which the formula reads as \\d), or leave the formula unquoted or in single"
                            + " quotes and write \\\\d (docs/FORMULAS.md)"
                    : y.hint() != null ? y.hint()
                    : "check indentation (spaces, not tabs) and quote strings that contain ': ' or start with a special character";
            throw new LibraryException(file, y.line(), y.column(), "not valid YAML: " + y.problem(), hint);
        } catch (IOException e) {
            throw new LibraryException(file, 0, 0, "cannot read: " + e.getMessage(), null);
        }
    }

    /**
     * The error for a library text beyond {@link #MAX_CODE_POINTS}; {@code size} says how long it is ("4000000
     * characters", "60.0 MB").
     */
    public static LibraryException tooLong(String file, String size) {
        return new LibraryException(file, 0, 0, "the library is " + size + " long; a library file holds at most 3 MiB of text ("
                + String.format(java.util.Locale.ROOT, "%,d", MAX_CODE_POINTS) + " characters)",
                "split it into several library files (libraries: [a.yaml, b.yaml]), or shorten its longest values (a message, a"
                        + " description)");
    }

    /** The tag of the current scalar as written ({@code !x}, {@code !!str}), or null. */
    private static String tag(JsonParser p) throws IOException {
        // The YAML parser strips the leading '!' of a local tag and expands '!!' to the yaml.org prefix.
        if (!(p.getTypeId() instanceof String t)) return null;
        return t.startsWith("tag:yaml.org,2002:") ? "!!" + t.substring("tag:yaml.org,2002:".length()) : "!" + t;
    }

    private static Node value(String file, String text, JsonParser p, JsonToken t, int depth) throws IOException {
        JsonLocation loc = p.currentTokenLocation();
        int line = loc.getLineNr();
        int col = loc.getColumnNr();
        if (depth > MAX_DEPTH) throw new LibraryException(file, line, col, "nesting deeper than " + MAX_DEPTH, null);
        switch (t) {
            case START_OBJECT: {
                LinkedHashMap<String, Node> entries = new LinkedHashMap<>();
                Map<String, Node.Scalar> keys = new LinkedHashMap<>();   // in file order: an unknown key is named where it first is
                while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
                    JsonLocation kl = p.currentTokenLocation();
                    String key = p.currentName();
                    Node.Scalar keyNode = new Node.Scalar(file, kl.getLineNr(), kl.getColumnNr(), key, false,
                            Node.Scalar.Type.STRING);
                    if (entries.containsKey(key)) {
                        Node.Scalar first = keys.get(key);
                        throw new LibraryException(file, kl.getLineNr(), kl.getColumnNr(), "duplicate key '" + key + "'",
                                "it is already set at line " + first.line() + "; keep one");
                    }
                    Node v = value(file, text, p, p.nextToken(), depth + 1);
                    entries.put(key, v);
                    keys.put(key, keyNode);
                }
                return new Node.MapNode(file, line, col, entries, keys);
            }
            case START_ARRAY: {
                List<Node> items = new ArrayList<>();
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) items.add(value(file, text, p, t, depth + 1));
                return new Node.Seq(file, line, col, items);
            }
            case VALUE_STRING: {
                return new Node.Scalar(file, line, col, p.getText(), false, Node.Scalar.Type.STRING, tag(p), text);
            }
            case VALUE_NUMBER_INT:
                return new Node.Scalar(file, line, col, p.getText(), false, Node.Scalar.Type.INTEGER);
            case VALUE_NUMBER_FLOAT:
                return new Node.Scalar(file, line, col, p.getText(), false, Node.Scalar.Type.FLOAT);
            case VALUE_TRUE:
            case VALUE_FALSE:
                return new Node.Scalar(file, line, col, p.getText(), false, Node.Scalar.Type.BOOLEAN);
            case VALUE_NULL:
                return new Node.Scalar(file, line, col, null, true, Node.Scalar.Type.NULL, tag(p));
            default:
                throw new LibraryException(file, line, col, "unexpected YAML token " + t, null);
        }
    }
}
