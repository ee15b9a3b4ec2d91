package dev.tracegate.matchers.predicate;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The interaction-predicate vocabulary: every atom form a library may use, whether it is a
 * condition or a number to compare, and what it means. {@code T} is a tool name, {@code f} an
 * argument field (dotted for nested fields), {@code "re"} an RE2 pattern, {@code key} a context key.
 */
public final class Vocabulary {
    /** Whether a form is a condition (true/false) or a number that must be compared. */
    public enum Type {
        /** Used as is: {@code call(search)}. */
        CONDITION,
        /** Compared with a bound: {@code count(search) <= 3}. */
        NUMBER,
        /** Either: {@code ctx(k)} holds, or {@code ctx(k) == "v"}. */
        VALUE
    }

    /**
     * What of an event a form reads: only its structure (event kinds, tool names, argument field names, order,
     * purposes, the consent tools' fields, declared depth, which values are equal), or its content (texts,
     * argument values, results). A record that keeps content only as digests, such as an audit log with personal
     * data hashed, cannot reproduce the answer of a form that reads content.
     */
    public enum Reads {
        /** Only structure: {@code call(search)}, {@code count(search) <= 3}. */
        STRUCTURE,
        /** The content of a text, an argument value or a result: {@code arg(amount) > 100}, {@code category(email)}. */
        CONTENT,
        /**
         * A context value, which latches write: content when the atom looks at a value a latch takes from content (an
         * argument, a result, a text, a subject), as {@code ctx(k) == "v"} and {@code permission(p)} do, or when a latch
         * takes it from a field of a result (a digest has no fields), which decides even whether {@code ctx(k)} holds.
         */
        CONTEXT,
        /** What its condition atom reads: {@code since(call(verify)) > 5} reads what {@code call(verify)} reads. */
        AS_ITS_ATOM
    }

    /** One atom form; every form says what it {@link Reads reads}, so a new form cannot leave it to a default. */
    public record Form(String name, int arity, String syntax, Type type, Reads reads, String meaning) {
        public Form {
            java.util.Objects.requireNonNull(name, "name");
            java.util.Objects.requireNonNull(syntax, "syntax");
            java.util.Objects.requireNonNull(type, "type");
            java.util.Objects.requireNonNull(reads, "reads: say whether the form reads content (Reads.CONTENT) or only structure");
            java.util.Objects.requireNonNull(meaning, "meaning");
        }
    }

