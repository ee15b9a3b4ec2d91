package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * P4 finds an erased subject in free text (a model answer, a tool result, a longer argument) in every spelling that
 * compares equal to it as P4 compares names (case-folded, white space, invisible format chars and {@code - ( )} left
 * out), as a whole token (trial19 01: after erasing {@code DE89370400440532013000}, the answer {@code Your IBAN DE89 3704
 * 0044 0532 0130 00 is on file.} reached the user). {@link MentionIndex} against a plain-code oracle ({@link Oracle}):
 * normalise the text (remembering where each char kept came from) and the subject, find every occurrence by brute force,
 * and check the text around it with regular expressions.
 */
class MentionSpellingTest {

    /**
     * The documented meaning of "names", in plain code. Chars left out: white space ({@code \p{javaWhitespace}},
     * {@code \p{Z}}), format chars ({@code Cf}) and {@code - ( )}. An occurrence: a stretch of the text that starts and
     * ends with a kept char and whose kept chars equal the subject's kept chars, case ignored. It is continued before
     * when it starts with a token char and the text before it ends with a token char, optionally followed by one joining
     * mark of the subject ({@code . _ +} it contains, all three for an e-mail address), then any run of {@code - ( )} and
     * format chars; after it likewise, mirrored. Token chars: combining marks, and letters and digits outside the scripts
     * written without spaces.
     */
    static final class Oracle {
        private static final String TOKEN = "(?:\\p{M}|[\\p{L}\\p{Nd}&&[^\\p{IsHan}\\p{IsHiragana}\\p{IsKatakana}\\p{IsHangul}\\p{IsThai}"
                + "\\p{IsLao}\\p{IsKhmer}\\p{IsMyanmar}]])";
        private static final String GLUE = "[-()\\p{Cf}]*";
        private static final Pattern STARTS = Pattern.compile(TOKEN + ".*", Pattern.DOTALL);
        private static final Pattern ENDS = Pattern.compile(".*" + TOKEN, Pattern.DOTALL);

        static boolean leftOut(char c) {
            return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '-' || c == '(' || c == ')'
                    || Character.getType(c) == Character.FORMAT;
        }

        static String kept(String s) {
            StringBuilder b = new StringBuilder();
            for (char c : s.toCharArray()) if (!leftOut(c)) b.append(c);
            return b.toString();
        }

        static boolean names(String text, String subject) {
            String w = kept(subject);
            if (w.isEmpty()) return false;
            StringBuilder t = new StringBuilder();
            List<Integer> from = new ArrayList<>();   // where each kept char of the text is
            for (int i = 0; i < text.length(); i++) {
                if (leftOut(text.charAt(i))) continue;
                t.append(text.charAt(i));
                from.add(i);
            }
            Set<String> joins = new TreeSet<>();
            for (char c : (w.contains("@") ? "._+" : w).toCharArray()) if ("._+".indexOf(c) >= 0) joins.add(Pattern.quote(String.valueOf(c)));
            String j = joins.isEmpty() ? "" : "(?:" + String.join("|", joins) + ")?";
            Pattern continuedBefore = Pattern.compile(".*" + TOKEN + j + GLUE, Pattern.DOTALL);
            Pattern continuedAfter = Pattern.compile(GLUE + j + TOKEN + ".*", Pattern.DOTALL);
            String norm = t.toString();
            for (int p = 0; p + w.length() <= norm.length(); p++) {
                if (!norm.regionMatches(true, p, w, 0, w.length())) continue;
                int a = from.get(p), b = from.get(p + w.length() - 1) + 1;
                String hit = text.substring(a, b);
                if (STARTS.matcher(hit).matches() && continuedBefore.matcher(text.substring(0, a)).matches()) continue;
                if (ENDS.matcher(hit).matches() && continuedAfter.matcher(text.substring(b)).matches()) continue;
                return true;
            }
            return false;
        }
    }

    // ------------------------------------------------------------------------------- generators

