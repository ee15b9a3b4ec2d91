package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.pii.CategorySpan;

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
}