    private static final List<Form> FORMS = List.of(
        new Form("user", 0, "user", Type.CONDITION, Reads.STRUCTURE, "the event is a USER message"),
        new Form("assistant", 0, "assistant", Type.CONDITION, Reads.STRUCTURE, "the event is model output (ASSISTANT)"),
        new Form("call", 0, "call", Type.CONDITION, Reads.STRUCTURE, "the event is a tool CALL"),
        new Form("return", 0, "return", Type.CONDITION, Reads.STRUCTURE, "the event is a tool RETURN"),
        new Form("consent", 0, "consent", Type.CONDITION, Reads.STRUCTURE, "the event is a CONSENT event or a call of a consent tool of the policy"),
        new Form("erasure", 0, "erasure", Type.CONDITION, Reads.STRUCTURE, "the event is an ERASURE event or a call of an erasure tool of the policy"),
        new Form("end", 0, "end", Type.CONDITION, Reads.STRUCTURE, "the event is the END of the session (matchers only: a library refuses it)"),
        new Form("call", 1, "call(T)", Type.CONDITION, Reads.STRUCTURE, "a CALL of tool T"),
        new Form("call", 2, "call(T, \"re\")", Type.CONDITION, Reads.CONTENT, "a CALL of T whose arguments, as compact JSON, contain a match of re"),
        new Form("returned", 1, "returned(T)", Type.CONDITION, Reads.STRUCTURE, "a successful RETURN of T"),
        new Form("failed", 1, "failed(T)", Type.CONDITION, Reads.STRUCTURE, "a RETURN of T that reports an error"),
        new Form("arg", 1, "arg(f) <op> bound", Type.VALUE, Reads.CONTENT, "argument f of the current CALL (false when absent)"),
        new Form("arg", 2, "arg(T, f) <op> bound", Type.VALUE, Reads.CONTENT, "argument f of a CALL of T (unevaluable when absent)"),
        new Form("arg_matches", 2, "arg_matches(f, \"re\")", Type.CONDITION, Reads.CONTENT, "argument f contains a match of re"),
        new Form("arg_matches", 3, "arg_matches(T, f, \"re\")", Type.CONDITION, Reads.CONTENT, "argument f of a CALL of T contains a match of re"),
        new Form("arg_in", 2, "arg_in(f, [v1, v2])", Type.CONDITION, Reads.CONTENT, "argument f equals one of the values"),
        new Form("arg_in", 3, "arg_in(T, f, [v1, v2])", Type.CONDITION, Reads.CONTENT, "argument f of a CALL of T equals one of the values"),
        new Form("path_within", 2, "path_within(f, [\"/srv/\", \"/tmp/\"])", Type.CONDITION, Reads.CONTENT, "argument f, a file path normalised (. and .. resolved), lies under one of the prefixes"),
        new Form("path_within", 3, "path_within(T, f, [\"/srv/\"])", Type.CONDITION, Reads.CONTENT, "as path_within(f, ...) for CALLs of T"),
        new Form("len", 1, "len(arg(f)) | len(arg(T, f)) | len(result) | len(text) <op> n", Type.NUMBER, Reads.CONTENT, "length in characters of a string, or number of elements of an array or object"),
        new Form("result_matches", 1, "result_matches(\"re\")", Type.CONDITION, Reads.CONTENT, "a RETURN whose result contains a match of re"),
        new Form("result_matches", 2, "result_matches(T, \"re\")", Type.CONDITION, Reads.CONTENT, "a RETURN of T whose result contains a match of re (the result's text: for a Spring AI tool that returned a `String`,"
                + " the text itself, not the JSON string Spring AI sends the model; for MCP tools the text of its content items:"
                + " agent/README.md, \"MCP results\")"),
        new Form("user_matches", 1, "user_matches(\"re\")", Type.CONDITION, Reads.CONTENT, "a USER message containing a match of re"),
        new Form("output_matches", 1, "output_matches(\"re\")", Type.CONDITION, Reads.CONTENT, "model output (ASSISTANT) containing a match of re"),
        new Form("ctx", 1, "ctx(key) | ctx(key) <op> bound", Type.VALUE, Reads.CONTEXT, "context key holds a value (or a non-empty set); compared: its value (a set: == tests membership, numbers compare its size)"),
        new Form("arg_eq_ctx", 2, "arg_eq_ctx(f, key)", Type.CONDITION, Reads.CONTENT, "argument f equals the value of context key (or is in its set): Match"),
        new Form("arg_eq_ctx", 3, "arg_eq_ctx(T, f, key)", Type.CONDITION, Reads.CONTENT, "as arg_eq_ctx(f, key) for CALLs of T"),
        new Form("permission", 1, "permission(p)", Type.CONDITION, Reads.CONTEXT, "permission p is held (policy grants, or latches adding to ctx key permissions)"),
        new Form("flow", 1, "flow(f)", Type.CONDITION, Reads.CONTENT, "argument f carries a value that an earlier tool result introduced: the argument whole, an identifier in it, or an identifier glued into a longer token of it (api_key=SECRET, a URL's query) or split by one run of white space (matchers/README.md, Untrusted values)"),
        new Form("flow", 2, "flow(T, f)", Type.CONDITION, Reads.CONTENT, "as flow(f) for CALLs of T"),
        new Form("untrusted", 1, "untrusted(f)", Type.CONDITION, Reads.CONTENT, "argument f carries a value a tool result introduced and the user never named (with a policy provenance: by whole-word occurrence and its trust refinements)"),
        new Form("untrusted", 2, "untrusted(T, f)", Type.CONDITION, Reads.CONTENT, "as untrusted(f) for CALLs of T"),
        new Form("untrusted_target", 0, "untrusted_target", Type.CONDITION, Reads.CONTENT, "a CALL of a side-effecting tool of the policy whose target argument is untrusted (unevaluable when it has none of its target arguments; with a policy provenance: its refinements decide, and a call without targets is not untrusted; a call whose arguments could not be read, `{\"_raw\": text}`, is unevaluable in both modes)"),
        new Form("side_effect", 0, "side_effect", Type.CONDITION, Reads.STRUCTURE, "a CALL of a side-effecting tool of the policy"),
        new Form("named_link", 0, "named_link", Type.CONDITION, Reads.CONTENT, "a CALL of a fetch tool of the policy's provenance whose every target lies inside a record (mapping) of an output that the user, or a source the user handed the task to, named by a short field"),
        new Form("category", 1, "category(c)", Type.CONDITION, Reads.CONTENT, "data of category c is in the event (declared, field maps, field-name hints, detectors)"),
        new Form("personal_data", 0, "personal_data", Type.CONDITION, Reads.CONTENT, "data of some category is in the event"),
        new Form("excess_data", 0, "excess_data", Type.CONDITION, Reads.CONTENT, "the event has purposes and carries a category none of them needs (minimisation)"),
        new Form("purpose", 1, "purpose(p)", Type.CONDITION, Reads.STRUCTURE, "the event is for purpose p (declared, or bound to its tool)"),
        new Form("consent", 1, "consent(p)", Type.CONDITION, Reads.STRUCTURE, "the event's subject (or the session, for subject-less consent) has consent for purpose p"),
        new Form("consented", 0, "consented", Type.CONDITION, Reads.STRUCTURE, "every purpose of the event that rests on consent has the subject's consent (true when it has none: a user message or a reply has no purpose, so `G(assistant & personal_data -> consented)` never fails; for \"no personal data in a reply before the user consented to p\" write `consent(p)`)"),
        new Form("undeclared_purpose", 0, "undeclared_purpose", Type.CONDITION, Reads.STRUCTURE, "the event serves a purpose the policy does not declare, or no purpose although the policy declares some"),
        new Form("mentions_erased", 0, "mentions_erased", Type.CONDITION, Reads.CONTENT, "the event's subject, an argument, its text or result names a subject that asked for erasure (not an erasure tool's subject argument at its call, nor its result)"),
        new Form("count", 1, "count(T) <op> n", Type.NUMBER, Reads.STRUCTURE, "CALLs of T in the session, the current one included; refused calls are not counted (below, Counters)"),
        new Form("run", 1, "run(T) <op> n", Type.NUMBER, Reads.STRUCTURE, "consecutive CALLs of T ending at this event: a call of another tool breaks the run (0), other kinds do not, and at them it reads the run so far (a user message after two calls of T reads 2); refused calls neither extend nor break it"),
        new Form("sum", 2, "sum(T, f) <op> n", Type.NUMBER, Reads.CONTENT, "running sum of argument f over CALLs of T, the current one included; refused calls are not summed; added exactly in decimal (millionths, see below)"),
        new Form("context_len", 0, "context_len <op> n", Type.NUMBER, Reads.CONTENT, "characters of user text, model output and results so far, this event included"),
        new Form("output_chars", 0, "output_chars <op> n", Type.NUMBER, Reads.CONTENT, "characters of model output so far, this event included"),
        new Form("tokens", 0, "tokens <op> n", Type.NUMBER, Reads.CONTENT, "model tokens so far, this event included (declared per event, else characters / 4)"),
        new Form("depth", 0, "depth <op> n", Type.NUMBER, Reads.STRUCTURE, "delegation depth of the event (0: top-level agent)"),
        new Form("since", 1, "since(atom) <op> n", Type.NUMBER, Reads.AS_ITS_ATOM, "events since the condition atom last held (0: holds now; never: infinite)")
    );

