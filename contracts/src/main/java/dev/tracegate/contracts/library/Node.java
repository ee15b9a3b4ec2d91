package dev.tracegate.contracts.library;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML value with the position it was read from, so that every later error can name
 * file:line:column. Maps keep key order and key positions.
 */
public sealed interface Node permits Node.Scalar, Node.Seq, Node.MapNode {

    String file();

    int line();

    int column();

    /** A short name for error messages: "a string", "a list", "a map". */
    String kind();

    /**
     * A string, number, boolean or null as written; {@code tag} is the YAML tag written before a string
     * or empty value ({@code !call(x)} in {@code guarantee: !call(x) W y}), or null; {@code source} is the text of
     * the file it was read from, or null.
     */
    record Scalar(String file, int line, int column, String text, boolean isNull, Type type, String tag, String source)
            implements Node {
        /** The scalar's type as YAML resolved it. */
        public enum Type { STRING, INTEGER, FLOAT, BOOLEAN, NULL }

        /** A scalar without a tag. */
        public Scalar(String file, int line, int column, String text, boolean isNull, Type type) {
            this(file, line, column, text, isNull, type, null, null);
        }

        /** A scalar whose file text is not at hand. */
        public Scalar(String file, int line, int column, String text, boolean isNull, Type type, String tag) {
            this(file, line, column, text, isNull, type, tag, null);
        }

        /**
         * Where in the file the character at 1-based {@code line}:{@code column} of {@link #text} was written, as
         * {line, column}, through YAML's folding, quoting and block indentation; null when that is not known.
         */
        public int[] positionOf(int line, int column) {
            return ScalarOrigin.position(source, this.line, this.column, text, line, column);
        }

        // the file text is where the scalar came from, not part of its value
        @Override public boolean equals(Object o) {
            return o instanceof Scalar s && line == s.line && column == s.column && isNull == s.isNull && type == s.type
                    && java.util.Objects.equals(file, s.file) && java.util.Objects.equals(text, s.text)
                    && java.util.Objects.equals(tag, s.tag);
        }

        @Override public int hashCode() {
            return java.util.Objects.hash(file, line, column, text, isNull, type, tag);
        }

        @Override public String toString() {
            return "Scalar[" + file + ":" + line + ":" + column + " " + type + " " + text + (tag == null ? "" : " tag " + tag) + "]";
        }

        @Override public String kind() {
            return switch (type) {
                case STRING -> "a string";
                case INTEGER -> "an integer";
                case FLOAT -> "a number";
                case BOOLEAN -> "a boolean";
                case NULL -> "nothing (null)";
            };
        }
    }

    /** A list. */
    record Seq(String file, int line, int column, List<Node> items) implements Node {
        @Override public String kind() { return "a list"; }
    }

    /** A map; {@code keys} holds each key's own position. */
    record MapNode(String file, int line, int column, LinkedHashMap<String, Node> entries, Map<String, Scalar> keys)
            implements Node {
        @Override public String kind() { return "a map"; }
    }
}
