package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Grounding a typical three-argument CALL allocates nothing once the thread's frame exists, for the
 * GDPR-style, injection-style and literal-pattern atoms (counted in bytes by the JVM, so it holds
 * in the interpreter as well as after JIT compilation; patterns that need RE2/J do allocate). flow(T, f) over an argument
 * with glued values ({@code ref=INV-...&id=...}) looks at its spans (GluedValues) without allocating either.
 */
class SteadyPathAllocationTest {
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test void groundingATypicalCallAllocatesNothing() {
        Policy policy = Policy.builder().purpose("billing", "email", "iban").purpose("marketing", "email")
                .toolPurposes("send_invoice", "billing").consentTool("record_consent", "subject", "purposes", null)
                .erasureTool("forget", "who").sideEffecting("send_invoice", "to")
                .latch(Latch.on(EventKind.RETURN, "approve").set("approved").fromArg("amount")).build();
        Session s = new Session(policy, "call(send_invoice)", "category(email)", "category(health)", "excess_data",
                "purpose(billing)", "consent(billing)", "consented", "mentions_erased", "personal_data", "untrusted_target",
                "count(send_invoice) <= 5", "run(send_invoice) < 3", "arg(send_invoice, amount) <= 5000",
                "arg(send_invoice, amount) <= ctx(approved)", "sum(send_invoice, amount) < 100000",
                "arg_matches(to, \"@example\\\\.com$\")", "arg_in(memo, [\"a\", \"b\"])", "len(arg(memo)) < 100",
                "since(call(approve)) < 10", "context_len < 10000", "tokens < 1000", "flow(to)", "ctx(approved)",
                "flow(send_invoice, note)");
        s.feed(Event.user("s", 1, "please invoice bob@example.com"),
                Event.call("s", 2, "approve", "{\"amount\":500}"), Event.returned("s", 3, "approve", "ok", false),
                Event.returned("s", 4, "lookup", "bob@example.com, IBAN DE89 3704 0044 0532 0130 00", false),
                Event.builder(EventKind.CONSENT).session("s").subject("bob@example.com").purposes("billing").build(),
                Event.builder(EventKind.ERASURE).session("s").subject("zed@example.com").build());
        Event call = Event.builder(EventKind.CALL).session("s").tool("send_invoice").subject("bob@example.com")
                .args("{\"to\":\"bob@example.com\",\"amount\":120,\"memo\":\"March invoice\","
                        + "\"note\":\"ref=INV-20240301&id=77001234 key:abc12345 (March)\"}").build();
        long[] val = new long[s.g.valuationWords()];
        long[] unev = new long[s.g.valuationWords()];
        // creates the thread's frame, and runs long enough for the JIT to compile the path: code not yet compiled by C2
        // may allocate what escape analysis later removes, a one-off of a few KB that is not the steady path (200 turns
        // were too few once consented() grew: 2.1 KB measured, 48 bytes after this warm-up, as before)
        for (int i = 0; i < 20_000; i++) s.g.ground(call, s.st, val, unev);

        long thread = Thread.currentThread().getId();
        long calibrate = MX.getThreadAllocatedBytes(thread);
        long overhead = MX.getThreadAllocatedBytes(thread) - calibrate;
        int n = 2_000;
        long before = MX.getThreadAllocatedBytes(thread);
        for (int i = 0; i < n; i++) {
            val[0] = 0;
            unev[0] = 0;
            s.g.ground(call, s.st, val, unev);
        }
        long bytes = MX.getThreadAllocatedBytes(thread) - before - overhead;
        // any allocation per grounding costs at least 16 bytes each time; less than n bytes in all means
        // none (a one-off, such as the JVM's own bookkeeping during JIT compilation, stays far below n)
        assertThat(bytes).as("bytes allocated by %d groundings", n).isLessThan(n);

        // applying a call that changes counters only (no context value, no set) allocates nothing either
        dev.tracegate.engine.monitor.SessionState copy = dev.tracegate.engine.monitor.TestStates.copy(s.st);
        s.g.apply(call, val, copy);
        long beforeApply = MX.getThreadAllocatedBytes(thread);
        for (int i = 0; i < n; i++) s.g.apply(call, val, copy);
        long applyBytes = MX.getThreadAllocatedBytes(thread) - beforeApply - overhead;
        assertThat(applyBytes).as("bytes allocated by %d applications", n).isLessThan(n);
        assertThat(copy.words[0] - s.st.words[0]).isEqualTo(n + 1); // the events were counted
        assertThat(Grounding.indices(unev)).isEmpty();
        assertThat(Long.bitCount(val[0])).isGreaterThan(10); // the event really exercised the atoms
    }
}
