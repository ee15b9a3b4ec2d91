package dev.tracegate.contracts.library;

import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A session's byte form ({@link SessionMonitor#toBytes}, {@link SessionMonitor#fromBytes}: how replicas of a service
 * would share a session through a store) gained a slot in session 15 (7b2ca5f: a library with consent tools keeps their
 * calls in flight, whose grant counts at a successful RETURN). A session stored before that was refused with "context has
 * 4 slots, this library keeps 5", which said neither why nor what to do. It is now read in its old layout; any other
 * mismatch says that the bytes were written with other contracts, and what to do.
 */
class SessionByteFormTest {
    private static final String POLICY = """
            library: shop
            gdpr:
              scope: session
              purposes:
                marketing: [email]
              consent-purposes: [marketing]
              subject-fields: [customer_id]
              tools:
                send_newsletter: [marketing]
              consent-tools:
                record_consent: {subject: customer_id, purposes: purpose}
            """;

    private static Library load(String policy) {
        return Library.compile(List.of(Library.read("gdpr", null), LibraryReader.read("shop.yaml", policy)));
    }

    private static Event consentCall(String id, String customer) {
        return Event.toolEvent(EventKind.CALL, "s", 0, 0, "record_consent", id,
                Args.ofJson("{\"customer_id\":\"" + customer + "\",\"purpose\":\"marketing\"}"), null, false);
    }

    private static Event consentReturn(String id) {
        return Event.toolEvent(EventKind.RETURN, "s", 0, 0, "record_consent", id, Args.NONE, "recorded", false);
    }

    private static Event newsletter(String customer) {
        return Event.call("s", 0, "send_newsletter", "{\"customer_id\":\"" + customer + "\",\"email\":\"x@example.com\"}");
    }

    private static Decision.Kind step(SessionMonitor<Event> m, Session s, Worker w, Event e) {
        return m.step(s, e, e.controlledByAgent(), true, w).kind();
    }

    @Test
    void aSessionStoredBeforeConsentToolsKeptTheirCallsInFlightIsReadInItsOldLayout() throws IOException {
        Library lib = load(POLICY);
        SessionMonitor<Event> m = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        Worker w = m.newWorker();
        Session s = m.session("s");
        step(m, s, w, consentCall("c1", "C-1"));
        // the slot of the consent tool's calls in flight: the one that holds C-1's call now
        Object[] inFlight = m.snapshot(s).refs;
        int slot = -1;
        for (int i = 0; i < inFlight.length; i++) if (inFlight[i] != null && inFlight[i].getClass().getSimpleName().equals("PendingCalls")) slot = i;
        assertThat(slot).as(Arrays.toString(inFlight)).isNotNegative();
        step(m, s, w, consentReturn("c1"));

        // the byte form the code before 7b2ca5f wrote for this session: the same, without that slot (writeRefs is unchanged)
        byte[] now = m.toBytes(s);
        Object[] refs = m.snapshot(s).refs;
        byte[] nowRefs = refsBytes(lib, refs);
        List<Object> without = new ArrayList<>(Arrays.asList(refs));
        assertThat(without.remove(slot)).as("no call in flight when it was stored").isNull();
        // (and without the version mark, which came later)
        byte[] old = concat(Arrays.copyOfRange(now, 2, now.length - nowRefs.length), refsBytes(lib, without.toArray()));

        SessionMonitor<Event> other = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        Worker ow = other.newWorker();
        Session t = other.fromBytes("s", old);
        assertThat(step(other, t, ow, newsletter("C-1"))).as("C-1's consent came with the session").isEqualTo(Decision.Kind.PASS);
        assertThat(step(other, t, ow, newsletter("C-2"))).isEqualTo(Decision.Kind.BLOCK);
        // the consent tool's calls work on in the restored session: a grant at its RETURN
        step(other, t, ow, consentCall("c2", "C-2"));
        assertThat(step(other, t, ow, newsletter("C-2"))).as("not before its RETURN").isEqualTo(Decision.Kind.BLOCK);
        step(other, t, ow, consentReturn("c2"));
        assertThat(step(other, t, ow, newsletter("C-2"))).isEqualTo(Decision.Kind.PASS);

        // today's byte form still round-trips, a call in flight included
        step(m, s, w, consentCall("c3", "C-3"));
        Session u = other.fromBytes("s", m.toBytes(s));
        step(other, u, ow, consentReturn("c3"));
        assertThat(step(other, u, ow, newsletter("C-3"))).isEqualTo(Decision.Kind.PASS);
    }

