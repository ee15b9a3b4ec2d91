package dev.tracegate.agent.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tracegate.contracts.library.YamlSyntax;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a YAML configuration file into {@link Raw} values that remember their line and column. */
final class YamlFile {
    private static final YAMLFactory YAML = new YAMLFactory();

    private final String name;

    private YamlFile(String name) { this.name = name; }

    /** The file's root value: a mapping, or null for an empty file. */
    static Raw read(String name, Reader in) throws IOException {
        YamlFile f = new YamlFile(name);
        // a configuration file is small: its text is kept to say where a syntax mistake most likely is
        StringBuilder read = new StringBuilder();
        char[] buf = new char[4096];
        for (int n; (n = in.read(buf)) > 0; ) read.append(buf, 0, n);
        String text = read.toString();
        try (JsonParser p = YAML.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) return null;
            Raw root = f.value(p, t);
            if (p.nextToken() != null) {
                throw new ConfigException(f.at(p.currentTokenLocation()).text, null,
                        "the file holds more than one YAML document. Keep one document (remove the '---' line).");
            }
            if (root.isNull()) return null;
            if (root.fields == null) {
                throw new ConfigException(root.source.text, null, "the file must be a mapping of keys to values, but it is "
                        + root.shown() + ". Write e.g. 'mode: enforce' on its own line (see CONFIG.md).");
            }
            return root;
        } catch (JsonProcessingException e) {
            YamlSyntax y = YamlSyntax.of(text, e);
            Source where = y.line() > 0 ? Source.file(name, y.line(), Math.max(1, y.column())) : f.at(e.getLocation());
            String fix = y.hint() != null ? Character.toUpperCase(y.hint().charAt(0)) + y.hint().substring(1) + "."
                    : "Fix the syntax here: keys and values as 'key: value', nested keys indented by spaces, lists as '- item'.";
            throw new ConfigException(where.text, null, "this is not valid YAML: " + y.problem() + ". " + fix);
        }
    }

    private Source at(JsonLocation loc) {
        if (loc == null) return Source.file(name, 1, 1);
        return Source.file(name, Math.max(1, loc.getLineNr()), Math.max(1, loc.getColumnNr()));
    }

    private Raw value(JsonParser p, JsonToken t) throws IOException {
        Source here = at(p.currentTokenLocation());
        switch (t) {
            case START_OBJECT: {
                Map<String, Raw> fields = new LinkedHashMap<>();
                Map<String, Source> keys = new LinkedHashMap<>();
                while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    Source keyAt = at(p.currentTokenLocation());
                    if (fields.containsKey(key)) {
                        throw new ConfigException(keyAt.text, key, "the key '" + key + "' appears twice in the same mapping (first at "
                                + keys.get(key).text + "). Keep one of them.");
                    }
                    keys.put(key, keyAt);
                    fields.put(key, value(p, p.nextToken()));
                }
                return Raw.mapping(here, fields, keys);
            }
            case START_ARRAY: {
                List<Raw> items = new ArrayList<>();
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) items.add(value(p, t));
                return Raw.list(here, items);
            }
            case VALUE_NULL:
                return Raw.nothing(here);
            default:
                return Raw.scalar(here, p.getText());
        }
    }
}
