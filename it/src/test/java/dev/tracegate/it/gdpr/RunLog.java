package dev.tracegate.it.gdpr;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The tool log of one run (written by {@code gdpreval.ToolLog}), grouped by session in order. */
final class RunLog {

    /** One line: user, exec (a tool body ran with args, gave result), seen (a result the model saw), answer. */
    record Rec(String kind, String tool, JsonNode args, String result, String text) {
        /** Same observable effect (what reached a tool, the model or the user). */
        boolean sameAs(Rec o) {
            return kind.equals(o.kind) && java.util.Objects.equals(tool, o.tool) && java.util.Objects.equals(args, o.args)
                    && java.util.Objects.equals(result, o.result) && java.util.Objects.equals(text, o.text);
        }

        /** The text this record carries to a tool, the model or the user. */
        String content() {
            return kind.equals("exec") ? args.toString() : text == null ? "" : text;
        }
    }

    final Map<String, List<Rec>> sessions = new LinkedHashMap<>();

    static RunLog read(Path file) {
        ObjectMapper json = new ObjectMapper();
        RunLog log = new RunLog();
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.isBlank()) continue;
                JsonNode n = json.readTree(line);
                Rec r = new Rec(n.get("kind").asText(), n.hasNonNull("tool") ? n.get("tool").asText() : null,
                        n.get("args"), n.hasNonNull("result") ? n.get("result").asText() : null,
                        n.hasNonNull("text") ? n.get("text").asText() : null);
                log.sessions.computeIfAbsent(n.get("session").asText(), k -> new ArrayList<>()).add(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read tool log " + file, e);
        }
        return log;
    }

    List<Rec> of(String session) {
        return sessions.getOrDefault(session, List.of());
    }
}
