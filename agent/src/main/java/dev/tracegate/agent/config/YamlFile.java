package dev.tracegate.agent.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
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
        try (JsonParser p = YAML.createParser(in)) {
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
            Source where = f.at(e.getLocation());
            String why = e.getOriginalMessage();
            if (e.getCause() instanceof MarkedYAMLException) {
                // snakeyaml's own problem and mark are more precise than the parser's current location
                MarkedYAMLException y = (MarkedYAMLException) e.getCause();
                if (y.getProblem() != null) why = y.getProblem();
                Mark m = y.getProblemMark();
                if (m != null) where = Source.file(name, m.getLine() + 1, m.getColumn() + 1);
            }
            why = why.replaceAll("\\s+", " ").trim();
            throw new ConfigException(where.text, null, "this is not valid YAML (" + why
                    + "). Fix the syntax here: keys and values as 'key: value', nested keys indented by spaces, lists as '- item'.");
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