    private Vocabulary() {}

    /** All forms in documentation order. */
    public static List<Form> forms() { return FORMS; }

    /** Distinct atom names. */
    public static Set<String> names() {
        Set<String> s = new LinkedHashSet<>();
        for (Form f : FORMS) s.add(f.name());
        return s;
    }

    /** The syntaxes of the forms called {@code name} (empty when unknown). */
    public static List<String> syntaxes(String name) {
        List<String> out = new ArrayList<>();
        for (Form f : FORMS) if (f.name().equals(name)) out.add(f.syntax());
        return out;
    }

    /** One syntax per form, for "valid forms" lists. */
    public static List<String> allSyntaxes() {
        List<String> out = new ArrayList<>();
        for (Form f : FORMS) out.add(f.syntax());
        return out;
    }

    /** The form for {@code name} with {@code arity} arguments, or null. */
    public static Form form(String name, int arity) {
        for (Form f : FORMS) if (f.name().equals(name) && f.arity() == arity) return f;
        return null;
    }

    /**
     * Whether {@code atom}, in a library with {@code policy} (its latches), reads content that a record keeping values
     * only as digests cannot reproduce (see {@link Reads}); so does an atom compared with a context value that a
     * latch takes from content ({@code count(t) <= ctx(limit)}), and an atom outside the vocabulary, since nothing
     * says it does not.
     */
    public static boolean readsContent(dev.tracegate.engine.ltl.Atom atom, Policy policy) {
        String boundKey = boundKey(atom.bound());
        if (boundKey != null && latched(policy, boundKey, false)) return true;
        Form f = form(atom.name(), atom.args().size());
        if (f == null) return true;
        return switch (f.reads()) {
            case STRUCTURE -> false;
            case CONTENT -> true;
            case CONTEXT -> {
                boolean permission = atom.name().equals("permission");
                String key = permission ? PERMISSIONS_KEY : keyOf(atom.args().get(0));
                if (key == null) yield true;
                if (permission && granted(policy, keyOf(atom.args().get(0)))) yield false;
                // permission(p) asks whether p is among the values; ctx(k) uncompared only whether there is one
                yield latched(policy, key, true) || (permission || atom.comparison() != null) && latched(policy, key, false);
            }
            case AS_ITS_ATOM -> {
                dev.tracegate.engine.ltl.Term t = atom.args().get(0);
                if (t instanceof dev.tracegate.engine.ltl.Term.Call c) {
                    yield readsContent(new dev.tracegate.engine.ltl.Atom(c.name(), c.args(), null, null, 0, 0), policy);
                }
                if (t instanceof dev.tracegate.engine.ltl.Term.Name n) {
                    yield readsContent(new dev.tracegate.engine.ltl.Atom(n.value(), List.of(), null, null, 0, 0), policy);
                }
                yield true;
            }
        };
    }

