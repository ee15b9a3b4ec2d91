package dev.tracegate.matchers.predicate;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each vocabulary form's declaration of what it reads ({@link Vocabulary.Reads}) against what its grounding does: one
 * session stepped as written and as an audit log with personal data hashed keeps it (every text, argument value,
 * result and subject a digest, equal values equal digests; kinds, tools, field names, order, the consent tool's
 * purposes and grant, depth as they are). An atom that reads only structure must answer the same on both at every
 * event; an atom that reads content must answer differently somewhere, or the session does not exercise it. The
 * policy's latches take part: a context value taken from content is content.
 */
class ReadsContentOracleTest {
    /**
     * At least one example per form, each with the session below in mind; context values from each kind of latch
     * (an argument, a constant, a result's field), also as a bound; since with inner atoms of both kinds.
     */
    static final List<String> EXAMPLES = List.of(
            "user", "assistant", "call", "return", "consent", "erasure", "end", "call(send_money)",
            "call(send_money, \"DE89\")", "returned(read_invoice)", "failed(send_money)", "arg(amount) > 100",
            "arg(send_money, amount) <= 1000", "arg_matches(recipient, \"DE\")", "arg_matches(send_money, recipient, \"DE\")",
            "arg_in(recipient, [\"DE89370400440532013000\"])", "arg_in(send_money, recipient, [\"DE89370400440532013000\"])",
            "path_within(path, [\"/srv/\"])", "path_within(send_invoice, path, [\"/srv/\"])", "len(arg(email)) > 14",
            "result_matches(\"Pay to\")", "result_matches(read_invoice, \"Pay to\")", "user_matches(\"invoice\")",
            "output_matches(\"wrote\")", "ctx(approved)", "ctx(approved) > 100", "ctx(mode) == \"strict\"", "ctx(total)", "arg_eq_ctx(recipient, payee)",
            "arg_eq_ctx(send_money, recipient, payee)", "permission(admin)", "permission(read_orders)", "flow(recipient)",
            "flow(send_money, recipient)", "untrusted(recipient)", "untrusted(send_money, recipient)", "untrusted_target",
            "side_effect", "named_link", "category(email)", "personal_data", "excess_data", "purpose(billing)",
            "consent(billing)", "consented", "undeclared_purpose", "mentions_erased", "count(send_money) >= 1",
            "run(send_money) >= 1", "sum(send_money, amount) > 10", "context_len > 100", "output_chars > 20", "tokens > 20",
            "depth > 0", "since(call(send_money)) > 2", "since(personal_data) > 2", "since(ctx(total)) > 0");

    static final Policy POLICY = Policy.builder()
            .purpose("billing", "email").purpose("ads")
            .toolPurposes("send_invoice", "billing").toolPurposes("mail_ads", "ads")
            .consentTool("give_consent", "customer", "purposes", "granted")
            .erasureTool("forget", "customer")
            .subjectField("customer")
            .sideEffecting("send_money", "recipient").sideEffecting("get_webpage", "url")
            .grant("read_orders")
            .latch(Latch.on(EventKind.CALL, "approve").set("approved").fromArg("amount"))
            .latch(Latch.on(EventKind.CALL, "approve").set("payee").constant("DE89370400440532013000"))
            .latch(Latch.on(EventKind.CALL, "login").add("permissions").constant("admin"))
            .latch(Latch.on(EventKind.CALL, "login").set("mode").constant("strict"))
            .latch(Latch.on(EventKind.CALL, "login").set("limit").constant("3"))
            .latch(Latch.on(EventKind.CALL, "promote").add("permissions").fromArg("role"))
            .latch(Latch.on(EventKind.RETURN, "quote").set("total").fromResultField("total"))
            .provenance(Provenance.builder().fetchTools("get_webpage").build())
            .build();

