package dev.tracegate.matchers.imports;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceFormatException;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Turns an OpenAI-style chat log (system, user, assistant and tool messages) into one session of
 * tracegate events: a user message becomes USER, an assistant message ASSISTANT (when it has text)
 * followed by one CALL per tool call, a tool message RETURN (carrying the answered call's arguments).
 *
 * <p>Accepted input: a JSON array of messages, or a JSON object with a {@code "messages"} array (an
 * AgentDojo run file, an OpenAI request body); other fields of the object are skipped. Tool calls may
 * use AgentDojo's {@code {"function": name, "args": {...}, "id": ...}} or OpenAI's
 * {@code {"id": ..., "type": "function", "function": {"name": ..., "arguments": "<JSON text>"}}};
 * content may be a string, null, or a list of blocks {@code {"type":"text","content"|"text":...}}
 * (blocks of other types, such as images or reasoning, are not model-visible text and are dropped).
 * The legacy {@code function_call} / {@code role: "function"} pair is read too.
 *
 * <p>System (and {@code developer}) messages are operator configuration, not an interaction, so they
 * make no event; their text is returned in {@link Conversation#system()}. Messages are read one at a
 * time from a stream, so a log never has to fit in memory twice. Sequence numbers start at 1 per
 * session. A message's {@code "timestamp"} (epoch milliseconds or an ISO-8601 instant) becomes the
 * events' time; without one, time is synthetic: 1 ms after the previous event, starting from the
 * clock start given to the constructor; time never goes backwards (an earlier timestamp is raised to
 * the previous event's). Instances are immutable and may be shared between threads.
 */
public final class OpenAiMessagesImporter {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonFactory FACTORY = JSON.getFactory();

    private final long clockStart;

    /** An importer whose synthetic clock starts at epoch millisecond 0 (first event at 1). */
    public OpenAiMessagesImporter() { this(0); }

    /** An importer whose synthetic clock starts at {@code clockStart} epoch milliseconds (first event one later). */
    public OpenAiMessagesImporter(long clockStart) {
        if (clockStart < 0) throw new IllegalArgumentException("clock start must not be negative: " + clockStart);
        this.clockStart = clockStart;
    }

    /** Receives the events of a session in order; may write them straight to a trace. */
    @FunctionalInterface
    public interface EventSink {
        void accept(Event event) throws IOException;
    }

    /** What one imported log held besides its events: the session id, how many events it made, the system prompts. */
    public record Conversation(String session, long events, List<String> system) {
        public Conversation {
            system = List.copyOf(system);
        }
    }

    /** Imports a whole log file into a list of events. */
    public List<Event> readAll(Path file, String session) throws IOException {
        List<Event> out = new ArrayList<>();
        read(file, session, out::add);
        return out;
    }

    /** Imports a log file (UTF-8), streaming its events to {@code sink}. */
    public Conversation read(Path file, String session, EventSink sink) throws IOException {
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(in, file.toString(), session, sink);
        }
    }

    /**
     * Imports a log read from {@code in}, streaming its events to {@code sink}; {@code source} names
     * the input in error messages. Throws {@link MessageLogException} on malformed input.
     */
    public Conversation read(Reader in, String source, String session, EventSink sink) throws IOException {
        if (session == null || session.isBlank()) throw new IllegalArgumentException("session id must not be blank");
        try (JsonParser p = FACTORY.createParser(in)) {
            Session s = new Session(source, session, sink);
            try {
                JsonToken t = p.nextToken();
                if (t == JsonToken.START_ARRAY) {
                    readMessages(p, s, "$");
                } else if (t == JsonToken.START_OBJECT) {
                    boolean found = false;
                    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        JsonToken v = p.nextToken();
                        if ("messages".equals(name)) {
                            if (found) throw s.fail(p, "$.messages", "field \"messages\" appears twice", "keep one of them");
                            if (v != JsonToken.START_ARRAY) {
                                throw s.fail(p, "$.messages", "\"messages\" must be an array, found " + describe(v),
                                        "write the messages as [{\"role\":\"user\",\"content\":\"...\"}, ...]");
                            }
                            readMessages(p, s, "$.messages");
                            found = true;
                        } else {
                            p.skipChildren();
                        }
                    }
                    if (!found) {
                        throw s.fail(p, "$", "the object has no \"messages\" array",
                                "give the log as {\"messages\":[...]} or as a bare array of messages");
                    }
                } else {
                    throw s.fail(p, "$", "expected a JSON array of messages or an object with \"messages\", found " + describe(t),
                            "give the log as [{\"role\":\"user\",\"content\":\"...\"}, ...]");
                }
                if (p.nextToken() != null) {
                    throw s.fail(p, "$", "more than one JSON value in the input", "import one conversation per file");
                }
            } catch (StreamReadException e) {
                JsonLocation loc = e.getLocation();
                throw new MessageLogException(source, loc == null ? 0 : loc.getLineNr(), loc == null ? 0 : loc.getColumnNr(),
                        path(p.getParsingContext()), "not valid JSON: " + TraceFormatException.jsonProblem(e, "file"),
                        "repair the JSON (an editor with a JSON linter shows the spot)");
            }
            return s.summary();
        }
    }

    /** Opens the per-session converter; for importers of formats that wrap a message array. */
    Session open(String source, String session, EventSink sink) { return new Session(source, session, sink); }

    /** Reads the message array at the parser's current START_ARRAY into {@code s}, up to its END_ARRAY. */
    static void readMessages(JsonParser p, Session s, String arrayPath) throws IOException {
        int i = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            String path = arrayPath + "[" + i + "]";
            JsonLocation at = p.currentTokenLocation();
            if (t != JsonToken.START_OBJECT) {
                throw s.fail(at, path, "a message must be a JSON object, found " + describe(t),
                        "write each message as {\"role\":\"user\",\"content\":\"...\"}");
            }
            JsonNode m = JSON.readTree(p);
            s.accept(m, path, at);
            i++;
        }
    }

    /** The JSON path of the parser's current position, e.g. {@code $.messages[3].content}. */
    static String path(JsonStreamContext c) {
        Deque<String> parts = new ArrayDeque<>();
        for (; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) parts.push("[" + Math.max(0, c.getCurrentIndex()) + "]");
            else if (c.getCurrentName() != null) parts.push("." + c.getCurrentName());
        }
        StringBuilder b = new StringBuilder("$");
        for (String part : parts) b.append(part);
        return b.toString();
    }

    static String describe(JsonToken t) {
        if (t == null) return "the end of the input";
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> t.name();
        };
    }

    static String describe(JsonNode n) {
        if (n == null || n.isMissingNode()) return "nothing";
        if (n.isObject()) return "an object";
        if (n.isArray()) return "an array";
        if (n.isTextual()) return "a string";
        if (n.isNumber()) return "a number";
        if (n.isBoolean()) return "a boolean";
        return "null";
    }

    /** The conversion state of one session: sequence, clock, the calls still waiting for their result. */
    final class Session {
        private final String source;
        private final String id;
        private final EventSink sink;
        private final List<String> system = new ArrayList<>();
        /** Calls not yet answered, oldest first (ids may be absent, so this is a list, not a map). */
        private final List<Event> pending = new ArrayList<>();
        /** Ids of calls already answered, so a second answer is an error rather than an orphan result. */
        private final Set<String> answeredIds = new HashSet<>();
        private long seq;
        private long clock;
        private JsonLocation at;

        private Session(String source, String id, EventSink sink) {
            this.source = source;
            this.id = id;
            this.sink = sink;
            this.clock = clockStart;
        }

        Conversation summary() { return new Conversation(id, seq, system); }

        long events() { return seq; }

        /** Converts one message, located at {@code at} under {@code path}. */
        void accept(JsonNode m, String path, JsonLocation at) throws IOException {
            this.at = at;
            JsonNode roleNode = m.get("role");
            if (roleNode == null || !roleNode.isTextual()) {
                throw fail(path + ".role", "message has no \"role\" string (found " + describe(roleNode) + ")",
                        "add \"role\": one of system, user, assistant, tool");
            }
            Long given = timestamp(m.get("timestamp"), path + ".timestamp");
            String role = roleNode.asText().trim().toLowerCase(Locale.ROOT);
            switch (role) {
                case "system", "developer" -> {
                    String text = content(m.get("content"), path + ".content", false);
                    if (text != null) system.add(text);
                }
                case "user" -> {
                    String text = content(m.get("content"), path + ".content", false);
                    emit(Event.builder(EventKind.USER).text(text == null ? "" : text), given);
                }
                case "assistant" -> assistant(m, path, given);
                case "tool" -> returned(m, path, given, false);
                case "function" -> returned(m, path, given, true);
                default -> throw fail(path + ".role", "unknown role \"" + roleNode.asText() + "\"",
                        "use one of system, developer, user, assistant, tool, function");
            }
        }

        private void assistant(JsonNode m, String path, Long given) throws IOException {
            String text = content(m.get("content"), path + ".content", false);
            if (text == null || text.isBlank()) {
                JsonNode refusal = m.get("refusal");
                if (refusal != null && refusal.isTextual()) text = refusal.asText();
            }
            if (text != null && !text.isBlank()) emit(Event.builder(EventKind.ASSISTANT).text(text), given);
            JsonNode calls = m.get("tool_calls");
            if (calls != null && !calls.isNull()) {
                if (!calls.isArray()) {
                    throw fail(path + ".tool_calls", "\"tool_calls\" must be an array or null, found " + describe(calls),
                            "write [{\"id\":\"call_1\",\"function\":\"name\",\"args\":{...}}]");
                }
                for (int i = 0; i < calls.size(); i++) {
                    Event call = emit(call(calls.get(i), path + ".tool_calls[" + i + "]"), given);
                    pending.add(call);
                    // some frameworks number calls per turn, so an id may come back in a later turn
                    if (call.callId() != null) answeredIds.remove(call.callId());
                }
            }
            JsonNode legacy = m.get("function_call");
            if (legacy != null && !legacy.isNull()) {
                Event.Builder b = Event.builder(EventKind.CALL);
                legacyCall(legacy, path + ".function_call", b);
                pending.add(emit(b, given));
            }
        }

        /** A CALL builder from one tool call in either schema. */
        private Event.Builder call(JsonNode tc, String path) {
            if (tc == null || !tc.isObject()) {
                throw fail(path, "a tool call must be an object, found " + describe(tc),
                        "write {\"id\":\"call_1\",\"function\":\"name\",\"args\":{...}}");
            }
            Event.Builder b = Event.builder(EventKind.CALL).callId(callId(tc.get("id"), path + ".id"));
            JsonNode fn = tc.get("function");
            if (fn != null && fn.isTextual()) {
                b.tool(name(fn, path + ".function")).args(args(tc.get("args"), path + ".args"));
            } else if (fn != null && fn.isObject()) {
                legacyCall(fn, path + ".function", b);
            } else {
                throw fail(path + ".function", "tool call has no function (found " + describe(fn) + ")",
                        "write \"function\":\"name\" with \"args\":{...} (AgentDojo) or "
                                + "\"function\":{\"name\":\"name\",\"arguments\":\"{...}\"} (OpenAI)");
            }
            return b;
        }

        /** OpenAI's {@code {"name":..., "arguments": "<JSON text>"}} into {@code b}. */
        private void legacyCall(JsonNode fn, String path, Event.Builder b) {
            if (!fn.isObject()) {
                throw fail(path, "expected {\"name\":...,\"arguments\":...}, found " + describe(fn),
                        "write {\"name\":\"tool\",\"arguments\":\"{}\"}");
            }
            b.tool(name(fn.get("name"), path + ".name")).args(args(fn.get("arguments"), path + ".arguments"));
        }

        private String name(JsonNode n, String path) {
            if (n == null || !n.isTextual() || n.asText().isBlank()) {
                throw fail(path, "tool name missing or not a non-blank string (found " + describe(n) + ")",
                        "give the tool's name as a string");
            }
            return n.asText();
        }

        /**
         * Arguments: an object as is, JSON text parsed (kept raw and flagged malformed when it is not an
         * object, as models do emit broken JSON), absent or null as none.
         */
        private Args args(JsonNode a, String path) {
            if (a == null || a.isNull() || a.isMissingNode()) return Args.NONE;
            if (a.isTextual()) return Args.ofJson(a.asText());
            return Args.of(a);
        }

        private String callId(JsonNode n, String path) {
            if (n == null || n.isNull()) return null;
            if (n.isTextual() || n.isIntegralNumber()) return n.asText();
            throw fail(path, "call id must be a string, found " + describe(n), "write \"id\":\"call_1\"");
        }

        private void returned(JsonNode m, String path, Long given, boolean legacy) throws IOException {
            String callId = legacy ? null : callId(m.get("tool_call_id"), path + ".tool_call_id");
            if (callId != null && answeredIds.contains(callId)) {
                throw fail(path + ".tool_call_id", "call id \"" + callId + "\" is answered a second time",
                        "keep one tool message per tool call");
            }
            String named = null;
            JsonNode copy = m.get("tool_call");
            Event copied = null;
            if (copy != null && !copy.isNull()) {
                copied = call(copy, path + ".tool_call").build();
                named = copied.tool();
            } else if (m.get("name") != null && !m.get("name").isNull()) {
                named = name(m.get("name"), path + ".name");
            }
            Event answered = answered(callId, named);
            String tool;
            Args args;
            if (answered != null) {
                tool = answered.tool();
                args = answered.args();
                if (callId == null) callId = answered.callId();
            } else if (named != null) {
                // No call in this log made it (a truncated log); the copy or the name still says which tool ran.
                tool = named;
                args = copied == null ? Args.NONE : copied.args();
            } else {
                throw fail(path, callId == null ? "tool message answers no earlier call and names no tool"
                                : "tool message answers call id \"" + callId + "\", which no earlier assistant message made",
                        "keep the assistant message with that tool call in the log, or give the tool message a \"name\"");
            }
            if (callId != null) answeredIds.add(callId);
            boolean error = false;
            String errorText = null;
            JsonNode e = m.get("error");
            if (e != null && !e.isNull()) {
                if (e.isBoolean()) {
                    error = e.asBoolean();
                } else if (e.isTextual()) {
                    error = true;
                    errorText = e.asText();
                } else {
                    error = true;
                    errorText = e.toString();
                }
            }
            String result = content(m.get("content"), path + ".content", true);
            // AgentDojo stores a failed call's message in "error" and leaves content empty; the model sees the message.
            if ((result == null || result.isEmpty()) && errorText != null) result = errorText;
            emit(Event.builder(EventKind.RETURN).tool(tool).callId(callId).args(args).result(result == null ? "" : result)
                    .error(error), given);
        }

        /** Removes and returns the pending call this result answers: by id, else the oldest of that name, else the oldest. */
        private Event answered(String callId, String named) {
            for (Iterator<Event> it = pending.iterator(); it.hasNext(); ) {
                Event c = it.next();
                if (callId != null ? callId.equals(c.callId()) : named == null || named.equals(c.tool())) {
                    it.remove();
                    return c;
                }
            }
            return null;
        }

        /** Text of a content field: a string, null, or text blocks joined by newlines. */
        private String content(JsonNode c, String path, boolean toolOutput) {
            if (c == null || c.isNull() || c.isMissingNode()) return null;
            if (c.isTextual()) return c.asText();
            if (c.isArray()) {
                StringBuilder b = null;
                for (int i = 0; i < c.size(); i++) {
                    String part = block(c.get(i), path + "[" + i + "]");
                    if (part == null) continue;
                    if (b == null) b = new StringBuilder(part);
                    else b.append('\n').append(part);
                }
                return b == null ? "" : b.toString();
            }
            if (c.isObject() && c.has("type")) {
                String part = block(c, path);
                return part == null ? "" : part;
            }
            // A tool may return structured data; the model sees it as JSON text.
            if (toolOutput) return c.toString();
            throw fail(path, "content must be a string, null or a list of blocks, found " + describe(c),
                    "write \"content\":\"...\" or \"content\":[{\"type\":\"text\",\"text\":\"...\"}]");
        }

        /** Text of one block, or null for a block that carries no text the model reads (image, reasoning). */
        private String block(JsonNode b, String path) {
            if (b.isTextual()) return b.asText();
            if (!b.isObject()) {
                throw fail(path, "a content block must be an object, found " + describe(b),
                        "write {\"type\":\"text\",\"text\":\"...\"}");
            }
            JsonNode type = b.get("type");
            String t = type == null || type.isNull() ? "text" : type.asText();
            if (!t.equals("text") && !t.equals("input_text") && !t.equals("output_text")) return null;
            JsonNode text = b.get("text");
            if (text == null || text.isNull()) text = b.get("content");
            if (text == null || !text.isTextual()) {
                throw fail(path, "text block has no \"text\" or \"content\" string (found " + describe(text) + ")",
                        "write {\"type\":\"text\",\"text\":\"...\"}");
            }
            return text.asText();
        }

        private Long timestamp(JsonNode n, String path) {
            if (n == null || n.isNull()) return null;
            if (n.isIntegralNumber() && n.asLong() >= 0) return n.asLong();
            if (n.isTextual()) {
                try {
                    return Instant.parse(n.asText()).toEpochMilli();
                } catch (DateTimeParseException e) {
                    // falls through to the error below
                }
            }
            throw fail(path, "timestamp must be epoch milliseconds or an ISO-8601 instant, found " + n,
                    "write \"timestamp\":1767225600000 or \"timestamp\":\"2026-01-01T00:00:00Z\", or leave it out");
        }

        private Event emit(Event.Builder b, Long given) throws IOException {
            clock = given == null ? clock + 1 : Math.max(clock, given);
            Event e = b.session(id).seq(++seq).ts(clock).build();
            sink.accept(e);
            return e;
        }

        MessageLogException fail(String path, String problem, String fix) {
            return fail(at, path, problem, fix);
        }

        MessageLogException fail(JsonParser p, String path, String problem, String fix) {
            return fail(p.currentTokenLocation(), path, problem, fix);
        }

        MessageLogException fail(JsonLocation loc, String path, String problem, String fix) {
            long line = loc == null ? 0 : loc.getLineNr();
            long col = loc == null ? 0 : loc.getColumnNr();
            return new MessageLogException(source, line, col, path, problem, fix);
        }
    }
}
