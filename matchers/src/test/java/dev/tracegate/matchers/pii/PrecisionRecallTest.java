package dev.tracegate.matchers.pii;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures the extractor against the labelled fixture set (src/test/resources/pii/labelled.tsv, labels
 * from construction, see make_fixtures.py): precision and recall per category and overall (micro
 * average). Prints the table and writes it to target/pii-precision-recall.md for the README.
 */
class PrecisionRecallTest {
    record Labelled(DataCategory label, String text) {}

    static List<Labelled> fixtures() throws IOException {
        List<Labelled> out = new ArrayList<>();
        try (InputStream in = PrecisionRecallTest.class.getResourceAsStream("/pii/labelled.tsv");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) continue;
                int tab = line.indexOf('\t');
                String cat = line.substring(0, tab);
                DataCategory c = cat.equals("none") ? null : DataCategory.parse(cat);
                if (c == null && !cat.equals("none")) throw new IllegalStateException("unknown label " + cat);
                out.add(new Labelled(c, line.substring(tab + 1)));
            }
        }
        return out;
    }

    @Test void precisionAndRecallAreAtLeast95Percent() throws IOException {
        List<Labelled> data = fixtures();
        assertThat(data).hasSizeGreaterThanOrEqualTo(300);
        Map<DataCategory, int[]> counts = new EnumMap<>(DataCategory.class); // tp, fp, fn, support
        for (DataCategory c : DataCategory.values()) counts.put(c, new int[4]);
        int negatives = 0;
        List<String> misses = new ArrayList<>();
        for (Labelled l : data) {
            Set<DataCategory> got = DataCategoryExtractor.INSTANCE.categories(l.text());
            if (l.label() == null) negatives++;
            else counts.get(l.label())[3]++;
            for (DataCategory c : DataCategory.values()) {
                boolean want = c == l.label();
                boolean have = got.contains(c);
                if (want && have) counts.get(c)[0]++;
                else if (have) counts.get(c)[1]++;
                else if (want) counts.get(c)[2]++;
            }
            if (!(l.label() == null ? got.isEmpty() : got.equals(Set.of(l.label())))) {
                misses.add((l.label() == null ? "none" : l.label().key()) + " | " + l.text() + " | found " + got);
            }
        }
        StringBuilder t = new StringBuilder("| category | values | precision | recall |\n|---|---:|---:|---:|\n");
        int tp = 0, fp = 0, fn = 0;
        for (DataCategory c : DataCategory.values()) {
            int[] k = counts.get(c);
            tp += k[0];
            fp += k[1];
            fn += k[2];
            t.append(row(c.key(), k[3], k[0], k[1], k[2]));
        }
        t.append(row("**overall**", data.size() - negatives, tp, fp, fn));
        t.append("\nValues: ").append(data.size()).append(" (").append(negatives).append(" hard negatives).");
        if (!misses.isEmpty()) t.append(" Misclassified: ").append(String.join("; ", misses)).append('.');
        t.append('\n');
        System.out.println(t);
        Path target = Path.of("target");
        if (Files.isDirectory(target)) Files.writeString(target.resolve("pii-precision-recall.md"), t);

        for (DataCategory c : DataCategory.values()) {
            int[] k = counts.get(c);
            assertThat(precision(k[0], k[1])).as("precision of " + c.key()).isGreaterThanOrEqualTo(0.95);
            assertThat(recall(k[0], k[2])).as("recall of " + c.key()).isGreaterThanOrEqualTo(0.95);
        }
        assertThat(precision(tp, fp)).as("overall precision").isGreaterThanOrEqualTo(0.95);
        assertThat(recall(tp, fn)).as("overall recall").isGreaterThanOrEqualTo(0.95);
    }

    private static String row(String name, int support, int tp, int fp, int fn) {
        return String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f |%n", name, support, precision(tp, fp), recall(tp, fn));
    }

    private static double precision(int tp, int fp) { return tp + fp == 0 ? 1.0 : (double) tp / (tp + fp); }

    private static double recall(int tp, int fn) { return tp + fn == 0 ? 1.0 : (double) tp / (tp + fn); }
}