    /** The context key the grounding keeps permissions under. */
    private static final String PERMISSIONS_KEY = "permissions";

    /**
     * Whether a latch of {@code policy} writes context {@code key} from a field of a result ({@code fieldsOnly}), or
     * from any content at all: an argument, a result, a text or a subject (a constant and a clear are structure).
     */
    private static boolean latched(Policy policy, String key, boolean fieldsOnly) {
        for (Latch l : policy.latches()) {
            if (!l.key.equals(key) || l.action == Latch.Action.CLEAR) continue;
            if (fieldsOnly ? l.source == Latch.Source.RESULT_FIELD : l.source != Latch.Source.CONSTANT) return true;
        }
        return false;
    }

    /**
     * Whether the policy grants permission {@code p} from the start and no latch clears or replaces the permissions
     * (only adds to them): then it is always held.
     */
    private static boolean granted(Policy policy, String p) {
        if (p == null || !policy.permissions().contains(Policy.norm(p))) return false;
        for (Latch l : policy.latches()) if (l.key.equals(PERMISSIONS_KEY) && l.action != Latch.Action.ADD) return false;
        return true;
    }

    /** The key of a context bound ({@code ctx(k)} or {@code ctx.k}), else null (a number or a text). */
    private static String boundKey(dev.tracegate.engine.ltl.Term b) {
        if (b instanceof dev.tracegate.engine.ltl.Term.Call c && c.name().equals("ctx") && c.args().size() == 1) return keyOf(c.args().get(0));
        if (b instanceof dev.tracegate.engine.ltl.Term.Name n && n.value().startsWith("ctx.")) return n.value().substring(4);
        return null;
    }

