package demoapp.agentdojo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One recorded AgentDojo run as a script: the user's request, the model's turns (text and tool calls)
 * and what each call returned, read from the benchmark's run file.
 *
 * @param id     the run id {@code <suite>/<user_task>/<attack or none>/<injection_task or none>}, from the file's labels
 * @param file   where it was read from
 * @param system the system prompt (null when the run has none)
 * @param user   the user's request
 * @param turns  the model's turns in order
 */
record RecordedRun(String id, Path file, String system, String user, List<Turn> turns) {

    /** One model turn: its text (null when the model only called tools) and the tools it called, in order. */
    record Turn(String text, List<Call> calls) {}

    /**
     * One recorded tool call and its outcome.
     *
     * @param ordinal   its position among all calls of the run (0, 1, ...)
     * @param id        the call id the model gave it
     * @param tool      the tool's name
     * @param arguments the arguments as JSON text
     * @param result    what the tool returned (empty when it failed)
     * @param error     the tool's error message, or null when it did not fail
     */
    record Call(int ordinal, String id, String tool, String arguments, String result, String error) {
        /** The text the model reads for this call: the error message when it failed (the tool throws it), else the result. */
        String seen() {
            return error != null ? error : result;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads a run file; a file that is not a well-formed run is an error naming the file and the message. */
    static RecordedRun read(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        JsonNode messages = root.path("messages");
        if (!messages.isArray()) {
            throw new IllegalArgumentException(file + ": no \"messages\" array; pass AgentDojo run files unchanged");
        }
        String id = label(root, "suite_name", file) + "/" + label(root, "user_task_id", file) + "/"
                + orNone(root.get("attack_type")) + "/" + orNone(root.get("injection_task_id"));
        StringBuilder system = null;
        String user = null;
        List<Turn> turns = new ArrayList<>();
        List<Call> pending = new ArrayList<>(); // calls still waiting for their tool message, oldest first
        List<Call> answered = new ArrayList<>(); // indexed by ordinal
        int ordinal = 0;
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String where = file + " $.messages[" + i + "]";
            String role = m.path("role").asText("");
            switch (role) {
                case "system" -> {
                    String text = text(m.get("content"), where);
                    if (text != null) system = system == null ? new StringBuilder(text) : system.append('\n').append(text);
                }
                case "user" -> {
                    if (user != null) {
                        throw new IllegalArgumentException(where + ": a second user message; this replay drives one request per run");
                    }
                    user = text(m.get("content"), where);
                }
                case "assistant" -> {
                    List<Call> turnCalls = new ArrayList<>();
                    JsonNode toolCalls = m.get("tool_calls");
                    if (toolCalls != null && toolCalls.isArray()) {
                        for (JsonNode tc : toolCalls) {
                            Call c = new Call(ordinal++, tc.path("id").asText(null), tc.path("function").asText(null),
                                    arguments(tc.get("args")), null, null);
                            if (c.tool() == null || c.id() == null) {
                                throw new IllegalArgumentException(where + ": a tool call without \"function\" or \"id\"");
                            }
                            turnCalls.add(c);
                            pending.add(c);
                            answered.add(null);
                        }
                    }
                    turns.add(new Turn(text(m.get("content"), where), turnCalls));
                }
                case "tool" -> {
                    String callId = m.path("tool_call_id").asText(null);
                    int k = 0;
                    while (k < pending.size() && !pending.get(k).id().equals(callId)) k++;
                    if (k == pending.size()) {
                        throw new IllegalArgumentException(where + ": tool message answers call id " + callId + ", which no earlier turn made");
                    }
                    Call c = pending.remove(k);
                    String result = text(m.get("content"), where);
                    JsonNode error = m.get("error");
                    answered.set(c.ordinal(), new Call(c.ordinal(), c.id(), c.tool(), c.arguments(), result == null ? "" : result,
                            error == null || error.isNull() ? null : error.asText()));
                }
                default -> throw new IllegalArgumentException(where + ": unknown role \"" + role + "\"");
            }
        }
        if (user == null) throw new IllegalArgumentException(file + ": no user message");
        if (!pending.isEmpty()) {
            throw new IllegalArgumentException(file + ": call " + pending.get(0).id() + " has no tool message; the replay needs every result");
        }
        // put each call's outcome into its turn
        List<Turn> complete = new ArrayList<>();
        for (Turn t : turns) {
            List<Call> outcomes = new ArrayList<>();
            for (Call c : t.calls()) outcomes.add(answered.get(c.ordinal()));
            complete.add(new Turn(t.text(), List.copyOf(outcomes)));
        }
        return new RecordedRun(id, file, system == null ? null : system.toString(), user, List.copyOf(complete));
    }

    /** Every call of the run, in order. */
    List<Call> calls() {
        List<Call> out = new ArrayList<>();
        for (Turn t : turns) out.addAll(t.calls());
        return out;
    }

    private static String label(JsonNode root, String field, Path file) {
        JsonNode v = root.get(field);
        if (v == null || !v.isTextual()) throw new IllegalArgumentException(file + ": label \"" + field + "\" missing");
        return v.asText();
    }

    private static String orNone(JsonNode v) {
        return v == null || v.isNull() ? "none" : v.asText();
    }

    /** AgentDojo stores arguments as an object; OpenAI-style logs as JSON text. */
    private static String arguments(JsonNode args) throws IOException {
        if (args == null || args.isNull()) return "{}";
        if (args.isTextual()) return args.asText();
        return JSON.writeValueAsString(args);
    }

    /** Content: a string, null, or a list of text blocks (joined by newlines). */
    private static String text(JsonNode content, String where) {
        if (content == null || content.isNull()) return null;
        if (content.isTextual()) return content.asText();
        if (content.isArray()) {
            StringBuilder b = new StringBuilder();
            for (JsonNode block : content) {
                String type = block.path("type").asText("text");
                if (!type.equals("text")) continue;
                JsonNode t = block.has("text") ? block.get("text") : block.get("content");
                if (t == null || !t.isTextual()) continue;
                if (b.length() > 0) b.append('\n');
                b.append(t.asText());
            }
            return b.toString();
        }
        throw new IllegalArgumentException(where + ": content must be a string, null or a list of text blocks");
    }
}