    /** Subjects people erase: an IBAN compact and grouped, a phone number, prefixed ids, an e-mail address, a name. */
    private static final List<String> SUBJECTS = List.of("DE89370400440532013000", "DE89 3704 0044 0532 0130 00", "+44 20 7946 0958",
            "+442079460958", "C-77", "C77", "C7", "c-7", "ada@example.com", "Cy Young", "J\u00F6rg", "\u738B\u4F1F");
    /** Pieces of texts: letters that fold oddly, digits, white space, the left-out marks, joining marks, a combining mark, scripts without spaces, a surrogate pair. */
    private static final List<String> PIECES = List.of("a", "A", "c", "C", "y", "7", "0", "1", "4", "\u017F", "\u0130", "i", "\u212A", "k",
            " ", "\t", "\n", "\u00A0", "\u2003", "-", "(", ")", "\u200B", "\u00AD", ".", "_", "+", "@", "'", "/", "\u0301", "\u738B", "\uAC00",
            "\uD83D\uDE00", "ada@example.com", "DE89", "0958");
    /** Runs of left-out chars a spelling puts between the subject's chars. */
    private static final List<String> MARKS = List.of("", "", "", "", " ", "  ", "-", "(", ")", "\u00A0", "\t", "\u200B", "\u00AD", " - ", "\n");

    private static Arbitrary<String> fragment(int max) {
        return Arbitraries.of(PIECES).list().ofMaxSize(max).map(l -> String.join("", l));
    }

