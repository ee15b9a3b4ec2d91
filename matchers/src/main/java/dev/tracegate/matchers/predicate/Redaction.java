package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.pii.CategorySpan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
}
