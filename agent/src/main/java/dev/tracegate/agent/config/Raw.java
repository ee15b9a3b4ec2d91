package dev.tracegate.agent.config;

import java.util.List;
import java.util.Map;

/** A configuration value as read, before it is checked against its key's type: a scalar text, a list or a mapping. */
final class Raw {
    final Source source;
    final String text;                 // scalar (null for lists, mappings and YAML null)
    final List<Raw> items;             // list
    final Map<String, Raw> fields;     // mapping, in file order
    final Map<String, Source> keySources;

    private Raw(Source source, String text, List<Raw> items, Map<String, Raw> fields, Map<String, Source> keySources) {
        this.source = source;
        this.text = text;
        this.items = items;
        this.fields = fields;
        this.keySources = keySources;
    }

    static Raw scalar(Source source, String text) { return new Raw(source, text, null, null, null); }

    static Raw nothing(Source source) { return new Raw(source, null, null, null, null); }

    static Raw list(Source source, List<Raw> items) { return new Raw(source, null, items, null, null); }

    static Raw mapping(Source source, Map<String, Raw> fields, Map<String, Source> keySources) {
        return new Raw(source, null, null, fields, keySources);
    }

    boolean isScalar() { return text != null; }

    boolean isNull() { return text == null && items == null && fields == null; }

    /** What it is, for messages: the quoted text, "a list" or "a mapping". */
    String shown() {
        if (text != null) return "'" + text + "'";
        if (items != null) return "a list";
        if (fields != null) return "a mapping";
        return "nothing";
    }
}