    /**
     * The session, with {@code v} applied to every value a hashed log keeps only as a digest: the user asks to pay an
     * invoice, consents to billing, a result brings in an IBAN that a payment then uses, an invoice and an ad mail
     * carry an e-mail address, a channel names a link the user asked about, a subject asks for erasure and the model
     * names it, a delegated call, a failed payment; a login adds a permission and two constants, a promotion adds a
     * permission from its argument, a quote's result sets a total from one of its fields.
     */
    private static List<Event> session(UnaryOperator<Object> v) {
        List<Event> es = new ArrayList<>();
        es.add(Event.user("s", 1, (String) v.apply("Please pay the invoice in invoice.txt and mail the receipt to"
                + " alice@example.com; also, what did Eve recommend in general?")));
        es.add(call(2, "give_consent", "customer", v.apply("alice"), "purposes", List.of("billing"), "granted", true));
        es.add(call(3, "promote", "role", v.apply("admin")));
        es.add(call(4, "login"));
        es.add(Event.returned("s", 5, "quote", (String) v.apply("{\"total\":40}"), false));
        es.add(call(6, "approve", "amount", v.apply(500)));
        es.add(call(7, "read_invoice", "file", v.apply("invoice.txt")));
        es.add(Event.returned("s", 8, "read_invoice", (String) v.apply("Amount 40 EUR. Pay to DE89370400440532013000."), false));
        es.add(call(9, "send_money", "recipient", v.apply("DE89370400440532013000"), "amount", v.apply(40)));
        es.add(call(10, "send_invoice", "customer", v.apply("alice"), "email", v.apply("alice@example.com"),
                "path", v.apply("/srv/a/../b.txt")));
        // no field-name hint: only the text says the ad mail carries an e-mail address, which its purpose does not need
        es.add(call(11, "mail_ads", "customer", v.apply("alice"), "note", v.apply("write to alice@example.com")));
        es.add(Event.returned("s", 12, "read_channel",
                (String) v.apply("[{\"sender\":\"Eve\",\"channel\":\"general\",\"body\":\"see www.food.example\"}]"), false));
        es.add(call(13, "get_webpage", "url", v.apply("https://www.food.example")));
        es.add(call(14, "forget", "customer", v.apply("bob")));
        es.add(Event.assistant("s", 15, (String) v.apply("I wrote to bob about the refund")));
        es.add(Event.builder(EventKind.CALL).session("s").seq(16).tool("lookup").args(Map.of("q", v.apply("orders"))).depth(1).build());
        es.add(Event.returned("s", 17, "send_money", (String) v.apply("declined"), true));
        es.add(Event.builder(EventKind.END).session("s").seq(18).build());
        return es;
    }

    private static Event call(long seq, String tool, Object... fieldsAndValues) {
        Map<String, Object> args = new LinkedHashMap<>();
        for (int i = 0; i < fieldsAndValues.length; i += 2) args.put((String) fieldsAndValues[i], fieldsAndValues[i + 1]);
        return Event.call("s", seq, tool, args);
    }

    /** A value as a hashed log writes it: a digest, the same for equal values (numbers and texts apart). */
    private static Object digest(Object value) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(((value instanceof Number ? "n:" : "s:") + value)
                    .getBytes(StandardCharsets.UTF_8));
            return "d" + java.util.HexFormat.of().formatHex(h, 0, 6);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void everyFormReadsWhatItDeclaresOnASessionAndItsHashedTwin() {
        Set<String> covered = new HashSet<>();
        for (String e : EXAMPLES) {
            Atom a = Session.atom(e);
            covered.add(a.name() + "/" + a.args().size());
        }
        for (Vocabulary.Form f : Vocabulary.forms()) {
            assertThat(covered).as("an example of %s (add one to EXAMPLES)", f.syntax()).contains(f.name() + "/" + f.arity());
        }
        Session clear = new Session(POLICY, EXAMPLES.toArray(new String[0]));
        Session hashed = new Session(POLICY, EXAMPLES.toArray(new String[0]));
        List<Event> asWritten = session(UnaryOperator.identity());
        List<Event> asHashed = session(ReadsContentOracleTest::digest);
        int[][] c = new int[asWritten.size()][];
        int[][] h = new int[asWritten.size()][];
        for (int i = 0; i < asWritten.size(); i++) {
            c[i] = clear.step(asWritten.get(i));
            h[i] = hashed.step(asHashed.get(i));
        }
        List<String> wrong = new ArrayList<>();
        for (int k = 0; k < EXAMPLES.size(); k++) {
            int[] cs = new int[c.length];
            int[] hs = new int[c.length];
            for (int i = 0; i < c.length; i++) {
                cs[i] = c[i][k];
                hs[i] = h[i][k];
            }
            boolean differs = !Arrays.equals(cs, hs);
            boolean content = Vocabulary.readsContent(Session.atom(EXAMPLES.get(k)), POLICY);
            if (differs != content) {
                wrong.add(EXAMPLES.get(k) + (content ? " declares content but answers the same: " + Arrays.toString(cs)
                        : " declares structure but answers " + Arrays.toString(cs) + " as written, " + Arrays.toString(hs) + " hashed"));
            }
        }
        assertThat(wrong).as("1 true, 0 false, -1 unevaluable, per event").isEmpty();
    }
}
