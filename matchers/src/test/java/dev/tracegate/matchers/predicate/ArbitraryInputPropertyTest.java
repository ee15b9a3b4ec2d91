package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceFormatException;
import dev.tracegate.matchers.trace.TraceReader;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Arbitrary arguments, texts and trace lines never make grounding throw, and make the trace reader
 * throw nothing but {@link TraceFormatException} (strict) or nothing at all (lenient).
 */
class ArbitraryInputPropertyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> FIELDS = List.of("amount", "to", "path", "customer", "iban", "email", "who",
            "subject", "purposes", "granted", "note", "body", "order", "total", "dob");
    private static final String[] ATOMS = {
        "call(refund)", "call(send, \"@evil\")", "returned(transfer)", "arg(amount) > 5000", "arg(refund, amount) <= ctx(approved)",
        "arg(order.total) == \"12.50\"", "arg_matches(to, \"^[a-z]+@\")", "arg_in(send, to, [\"a\", 1])",
        "path_within(path, [\"/srv\"])", "len(arg(body)) < 10", "len(result) > 5", "result_matches(\"(?i)ignore\")",
        "user_matches(\"x\")", "output_matches(\"\\\\d+\")", "ctx(approved)", "ctx(customer) == \"c\"", "arg_eq_ctx(customer, customer)",
        "permission(write)", "flow(to)", "untrusted(send, to)", "untrusted_target", "side_effect", "category(email)",
        "personal_data", "excess_data", "purpose(ads)", "consent(ads)", "consented", "mentions_erased", "count(send) <= 3",
        "run(read) >= 2", "sum(refund, amount) > 100", "context_len > 50", "output_chars > 5", "tokens > 9", "depth > 0",
        "since(call(verify)) < 3", "user", "assistant", "call", "return", "consent", "erasure", "end"};

    private final Session session = new Session(Policy.builder()
            .latch(Latch.on(EventKind.RETURN, "approve").set("approved").fromArg("amount"))
            .latch(Latch.on(EventKind.RETURN, "lookup").set("customer").fromResultField("id"))
            .latch(Latch.on(EventKind.CALL, "grant").add("permissions").fromArg("who"))
            .purpose("ads", "email").toolPurposes("send", "ads")
            .fieldCategory("send", "note", "health")
            .consentTool("record_consent", "subject", "purposes", "granted")
            .erasureTool("forget", "who")
            .sideEffecting("send", "to").sideEffecting("transfer", "iban")
            .setCapacity(64)
            .build(), ATOMS);

    @Provide Arbitrary<Object> json() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(30).map(s -> (Object) s),
                Arbitraries.strings().withChars("0123456789$,. -+eE€USDxa@/.").ofMaxLength(20).map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.doubles().map(d -> (Object) d),
                Arbitraries.of(true, false).map(b -> (Object) b));
        Arbitrary<String> keys = Arbitraries.oneOf(Arbitraries.of(FIELDS), Arbitraries.strings().ofMaxLength(8));
        return Arbitraries.recursive(() -> scalar, inner -> Arbitraries.oneOf(
                inner.list().ofMaxSize(3).map(l -> (Object) l),
                Arbitraries.maps(keys, inner).ofMaxSize(5).map(m -> (Object) m)), 3);
    }

    @Provide Arbitrary<Map<String, Object>> argsMap() {
        return Arbitraries.maps(Arbitraries.oneOf(Arbitraries.of(FIELDS), Arbitraries.strings().ofMaxLength(6)), json()).ofMaxSize(6);
    }

    @Provide Arbitrary<String> tool() {
        return Arbitraries.of("refund", "send", "transfer", "record_consent", "forget", "mcp__x__send", "read", "approve",
                "lookup", "grant", "verify", " SEND ", "");
    }

    @Provide Arbitrary<String> text() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(80),
                Arbitraries.of("mail bob@x.io now", "{\"id\":\"c\"}", "IBAN DE89 3704 0044 0532 0130 00", "ignore all", ""));
    }

    @Property(tries = 300)
    void groundingNeverThrowsOnArbitraryArguments(@ForAll("argsMap") Map<String, Object> args, @ForAll("tool") String tool,
                                                  @ForAll("text") String text, @ForAll("text") String result,
                                                  @ForAll EventKind kind, @ForAll boolean truncate) throws Exception {
        Args viaMap = Args.of(args);
        String jsonText = JSON.writeValueAsString(args);
        if (truncate && jsonText.length() > 2) jsonText = jsonText.substring(0, jsonText.length() / 2);
        for (Args a : List.of(viaMap, Args.ofJson(jsonText), Args.ofJson(text))) {
            Event e = Event.builder(kind).session("s").tool(tool).args(a).text(text).result(result).subject(text)
                    .purposes(tool, "ads").categories(text).build();
            int[] first = session.at(e);
            assertThat(session.at(e)).containsExactly(first);
            session.step(e);
        }
    }

    @Property(tries = 300)
    void traceReaderThrowsOnlyTraceFormatException(@ForAll("json") Object value, @ForAll("text") String noise,
                                                   @ForAll boolean wrapAsEvent) throws IOException {
        String line = wrapAsEvent
                ? "{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"t\",\"args\":" + JSON.writeValueAsString(value) + "}"
                : JSON.writeValueAsString(value) + noise;
        line = line.replace('\n', ' ');
        try (TraceReader r = new TraceReader(new StringReader(line + "\n" + noise.replace('\n', ' ')), "p.jsonl", TraceReader.Mode.STRICT)) {
            while (true) {
                try {
                    if (r.next() == null) break;
                } catch (TraceFormatException expected) {
                    assertThat(expected.getMessage()).startsWith("p.jsonl:");
                    break;
                }
            }
        }
        try (TraceReader r = new TraceReader(new StringReader(line + "\n" + noise), "p.jsonl", TraceReader.Mode.LENIENT)) {
            while (r.next() != null) { /* lenient mode never throws */ }
            assertThat(r.events() + r.skipped()).isLessThanOrEqualTo(r.lines());
        }
    }
}
