package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.pii.CategorySpan;
import dev.tracegate.matchers.pii.DataCategoryExtractor;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Data minimisation: rewrites a call's arguments so that they carry only the data categories its
 * purposes need (a field that carries an unneeded category is removed: masking its value would
 * leave the field's name, which is itself a category hint), and masks personal data in model output.
 */
final class Redaction {

    /**
     * The arguments without the fields that carry a category of {@code only} (the categories the refusing contracts
     * name), or when {@code only} is null without those that carry a category none of the call's purposes needs;
     * null when no field is removed.
     */
    String redactArguments(Library lib, Event call, Set<String> only) {
        Set<String> needed = new LinkedHashSet<>();
        Set<String> purposes = new LinkedHashSet<>(lib.policy().purposesOf(call.tool()));
        purposes.addAll(call.purposes());
        for (String p : purposes) needed.addAll(lib.policy().necessaryCategories(p));
        ObjectNode copy = call.args().root().deepCopy();
        boolean changed = false;
        for (Iterator<String> it = call.args().fieldNames(); it.hasNext(); ) {
            String field = it.next();
            JsonNode value = call.args().root().get(field);
            ObjectNode one = copy.objectNode();
            one.set(field, value);
            Event probe = Event.builder(EventKind.CALL).session(call.session()).tool(call.tool()).args(one).build();
            Set<String> excess = new TreeSet<>(lib.grounding().categories(probe));
            if (only != null) excess.retainAll(only);
            else excess.removeAll(needed);
            if (!excess.isEmpty()) {
                copy.remove(field);
                changed = true;
            }
        }
        return changed ? copy.toString() : null;
    }

    /** Text with every detected personal-data span replaced by {@code [redacted: category]}. */
    String redactText(Library lib, String text) {
        return redactText(lib, text, null);
    }

    /**
     * Text with the detected spans of the categories in {@code only} (the categories the refusing contracts name)
     * replaced by {@code [redacted: category]}, the rest of it as it was; every detected span when {@code only} is null.
     */
    String redactText(Library lib, String text, Set<String> only) {
        if (text == null) return null;
        List<CategorySpan> spans = new ArrayList<>();
        for (CategorySpan s : DataCategoryExtractor.INSTANCE.spans(text)) {
            if (only == null || only.contains(s.category().key())) spans.add(s);
        }
        return dev.tracegate.matchers.predicate.Redaction.mask(text, spans);
    }
}
