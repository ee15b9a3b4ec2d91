package dev.tracegate.matchers.predicate;

import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A register hands each change, and only a change, to its journal in the order it records them (register.path). */
class SubjectRegisterJournalTest {

    /** A journal that writes down what it is given. */
    private static final class Written implements SubjectRegister.Journal {
        final List<String> lines = new ArrayList<>();
        boolean failing;

        @Override public void erased(String subject) {
            lines.add("erase " + subject);
            if (failing) throw new UncheckedIOException(new java.io.IOException("disk full"));
        }

        @Override public void consented(String subject, String purpose, boolean granted) {
            lines.add((granted ? "consent " : "withdraw ") + subject + " " + purpose);
            if (failing) throw new UncheckedIOException(new java.io.IOException("disk full"));
        }
    }

    @Test
    void everyChangeIsJournalledOnceInOrderAndRepeatsAreNot() {
        SubjectRegister r = new SubjectRegister(16);
        Written j = new Written();
        r.journal(j);
        r.erase("ada@example.com");
        r.erase("ada@example.com");          // erased already: nothing changes
        r.consent("bob", "marketing", true);
        r.consent("bob", "marketing", true);  // standing already
        r.consent("bob", "marketing", false);
        r.consent("eve", "support", false);   // a withdrawal without a grant is kept (it outweighs a session's consent)
        r.erase(" ");                         // blank: ignored
        assertThat(j.lines).containsExactly("erase ada@example.com", "consent bob marketing", "withdraw bob marketing",
                "withdraw eve support");
    }

    @Test
    void aJournalThatFailsStillLeavesTheChangeInForceAndTellsTheCaller() {
        SubjectRegister r = new SubjectRegister(16);
        Written j = new Written();
        r.journal(j);
        j.failing = true;
        assertThatThrownBy(() -> r.erase("ada")).isInstanceOf(UncheckedIOException.class);
        assertThat(r.erased("ada")).isTrue();   // the subject asked: the erasure blocks in this JVM even so
        assertThatThrownBy(() -> r.consent("ada", "marketing", false)).isInstanceOf(UncheckedIOException.class);
        assertThat(r.withdrew("ada", "marketing")).isTrue();
    }

    @Test
    void replayingTheJournalIntoANewRegisterGivesTheSameRegister() {
        SubjectRegister first = new SubjectRegister(4);
        List<String[]> journal = new ArrayList<>();
        first.journal(new SubjectRegister.Journal() {
            @Override public void erased(String subject) { journal.add(new String[] {"erase", subject}); }

            @Override public void consented(String subject, String purpose, boolean granted) {
                journal.add(new String[] {granted ? "consent" : "withdraw", subject, purpose});
            }
        });
        // more consents than the capacity: the oldest drops, and must drop again when the journal is read back
        for (String s : List.of("a", "b", "c", "d", "e")) first.consent(s, "marketing", true);
        first.consent("b", "marketing", false);
        first.erase("x");
        SubjectRegister second = new SubjectRegister(4);
        for (String[] c : journal) {
            if (c[0].equals("erase")) second.erase(c[1]);
            else second.consent(c[1], c[2], c[0].equals("consent"));
        }
        for (String s : List.of("a", "b", "c", "d", "e", "x")) {
            assertThat(second.consented(s, "marketing")).as(s).isEqualTo(first.consented(s, "marketing"));
            assertThat(second.withdrew(s, "marketing")).as(s).isEqualTo(first.withdrew(s, "marketing"));
            assertThat(second.erased(s)).as(s).isEqualTo(first.erased(s));
        }
        assertThat(second.consented("a", "marketing")).isFalse();   // dropped as the oldest, in both
        assertThat(second.consented("e", "marketing")).isTrue();
    }

    @Test
    void restoringAJournalInOneGoGivesTheSameRegisterAsRecordingItChangeByChange() {
        String[] subjects = {"ada@example.com", "ADA@example.com", " bob ", "bob", "carl", "dan", "eve", "", "  ", "---", "fay"};
        String[] purposes = {"marketing", "Marketing ", "support"};
        java.util.Random random = new java.util.Random(20261130);
        int compared = 0;
        for (int run = 0; run < 2000; run++) {
            int capacity = 1 + random.nextInt(5);
            List<SubjectRegister.Change> changes = new ArrayList<>();
            for (int i = random.nextInt(25); i > 0; i--) {
                String subject = subjects[random.nextInt(subjects.length)];
                changes.add(random.nextInt(4) == 0 ? SubjectRegister.Change.erasure(subject)
                        : SubjectRegister.Change.consent(subject, purposes[random.nextInt(purposes.length)], random.nextBoolean()));
            }
            SubjectRegister oneByOne = new SubjectRegister(capacity);
            boolean fullOneByOne = false;
            try {
                for (SubjectRegister.Change c : changes) {
                    if (c.erasure()) oneByOne.erase(c.subject());
                    else oneByOne.consent(c.subject(), c.purpose(), c.granted());
                }
            } catch (SubjectRegister.Full e) {
                fullOneByOne = true;
            }
            SubjectRegister restored = new SubjectRegister(capacity);
            boolean fullRestored = false;
            try {
                restored.restore(changes);
            } catch (SubjectRegister.Full e) {
                fullRestored = true;
            }
            assertThat(fullRestored).as("full, run %d: %s", run, changes).isEqualTo(fullOneByOne);
            if (fullRestored) {
                assertThat(restored.erasures() + restored.consents()).isZero();   // nothing recorded
                continue;
            }
            compared++;
            SubjectRegister.State a = oneByOne.state();
            SubjectRegister.State b = restored.state();
            // the same values in the same order (the order decides which consent drops next) and the same texts
            assertThat(b.erased.hashes()).as("erased, run %d: %s", run, changes).containsExactly(a.erased.hashes());
            assertThat(b.erased.texts()).as("texts, run %d", run).containsExactly(a.erased.texts());
            assertThat(b.consents.hashes()).as("consents, run %d: %s", run, changes).containsExactly(a.consents.hashes());
            assertThat(b.withdrawn.hashes()).as("withdrawn, run %d: %s", run, changes).containsExactly(a.withdrawn.hashes());
            for (String subject : subjects) {
                assertThat(restored.erased(subject)).isEqualTo(oneByOne.erased(subject));
                String text = "a letter to " + subject + ", today";
                assertThat(b.mentions.foundIn(text)).as("mention of '%s', run %d", subject, run).isEqualTo(a.mentions.foundIn(text));
            }
        }
        assertThat(compared).isGreaterThan(1000);
    }
}
