package dev.tracegate.matchers.predicate;

import com.google.re2j.Matcher;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The hand-written labelled-line scanner finds exactly the values the RE2/J pattern {@link Sightings#LABELLED} finds. */
class LabelledLinesTest {
    private static final String ALPHABET = "aZq09 \t::\n\r\f\u000B-_.é@/xY ";

    private static List<String> byPattern(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = Sightings.LABELLED.matcher(text);
        while (m.find()) out.add(m.group(1));
        return out;
    }

    private static List<String> byScanner(String text) {
        List<String> out = new ArrayList<>();
        int n = text.length();
        for (int ls = 0; ls <= n; ) {
            int le = text.indexOf('\n', ls);
            if (le < 0) le = n;
            int v = Sightings.labelledValue(text, ls, le);
            if (v >= 0) out.add(text.substring(v, Sightings.trimEnd(text, v, le)));
            ls = le + 1;
        }
        return out;
    }

    @Test
    void handPickedLines() {
        String bill = "Bill\n  IBAN:  DE89 3704 \t\nTotal:\t9.00\r\nno colon here\nA label that is far too long to be one: x\n:x\nKey:value\nKey: \nA-b_c 1: v: w\n";
        assertThat(byScanner(bill)).containsExactly("DE89 3704", "9.00\r", "v: w").isEqualTo(byPattern(bill));
    }

    @Test
    void randomTextsAgreeWithThePattern() {
        Random r = new Random(20261129L);
        for (int i = 0; i < 30_000; i++) {
            StringBuilder b = new StringBuilder();
            int len = r.nextInt(60);
            for (int k = 0; k < len; k++) b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
            if (r.nextInt(3) == 0) b.insert(r.nextInt(b.length() + 1), "Label: value ");
            String text = b.toString();
            assertThat(byScanner(text)).as("text %s", text.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")).isEqualTo(byPattern(text));
        }
    }
}
