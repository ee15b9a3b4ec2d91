package gdpreval;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * What actually happened in a case-study run, one JSON object a line: user messages, tool executions
 * (tool, the arguments the tool received, its result), tool results the model saw, and final answers.
 * The file is named by the system property {@code gdpreval.log}; all writes come from the one thread
 * that plays the dialogues, so the session in force is a plain field.
 */
public final class ToolLog {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static BufferedWriter out;
    private static String session = "";

    private ToolLog() {
    }

    static synchronized void open(Path file) {
        try {
            out = Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the tool log " + file, e);
        }
    }

    static synchronized void session(String id) {
        session = id;
    }

    static synchronized void close() {
        try {
            if (out != null) out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Arguments as given, in order ({@code name, value, name, value...}). */
    public static Map<String, Object> args(Object... nameValue) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i + 1 < nameValue.length; i += 2) m.put((String) nameValue[i], nameValue[i + 1]);
        return m;
    }

    /** Records one execution that reached a tool's body and returns its result unchanged. */
    public static synchronized String exec(String tool, Map<String, Object> args, String result) {
        ObjectNode n = record("exec");
        n.put("tool", tool);
        n.set("args", JSON.valueToTree(args));
        n.put("result", result);
        write(n);
        return result;
    }

    static synchronized void text(String kind, String tool, String text) {
        ObjectNode n = record(kind);
        if (tool != null) n.put("tool", tool);
        n.put("text", text);
        write(n);
    }

    private static ObjectNode record(String kind) {
        ObjectNode n = JSON.createObjectNode();
        n.put("session", session);
        n.put("kind", kind);
        return n;
    }

    private static void write(ObjectNode n) {
        if (out == null) return;
        try {
            out.write(n.toString());
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
