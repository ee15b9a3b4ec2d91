package dev.tracegate.agent.core;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes a host's Java value (a configured method's argument or result) as JSON text within fixed bounds, reading only
 * what cannot change the value: it never advances an iterator or a stream and never calls the host's getters.
 *
 * <p>What is read how: text, numbers, booleans, characters and enums as themselves; {@code java.time} values, UUIDs,
 * URIs, paths and other JDK value types as their text; dates as epoch milliseconds (as Jackson writes them); an
 * {@code Optional} as its value or {@code null}; arrays, collections (through their own iterator, which a collection
 * hands out afresh) and maps as JSON arrays and objects; a library's JSON tree (Jackson's JsonNode, Gson's JsonElement,
 * org.json, the Anthropic SDK's JsonValue) as the JSON it holds ({@link JsonTree}); a record by its component fields; any other host object by
 * its instance fields (not static, not transient), read directly, never through a getter. Not read at all, written as
 * {@code "[not read: CLASS]"}: iterators, enumerations, spliterators, streams, an {@code Iterable} that is not a
 * {@code Collection} (it may be one-shot), I/O streams, readers, writers, channels, futures, threads, lambdas, and a
 * host object whose fields its module does not open. Any other JDK object is written as its {@code toString()}.
 *
 * <p>Bounds: {@value #MAX_DEPTH} nested levels, {@value #MAX_ELEMENTS} elements of one array, collection or map, and
 * {@value #MAX_CHARS} characters of text in all; a cycle (a value that contains itself) is cut where it closes. A cut
 * leaves valid JSON with a marker ({@code "[cut: ...]"}) in the cut's place and is reported by {@link Written#cut()}:
 * the caller decides by the fail policy what a value that could not be read whole means. Not thread-safe: one
 * instance per value.
 */
public final class ValueText {
    /** Nesting levels written; a deeper value is cut. */
    public static final int MAX_DEPTH = 100;
    /** Elements of one array, collection or map written; the rest are cut. */
    public static final int MAX_ELEMENTS = 10_000;
    /** Characters of text written for one value, about; the rest is cut. */
    public static final int MAX_CHARS = 4_194_304;

    /** The JSON text of a value, and why it is not the whole value ({@code null} when it is). */
    public record Written(String json, String cut) {
    }

    private static final ClassValue<Field[]> FIELDS = new ClassValue<Field[]>() {
        @Override
        protected Field[] computeValue(Class<?> type) {
            return readableFields(type);
        }
    };
    private static final Field[] UNREADABLE = new Field[0];

    private final StringBuilder out = new StringBuilder(64);
    private final Object[] path = new Object[MAX_DEPTH + 1];
    private String cut;
    private boolean full;

    private ValueText() {
    }

    /** The value's JSON text within the bounds. */
    public static Written write(Object value) {
        ValueText w = new ValueText();
        w.value(value, 0);
        return new Written(w.out.toString(), w.cut);
    }

    private void cut(String why) {
        if (cut == null) cut = why;
    }

    /** True (and the marker written once) when the text has reached {@link #MAX_CHARS}: every container then stops. */
    private boolean overBudget() {
        if (full) return true;
        if (out.length() < MAX_CHARS) return false;
        full = true;
        cut("the text is longer than " + MAX_CHARS + " characters");
        return true;
    }

    private void value(Object v, int depth) {
        if (v == null) {
            out.append("null");
            return;
        }
        if (v instanceof String s) {
            string(s);
            return;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            out.append(((Number) v).longValue());   // final classes: the JDK's own text
            return;
        }
        Class<?> numberType = v.getClass();
        if (numberType == java.math.BigInteger.class || numberType == java.math.BigDecimal.class) {
            // these two classes exactly: a subclass is an application class, whose toString() is the application's code
            // (unquoted, it could write any text into the JSON: keys a contract reads; trial46 04), read as its fields below
            out.append(v);
            return;
        }
        if (v instanceof java.util.concurrent.atomic.AtomicLong n) {
            out.append(n.get());   // get() is final: a subclass's number, with no code of the application run
            return;
        }
        if (v instanceof java.util.concurrent.atomic.AtomicInteger n) {
            out.append(n.get());
            return;
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) string(v.toString());   // as Jackson writes them: text
            else out.append(v);
            return;
        }
        if (v instanceof Boolean) {
            out.append(((Boolean) v).booleanValue());
            return;
        }
        if (v instanceof java.util.concurrent.atomic.AtomicBoolean b) {
            out.append(b.get());
            return;
        }
        if (v instanceof Character) {
            string(v.toString());
            return;
        }
        if (v instanceof Enum<?> e) {
            string(e.name());
            return;
        }
        Class<?> type = v.getClass();
        boolean jdk = jdk(type);
        if (v instanceof java.util.Date d) {
            out.append(d.getTime());
            return;
        }
        if (v instanceof java.util.Calendar c) {
            out.append(c.getTimeInMillis());
            return;
        }
        if (v instanceof Class<?> c) {
            string(c.getName());
            return;
        }
        if (v instanceof java.util.Optional<?> o) {
            value(o.orElse(null), depth);
            return;
        }
        if (v instanceof java.util.OptionalInt o) {
            if (o.isPresent()) out.append(o.getAsInt()); else out.append("null");
            return;
        }
        if (v instanceof java.util.OptionalLong o) {
            if (o.isPresent()) out.append(o.getAsLong()); else out.append("null");
            return;
        }
        if (v instanceof java.util.OptionalDouble o) {
            if (o.isPresent()) value(o.getAsDouble(), depth); else out.append("null");
            return;
        }
        if (!jdk) {
            JsonTree tree = JSON_TREES.get(type);
            if (tree != JsonTree.NONE) {
                // a library's JSON tree (Jackson's JsonNode, Gson's JsonElement, org.json, the Anthropic SDK's JsonValue): its
                // JSON, not its internals (trial46 05: {"values":{"recipient":{"value":...}}}, which no contract could read).
                // Before notRead: a JsonNode is an Iterable
                tree(v, tree, depth);
                return;
            }
        }
        if (notRead(v, type)) {
            marker("[not read: " + type.getName() + "]");
            return;
        }
        if (jdk && (v instanceof CharSequence || v instanceof Number || v instanceof java.time.temporal.TemporalAccessor
                || v instanceof java.time.temporal.TemporalAmount || v instanceof java.time.ZoneId || v instanceof java.time.Clock
                || v instanceof java.util.UUID || v instanceof java.net.URI || v instanceof java.net.URL || v instanceof java.io.File
                || v instanceof java.nio.file.Path || v instanceof java.util.Locale || v instanceof java.util.Currency
                || v instanceof java.util.regex.Pattern || v instanceof java.nio.charset.Charset || v instanceof java.net.InetAddress
                || v instanceof java.util.TimeZone)) {
            string(v.toString());
            return;
        }
        if (v instanceof char[] chars) {
            string(new String(chars, 0, Math.min(chars.length, MAX_CHARS)));
            if (chars.length > MAX_CHARS) cut("a char[] of " + chars.length + " characters");
            return;
        }
        if (v instanceof byte[] bytes) {
            // base64, as Jackson writes a byte[]
            int n = Math.min(bytes.length, MAX_CHARS / 4 * 3);
            string(java.util.Base64.getEncoder().encodeToString(n == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, n)));
            if (n < bytes.length) cut("a byte[] of " + bytes.length + " bytes");
            return;
        }
        if (v instanceof Throwable t) {
            String message = t.getMessage();
            string(message == null ? type.getName() : type.getName() + ": " + message);
            return;
        }
        // a container from here on: bounded by depth, and a value already on the path is a cycle
        if (depth >= MAX_DEPTH) {
            marker("[cut: deeper than " + MAX_DEPTH + " levels]");
            cut("nested deeper than " + MAX_DEPTH + " levels");
            return;
        }
        for (int i = 0; i < depth; i++) {
            if (path[i] == v) {
                marker("[cut: cycle, a " + type.getName() + " that contains itself]");
                cut("a cycle: a " + type.getName() + " contains itself");
                return;
            }
        }
        path[depth] = v;
        try {
            if (type.isArray()) array(v, depth);
            else if (v instanceof Collection<?> c) collection(c, depth);
            else if (v instanceof Map<?, ?> m) map(m, depth);
            else if (jdk) string(String.valueOf(v));
            else object(v, type, depth);
        } finally {
            path[depth] = null;
        }
    }

    /**
     * How a library's JSON tree value is written: by the one field that holds its content (an object node's map, an array
     * node's list, a scalar node's value), which the writer then writes as it writes any map, list or value, so the text is
     * the tree's JSON, never its internals, and is JSON by construction (no library code runs, no text is spliced: a
     * toString() is never read, review of bb761ed7). A node with no instance field (Jackson's NullNode and MissingNode,
     * Gson's JsonNull, the Anthropic SDK's JsonNull and JsonMissing, org.json's JSONObject.NULL) is null. Recognised by the
     * names of the class's supertypes, so no library is referenced; a class of such a family whose content field is not
     * one of the known names (a future version) is written by its fields, as before.
     */
    static final class JsonTree {
        static final JsonTree NONE = new JsonTree(null, false);
        static final JsonTree NULL = new JsonTree(null, false);
        /** The field that holds the content; null for {@link #NULL}. */
        final Field content;
        /** Gson's LazilyParsedNumber: its text, written as the number it is (a text that is none is written as a string). */
        final boolean numberText;

        private JsonTree(Field content, boolean numberText) {
            this.content = content;
            this.numberText = numberText;
        }

        /** The roots, by name, and the names of their content fields, in the order looked for. Built at run time: see below. */
        private static final Map<String, List<String>> ROOTS = roots();

        private static Map<String, List<String>> roots() {
            // the names are joined at run time: the agent jar relocates its own Jackson, and a constant naming Jackson's
            // package would be relocated with it, so the application's Jackson would never be recognised
            String jackson = String.join(".", "com", "fasterxml", "jackson", "databind", "JsonNode");
            List<String> jacksonFields = List.of("_children", "_value", "_data");
            return Map.of(jackson, jacksonFields,
                    String.join(".", "tools", "jackson", "databind", "JsonNode"), jacksonFields,   // Jackson 3
                    "com.google.gson.JsonElement", List.of("members", "elements", "value"),
                    "org.json.JSONObject", List.of("map"),
                    "org.json.JSONArray", List.of("myArrayList"),
                    "com.anthropic.core.JsonField", List.of("values", "value"));
        }

        static JsonTree of(Class<?> type) {
            String name = type.getName();
            if (name.equals("org.json.JSONObject$Null")) return NULL;
            if (name.equals("com.google.gson.internal.LazilyParsedNumber")) {
                Field f = field(type, "value");
                return f == null ? NONE : new JsonTree(f, true);
            }
            List<String> fields = null;
            for (Class<?> c = type; c != null && c != Object.class && fields == null; c = c.getSuperclass()) {
                fields = ROOTS.get(c.getName());
                if (fields == null) {
                    for (Class<?> i : c.getInterfaces()) {
                        fields = ROOTS.get(i.getName());
                        if (fields != null) break;
                    }
                }
            }
            if (fields == null) return NONE;
            for (String f : fields) {
                Field content = field(type, f);
                if (content != null) return new JsonTree(content, false);
            }
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) return NONE;   // unknown content: by its fields
                }
            }
            return NULL;
        }

        /** The instance field {@code name} of the class or a superclass, made readable; null if none or not readable. */
        private static Field field(Class<?> type, String name) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                try {
                    Field f = c.getDeclaredField(name);
                    if (Modifier.isStatic(f.getModifiers())) return null;
                    if (!c.getModule().isOpen(c.getPackageName(), ValueText.class.getModule()) && !openToAgent(c, ValueText.class.getModule())) {
                        return null;
                    }
                    return f.trySetAccessible() ? f : null;
                } catch (NoSuchFieldException | SecurityException e) {
                    // a superclass's
                }
            }
            return null;
        }
    }

    private static final ClassValue<JsonTree> JSON_TREES = new ClassValue<JsonTree>() {
        @Override
        protected JsonTree computeValue(Class<?> type) {
            try {
                return JsonTree.of(type);
            } catch (RuntimeException | LinkageError e) {
                return JsonTree.NONE;
            }
        }
    };

    /** Whether {@code v} is a library's JSON tree value the writer writes as its JSON ({@link JsonTree}). */
    public static boolean jsonTree(Object v) {
        return v != null && !jdk(v.getClass()) && JSON_TREES.get(v.getClass()) != JsonTree.NONE;
    }

    /** Whether {@code t} is a JSON number's text ({@code -?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?}): Gson's LazilyParsedNumber holds the text it parsed. */
    static boolean jsonNumber(String t) {
        int i = 0, n = t.length();
        if (i < n && t.charAt(i) == '-') i++;
        int start = i;
        while (i < n && t.charAt(i) >= '0' && t.charAt(i) <= '9') i++;
        if (i == start || (t.charAt(start) == '0' && i - start > 1)) return false;
        if (i < n && t.charAt(i) == '.') {
            int f = ++i;
            while (i < n && t.charAt(i) >= '0' && t.charAt(i) <= '9') i++;
            if (i == f) return false;
        }
        if (i < n && (t.charAt(i) == 'e' || t.charAt(i) == 'E')) {
            i++;
            if (i < n && (t.charAt(i) == '+' || t.charAt(i) == '-')) i++;
            int e = i;
            while (i < n && t.charAt(i) >= '0' && t.charAt(i) <= '9') i++;
            if (i == e) return false;
        }
        return i == n;
    }

    private void tree(Object v, JsonTree tree, int depth) {
        if (tree.content == null) {
            out.append("null");
            return;
        }
        Object content;
        try {
            content = tree.content.get(v);
        } catch (IllegalAccessException | RuntimeException e) {
            marker("[not read: " + v.getClass().getName() + "]");
            return;
        }
        if (tree.numberText) {
            String text = content instanceof String t ? t : null;
            if (text != null && text.length() < 1000 && jsonNumber(text)) out.append(text);   // checked: a number only
            else value(content, depth);
            return;
        }
        if (depth >= MAX_DEPTH) {
            marker("[cut: deeper than " + MAX_DEPTH + " levels]");
            cut("nested deeper than " + MAX_DEPTH + " levels");
            return;
        }
        value(content, depth);   // a map, a list or a value: at the node's own level, as the JSON nests it
    }

    /** Kinds whose content cannot be read without consuming or running it. */
    private static boolean notRead(Object v, Class<?> type) {
        return v instanceof Iterator || v instanceof java.util.Enumeration || v instanceof java.util.Spliterator
                || v instanceof java.util.stream.BaseStream || (v instanceof Iterable && !(v instanceof Collection))
                || v instanceof java.io.InputStream || v instanceof java.io.OutputStream || v instanceof java.io.Reader
                || v instanceof java.io.Writer || v instanceof java.nio.channels.Channel || v instanceof java.util.concurrent.Future
                || v instanceof Thread || v instanceof ClassLoader || type.isSynthetic() || type.isHidden();
    }

    private void array(Object array, int depth) {
        int n = java.lang.reflect.Array.getLength(array);
        out.append('[');
        int i = 0;
        for (; i < n && i < MAX_ELEMENTS; i++) {
            if (i > 0) out.append(',');
            if (overBudget()) {
                marker("[cut]");
                out.append(']');
                return;
            }
            value(java.lang.reflect.Array.get(array, i), depth + 1);
        }
        if (i < n) more(n - i, "elements", i > 0);
        out.append(']');
    }

    private void collection(Collection<?> c, int depth) {
        out.append('[');
        int i = 0;
        Iterator<?> it = c.iterator();
        for (; i < MAX_ELEMENTS && it.hasNext(); i++) {
            if (i > 0) out.append(',');
            if (overBudget()) {
                marker("[cut]");
                out.append(']');
                return;
            }
            value(it.next(), depth + 1);
        }
        if (i == MAX_ELEMENTS && it.hasNext()) {
            int size = c.size();
            more(size > i ? size - i : 1, size > i ? "elements" : "element(s)", true);
        }
        out.append(']');
    }

    private void map(Map<?, ?> m, int depth) {
        out.append('{');
        int i = 0;
        Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
        for (; i < MAX_ELEMENTS && it.hasNext(); i++) {
            if (i > 0) out.append(',');
            if (overBudget()) {
                marker("[cut]");
                out.append(":null}");
                return;
            }
            Map.Entry<?, ?> e = it.next();
            string(key(e.getKey()));
            out.append(':');
            value(e.getValue(), depth + 1);
        }
        if (i == MAX_ELEMENTS && it.hasNext()) {
            int size = m.size();
            out.append(',');
            marker("[cut]");
            out.append(':');
            marker((size > i ? size - i : 1) + " more entries");
            cut("a map of more than " + MAX_ELEMENTS + " entries");
        }
        out.append('}');
    }

    private void more(int more, String what, boolean comma) {
        if (comma) out.append(',');
        marker("[cut: " + more + " more " + what + "]");
        cut("more than " + MAX_ELEMENTS + " elements");
    }

    /** A map key's text: JDK keys by their text, a host object by its class (its toString is the host's code). */
    private static String key(Object k) {
        if (k == null) return "null";
        if (k instanceof String s) return s;
        if (k instanceof Enum<?> e) return e.name();
        return jdk(k.getClass()) ? String.valueOf(k) : "[key: " + k.getClass().getName() + "]";
    }

    private void object(Object v, Class<?> type, int depth) {
        Field[] fields = FIELDS.get(type);
        if (fields == UNREADABLE) {
            marker("[not read: " + type.getName() + "]");
            return;
        }
        out.append('{');
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) out.append(',');
            if (overBudget()) {
                marker("[cut]");
                out.append(":null}");
                return;
            }
            string(fields[i].getName());
            out.append(':');
            Object field;
            try {
                field = fields[i].get(v);
            } catch (IllegalAccessException e) {
                field = "[not read]";
            }
            value(field, depth + 1);
        }
        out.append('}');
    }

    /**
     * The instance fields of a host class and its host superclasses (not static, not transient, not synthetic), made
     * readable; a record's are its components. {@link #UNREADABLE} when its module does not open the class to the agent.
     */
    static Field[] readableFields(Class<?> type) {
        Module agent = ValueText.class.getModule();
        List<Field> fields = new ArrayList<>();
        if (type.isRecord()) {
            openToAgent(type, agent);
            for (RecordComponent c : type.getRecordComponents()) {
                try {
                    Field f = type.getDeclaredField(c.getName());
                    if (!f.trySetAccessible()) return UNREADABLE;
                    fields.add(f);
                } catch (NoSuchFieldException | SecurityException e) {
                    return UNREADABLE;
                }
            }
            return fields.toArray(new Field[0]);
        }
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class && !jdk(c); c = c.getSuperclass()) chain.add(0, c);
        for (Class<?> c : chain) {
            if (!c.getModule().isOpen(c.getPackageName(), agent) && !openToAgent(c, agent)) {
                if (c == type) return UNREADABLE;
                continue;
            }
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.isSynthetic()) continue;
                try {
                    if (f.trySetAccessible()) fields.add(f);
                } catch (SecurityException e) {
                    // left out
                }
            }
        }
        return fields.toArray(new Field[0]);
    }

    /** What opens a named module's package to the agent ({@link #openToAgent}); set at the agent's start, else null. */
    private static volatile java.lang.instrument.Instrumentation opener;
    /** Packages already warned about (the module could not be opened), "module/package". */
    private static final java.util.Set<String> closedSaid = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Lets the agent open the packages of the arguments it reads (trial40 07); called at start. */
    public static void openWith(java.lang.instrument.Instrumentation instrumentation) {
        opener = instrumentation;
    }

    /**
     * Whether {@code type}'s package is open to the agent's module, opening it if not: an application in a named module
     * that opens nothing (a JPMS app on the module path) would else have every record or object argument of a configured
     * method read as "[not read]", and so every call refused as uncheckable (trial40 07), where the class path reads them.
     * An agent may open a package to itself ({@code Instrumentation.redefineModule}); it opens it to the agent's module
     * only, once per package (the module then is open to it). Where it cannot, one WARN names the module, the package and
     * the JVM option that does it.
     */
    static boolean openToAgent(Class<?> type, Module agent) {
        Module module = type.getModule();
        String pkg = type.getPackageName();
        if (!module.isNamed() || module.isOpen(pkg, agent)) return true;
        java.lang.instrument.Instrumentation inst = opener;
        if (inst != null && inst.isModifiableModule(module)) {
            try {
                inst.redefineModule(module, java.util.Set.of(), java.util.Map.of(), java.util.Map.of(pkg, java.util.Set.of(agent)),
                        java.util.Set.of(), java.util.Map.of());
                if (module.isOpen(pkg, agent)) {
                    AgentLog.debug("opened package " + pkg + " of module " + module.getName() + " to the agent, to read " + type.getName());
                    return true;
                }
            } catch (RuntimeException e) {
                AgentLog.debug("could not open package " + pkg + " of module " + module.getName() + ": " + e);
            }
        }
        if (closedSaid.add(module.getName() + "/" + pkg)) {
            AgentLog.warn("module " + module.getName() + " does not open package " + pkg + " to tracegate, which therefore cannot read "
                    + type.getName() + " (arguments of this type are recorded as [not read], and a contract that needs their fields"
                    + " cannot check them): run the JVM with --add-opens " + module.getName() + "/" + pkg + "=ALL-UNNAMED");
        }
        return false;
    }

    /** A JDK class (its code is the platform's, not the host's). */
    static boolean jdk(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        return loader == null || loader == ClassLoader.getPlatformClassLoader();
    }

    /** A marker or placeholder the writer puts in: written whole, outside the length budget (it is short). */
    private void marker(String text) {
        JsonText.string(text, out);
    }

    /** Quotes and escapes as Jackson does; text beyond what the budget leaves is cut with a marker inside the string. */
    private void string(String s) {
        int room = Math.max(0, MAX_CHARS - out.length());
        if (s.length() <= room) {
            JsonText.string(s, out);
            return;
        }
        String kept = s.substring(0, room) + "[cut: " + (s.length() - room) + " more characters]";
        JsonText.string(kept, out);
        full = true;
        cut("the text is longer than " + MAX_CHARS + " characters");
    }
}
