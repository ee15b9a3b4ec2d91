package dev.tracegate.matchers.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.tracegate.matchers.pii.DataCategory;
import dev.tracegate.matchers.pii.DataCategoryExtractor;
import dev.tracegate.matchers.pii.SpanSink;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/**
 * A tool call's arguments as a read-only JSON object tree, built once per event from JSON text, a
 * Jackson tree or plain Java values, and read by precompiled {@link Path}s without re-parsing.
 *
 * <p>Arguments whose values are all scalars (the common case) may be built from their fields as a
 * trace reader parses them ({@link #ofFields}); such arguments build their Jackson tree only when
 * {@link #root()} (or the JSON text, or equality) is asked for, and read by paths and leaves
 * without it.
 *
 * <p>Arguments that are not a JSON object (malformed model output, a bare string) are kept as
 * {@code {"_raw": text}} and flagged {@link #malformed()}: every contract that reads a named field
 * then finds it missing, which makes its atoms unevaluable (fail closed), not silently false.
 */
public final class Args {
    /** Field under which non-object arguments are kept. */
    public static final String RAW_FIELD = "_raw";
    /** Nesting limit when converting Java values (protects against cyclic maps). */
    public static final int MAX_DEPTH = 64;
    /** Scalar values indexed for scanning (field hints, data categories, erased subjects); the rest are not scanned. */
    public static final int MAX_LEAVES = 256;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** No arguments at all (events other than CALL). */
    public static final Args NONE = new Args(NODES.objectNode(), false, "{}");

    /** The tree, or null for arguments built from scalar fields (then {@link #built} holds it once asked for). */
    private final ObjectNode root;
    /** The tree of arguments built from scalar fields, made on first use (volatile: published whole to any thread). */
    private volatile ObjectNode built;
    /** For arguments built from scalar fields: every field's name and value (JSON nulls included), in order; else null. */
    private final String[] fieldNames;
    private final JsonNode[] fieldValues;
    /**
     * {@link #fields()} in the upper 16 bits (sign included) and {@link #leafCount()} in the lower 16 (both at most
     * {@value #MAX_LEAVES}): one int for the two, and {@link #categories} one int for two longs, make every Args 48 B
     * instead of 64 (session 23).
     */
    private final int counts;
    private final String[] leafNames;
    private final JsonNode[] leafValues;
    /** Compact JSON text; computed on first use, then cached (idempotent, like String.hashCode). */
    private String json;
    /**
     * The categories detected in the values once known, and those found by scans that stopped early (present, but maybe
     * not all: grows): a {@link CategoryMemo}, 0 before (idempotent memo).
     */
    private volatile int categories;

    private static int counts(int fields, int leaves) { return fields << 16 | leaves; }

    /**
     * For arguments built from scalar fields, how many; for a tree, -1 when it is the {@code {"_raw": text}} of
     * malformed arguments, else 0 (one number for both: a boolean of its own made every Args 72 B instead of 64, session 21).
     */
    private int fields() { return counts >> 16; }

    private Args(ObjectNode root, boolean malformed, String json) {
        this.root = root;
        this.json = json;
        this.fieldNames = null;
        this.fieldValues = null;
        String[] names = new String[8];
        JsonNode[] values = new JsonNode[8];
        int n = 0;
        // iterative depth-first walk collecting scalar leaves in document order with the name of their
        // field: the root's fields directly, then one frame per open nested container (an array's
        // elements take the array's field name); the frame arrays exist only when something nests
        Iterator<Map.Entry<String, JsonNode>> rootFields = root.properties().iterator();
        JsonNode[] open = null;
        Iterator<Map.Entry<String, JsonNode>>[] fieldsAt = null;
        int[] indexAt = null;
        String[] nameAt = null;
        int top = -1;
        while (n < MAX_LEAVES) {
            String name;
            JsonNode node;
            Iterator<Map.Entry<String, JsonNode>> it = top < 0 ? rootFields : fieldsAt[top];
            if (it != null) {
                if (!it.hasNext()) {
                    if (top < 0) break;
                    fieldsAt[top] = null;
                    open[top--] = null;
                    continue;
                }
                Map.Entry<String, JsonNode> e = it.next();
                name = e.getKey();
                node = e.getValue();
            } else {
                int i = indexAt[top];
                if (i >= open[top].size()) { open[top--] = null; continue; }
                indexAt[top] = i + 1;
                name = nameAt[top];
                node = open[top].get(i);
            }
            if (node instanceof ObjectNode || node instanceof ArrayNode) {
                if (open == null) {
                    open = new JsonNode[8];
                    fieldsAt = newIterators(8);
                    indexAt = new int[8];
                    nameAt = new String[8];
                } else if (top + 1 == open.length) {
                    open = java.util.Arrays.copyOf(open, open.length * 2);
                    fieldsAt = java.util.Arrays.copyOf(fieldsAt, open.length);
                    indexAt = java.util.Arrays.copyOf(indexAt, open.length);
                    nameAt = java.util.Arrays.copyOf(nameAt, open.length);
                }
                top++;
                open[top] = node;
                fieldsAt[top] = node instanceof ObjectNode o ? o.properties().iterator() : null;
                indexAt[top] = 0;
                nameAt[top] = name;
            } else if (node != null && !node.isNull() && !node.isMissingNode()) {
                if (n == names.length) {
                    names = java.util.Arrays.copyOf(names, n * 2);
                    values = java.util.Arrays.copyOf(values, n * 2);
                }
                names[n] = name;
                values[n] = node;
                n++;
            }
        }
        this.leafNames = names;
        this.leafValues = values;
        this.counts = counts(malformed ? -1 : 0, n);
    }

