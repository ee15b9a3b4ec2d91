package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.matchers.pii.CategorySpan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What to remove from an event so that it carries only the data categories its purposes need (the
 * {@code redact} strategy of minimisation): the excess categories, the argument fields that hold
 * them (dotted paths, array elements by index) and the spans of text and result.
 *
 * @param excessCategories categories present that no purpose of the event needs
 * @param argumentPaths    argument fields holding excess data, e.g. {@code customer.phone} or {@code cc.1}
 * @param textSpans        spans of {@link dev.tracegate.matchers.event.Event#text()} to remove
 * @param resultSpans      spans of {@link dev.tracegate.matchers.event.Event#result()} to remove
 */
public record Redaction(Set<String> excessCategories, List<String> argumentPaths, List<CategorySpan> textSpans,
                        List<CategorySpan> resultSpans) {
    public Redaction {
        excessCategories = Set.copyOf(excessCategories);
        argumentPaths = List.copyOf(argumentPaths);
        textSpans = List.copyOf(textSpans);
        resultSpans = List.copyOf(resultSpans);
    }

    /** True when nothing needs removing. */
    public boolean isEmpty() {
        return argumentPaths.isEmpty() && textSpans.isEmpty() && resultSpans.isEmpty() && excessCategories.isEmpty();
    }

    /** The event's text with {@link #textSpans} masked (see {@link #mask}). */
    public String maskText(String text) {
        return mask(text, textSpans);
    }

    /** The event's result with {@link #resultSpans} masked (see {@link #mask}). */
    public String maskResult(String result) {
        return mask(result, resultSpans);
    }

    /**
     * {@code text} with each span replaced by {@code [redacted: category]}, whatever order the spans come in (a detector
     * reports its own kind's spans together, so an e-mail found after a card number may come first). Spans that overlap
     * or touch are masked as one, named by the category of the one that starts first (the longest among those). A span
     * that reaches past the text is an error: it was found in another text.
     */
    public static String mask(String text, List<CategorySpan> spans) {
        if (text == null || spans.isEmpty()) return text;
        List<CategorySpan> byStart = new ArrayList<>(spans);
        byStart.sort(Comparator.comparingInt(CategorySpan::start).thenComparing(Comparator.comparingInt(CategorySpan::end).reversed()));
        StringBuilder b = new StringBuilder(text.length());
        int at = 0;
        int i = 0;
        while (i < byStart.size()) {
            CategorySpan first = byStart.get(i);
            if (first.end() > text.length()) {
                throw new IllegalArgumentException("span [" + first.start() + ", " + first.end() + ") of " + first.category().key()
                        + " reaches past the end of a text of " + text.length() + " chars: it belongs to another text");
            }
            int end = first.end();
            int j = i + 1;
            while (j < byStart.size() && byStart.get(j).start() <= end) {
                end = Math.max(end, byStart.get(j).end());
                if (end > text.length()) {
                    throw new IllegalArgumentException("span [" + byStart.get(j).start() + ", " + byStart.get(j).end() + ") reaches past the end"
                            + " of a text of " + text.length() + " chars: it belongs to another text");
                }
                j++;
            }
            b.append(text, at, first.start()).append("[redacted: ").append(first.category().key()).append(']');
            at = end;
            i = j;
        }
        return b.append(text, at, text.length()).toString();
    }

    /**
     * The argument paths ({@code profile.card}, {@code notes.1}: array elements by their index in {@code before}) that
     * {@code before} holds and {@code after} no longer does, when {@code after} was made from {@code before} by removing
     * object fields and array elements at any depth: the topmost removed node of each branch. An array element of
     * {@code after} is matched to the first element of {@code before} it can have come from, so where two readings give
     * the same {@code after} (equal elements) the earlier elements are the ones kept. A value of {@code after} that is
     * not such a remainder of {@code before}'s at the same place (changed, not removed) is named as removed too: the
     * original is gone.
     */
    public static List<String> removedPaths(JsonNode before, JsonNode after) {
        List<String> out = new ArrayList<>();
        removed(before, after, "", out);
        return out;
    }

    private static void removed(JsonNode before, JsonNode after, String path, List<String> out) {
        if (before.equals(after)) return;
        if (before.isObject() && after.isObject()) {
            for (Map.Entry<String, JsonNode> en : before.properties()) {
                String p = path.isEmpty() ? en.getKey() : path + "." + en.getKey();
                JsonNode now = after.get(en.getKey());
                if (now == null) out.add(p);
                else removed(en.getValue(), now, p, out);
            }
            return;
        }
        if (before.isArray() && after.isArray()) {
            int j = 0;
            for (int i = 0; i < before.size(); i++) {
                String p = path.isEmpty() ? Integer.toString(i) : path + "." + i;
                // each element of after goes to the first element of before it can be a remainder of (the earliest place is
                // as good as any for the rest); when as many are left on both sides, nothing more went: they pair in order
                if (j < after.size() && (after.size() - j == before.size() - i || remainderOf(before.get(i), after.get(j)))) {
                    removed(before.get(i), after.get(j), p, out);
                    j++;
                } else {
                    out.add(p);
                }
            }
            return;
        }
        out.add(path);
    }

    /** Whether {@code after} can be {@code before} with some fields and elements removed at any depth. */
    private static boolean remainderOf(JsonNode before, JsonNode after) {
        if (before.equals(after)) return true;
        if (before.isObject() && after.isObject()) {
            for (Map.Entry<String, JsonNode> en : after.properties()) {
                JsonNode was = before.get(en.getKey());
                if (was == null || !remainderOf(was, en.getValue())) return false;
            }
            return true;
        }
        if (before.isArray() && after.isArray()) {
            int j = 0;
            for (int i = 0; i < before.size() && j < after.size(); i++) {
                if (remainderOf(before.get(i), after.get(j))) j++;
            }
            return j == after.size();
        }
        return false;
    }
}