    /** A context key as {@code ctx}'s argument: a name or a quoted string, {@code ctx.} dropped, as the grounding reads it. */
    private static String keyOf(dev.tracegate.engine.ltl.Term t) {
        String k = t instanceof dev.tracegate.engine.ltl.Term.Name n ? n.value() : t instanceof dev.tracegate.engine.ltl.Term.Str str ? str.value() : null;
        return k == null ? null : k.startsWith("ctx.") ? k.substring(4) : k;
    }

    private static final java.util.Map<String, String> ENGLISH = java.util.Map.ofEntries(
        java.util.Map.entry("user/0", "a user message"), java.util.Map.entry("assistant/0", "model output"),
        java.util.Map.entry("call/0", "a tool call"), java.util.Map.entry("return/0", "a tool result"),
        java.util.Map.entry("consent/0", "a consent event"), java.util.Map.entry("erasure/0", "an erasure request"),
        java.util.Map.entry("end/0", "the end of the session"),
        java.util.Map.entry("call/1", "a call of {0}"), java.util.Map.entry("call/2", "a call of {0} with arguments matching /{1}/"),
        java.util.Map.entry("returned/1", "a successful result of {0}"), java.util.Map.entry("failed/1", "a failed result of {0}"),
        java.util.Map.entry("arg/1", "argument {0}"), java.util.Map.entry("arg/2", "argument {1} of {0}"),
        java.util.Map.entry("arg_matches/2", "argument {0} matches /{1}/"), java.util.Map.entry("arg_matches/3", "argument {1} of {0} matches /{2}/"),
        java.util.Map.entry("arg_in/2", "argument {0} is one of {1}"), java.util.Map.entry("arg_in/3", "argument {1} of {0} is one of {2}"),
        java.util.Map.entry("path_within/2", "path {0} lies within {1}"), java.util.Map.entry("path_within/3", "path {1} of {0} lies within {2}"),
        java.util.Map.entry("len/1", "the length of {0}"),
        java.util.Map.entry("result_matches/1", "a tool result matches /{0}/"), java.util.Map.entry("result_matches/2", "a result of {0} matches /{1}/"),
        java.util.Map.entry("user_matches/1", "the user writes something matching /{0}/"),
        java.util.Map.entry("output_matches/1", "the model outputs something matching /{0}/"),
        java.util.Map.entry("ctx/1", "context {0}"),
        java.util.Map.entry("arg_eq_ctx/2", "argument {0} equals context {1}"), java.util.Map.entry("arg_eq_ctx/3", "argument {1} of {0} equals context {2}"),
        java.util.Map.entry("permission/1", "permission {0} is held"),
        java.util.Map.entry("flow/1", "argument {0} carries a value from a tool result"),
        java.util.Map.entry("flow/2", "argument {1} of {0} carries a value from a tool result"),
        java.util.Map.entry("untrusted/1", "argument {0} carries a value from a tool result that the user never gave"),
        java.util.Map.entry("untrusted/2", "argument {1} of {0} carries a value from a tool result that the user never gave"),
        java.util.Map.entry("untrusted_target/0", "a side-effecting call targets an untrusted value"),
        java.util.Map.entry("named_link/0", "a fetch opens a link inside a record the user named"),
        java.util.Map.entry("side_effect/0", "a side-effecting call"),
        java.util.Map.entry("category/1", "the event carries {0} data"), java.util.Map.entry("personal_data/0", "the event carries personal data"),
        java.util.Map.entry("excess_data/0", "the event carries data its purposes do not need"),
        java.util.Map.entry("purpose/1", "the event serves purpose {0}"),
        java.util.Map.entry("consent/1", "the data subject consented to {0}"),
        java.util.Map.entry("consented/0", "every purpose of the event has consent"),
        java.util.Map.entry("mentions_erased/0", "the event mentions a subject who asked for erasure"),
        java.util.Map.entry("count/1", "the number of calls of {0}"), java.util.Map.entry("run/1", "the number of consecutive calls of {0}"),
        java.util.Map.entry("sum/2", "the total {1} of calls of {0}"), java.util.Map.entry("context_len/0", "the context length"),
        java.util.Map.entry("output_chars/0", "the characters of model output"), java.util.Map.entry("tokens/0", "the tokens used"),
        java.util.Map.entry("depth/0", "the delegation depth"), java.util.Map.entry("since/1", "the number of events since {0}"));

