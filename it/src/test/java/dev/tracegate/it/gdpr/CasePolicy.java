package dev.tracegate.it.gdpr;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The oracle's own reading of a case policy's {@code gdpr:} section: purposes and the categories each
 * needs, which purposes need consent, tool bindings, field categories, consent and erasure tools. It
 * reads the small YAML subset the policy files use (block mappings, {@code [a, b]} and {@code {k: v}})
 * by hand, so nothing of tracegate's loader or predicates is shared.
 */
record CasePolicy(Map<String, Set<String>> purposes, Set<String> consentPurposes, Map<String, Set<String>> tools,
                  Map<String, Map<String, String>> fields, Map<String, ConsentTool> consentTools,
                  Map<String, String> erasureTools) {

    /** A tool that records consent: which argument names the subject, the purposes, and grant or withdrawal. */
    record ConsentTool(String subject, String purposes, String granted) {}

    static CasePolicy read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read policy " + file, e);
        }
        Map<String, Object> gdpr = section(lines, file);
        Map<String, Set<String>> purposes = new LinkedHashMap<>();
        mapping(gdpr, "purposes").forEach((k, v) -> purposes.put(k, new LinkedHashSet<>(list(v))));
        Map<String, Set<String>> tools = new LinkedHashMap<>();
        mapping(gdpr, "tools").forEach((k, v) -> tools.put(k, new LinkedHashSet<>(list(v))));
        Map<String, Map<String, String>> fields = new LinkedHashMap<>();
        mapping(gdpr, "fields").forEach((k, v) -> fields.put(k, flowMap(v)));
        Map<String, ConsentTool> consent = new LinkedHashMap<>();
        mapping(gdpr, "consent-tools").forEach((k, v) -> {
            Map<String, String> m = flowMap(v);
            consent.put(k, new ConsentTool(m.get("subject"), m.get("purposes"), m.get("granted")));
        });
        Map<String, String> erasure = new LinkedHashMap<>();
        mapping(gdpr, "erasure-tools").forEach((k, v) -> erasure.put(k, flowMap(v).get("subject")));
        Set<String> consentPurposes = gdpr.containsKey("consent-purposes")
                ? new LinkedHashSet<>(list((String) gdpr.get("consent-purposes"))) : new LinkedHashSet<>(purposes.keySet());
        for (Set<String> ps : tools.values()) {
            for (String p : ps) if (!purposes.containsKey(p)) throw new IllegalArgumentException(file + ": tool bound to undeclared purpose " + p);
        }
        return new CasePolicy(purposes, consentPurposes, tools, fields, consent, erasure);
    }

    /** The categories the purposes of a tool need together. */
    Set<String> needed(String tool) {
        Set<String> n = new LinkedHashSet<>();
        for (String p : tools.getOrDefault(tool, Set.of())) n.addAll(purposes.get(p));
        return n;
    }

    /** Argument names that name a data subject (the consent and erasure tools' subject fields). */
    Set<String> subjectFields() {
        Set<String> s = new LinkedHashSet<>();
        consentTools.values().forEach(c -> s.add(c.subject()));
        s.addAll(erasureTools.values());
        return s;
    }

    // --- the YAML subset: top-level 'gdpr:', two-space indented keys with a value or a nested block ---

    private static Map<String, Object> section(List<String> lines, Path file) {
        int i = 0;
        while (i < lines.size() && !lines.get(i).startsWith("gdpr:")) i++;
        if (i == lines.size()) throw new IllegalArgumentException(file + ": no top-level 'gdpr:' section");
        Map<String, Object> root = new LinkedHashMap<>();
        Map<String, Object> current = null;
        for (i++; i < lines.size(); i++) {
            String raw = stripComment(lines.get(i));
            if (raw.isBlank()) continue;
            int indent = raw.length() - raw.stripLeading().length();
            if (indent == 0) break;
            String line = raw.strip();
            int colon = line.indexOf(':');
            if (colon < 0) throw new IllegalArgumentException(file + ":" + (i + 1) + ": expected 'key: value', got '" + line + "'");
            String key = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            if (indent == 2) {
                if (value.isEmpty()) {
                    current = new LinkedHashMap<>();
                    root.put(key, current);
                } else {
                    root.put(key, value);
                    current = null;
                }
            } else if (indent == 4 && current != null) {
                current.put(key, value);
            } else {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": unexpected indentation (this reader takes two levels of two spaces)");
            }
        }
        return root;
    }

    private static String stripComment(String s) {
        int h = s.indexOf(" #");
        return h >= 0 ? s.substring(0, h) : s.startsWith("#") ? "" : s;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> mapping(Map<String, Object> gdpr, String key) {
        Object v = gdpr.get(key);
        if (v == null) return Map.of();
        if (!(v instanceof Map)) throw new IllegalArgumentException("gdpr." + key + " must be a block mapping");
        Map<String, String> out = new LinkedHashMap<>();
        ((Map<String, Object>) v).forEach((k, x) -> out.put(k, (String) x));
        return out;
    }

    private static List<String> list(String flow) {
        String s = flow.strip();
        if (!s.startsWith("[") || !s.endsWith("]")) return List.of(s);
        List<String> out = new ArrayList<>();
        for (String p : s.substring(1, s.length() - 1).split(",")) if (!p.isBlank()) out.add(p.strip().toLowerCase());
        return out;
    }

    private static Map<String, String> flowMap(String flow) {
        String s = flow.strip();
        if (!s.startsWith("{") || !s.endsWith("}")) throw new IllegalArgumentException("expected {key: value, ...}, got " + flow);
        Map<String, String> out = new LinkedHashMap<>();
        for (String p : s.substring(1, s.length() - 1).split(",")) {
            if (p.isBlank()) continue;
            int c = p.indexOf(':');
            out.put(p.substring(0, c).strip(), p.substring(c + 1).strip().toLowerCase());
        }
        return out;
    }
}
