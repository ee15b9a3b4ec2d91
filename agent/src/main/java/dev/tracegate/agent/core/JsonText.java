package dev.tracegate.agent.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.matchers.event.Args;

import java.util.List;
import java.util.Map;

/**
 * The common shapes of tool arguments, written and read without Jackson's databind machinery, with
 * exactly Jackson's result: {@link #write} gives the text {@code ObjectMapper.writeValueAsString}
 * gives, {@link #readObject} the tree {@code ObjectMapper.readTree} gives. Each declines (returns null)
 * whatever it does not cover, and the caller then uses Jackson, so the fast path never changes a result.
 *
 * <p>Covered: maps with String keys, lists, strings, Integer/Long/Short/Byte, finite doubles, booleans and
 * null, nested up to {@value #MAX_DEPTH} levels, with at most {@link ValueText#MAX_ELEMENTS} elements in one list or map
 * (and, for text, {@link ValueText#MAX_CHARS} characters); for reading, one JSON object with nothing but white space
 * after it and integers of at most 18 digits. Stateless and thread-safe.
 */
public final class JsonText {
    static final int MAX_DEPTH = 64;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private JsonText() {
    }

    // ------------------------------------------------------------------ writing

    /**
     * The JSON text of {@code value} as Jackson writes it, or null when the value has a part this class does not cover
     * or is beyond {@link ValueText}'s bounds (which then writes it, cut).
     */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(64);
        return write(value, out, 0) && out.length() <= ValueText.MAX_CHARS ? out.toString() : null;
    }

    private static boolean write(Object v, StringBuilder out, int depth) {
        if (depth > MAX_DEPTH || out.length() > ValueText.MAX_CHARS) return false;
        if (v == null) {
            out.append("null");
        } else if (v instanceof String) {
            if (((String) v).length() > ValueText.MAX_CHARS) return false;
            string((String) v, out);
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            out.append(((Number) v).longValue());
        } else if (v instanceof Double) {
            double d = (Double) v;
            if (Double.isNaN(d) || Double.isInfinite(d)) return false;
            out.append(Double.toString(d));
        } else if (v instanceof Boolean) {
            out.append(((Boolean) v).booleanValue() ? "true" : "false");
        } else if (v instanceof Map) {
            if (((Map<?, ?>) v).size() > ValueText.MAX_ELEMENTS) return false;   // ValueText cuts it
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!(e.getKey() instanceof String)) return false;
                if (!first) out.append(',');
                string((String) e.getKey(), out);
                out.append(':');
                if (!write(e.getValue(), out, depth + 1)) return false;
                first = false;
            }
            out.append('}');
        } else if (v instanceof List) {
            if (((List<?>) v).size() > ValueText.MAX_ELEMENTS) return false;
            out.append('[');
            boolean first = true;
            for (Object o : (List<?>) v) {
                if (!first) out.append(',');
                if (!write(o, out, depth + 1)) return false;
                first = false;
            }
            out.append(']');
        } else {
            return false;
        }
        return true;
    }

    /** Quotes and escapes as Jackson does by default: {@code " \} and the control characters, nothing else. */
    static void string(String s, StringBuilder out) {
        out.append('"');
        int n = s.length();
        int plain = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') continue;
            out.append(s, plain, i);
            plain = i + 1;
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                default: out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 15]);
            }
        }
        out.append(s, plain, n).append('"');
    }

    // ------------------------------------------------------------------ trees from Java values

    /**
     * The object {@code readObject(write(map))} gives for the map {@code names[i] -> values[i]}, built from the
     * values directly (no text in between), or null when some value is not covered (the caller then goes through
     * JSON text, which covers everything). The names must differ from each other.
     */
    public static ObjectNode tree(String[] names, Object[] values) {
        // sized for its fields: the default map starts at 16 buckets and resizes on the first put
        ObjectNode o = new ObjectNode(NODES, new java.util.LinkedHashMap<>(Math.max(2, (int) (names.length / 0.75f) + 1)));
        for (int i = 0; i < names.length; i++) {
            JsonNode n = node(values[i], 1);
            if (n == null) return null;
            o.set(names[i], n);
        }
        return o;
    }

    /**
     * The arguments {@code Args.of(readObject(write(map)))} gives for the map {@code names[i] -> values[i]}, or null
     * when some value is not covered. Parameters that are all scalars (the common case) become flat fields with no
     * tree at all; the names must differ from each other and belong to the result afterwards (not copied).
     */
    public static Args args(String[] names, Object[] values) {
        return args(names, values, -1);
    }

    /**
     * As {@link #args(String[], Object[])} with {@code values[skip]} left out ({@code names} has no name for it; a
     * negative {@code skip} leaves out nothing): a configured method's session parameter, read in place rather than
     * from a copy of the values without it.
     */
    public static Args args(String[] names, Object[] values, int skip) {
        int n = names.length;
        JsonNode[] nodes = new JsonNode[n];
        for (int i = 0; i < n; i++) {
            // node() tests the final classes (String, Integer, ...) before the interfaces: an interface test (Map,
            // List) on every argument cost more than the rest of this method together (a scan of the class's interfaces)
            JsonNode node = node(values[skip >= 0 && i >= skip ? i + 1 : i], 1);
            if (node == null || node.isContainerNode()) {
                ObjectNode tree = node == null ? null : tree(names, skip < 0 ? values : without(values, skip));
                return tree == null ? null : Args.of(tree);
            }
            nodes[i] = node;
        }
        return Args.ofFields(names, nodes, n);   // a Java method has at most 255 parameters: within MAX_LEAVES
    }

    /** The array without its element {@code skip}. */
    public static <T> T[] without(T[] all, int skip) {
        T[] out = java.util.Arrays.copyOf(all, all.length - 1);
        System.arraycopy(all, skip + 1, out, skip, all.length - skip - 1);
        return out;
    }

    /** The object {@code readObject(write(map))} gives, built from the map directly, or null when it is not covered. */
    public static ObjectNode tree(Map<?, ?> map) {
        JsonNode n = node(map, 0);
        return n instanceof ObjectNode ? (ObjectNode) n : null;
    }

    /** The node reading {@code write(v)}'s text would give: integers as int nodes when they fit, else long nodes. */
    private static JsonNode node(Object v, int depth) {
        if (depth > MAX_DEPTH) return null;
        if (v == null) return NODES.nullNode();
        if (v instanceof String) return NODES.textNode((String) v);
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) return NODES.numberNode(((Number) v).intValue());
        if (v instanceof Long) {
            long l = (Long) v;
            return l == (int) l ? NODES.numberNode((int) l) : NODES.numberNode(l);
        }
        if (v instanceof Double) {
            double d = (Double) v;
            return Double.isNaN(d) || Double.isInfinite(d) ? null : NODES.numberNode(d);
        }
        if (v instanceof Boolean) return NODES.booleanNode((Boolean) v);
        if (v instanceof Map) {
            if (((Map<?, ?>) v).size() > ValueText.MAX_ELEMENTS) return null;   // ValueText cuts it
            ObjectNode o = NODES.objectNode();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!(e.getKey() instanceof String)) return null;
                JsonNode n = node(e.getValue(), depth + 1);
                if (n == null) return null;
                o.set((String) e.getKey(), n);
            }
            return o;
        }
        if (v instanceof List) {
            if (((List<?>) v).size() > ValueText.MAX_ELEMENTS) return null;
            ArrayNode a = NODES.arrayNode();
            for (Object x : (List<?>) v) {
                JsonNode n = node(x, depth + 1);
                if (n == null) return null;
                a.add(n);
            }
            return a;
        }
        return null;
    }

    // ------------------------------------------------------------------ reading

    /** The object {@code text} holds, as Jackson's {@code readTree} builds it, or null when this reader declines the text. */
    public static ObjectNode readObject(String text) {
        Reader r = new Reader(text);
        r.space();
        if (!r.at('{')) return null;
        JsonNode node = r.value(0);
        if (node == null) return null;
        r.space();
        return r.pos == text.length() ? (ObjectNode) node : null;
    }

    /**
     * The arguments {@code Args.of(readObject(text))} gives, or null when this reader declines the text. An object of
     * scalar fields with distinct names, which is what models mostly send, becomes flat fields with no tree at all.
     */
    public static Args readArgs(String text) {
        Reader r = new Reader(text);
        r.space();
        if (!r.at('{')) return null;
        Args flat = r.flatObject();
        if (flat != null) {
            r.space();
            return r.pos == text.length() ? flat : null;
        }
        ObjectNode tree = readObject(text);   // a nested value or a repeated name (or a text to decline): as a tree
        return tree == null ? null : Args.of(tree);
    }

    /** A cursor over one text; every method returns null (or false) to decline. */
    private static final class Reader {
        final String s;
        int pos;

        Reader(String s) {
            this.s = s;
        }

        boolean at(char c) {
            return pos < s.length() && s.charAt(pos) == c;
        }

        void space() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
                pos++;
            }
        }

        JsonNode value(int depth) {
            if (depth > MAX_DEPTH || pos >= s.length()) return null;
            char c = s.charAt(pos);
            switch (c) {
                case '{': return object(depth);
                case '[': return array(depth);
                case '"': {
                    String t = string();
                    return t == null ? null : NODES.textNode(t);
                }
                case 't': return word("true") ? NODES.booleanNode(true) : null;
                case 'f': return word("false") ? NODES.booleanNode(false) : null;
                case 'n': return word("null") ? NODES.nullNode() : null;
                default: return c == '-' || (c >= '0' && c <= '9') ? number() : null;
            }
        }

        private ObjectNode object(int depth) {
            pos++; // {
            ObjectNode o = NODES.objectNode();
            space();
            if (at('}')) {
                pos++;
                return o;
            }
            while (true) {
                space();
                if (!at('"')) return null;
                String name = string();
                if (name == null) return null;
                space();
                if (!at(':')) return null;
                pos++;
                space();
                JsonNode v = value(depth + 1);
                if (v == null) return null;
                o.set(name, v); // a repeated name: the last value wins, in the first one's place, as in readTree
                space();
                if (at(',')) {
                    pos++;
                    continue;
                }
                if (at('}')) {
                    pos++;
                    return o;
                }
                return null;
            }
        }

        /**
         * The object at the cursor as flat arguments, or null when a value is an object or an array, a name repeats,
         * there are more than {@link Args#MAX_LEAVES} fields, or the text is not a JSON object here.
         */
        Args flatObject() {
            pos++; // {
            String[] names = new String[8];
            JsonNode[] values = new JsonNode[8];
            int n = 0;
            space();
            if (at('}')) {
                pos++;
                return Args.ofFields(names, values, 0);
            }
            while (true) {
                space();
                if (!at('"')) return null;
                String name = string();
                if (name == null) return null;
                for (int i = 0; i < n; i++) if (names[i].equals(name)) return null;
                space();
                if (!at(':')) return null;
                pos++;
                space();
                if (at('{') || at('[') || n == Args.MAX_LEAVES) return null;
                JsonNode v = value(1);
                if (v == null) return null;
                if (n == names.length) {
                    names = java.util.Arrays.copyOf(names, n * 2);
                    values = java.util.Arrays.copyOf(values, n * 2);
                }
                names[n] = name;
                values[n++] = v;
                space();
                if (at(',')) {
                    pos++;
                    continue;
                }
                if (at('}')) {
                    pos++;
                    return Args.ofFields(names, values, n);
                }
                return null;
            }
        }

        private ArrayNode array(int depth) {
            pos++; // [
            ArrayNode a = NODES.arrayNode();
            space();
            if (at(']')) {
                pos++;
                return a;
            }
            while (true) {
                space();
                JsonNode v = value(depth + 1);
                if (v == null) return null;
                a.add(v);
                space();
                if (at(',')) {
                    pos++;
                    continue;
                }
                if (at(']')) {
                    pos++;
                    return a;
                }
                return null;
            }
        }

        private boolean word(String w) {
            if (!s.startsWith(w, pos)) return false;
            int end = pos + w.length();
            if (end < s.length() && Character.isLetterOrDigit(s.charAt(end))) return false;
            pos = end;
            return true;
        }

        /** A string at the cursor (which is on its opening quote); null for controls, bad escapes or no end. */
        private String string() {
            int start = ++pos;
            int n = s.length();
            StringBuilder unescaped = null;
            int plain = start;
            while (pos < n) {
                char c = s.charAt(pos);
                if (c == '"') {
                    String t = unescaped == null ? s.substring(start, pos) : unescaped.append(s, plain, pos).toString();
                    pos++;
                    return t;
                }
                if (c < 0x20) return null;
                if (c == '\\') {
                    if (unescaped == null) unescaped = new StringBuilder(pos - start + 16);
                    unescaped.append(s, plain, pos);
                    if (pos + 1 >= n) return null;
                    char e = s.charAt(pos + 1);
                    switch (e) {
                        case '"': case '\\': case '/': unescaped.append(e); break;
                        case 'b': unescaped.append('\b'); break;
                        case 'f': unescaped.append('\f'); break;
                        case 'n': unescaped.append('\n'); break;
                        case 'r': unescaped.append('\r'); break;
                        case 't': unescaped.append('\t'); break;
                        case 'u': {
                            if (pos + 6 > n) return null;
                            int cp = 0;
                            for (int i = pos + 2; i < pos + 6; i++) {
                                int d = Character.digit(s.charAt(i), 16);
                                if (d < 0 || s.charAt(i) > 'f') return null;
                                cp = cp * 16 + d;
                            }
                            unescaped.append((char) cp);
                            pos += 4;
                            break;
                        }
                        default: return null;
                    }
                    pos += 2;
                    plain = pos;
                    continue;
                }
                pos++;
            }
            return null;
        }

        /** A number in JSON's grammar; integers of up to 18 digits, anything with a fraction or exponent as a double. */
        private JsonNode number() {
            int start = pos;
            int n = s.length();
            if (at('-')) pos++;
            int intStart = pos;
            while (pos < n && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') pos++;
            int digits = pos - intStart;
            if (digits == 0 || (digits > 1 && s.charAt(intStart) == '0')) return null;
            boolean integral = true;
            if (at('.')) {
                integral = false;
                int f = ++pos;
                while (pos < n && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') pos++;
                if (pos == f) return null;
            }
            if (at('e') || at('E')) {
                integral = false;
                pos++;
                if (at('+') || at('-')) pos++;
                int e = pos;
                while (pos < n && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') pos++;
                if (pos == e) return null;
            }
            if (pos < n && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '.')) return null;
            if (!integral) {
                double d = Double.parseDouble(s.substring(start, pos));
                return Double.isInfinite(d) ? null : NODES.numberNode(d);
            }
            if (digits > 18) return null;
            long v = 0;
            for (int i = intStart; i < pos; i++) v = v * 10 + (s.charAt(i) - '0');
            if (s.charAt(start) == '-') v = -v;
            return v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
        }
    }
}
