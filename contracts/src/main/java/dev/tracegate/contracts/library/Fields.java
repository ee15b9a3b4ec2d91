package dev.tracegate.contracts.library;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Typed, positioned access to a YAML map, with errors that say where and how to fix. */
final class Fields {
    private final Node.MapNode map;
    private final String what;

    private Fields(Node.MapNode map, String what) {
        this.map = map;
        this.what = what;
    }

    /** The node as a map, or an error naming {@code what} it should have been. */
    static Fields of(Node n, String what, Set<String> allowed) {
        if (!(n instanceof Node.MapNode m)) {
            throw error(n, what + " must be a map, found " + n.kind(), "write it as 'key: value' lines indented under it");
        }
        for (Map.Entry<String, Node.Scalar> k : m.keys().entrySet()) {
            if (!allowed.contains(k.getKey())) {
                String near = closest(k.getKey(), allowed);
                throw error(k.getValue(), "unknown key '" + k.getKey() + "' in " + what,
                        (near != null ? "did you mean '" + near + "'? " : "") + "valid keys: " + String.join(", ", sorted(allowed)));
            }
        }
        return new Fields(m, what);
    }

    Node.MapNode node() { return map; }

    boolean has(String key) { return map.entries().containsKey(key); }

    Node get(String key) { return map.entries().get(key); }

    Node required(String key, String hint) {
        Node n = map.entries().get(key);
        if (n == null || (n instanceof Node.Scalar s && s.isNull())) {
            throw error(n == null ? map : n, what + " has no '" + key + "'", hint);
        }
        return n;
    }

    String string(String key, String dflt) {
        Node n = map.entries().get(key);
        if (n == null || (n instanceof Node.Scalar s0 && s0.isNull())) return dflt;
        return text(n, what + "." + key);
    }

    String requiredString(String key, String hint) { return name(required(key, hint), what + "." + key); }

    int integer(String key, int dflt, int min, int max) {
        Node n = map.entries().get(key);
        if (n == null) return dflt;
        if (n instanceof Node.Scalar s && s.type() == Node.Scalar.Type.INTEGER) {
            long v;
            try {
                v = Long.parseLong(s.text());
            } catch (NumberFormatException e) {
                v = Long.MAX_VALUE;
            }
            if (v < min || v > max) throw error(n, what + "." + key + " is " + s.text() + ", outside " + min + ".." + max, null);
            return (int) v;
        }
        throw error(n, what + "." + key + " must be an integer, found " + n.kind(), "for example: " + key + ": " + dflt);
    }

    boolean bool(String key, boolean dflt) {
        Node n = map.entries().get(key);
        if (n == null) return dflt;
        if (n instanceof Node.Scalar s && s.type() == Node.Scalar.Type.BOOLEAN) return Boolean.parseBoolean(s.text());
        throw error(n, what + "." + key + " must be true or false, found " + n.kind(), null);
    }

    String choice(String key, String dflt, Set<String> values) {
        Node n = map.entries().get(key);
        if (n == null) return dflt;
        String v = text(n, what + "." + key);
        if (!values.contains(v)) {
            String near = closest(v, values);
            throw error(n, what + "." + key + " is '" + v + "', which is not one of " + String.join(", ", sorted(values)),
                    near != null ? "did you mean '" + near + "'?" : null);
        }
        return v;
    }

    /** A list of strings; a single string is accepted as a one-element list. */
    List<String> strings(String key) {
        Node n = map.entries().get(key);
        return n == null ? List.of() : strings(n, what + "." + key);
    }

    static List<String> strings(Node n, String what) {
        if (n instanceof Node.Scalar s && !s.isNull()) return List.of(name(s, what));
        if (!(n instanceof Node.Seq seq)) throw error(n, what + " must be a list of strings, found " + n.kind(), "for example: [a, b]");
        List<String> out = new ArrayList<>();
        for (Node i : seq.items()) out.add(name(i, what + " item"));
        return out;
    }

    /** A string that names something (a tool, a purpose, a key): blank is an error. */
    static String name(Node n, String what) {
        String t = text(n, what);
        if (t.isBlank()) throw error(n, what + " is blank", "give it a name");
        return t;
    }

    /** Checks that a map key names something. */
    static String key(Node.MapNode m, String key, String what) {
        if (key.isBlank()) throw error(m.keys().get(key), what + " has a blank name", "give it a name");
        return key;
    }

    static String text(Node n, String what) {
        if (n instanceof Node.Scalar s && !s.isNull()) return s.text();
        throw error(n, what + " must be a string, found " + n.kind(), null);
    }

    static LibraryException error(Node n, String problem, String hint) {
        return new LibraryException(n.file(), n.line(), n.column(), problem, hint);
    }

    /** The allowed word nearest to {@code word} by edit distance, if it is close. */
    static String closest(String word, Iterable<String> allowed) {
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String a : allowed) {
            int d = Spelling.distance(word.toLowerCase(java.util.Locale.ROOT), a.toLowerCase(java.util.Locale.ROOT));
            if (d < bestD) {
                bestD = d;
                best = a;
            }
        }
        return best != null && bestD <= Math.max(2, word.length() / 3) ? best : null;
    }

    private static List<String> sorted(Set<String> s) {
        List<String> l = new ArrayList<>(s);
        l.sort(null);
        return l;
    }
}
