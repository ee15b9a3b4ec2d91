package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Data minimisation: rewrites a call's arguments so that they carry only the data categories its purposes need (the
 * smallest part that carries an unneeded category goes: a field or list element at any depth; a field is removed, not
 * masked, since its name is itself a category hint), and masks personal data in model output.
 */
final class Redaction {

    /**
     * A redaction of a call's arguments.
     *
     * @param json    the arguments without what was removed; null when nothing is removed
     * @param removed the removed paths ({@code profile.card}, {@code notes.1}: array elements by their original index)
     * @param cannot  why the call site cannot carry it out (a removal inside an argument whose parts it cannot remove one
     *                by one), or null
     */
    record Arguments(String json, List<String> removed, String cannot) {
        Arguments {
            removed = List.copyOf(removed);
        }
    }

    /**
     * The arguments without the top-level fields that carry a category of {@code only} (the categories the refusing
     * contracts name), or when {@code only} is null without those that carry a category none of the call's purposes
     * needs; null when no field is removed. The whole top-level field goes, however deep the data sits in it: for a call
     * site that cannot say whether it can rewrite inside an argument; {@link #redact} removes only the part that
     * carries the category.
     */
    String redactArguments(Library lib, Event call, Set<String> only) {
        Categories c = new Categories(lib, call, only);
        ObjectNode copy = call.args().root().deepCopy();
        boolean changed = false;
        for (Iterator<String> it = call.args().fieldNames(); it.hasNext(); ) {
            String field = it.next();
            List<Object> at = new ArrayList<>(List.of(field));
            if (!c.excess(at, call.args().root().get(field)).isEmpty()) {
                copy.remove(field);
                changed = true;
            }
        }
        return changed ? copy.toString() : null;
    }

    /**
     * The call's arguments without the smallest parts that carry a category of {@code only} (or, when {@code only} is
     * null, a category none of the call's purposes needs): at each depth a value is kept whole when it carries none;
     * an object or a list that does is kept without those of its fields or elements that carry one, unless what is left
     * still carries one (a policy field map or hint that names the object itself), and then it goes whole; any other
     * value goes. {@code partsFixed} says, for a top-level argument, why the call site cannot remove parts of it one by
     * one (a configured method's object parameter), or null when it can: a removal inside such an argument is not
     * carried out but said in {@link Arguments#cannot}.
     */
    Arguments redact(Library lib, Event call, Set<String> only, Function<String, String> partsFixed) {
        Categories c = new Categories(lib, call, only);
        ObjectNode root = call.args().root();
        ObjectNode copy = JsonNodeFactory.instance.objectNode();
        List<String> removed = new ArrayList<>();
        StringBuilder cannot = null;
        List<Object> at = new ArrayList<>();
        for (Map.Entry<String, JsonNode> en : root.properties()) {
            at.add(en.getKey());
            List<String> inside = new ArrayList<>();
            JsonNode kept = prune(c, at, en.getValue(), inside);
            at.remove(at.size() - 1);
            if (kept != null) copy.set(en.getKey(), kept);
            if (kept != null && !inside.isEmpty()) {
                String why = partsFixed.apply(en.getKey());
                if (why != null) {
                    cannot = cannot == null ? new StringBuilder() : cannot.append("; ");
                    cannot.append(String.join(", ", inside)).append(inside.size() == 1 ? " lies" : " lie").append(" inside the argument ")
                            .append(en.getKey()).append(", ").append(why).append(", whose parts cannot be removed one by one");
                }
            }
            removed.addAll(inside);
        }
        if (removed.isEmpty()) return new Arguments(null, List.of(), null);
        return new Arguments(copy.toString(), removed, cannot == null ? null : cannot.toString());
    }

    /** {@code node} (at path {@code at}) without its parts that carry an excess category; null when it goes whole. */
    private static JsonNode prune(Categories c, List<Object> at, JsonNode node, List<String> removed) {
        if (c.excess(at, node).isEmpty()) return node;
        if (node.isContainerNode() && !node.isEmpty()) {
            List<String> inside = new ArrayList<>();
            JsonNode rest;
            if (node.isObject()) {
                ObjectNode o = JsonNodeFactory.instance.objectNode();
                for (Map.Entry<String, JsonNode> en : node.properties()) {
                    at.add(en.getKey());
                    JsonNode kept = prune(c, at, en.getValue(), inside);
                    at.remove(at.size() - 1);
                    if (kept != null) o.set(en.getKey(), kept);
                }
                rest = o;
            } else {
                ArrayNode a = JsonNodeFactory.instance.arrayNode();
                for (int i = 0; i < node.size(); i++) {
                    at.add(i);
                    JsonNode kept = prune(c, at, node.get(i), inside);
                    at.remove(at.size() - 1);
                    if (kept != null) a.add(kept);
                }
                rest = a;
            }
            if (c.excess(at, rest).isEmpty()) {
                removed.addAll(inside);
                return rest;
            }
        }
        removed.add(path(at));
        return null;
    }

    private static String path(List<Object> at) {
        StringBuilder b = new StringBuilder();
        for (Object step : at) {
            if (b.length() > 0) b.append('.');
            b.append(step);
        }
        return b.toString();
    }

    /** The categories the grounding finds in one value of a call's arguments, put back at its place, that must go. */
    private static final class Categories {
        private final Library lib;
        private final Event call;
        private final Set<String> only;
        private final Set<String> needed = new LinkedHashSet<>();

        Categories(Library lib, Event call, Set<String> only) {
            this.lib = lib;
            this.call = call;
            this.only = only;
            if (only == null) {
                Set<String> purposes = new LinkedHashSet<>(lib.policy().purposesOf(call.tool()));
                purposes.addAll(call.purposes());
                for (String p : purposes) needed.addAll(lib.policy().necessaryCategories(p));
            }
        }

        /**
         * The excess categories of {@code value} at path {@code at}, found by grounding a call that holds only it at
         * that place (its ancestors' field names, earlier list elements as nulls), so that field hints and the policy's
         * per-tool field maps read it as they read it in the whole call.
         */
        Set<String> excess(List<Object> at, JsonNode value) {
            JsonNode inner = value;
            for (int d = at.size() - 1; d >= 1; d--) {
                Object step = at.get(d);
                if (step instanceof Integer i) {
                    ArrayNode a = JsonNodeFactory.instance.arrayNode();
                    for (int k = 0; k < i; k++) a.addNull();
                    inner = a.add(inner);
                } else {
                    inner = JsonNodeFactory.instance.objectNode().set((String) step, inner);
                }
            }
            ObjectNode one = JsonNodeFactory.instance.objectNode();
            one.set((String) at.get(0), inner);
            Event probe = Event.builder(EventKind.CALL).session(call.session()).tool(call.tool()).args(one).build();
            Set<String> excess = new TreeSet<>(lib.grounding().categories(probe));
            if (only != null) excess.retainAll(only);
            else excess.removeAll(needed);
            return excess;
        }
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
