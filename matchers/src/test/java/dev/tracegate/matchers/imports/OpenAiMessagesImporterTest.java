package dev.tracegate.matchers.imports;

import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceReader;
import dev.tracegate.matchers.trace.TraceWriter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpenAiMessagesImporterTest {
    private final OpenAiMessagesImporter importer = new OpenAiMessagesImporter();

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(OpenAiMessagesImporterTest.class.getResource("/imports/" + name).toURI());
    }

    private static Event user(long seq, String text) {
        return Event.builder(EventKind.USER).session("s").seq(seq).ts(seq).text(text).build();
    }

    private static Event assistant(long seq, String text) {
        return Event.builder(EventKind.ASSISTANT).session("s").seq(seq).ts(seq).text(text).build();
    }

    private static Event call(long seq, String tool, String args, String id) {
        return Event.builder(EventKind.CALL).session("s").seq(seq).ts(seq).tool(tool).args(Args.ofJson(args)).callId(id).build();
    }

    private static Event ret(long seq, String tool, String args, String id, String result, boolean error) {
        return Event.builder(EventKind.RETURN).session("s").seq(seq).ts(seq).tool(tool).args(Args.ofJson(args)).callId(id)
                .result(result).error(error).build();
    }

    private List<Event> read(String json) throws IOException {
        List<Event> out = new ArrayList<>();
        importer.read(new StringReader(json), "log.json", "s", out::add);
        return out;
    }

    @Test
    void agentDojoStringSchemaGivesOneEventPerMessageAndCall() throws Exception {
        List<Event> events = new ArrayList<>();
        OpenAiMessagesImporter.Conversation c = importer.read(resource("agentdojo-strings.json"), "s", events::add);

        assertThat(events).containsExactly(
                user(1, "Pay the bill in bill.txt"),
                call(2, "read_file", "{\"file_path\":\"bill.txt\"}", "call_a"),
                ret(3, "read_file", "{\"file_path\":\"bill.txt\"}", "call_a", "IBAN: DE00 1234", false),
                assistant(4, "Paying now."),
                call(5, "send_money", "{\"recipient\":\"DE001234\",\"amount\":98.7}", "call_b"),
                call(6, "get_balance", "{}", "call_c"),
                // answered out of order: matched by id; the error text is what the model saw
                ret(7, "get_balance", "{}", "call_c", "ValueError: no account", true),
                ret(8, "send_money", "{\"recipient\":\"DE001234\",\"amount\":98.7}", "call_b", "{'message': 'sent'}", false),
                assistant(9, "Done."));
        assertThat(c.session()).isEqualTo("s");
        assertThat(c.events()).isEqualTo(9);
        assertThat(c.system()).containsExactly("You are a helpful banking assistant.");
    }

    @Test
    void agentDojoBlockSchemaJoinsTextBlocksAndDropsReasoning() throws Exception {
        List<Event> events = new ArrayList<>();
        OpenAiMessagesImporter.Conversation c = importer.read(resource("agentdojo-blocks.json"), "s", events::add);

        assertThat(events).containsExactly(
                user(1, "Who is in #general?\nThen greet them."),
                // the assistant's only block is reasoning, so no ASSISTANT event
                call(2, "get_users_in_channel", "{\"channel\":\"general\"}", "c1"),
                ret(3, "get_users_in_channel", "{\"channel\":\"general\"}", "c1", "- Alice\n- Bob", false),
                assistant(4, "Alice and Bob."));
        assertThat(c.system()).containsExactly("Be brief.");
    }

    @Test
    void openAiSchemaParsesArgumentTextAndFindsTheToolByCallId() throws Exception {
        List<Event> events = importer.readAll(resource("openai-chat.json"), "s");

        Event lookup = Event.builder(EventKind.CALL).session("s").seq(3).ts(3).tool("lookup").args(Args.ofJson("{not json"))
                .callId("call_2").build();
        assertThat(events).containsExactly(
                user(1, "Weather in Paris and mail it to bob@example.com"),
                call(2, "get_weather", "{\"city\":\"Paris\",\"units\":{\"temp\":\"C\"}}", "call_1"),
                lookup,
                Event.builder(EventKind.RETURN).session("s").seq(4).ts(4).tool("lookup").args(Args.ofJson("{not json"))
                        .callId("call_2").result("lookup failed").build(),
                ret(5, "get_weather", "{\"city\":\"Paris\",\"units\":{\"temp\":\"C\"}}", "call_1", "18 C, sunny", false),
                call(6, "send_email", "{\"to\":[\"bob@example.com\"],\"body\":\"18 C\"}", "call_3"),
                ret(7, "send_email", "{\"to\":[\"bob@example.com\"],\"body\":\"18 C\"}", "call_3", "{\"status\":\"sent\"}", false),
                assistant(8, "Sent."));
        assertThat(events.get(2).args().malformed()).as("broken argument JSON is kept raw and flagged").isTrue();
        assertThat(events.get(1).args().get(Args.Path.of("units.temp")).asText()).isEqualTo("C");
    }

    @Test
    void legacyFunctionCallsAndGivenTimestampsKeepTimeMonotonic() throws Exception {
        List<Event> events = importer.readAll(resource("openai-legacy-timestamps.json"), "s");

        long t0 = 1767225600000L;
        assertThat(events).containsExactly(
                Event.builder(EventKind.USER).session("s").seq(1).ts(t0).text("Add 2 and 3").build(),
                Event.builder(EventKind.CALL).session("s").seq(2).ts(t0 + 1000).tool("add").args("{\"a\":2,\"b\":3}").build(),
                // no timestamp: 1 ms after the previous event
                Event.builder(EventKind.RETURN).session("s").seq(3).ts(t0 + 1001).tool("add").args("{\"a\":2,\"b\":3}")
                        .result("5").build(),
                // a timestamp earlier than the previous event is raised to it
                Event.builder(EventKind.ASSISTANT).session("s").seq(4).ts(t0 + 1001).text("5").build());
    }

    @Test
    void syntheticClockStartsAfterTheGivenOrigin() throws IOException {
        List<Event> out = new ArrayList<>();
        new OpenAiMessagesImporter(5000).read(new StringReader("[{\"role\":\"user\",\"content\":\"a\"},"
                + "{\"role\":\"assistant\",\"content\":\"b\"}]"), "x", "s", out::add);
        assertThat(out).extracting(Event::ts).containsExactly(5001L, 5002L);
    }

    @Test
    void importedEventsSurviveTheTraceFormat() throws Exception {
        List<Event> events = new ArrayList<>();
        for (String f : List.of("agentdojo-strings.json", "agentdojo-blocks.json", "openai-chat.json", "openai-legacy-timestamps.json")) {
            events.addAll(importer.readAll(resource(f), f));
        }
        StringWriter text = new StringWriter();
        try (TraceWriter w = new TraceWriter(text)) {
            for (Event e : events) w.write(e);
        }
        List<Event> back = new ArrayList<>();
        try (TraceReader r = new TraceReader(new StringReader(text.toString()), "t.jsonl", TraceReader.Mode.STRICT)) {
            for (Event e; (e = r.next()) != null; ) back.add(e);
        }
        assertThat(back).isEqualTo(events);
    }

    @Test
    void messageWithoutRoleNamesItsPath() {
        assertThatThrownBy(() -> read("[\n {\"role\":\"user\",\"content\":\"a\"},\n {\"content\":\"b\"}\n]"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> {
                    assertThat(e.source()).isEqualTo("log.json");
                    assertThat(e.jsonPath()).isEqualTo("$[1].role");
                    assertThat(e.line()).isEqualTo(3);
                    assertThat(e.column()).isEqualTo(2);
                    assertThat(e.getMessage()).startsWith("log.json:3:2 at $[1].role: message has no \"role\"")
                            .contains("Fix: add \"role\"");
                });
    }

    @Test
    void toolCallWithoutFunctionNamesTheCall() {
        assertThatThrownBy(() -> read("{\"messages\":[{\"role\":\"assistant\",\"content\":null,"
                + "\"tool_calls\":[{\"id\":\"c\",\"args\":{}}]}]}"))
                .isInstanceOfSatisfying(MessageLogException.class,
                        e -> assertThat(e.jsonPath()).isEqualTo("$.messages[0].tool_calls[0].function"));
    }

    @Test
    void resultForACallNeverMadeIsRejected() {
        assertThatThrownBy(() -> read("[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"tool\",\"tool_call_id\":\"zz\",\"content\":\"r\"}]"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> {
                    assertThat(e.jsonPath()).isEqualTo("$[1]");
                    assertThat(e.problem()).contains("\"zz\"");
                });
    }

    @Test
    void resultAnsweringAnAlreadyAnsweredCallIsRejected() {
        String call = "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}";
        String result = "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\"}";
        assertThatThrownBy(() -> read("[" + call + "," + result + "," + result + "]"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> {
                    assertThat(e.jsonPath()).isEqualTo("$[2].tool_call_id");
                    assertThat(e.problem()).contains("second time");
                });
        // also when the result carries AgentDojo's copy of the call, which alone would name the tool
        String copy = "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\",\"tool_call\":{\"function\":\"f\",\"args\":{},\"id\":\"c\"}}";
        assertThatThrownBy(() -> read("[" + call + "," + copy + "," + copy + "]"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.jsonPath()).isEqualTo("$[2].tool_call_id"));
    }

    @Test
    void callIdsReusedInALaterTurnAreMatchedToTheNewCall() throws IOException {
        String turn = "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"0\",\"type\":\"function\",\"function\":{\"name\":\"%s\",\"arguments\":\"{}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"0\",\"content\":\"%s\"}";
        List<Event> events = read("[" + turn.formatted("a", "ra") + "," + turn.formatted("b", "rb") + "]");
        assertThat(events).extracting(Event::kind, Event::tool, Event::result).containsExactly(
                org.assertj.core.groups.Tuple.tuple(EventKind.CALL, "a", null),
                org.assertj.core.groups.Tuple.tuple(EventKind.RETURN, "a", "ra"),
                org.assertj.core.groups.Tuple.tuple(EventKind.CALL, "b", null),
                org.assertj.core.groups.Tuple.tuple(EventKind.RETURN, "b", "rb"));
    }

    @Test
    void resultOfACallOutsideTheLogStillNamesItsToolFromTheCopy() throws IOException {
        // a log cut before the assistant message: AgentDojo's copy of the call says which tool ran, with which arguments
        List<Event> events = read("[{\"role\":\"tool\",\"tool_call_id\":\"c9\",\"content\":\"ok\","
                + "\"tool_call\":{\"function\":\"send_money\",\"args\":{\"recipient\":\"X1\"},\"id\":\"c9\"},\"error\":null}]");
        assertThat(events).containsExactly(ret(1, "send_money", "{\"recipient\":\"X1\"}", "c9", "ok", false));
    }

    @Test
    void brokenJsonReportsPositionAndPath() {
        assertThatThrownBy(() -> read("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},\n{\"role\": ]}"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> {
                    assertThat(e.problem()).startsWith("not valid JSON");
                    assertThat(e.line()).isEqualTo(2);
                    assertThat(e.jsonPath()).isEqualTo("$.messages[1].role");
                });
    }

    @Test
    void nonTextContentAndWrongShapesAreRejected() {
        assertThatThrownBy(() -> read("[{\"role\":\"user\",\"content\":42}]"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.jsonPath()).isEqualTo("$[0].content"));
        assertThatThrownBy(() -> read("[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}]"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.jsonPath()).isEqualTo("$[0].content[0]"));
        assertThatThrownBy(() -> read("[{\"role\":\"robot\",\"content\":\"x\"}]"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.problem()).contains("unknown role \"robot\""));
        assertThatThrownBy(() -> read("\"hello\""))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.jsonPath()).isEqualTo("$"));
        assertThatThrownBy(() -> read("{\"model\":\"x\"}"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.problem()).contains("no \"messages\""));
        assertThatThrownBy(() -> read("[] []"))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.problem()).contains("more than one"));
    }
}