    @Test
    void aSessionOfOtherContractsOrCutBytesAreRefusedWithWhatToDo() throws IOException {
        Library lib = load(POLICY);
        SessionMonitor<Event> m = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        Session s = m.session("s");
        m.step(s, consentCall("c1", "C-1"), true, true, m.newWorker());
        byte[] bytes = m.toBytes(s);

        // other contracts: a library without consent tools keeps fewer context slots
        Library plain = load(POLICY.replace("  consent-tools:\n    record_consent: {subject: customer_id, purposes: purpose}\n", "")
                .replace("  scope: session\n", ""));
        SessionMonitor<Event> other = plain.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        assertThatThrownBy(() -> other.fromBytes("s", bytes)).isInstanceOf(IOException.class)
                .hasMessageContaining("context slots and these libraries keep")
                .hasMessageContaining("so it was written with other libraries (or another version of them or of tracegate)")
                .hasMessageContaining("start the session anew, or replay its trace or audit log with these libraries to rebuild it");
        assertThat(other.sessionCount()).isZero();

        // other automata: a library with one more contract
        Library more = load(POLICY + "contracts:\n  - id: shop.cap\n    guarantee: G(count(refund) <= 3)\n");
        SessionMonitor<Event> third = more.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        assertThatThrownBy(() -> third.fromBytes("s", bytes)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("the session's state has ").hasMessageContaining("automata and these contracts have")
                .hasMessageContaining("start the session anew");

        // cut bytes
        assertThatThrownBy(() -> m.fromBytes("t", Arrays.copyOf(bytes, bytes.length - 3))).isInstanceOf(IOException.class)
                .hasMessage("the session's byte form ends early (" + (bytes.length - 3) + " bytes): it was cut, or is not a session's byte form");
    }

    private static final String BUDGET = """
            library: pay
            contracts:
              - id: pay.budget
                guarantee: G(sum(pay, amount) <= 3.30)
            """;

    private static Event pay(String amount) {
        return Event.call("s", 0, "pay", "{\"amount\":" + amount + "}");
    }

    /** The byte form as it was before the version mark: the same fields, without the mark, with {@code words}. */
    private static byte[] unmarked(Library lib, SessionMonitor<Event> m, Session s, long[] words) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        int[] states = m.snapshot(s).states;
        out.writeInt(states.length);
        for (int st : states) out.writeByte(st);   // a varint of one byte: these automata have fewer than 128 states
        out.writeInt(words.length);
        for (long w : words) out.writeLong(w);
        lib.grounding().writeRefs(m.snapshot(s).refs, out);
        out.flush();
        return b.toByteArray();
    }

    /**
     * Before e86bd60 a sum's session word held the bits of a double (1.10 + 2.20 = 3.3000000000000003), and the byte form
     * had no version: read as millionths, such a word was a total of about 4.6 trillion, and the next payment of 0 over
     * a 3.30 budget was refused. The unmarked form is read with its sums converted; the millionths that builds from
     * e86bd60 until the mark wrote unmarked are told apart and read as they are.
     */
    @Test
    void aSessionStoredBeforeExactSumsIsReadWithItsDoubleSumConverted() throws IOException {
        Library lib = load(BUDGET);
        SessionMonitor<Event> m = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        Worker w = m.newWorker();
        Session s = m.session("s");
        assertThat(step(m, s, w, pay("1.10"))).isEqualTo(Decision.Kind.PASS);
        assertThat(step(m, s, w, pay("2.20"))).isEqualTo(Decision.Kind.PASS);
        long[] words = m.snapshot(s).words.clone();
        int sum = -1;
        for (int i = 0; i < words.length; i++) if (words[i] == 3_300_000L) sum = i;
        assertThat(sum).as("the sum's word, in millionths: %s", Arrays.toString(words)).isNotNegative();

        long[] old = words.clone();
        old[sum] = Double.doubleToRawLongBits(1.10 + 2.20);   // what the code before e86bd60 kept
        for (long[] stored : List.of(old, words)) {
            SessionMonitor<Event> other = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
            Worker ow = other.newWorker();
            Session t = other.fromBytes("s", unmarked(lib, m, s, stored));
            assertThat(other.snapshot(t).words[sum]).as("the total of 1.10 and 2.20 in millionths").isEqualTo(3_300_000L);
            assertThat(step(other, t, ow, pay("0"))).as("3.30 is within the budget").isEqualTo(Decision.Kind.PASS);
            assertThat(step(other, t, ow, pay("0.01"))).isEqualTo(Decision.Kind.BLOCK);
        }

        // today's form carries its version and round-trips
        byte[] now = m.toBytes(s);
        assertThat(now[0] & 0xFF).isEqualTo(0xF7);
        assertThat((int) now[1]).isEqualTo(SessionMonitor.BYTES_VERSION);
        SessionMonitor<Event> third = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        assertThat(third.snapshot(third.fromBytes("s", now)).words).containsExactly(words);
    }

    @Test
    void aByteFormOfAnotherVersionOrNoneIsRefusedWithWhatToDo() throws IOException {
        Library lib = load(BUDGET);
        SessionMonitor<Event> m = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        Session s = m.session("s");
        m.step(s, pay("1"), true, true, m.newWorker());
        byte[] newer = m.toBytes(s);
        newer[1] = (byte) (SessionMonitor.BYTES_VERSION + 1);
        assertThatThrownBy(() -> m.fromBytes("t", newer)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("the session's byte form is version " + (SessionMonitor.BYTES_VERSION + 1)
                        + " and this tracegate reads versions 0 to " + SessionMonitor.BYTES_VERSION + ", so it was written by a newer tracegate")
                .hasMessageContaining("start the session anew");
        byte[] other = m.toBytes(s);
        other[0] = (byte) 0x9C;
        assertThatThrownBy(() -> m.fromBytes("t", other)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("the session's byte form starts with byte 0x9c, which no version of tracegate writes first")
                .hasMessageContaining("start the session anew");
        assertThat(m.sessionCount()).as("only the session it had").isEqualTo(1);
    }

    private static byte[] refsBytes(Library lib, Object[] refs) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        lib.grounding().writeRefs(refs, out);
        out.flush();
        return b.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
