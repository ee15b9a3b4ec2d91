package dev.tracegate.matchers.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The agent's builder-free CALL/RETURN events read exactly as the builder's: every accessor a grounder or the audit log uses. */
class ToolEventTest {
    private static final String[] TOOLS = {"search_kb", "Search_KB", "mcp:crm/lookupOrder", "functions.refund", "  refund ", "", null, "Ünïcode-Tool"};
    private static final String[] TEXTS = {null, "", "found 3 articles", "  padded  ", "{\"a\":1}"};

    @Test
    void readsAsTheBuildersEvent() {
        Random rnd = new Random(7);
        Args some = Args.ofJson("{\"query\":\"refund policy\",\"limit\":5}");
        for (int i = 0; i < 5_000; i++) {
            EventKind kind = rnd.nextBoolean() ? EventKind.CALL : EventKind.RETURN;
            String session = rnd.nextInt(5) == 0 ? null : "s-" + rnd.nextInt(100);
            long seq = rnd.nextInt(1_000);
            long ts = rnd.nextLong();
            String tool = TOOLS[rnd.nextInt(TOOLS.length)];
            String callId = rnd.nextBoolean() ? null : "call_" + rnd.nextInt(50);
            Args args = switch (rnd.nextInt(3)) { case 0 -> null; case 1 -> Args.NONE; default -> some; };
            String result = TEXTS[rnd.nextInt(TEXTS.length)];
            boolean error = rnd.nextBoolean();
            Event fast = Event.toolEvent(kind, session, seq, ts, tool, callId, args, result, error);
            Event built = Event.builder(kind).session(session).seq(seq).ts(ts).tool(tool).callId(callId).args(args)
                    .result(result).error(error).build();
            String what = built.toString();
            assertThat(fast.session()).as(what).isEqualTo(built.session());
            assertThat(fast.seq()).as(what).isEqualTo(built.seq());
            assertThat(fast.ts()).as(what).isEqualTo(built.ts());
            assertThat(fast.kind()).as(what).isEqualTo(built.kind());
            assertThat(fast.tool()).as(what).isEqualTo(built.tool());
            assertThat(fast.toolKey()).as(what).isEqualTo(built.toolKey());
            assertThat(fast.toolBare()).as(what).isEqualTo(built.toolBare());
            assertThat(fast.callId()).as(what).isEqualTo(built.callId());
            assertThat(fast.args()).as(what).isSameAs(built.args());
            assertThat(fast.hasArgs()).as(what).isEqualTo(built.hasArgs());
            assertThat(fast.result()).as(what).isEqualTo(built.result());
            assertThat(fast.text()).as(what).isEqualTo(built.text());
            assertThat(fast.subject()).as(what).isEqualTo(built.subject());
            assertThat(fast.granted()).as(what).isEqualTo(built.granted());
            assertThat(fast.error()).as(what).isEqualTo(built.error());
            assertThat(fast.tokens()).as(what).isEqualTo(built.tokens());
            assertThat(fast.depth()).as(what).isEqualTo(built.depth());
            assertThat(fast.purposes()).as(what).isEqualTo(built.purposes());
            assertThat(fast.categories()).as(what).isEqualTo(built.categories());
            assertThat(fast).as(what).isEqualTo(built).hasSameHashCodeAs(built);
            assertThat(fast.toString()).isEqualTo(what);
        }
    }
}