    /**
     * The atom in English ({@code count(search) <= 3}: "the number of calls of search is at most 3"),
     * for explanations; falls back to the atom's text for forms outside the vocabulary.
     */
    public static String describe(dev.tracegate.engine.ltl.Atom atom) {
        String t = ENGLISH.get(atom.name() + "/" + atom.args().size());
        if (t == null) return atom.key();
        List<dev.tracegate.engine.ltl.Term> args = atom.args();
        String out = t;
        for (int i = 0; i < args.size(); i++) out = out.replace("{" + i + "}", english(args.get(i)));
        if (atom.name().equals("ctx") && atom.comparison() == null) out += " is set";
        if (atom.comparison() != null) {
            String op = switch (atom.comparison()) {
                case "<" -> "is below";
                case "<=" -> "is at most";
                case ">" -> "is above";
                case ">=" -> "is at least";
                case "==" -> "equals";
                default -> "differs from";
            };
            out += " " + op + " " + bound(atom.bound());
        }
        return out;
    }

    private static String english(dev.tracegate.engine.ltl.Term t) {
        if (t instanceof dev.tracegate.engine.ltl.Term.Str s) return s.value();
        if (t instanceof dev.tracegate.engine.ltl.Term.Call c) {
            if (c.name().equals("arg") || ENGLISH.containsKey(c.name() + "/" + c.args().size())) {
                return describe(new dev.tracegate.engine.ltl.Atom(c.name(), c.args(), null, null, 0, 0));
            }
        }
        if (t instanceof dev.tracegate.engine.ltl.Term.Name n && (n.value().equals("result") || n.value().equals("text"))) {
            return "the " + n.value();
        }
        if (t instanceof dev.tracegate.engine.ltl.Term.Name n && ENGLISH.containsKey(n.value() + "/0")) {
            return ENGLISH.get(n.value() + "/0");
        }
        return t.toString();
    }

    private static String bound(dev.tracegate.engine.ltl.Term b) {
        if (b instanceof dev.tracegate.engine.ltl.Term.Call c && c.name().equals("ctx") && c.args().size() == 1) {
            return "context " + c.args().get(0);
        }
        if (b instanceof dev.tracegate.engine.ltl.Term.Name n && n.value().startsWith("ctx.")) return "context " + n.value().substring(4);
        return b.toString();
    }

    /** The vocabulary as a Markdown table (for matchers/README.md). */
    public static String markdown() {
        StringBuilder b = new StringBuilder("| form | type | meaning |\n|---|---|---|\n");
        for (Form f : FORMS) {
            b.append("| `").append(f.syntax().replace("|", "\\|")).append("` | ").append(f.type().name().toLowerCase(java.util.Locale.ROOT))
                    .append(" | ").append(f.meaning()).append(" |\n");
        }
        return b.toString();
    }
}
