package dev.tracegate.agent.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reading and rewriting audit logs line by line, as a tamperer would. */
final class LogFiles {
    static final ObjectMapper JSON = new ObjectMapper();

    private LogFiles() {}

    /** The file's complete lines (without LF). */
    static List<String> lines(Path p) {
        try {
            String all = Files.readString(p, StandardCharsets.UTF_8);
            List<String> out = new ArrayList<>(List.of(all.split("\n", -1)));
            if (out.get(out.size() - 1).isEmpty()) out.remove(out.size() - 1);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(Path p, List<String> lines) {
        try {
            Files.writeString(p, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<JsonNode> records(Path p) {
        List<JsonNode> out = new ArrayList<>();
        for (String l : lines(p)) {
            try {
                out.add(JSON.readTree(l));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    static List<JsonNode> ofType(Path p, String rec) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode n : records(p)) if (n.path("rec").asText().equals(rec)) out.add(n);
        return out;
    }

    static long droppedCount(Path p, String reasonPrefix) {
        long sum = 0;
        for (JsonNode n : ofType(p, "dropped")) if (n.path("reason").asText().startsWith(reasonPrefix)) sum += n.path("count").asLong();
        return sum;
    }
}