    /** {@code subject} spelled otherwise: its kept chars with case flipped where {@code flip} says, and {@code marks} between them. */
    static String respell(String subject, List<String> marks, List<Boolean> flip) {
        String w = Oracle.kept(subject);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < w.length(); i++) {
            char c = w.charAt(i);
            if (i > 0 && !Character.isLowSurrogate(c)) b.append(marks.get(i % marks.size()));
            boolean f = flip.get(i % flip.size());
            b.append(f ? (Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c)) : c);
        }
        return b.toString();
    }

    record Case(List<String> subjects, String text) {}

    @Provide Arbitrary<Case> cases() {
        Arbitrary<String> subject = Arbitraries.oneOf(Arbitraries.of(SUBJECTS), fragment(4));
        Arbitrary<List<String>> marks = Arbitraries.of(MARKS).list().ofMinSize(1).ofMaxSize(30);
        Arbitrary<List<Boolean>> flip = Arbitraries.of(true, false).list().ofMinSize(1).ofMaxSize(30);
        return Combinators.combine(subject.list().ofMinSize(1).ofMaxSize(4), Arbitraries.integers().between(0, 3),
                fragment(5), fragment(5), marks, flip, Arbitraries.integers().between(0, 2)).as((subjects, which, before, after, m, f, shape) -> {
            String s = subjects.get(which % subjects.size());
            String spelled = respell(s, m, f);
            String text = switch (shape) {
                case 0 -> before + spelled + after;                 // a spelling of an erased subject amid anything
                case 1 -> before + spelled + "1" + after;           // another id that starts like it
                default -> before + after;                          // anything
            };
            return new Case(subjects, text);
        });
    }

    // ------------------------------------------------------------------------------- properties

    @Property(tries = 3000)
    void theIndexFindsExactlyWhatTheOracleFinds(@ForAll("cases") Case c) {
        boolean want = false;
        for (String s : c.subjects()) {
            boolean named = Oracle.names(c.text(), s);
            assertThat(new MentionIndex(List.of(s)).foundIn(c.text())).as("%s in %s", esc(s), esc(c.text())).isEqualTo(named);
            want |= named;
        }
        assertThat(new MentionIndex(c.subjects()).foundIn(c.text())).as("%s in %s", c.subjects(), esc(c.text())).isEqualTo(want);
        Statistics.label("named").collect(want);
        // both answers are exercised often: a property that only ever saw texts without a mention could not fail
        Statistics.label("named").coverage(k -> {
            k.check(true).percentage(p -> p > 8);
            k.check(false).percentage(p -> p > 8);
        });
    }

    @Property(tries = 1000)
    void everySpellingAsAWordOfItsOwnIsFound(@ForAll("cases") Case c, @ForAll("marks") List<String> m, @ForAll("flips") List<Boolean> f) {
        for (String s : c.subjects()) {
            if (Oracle.kept(s).isEmpty()) continue;
            String text = "re: " + respell(s, m, f) + ", thanks";
            assertThat(new MentionIndex(c.subjects()).foundIn(text)).as("%s in %s", esc(s), esc(text)).isTrue();
        }
    }

    @Provide Arbitrary<List<String>> marks() { return Arbitraries.of(MARKS).list().ofMinSize(1).ofMaxSize(30); }

    @Provide Arbitrary<List<Boolean>> flips() { return Arbitraries.of(true, false).list().ofMinSize(1).ofMaxSize(30); }

    /** The scratch is lent: a search with scratch left over from another text's search gives the same answer. */
    @Property(tries = 500)
    void aSearchDoesNotDependOnTheScratchItIsLent(@ForAll("cases") Case c, @ForAll("cases") Case other) {
        MentionIndex index = new MentionIndex(c.subjects());
        int[] scratch = new int[index.scratch()];
        index.foundIn(other.text(), scratch);
        assertThat(index.foundIn(c.text(), scratch)).isEqualTo(index.foundIn(c.text()));
    }

    // ------------------------------------------------------------------------------- examples

    @Test void theReportedSpellingsAreFoundAndOtherIdsAreNot() {
        MentionIndex iban = new MentionIndex(List.of("DE89370400440532013000"));
        for (String t : List.of("Your IBAN DE89 3704 0044 0532 0130 00 is on file.", "pays to IBAN DE89 3704 0044 0532 0130 00",
                "DE89-3704-0044-0532-0130-00", "de89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000.", "(DE89370400440532013000)"))
            assertThat(iban.foundIn(t)).as(t).isTrue();
        for (String t : List.of("DE89 3704 0044 0532 0130 001", "XDE89370400440532013000", "DE89 3704 0044 0532 0130 00-1"))
            assertThat(iban.foundIn(t)).as(t).isFalse();
        MentionIndex phone = new MentionIndex(List.of("+44 20 7946 0958"));
        for (String t : List.of("I will call you on +442079460958 tomorrow.", "(+44) 20-7946-0958", "+44 (20) 7946 0958"))
            assertThat(phone.foundIn(t)).as(t).isTrue();
        assertThat(phone.foundIn("+44 20 7946 09581")).isFalse();
        MentionIndex id = new MentionIndex(List.of("C-77"));
        for (String t : List.of("customer c77", "customer C 77", "customer C-77.", "(C77)", "C\u200B77", "ids: C-77, C-78"))
            assertThat(id.foundIn(t)).as(t).isTrue();
        for (String t : List.of("C-771", "abc77", "ab-c77", "C-77-1", "C77(1)", "xC 77", "C\u00AD771", "C-7", "c-7-7-1"))
            assertThat(id.foundIn(t)).as(t).isFalse();
    }

    @Test void p4BlocksAnAnswerAndWithholdsAResultInAnySpellingInBothScopes() {
        for (Policy.SubjectScope scope : Policy.SubjectScope.values()) {
            Session s = new Session(Policy.builder().purpose("support", "iban").erasureTool("forget", "who").subjectScope(scope).build(), "mentions_erased");
            s.step(Event.builder(EventKind.ERASURE).session("s").seq(1).subject("DE89370400440532013000").build());
            s.step(Event.builder(EventKind.ERASURE).session("s").seq(2).subject("+44 20 7946 0958").build());
            s.step(Event.builder(EventKind.ERASURE).session("s").seq(3).subject("C-77").build());
            assertThat(s.one(Event.assistant("s", 4, "Your IBAN DE89 3704 0044 0532 0130 00 is on file."))).as("%s answer", scope).isEqualTo(Session.T);
            assertThat(s.one(Event.returned("s", 5, "lookupAccount", "{\"note\":\"pays to IBAN DE89 3704 0044 0532 0130 00\"}", false)))
                    .as("%s result", scope).isEqualTo(Session.T);
            assertThat(s.one(Event.assistant("s", 6, "I will call you on +442079460958 tomorrow."))).as("%s phone", scope).isEqualTo(Session.T);
            assertThat(s.one(Event.call("s", 7, "lookupAccount", "{\"note\":\"about customer c77 and others\"}"))).as("%s argument", scope).isEqualTo(Session.T);
            assertThat(s.one(Event.assistant("s", 8, "customer C-771 and abc77 asked"))).as("%s other ids", scope).isEqualTo(Session.F);
        }
    }

    private static String esc(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c >= 32 && c < 127) b.append(c);
            else b.append(String.format("\\u%04X", (int) c));
        }
        return b.append('"').toString();
    }
}