    private static final String[] NO_NAMES = new String[0];
    private static final JsonNode[] NO_VALUES = new JsonNode[0];

    /** Arguments built from scalar fields; the leaves are the fields that are not JSON null. */
    private Args(String[] names, JsonNode[] values, int n) {
        this.root = null;
        this.fieldNames = names;
        this.fieldValues = values;
        int leaves = 0;
        for (int i = 0; i < n; i++) if (!values[i].isNull()) leaves++;
        if (leaves == n) {
            this.leafNames = names;
            this.leafValues = values;
        } else {
            String[] ln = leaves == 0 ? NO_NAMES : new String[leaves];
            JsonNode[] lv = leaves == 0 ? NO_VALUES : new JsonNode[leaves];
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (values[i].isNull()) continue;
                ln[k] = names[i];
                lv[k++] = values[i];
            }
            this.leafNames = ln;
            this.leafValues = lv;
        }
        this.counts = counts(n, leaves);
    }

    /**
     * Arguments that are the JSON object with fields {@code names[i]: values[i]} for {@code i < n}, in
     * that order, as a parser reads them: names distinct (the caller checks; a duplicate is the caller's
     * to reject), every value a scalar or JSON null (no object, no array), at most {@value #MAX_LEAVES}
     * fields. Equal to {@link #of(JsonNode)} of that object in every reading; no tree is built unless
     * {@link #root()}, {@link #json()}, {@link #equals} or {@link #fieldNames()} asks for it. The arrays
     * belong to the result afterwards (not copied).
     *
     * @throws IllegalArgumentException when a value is missing, an object or an array, or {@code n} is out of range
     */
    public static Args ofFields(String[] names, JsonNode[] values, int n) {
        if (n < 0 || n > MAX_LEAVES || n > names.length || n > values.length) {
            throw new IllegalArgumentException("field count " + n + " out of range (0.." + MAX_LEAVES + " and the arrays' length)");
        }
        for (int i = 0; i < n; i++) {
            JsonNode v = values[i];
            if (v == null || v.isContainerNode() || v.isMissingNode() || names[i] == null) {
                throw new IllegalArgumentException("field " + i + " (" + names[i] + ") is not a named scalar or null: " + v
                        + "; give objects with nested values to Args.of(JsonNode)");
            }
        }
        return new Args(names, values, n);
    }

    @SuppressWarnings("unchecked")
    private static Iterator<Map.Entry<String, JsonNode>>[] newIterators(int n) { return new Iterator[n]; }

    /** Number of scalar values in the tree (at most {@value #MAX_LEAVES}), in document order. */
    public int leafCount() { return counts & 0xFFFF; }

    /** The field name under which scalar {@code i} sits (the array's field for array elements). */
    public String leafName(int i) { return leafNames[i]; }

    /** Scalar {@code i} (text, number or boolean). */
    public JsonNode leafValue(int i) { return leafValues[i]; }

    /** Arguments from a Jackson tree; a non-object node is kept under {@value #RAW_FIELD}. */
    public static Args of(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) return NONE;
        if (node instanceof ObjectNode o) return new Args(o, false, null);
        ObjectNode o = NODES.objectNode();
        o.set(RAW_FIELD, node);
        return new Args(o, true, null);
    }

    /**
     * Arguments from JSON text as agent frameworks pass them (LangChain4j, Spring AI). Text that is
     * not a JSON object is kept as {@code {"_raw": text}} and flagged malformed; never throws.
     */
    public static Args ofJson(String text) {
        if (text == null || text.isBlank()) return NONE;
        try {
            JsonNode n = JSON.readTree(text);
            if (n instanceof ObjectNode o) return new Args(o, false, null);
        } catch (JsonProcessingException | RuntimeException e) {
            // falls through: kept raw, see class comment
        }
        ObjectNode o = NODES.objectNode();
        o.put(RAW_FIELD, text);
        return new Args(o, true, null);
    }

    /** Arguments from a Java map as MCP passes them; values may be maps, collections, arrays, numbers, strings, booleans or null. */
    public static Args of(Map<String, ?> map) {
        if (map == null) return NONE;
        return new Args((ObjectNode) toNode(map, 0), false, null);
    }

    /** Converts a Java value to a JSON node; other objects become their {@code toString()}. */
    public static JsonNode toNode(Object v, int depth) {
        if (depth > MAX_DEPTH) throw new IllegalArgumentException(
                "tool arguments nest deeper than " + MAX_DEPTH + " levels (cyclic map?)");
        if (v == null) return NODES.nullNode();
        if (v instanceof JsonNode n) return n;
        if (v instanceof CharSequence s) return NODES.textNode(s.toString());
        if (v instanceof Boolean b) return NODES.booleanNode(b);
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            long l = ((Number) v).longValue();
            // the node type JSON parsing would give, so maps and JSON text compare equal
            return l == (int) l ? NODES.numberNode((int) l) : NODES.numberNode(l);
        }
        if (v instanceof Double || v instanceof Float) return NODES.numberNode(((Number) v).doubleValue());
        if (v instanceof BigDecimal d) return NODES.numberNode(d);
        if (v instanceof BigInteger i) return NODES.numberNode(i);
        if (v instanceof Number n) return NODES.numberNode(n.doubleValue());
        if (v instanceof Map<?, ?> m) {
            ObjectNode o = NODES.objectNode();
            for (Map.Entry<?, ?> e : m.entrySet()) o.set(String.valueOf(e.getKey()), toNode(e.getValue(), depth + 1));
            return o;
        }
        if (v instanceof Collection<?> c) {
            ArrayNode a = NODES.arrayNode();
            for (Object x : c) a.add(toNode(x, depth + 1));
            return a;
        }
        if (v.getClass().isArray()) {
            ArrayNode a = NODES.arrayNode();
            int n = Array.getLength(v);
            for (int i = 0; i < n; i++) a.add(toNode(Array.get(v, i), depth + 1));
            return a;
        }
        return NODES.textNode(v.toString());
    }

    /** The value at {@code path}, or null when absent (an explicit JSON null counts as absent). */
    public JsonNode get(Path path) {
        final String[] names = fieldNames;
        if (names != null) return fieldAt(names, path);
        JsonNode n = root;
        String[] segs = path.segments;
        int[] idx = path.indices;
        for (int i = 0; i < segs.length; i++) {
            JsonNode next;
            if (n instanceof ObjectNode o) next = o.get(segs[i]);
            else if (n instanceof ArrayNode a && idx[i] >= 0) next = a.get(idx[i]);
            else return null;
            if (next == null || next.isNull()) return null;
            n = next;
        }
        return n;
    }

    /** {@link #get} on arguments built from scalar fields: a path of more than one segment reads into a scalar, so finds nothing. */
    private JsonNode fieldAt(String[] names, Path path) {
        String[] segs = path.segments;
        if (segs.length != 1) return null;
        String s = segs[0];
        final JsonNode[] values = fieldValues;
        final int n = fields();
        // path segments are interned, and so are the parameter names the agent reads: then a reference compare finds
        // the field without reading any name's characters; names read from JSON text are compared by equals
        for (int i = 0; i < n; i++) if (names[i] == s) return values[i].isNull() ? null : values[i];
        for (int i = 0; i < n; i++) if (s.equals(names[i])) return values[i].isNull() ? null : values[i];
        return null;
    }

    /** The root object (read-only by contract: do not modify). */
    public ObjectNode root() {
        ObjectNode r = root;
        return r != null ? r : builtRoot();
    }

    /** The tree of arguments built from scalar fields, made once (two racing threads may each make an equal one). */
    private ObjectNode builtRoot() {
        ObjectNode r = built;
        if (r == null) {
            r = NODES.objectNode();
            for (int i = 0, n = fields(); i < n; i++) r.set(fieldNames[i], fieldValues[i]);
            built = r;
        }
        return r;
    }

    /** Number of top-level fields. */
    public int size() { return fieldNames != null ? fields() : root.size(); }

    /** True when the arguments were not a JSON object and are kept raw. */
    public boolean malformed() { return counts < 0; }

    /**
     * True when the arguments the tool gets are not known: kept raw here ({@link #malformed()}), or read back from a
     * record of such arguments, an object whose one field is {@value #RAW_FIELD} holding text (as the agent's audit log
     * writes them), so that replay judges the call as the agent did. Atoms that read an argument of such a call are
     * unevaluable, never false. Read on the cold path only (an argument was not found).
     */
    public boolean unreadable() {
        if (malformed()) return true;
        if (size() != 1) return false;
        JsonNode raw = get(RAW_PATH);
        return raw != null && raw.isTextual();
    }

    private static final Path RAW_PATH = Path.field(RAW_FIELD);

    /** Top-level field names in order. */
    public Iterator<String> fieldNames() { return root().fieldNames(); }

    /**
     * Data categories the extractor finds in the arguments, as {@link DataCategory#bit()}s: field-name
     * hints on every scalar, and the detectors on every text scalar and on integral numbers of seven or
     * more digits. Computed on first use and remembered (the result depends on the arguments only).
     *
     * @param scratch the caller's reusable sink (thread-private)
     */
    public long categoryMask(SpanSink.Mask scratch) {
        long d = CategoryMemo.known(categories);
        if (d >= 0) return d;
        DataCategoryExtractor x = DataCategoryExtractor.INSTANCE;
        long m = 0;
        for (int i = 0, leaves = leafCount(); i < leaves; i++) {
            JsonNode v = leafValues[i];
            if (v.isTextual() && v.textValue().isBlank()) continue;
            DataCategory hint = x.fieldHint(leafNames[i]);
            if (hint != null) m |= hint.bit();
            // detectors of categories already found in earlier values are left out (the mask is the same)
            if (v.isTextual()) m |= x.mask(v.textValue(), scratch, m);
            else if (v.isIntegralNumber() && hint == null && Math.abs(v.doubleValue()) >= 1_000_000) {
                m |= x.mask(v.asText(), scratch, m); // phone-, card- or id-sized numbers only: small ones are amounts
            }
        }
        rememberCategoryMask(m);
        return m;
    }

    /** What {@link #categoryMask} remembers, or -1 before it (or {@link #rememberCategoryMask}) ran. */
    public long knownCategoryMask() {
        return CategoryMemo.known(categories);
    }

    /**
     * Remembers {@code mask} as {@link #categoryMask} would compute it, for a caller that scanned every
     * value in full the same way (the grounding, which scans only as far as its atoms ask); a mask
     * remembered before stays.
     */
    public void rememberCategoryMask(long mask) {
        int c = categories, n = CategoryMemo.withKnown(c, mask);
        if (n != c) categories = n;
    }

    /** Categories a scan that stopped early found in the values (all present, maybe not all there are); 0 when none. */
    public long categoriesFound() { return CategoryMemo.found(categories); }

    /** Adds categories found in the values by a scan that stopped early (a racing update may drop some: they are found again). */
    public void rememberCategoriesFound(long bits) {
        int c = categories, n = CategoryMemo.withFound(c, bits);
        if (n != c) categories = n;
    }

    /** Compact JSON text of the arguments (computed once per event). */
    public String json() {
        String j = json;
        if (j == null) {
            j = root().toString();
            json = j;
        }
        return j;
    }

    @Override public String toString() { return json(); }

    @Override public boolean equals(Object o) { return o instanceof Args a && a.root().equals(root()); }

    @Override public int hashCode() { return root().hashCode(); }

    /** A precompiled field path: a name, or dotted names and array indices ({@code customer.emails.0}). */
    public static final class Path {
        private final String text;
        final String[] segments;
        final int[] indices;

        private Path(String text, String[] segments) {
            this.text = text;
            this.segments = segments;
            this.indices = new int[segments.length];
            for (int i = 0; i < segments.length; i++) {
                segments[i] = segments[i].intern();   // so that a lookup among interned field names is a reference compare
                indices[i] = index(segments[i]);
            }
        }

        /** Parses {@code a.b.0}; a field whose name contains a dot can only be read as a whole top-level name. */
        public static Path of(String text) {
            if (text == null || text.isBlank()) throw new IllegalArgumentException("empty argument path");
            String t = text.trim();
            String[] segs = t.split("\\.", -1);
            for (String s : segs) {
                if (s.isEmpty()) throw new IllegalArgumentException("argument path '" + text + "' has an empty segment");
            }
            return new Path(t, segs);
        }

        /** A path of one top-level field, dots and all. */
        public static Path field(String name) { return new Path(name, new String[] {name}); }

        private static int index(String s) {
            if (s.isEmpty() || s.length() > 9) return -1;
            int v = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < '0' || c > '9') return -1;
                v = v * 10 + (c - '0');
            }
            return v;
        }

        /** The last segment (used as a field-name hint by the data-category extractor). */
        public String leaf() { return segments[segments.length - 1]; }

        @Override public String toString() { return text; }

        @Override public boolean equals(Object o) { return o instanceof Path p && p.text.equals(text); }

        @Override public int hashCode() { return text.hashCode(); }
    }
}
