package dev.tracegate.matchers.predicate;

import dev.tracegate.engine.ltl.Atom;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VocabularyTest {
    private static VocabularyException fail(String atom) {
        try {
            Grounding.check(Session.atom(atom));
        } catch (VocabularyException e) {
            return e;
        }
        throw new AssertionError("accepted: " + atom);
    }

    @Test void everyDocumentedFormCompiles() {
        List<String> ok = List.of("user", "assistant", "call", "return", "consent", "erasure", "end", "call(t)",
                "call(t, \"x\")", "returned(t)", "failed(t)", "arg(f) > 1", "arg(t, f.g) <= ctx(k)", "arg(f) == \"v\"",
                "arg_matches(f, \"x\")", "arg_matches(t, f, \"x\")", "arg_in(f, [a, \"b\", 3])", "arg_in(t, f, [1])",
                "path_within(f, [\"/a\"])", "path_within(t, f, [\"/a/\"])", "len(arg(f)) < 3", "len(arg(t, f)) < 3",
                "len(result) > 1", "len(text) > 1", "result_matches(\"x\")", "result_matches(t, \"x\")", "user_matches(\"x\")",
                "output_matches(\"x\")", "ctx(k)", "ctx(k) == \"v\"", "ctx(k) > ctx.j", "arg_eq_ctx(f, k)", "arg_eq_ctx(t, f, k)",
                "permission(p)", "flow(f)", "flow(t, f)", "untrusted(f)", "untrusted(t, f)", "untrusted_target", "side_effect",
                "category(email)", "category(\"genetic\")", "personal_data", "excess_data", "purpose(ads)", "consent(ads)",
                "consented", "mentions_erased", "count(t) <= 3", "run(t) >= 2", "sum(t, amount) > 10", "context_len > 5",
                "output_chars > 5", "tokens > 5", "depth > 1", "since(call(t)) > 5", "since(user) < 2", "count(t) != 0",
                "arg(f) >= \"$5,000\"");
        for (String a : ok) Grounding.check(Session.atom(a));
        Grounding g = Grounding.compile(ok.stream().map(Session::atom).toList(), Policy.EMPTY);
        assertThat(g.atoms()).hasSize(ok.size());
        // the table documents every name the compiler accepts
        assertThat(Vocabulary.names()).containsAll(ok.stream().map(s -> Session.atom(s).name()).toList());
    }

    @Test void unknownNameListsAllForms() {
        VocabularyException e = fail("\n  calls(search)");
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.column()).isEqualTo(3);
        assertThat(e.problem()).isEqualTo("unknown atom name 'calls'");
        assertThat(e.getMessage()).startsWith("2:3: atom `calls(search)`: unknown atom name 'calls'. Valid forms: user, assistant");
        assertThat(e.validForms()).contains("call(T)", "count(T) <op> n");
    }

    @Test void wrongShapesSayWhatIsWrong() {
        assertThat(fail("call(a, b, c)").getMessage())
                .isEqualTo("1:1: atom `call(a, b, c)`: 'call' does not take 3 arguments. Valid forms: call, call(T), call(T, \"re\")");
        assertThat(fail("count(search)").problem()).isEqualTo("'count' is a number: compare it, e.g. count(T) <= 3");
        assertThat(fail("call(search) > 2").problem()).isEqualTo("'call(T)' is a condition and takes no comparison");
        assertThat(fail("arg(amount)").problem()).startsWith("'arg' is a value: compare it");
        assertThat(fail("call(search, regex)").problem()).isEqualTo("expected a quoted pattern, found 'regex'");
        assertThat(fail("arg_matches(f, \"(unclosed\")").problem()).startsWith("invalid pattern \"(unclosed\"");
        assertThat(fail("arg_in(f, x)").problem()).isEqualTo("expected a list [a, b, ...], found 'x'");
        assertThat(fail("arg_in(f, [])").problem()).isEqualTo("the list is empty");
        assertThat(fail("call([a])").problem()).isEqualTo("expected a tool name, found '[a]'");
        assertThat(fail("count(t) > \"many\"").problem()).isEqualTo("only == and != compare with text; \"many\" is not a number");
        assertThat(fail("count(t) == \"many\"").problem()).isEqualTo("a number cannot equal the text \"many\"");
        assertThat(fail("count(t) > limit").problem()).isEqualTo("the bound 'limit' must be a number, a quoted string, ctx(key) or ctx.key");
        assertThat(fail("len(args) > 1").problem()).isEqualTo("len takes arg(f), arg(T, f), result or text, not 'args'");
        assertThat(fail("since(count(t)) > 1").problem()).startsWith("since takes a condition atom");
        assertThat(fail("arg(\"a..b\") > 1").problem()).isEqualTo("argument path 'a..b' has an empty segment");
        assertThat(fail("since(calls(x)) > 1").problem()).isEqualTo("unknown atom name 'calls'");
    }

    @Test void atomsInEnglish() {
        assertThat(Vocabulary.describe(Session.atom("count(search) <= 3"))).isEqualTo("the number of calls of search is at most 3");
        assertThat(Vocabulary.describe(Session.atom("arg(refund, amount) <= ctx(approved)")))
                .isEqualTo("argument amount of refund is at most context approved");
        assertThat(Vocabulary.describe(Session.atom("since(call(verify)) > 5"))).isEqualTo("the number of events since a call of verify is above 5");
        assertThat(Vocabulary.describe(Session.atom("len(arg(body)) < 100"))).isEqualTo("the length of argument body is below 100");
        assertThat(Vocabulary.describe(Session.atom("ctx(approved)"))).isEqualTo("context approved is set");
        assertThat(Vocabulary.describe(Session.atom("untrusted(send, to)")))
                .isEqualTo("argument to of send carries a value from a tool result that the user never gave");
        assertThat(Vocabulary.describe(Session.atom("since(user) == 0"))).isEqualTo("the number of events since a user message equals 0");
        for (Vocabulary.Form f : Vocabulary.forms()) {
            assertThat(Vocabulary.describe(new Atom(f.name(), java.util.Collections.nCopies(f.arity(), new dev.tracegate.engine.ltl.Term.Name("x")),
                    null, null, 0, 0))).as(f.syntax()).doesNotContain("{");
        }
    }

    /**
     * Whether a form reads content decides which contracts replay names as not reproducible from a log with personal
     * data hashed: every form declares it, through the record's one constructor, which refuses to leave it out.
     */
    @Test void everyFormDeclaresWhetherItReadsContentAndNoneCanLeaveItToADefault() {
        assertThat(Vocabulary.Form.class.getDeclaredConstructors()).as("no constructor that defaults reads").hasSize(1);
        assertThat(Vocabulary.Form.class.getDeclaredConstructors()[0].getParameterTypes()).contains(Vocabulary.Reads.class);
        assertThatThrownBy(() -> new Vocabulary.Form("new_form", 0, "new_form", Vocabulary.Type.CONDITION, null, "a new form"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("reads");
        for (Vocabulary.Form f : Vocabulary.forms()) {
            assertThat(f.reads()).as(f.syntax()).isNotNull();
            // the two conditional kinds fit only their shapes: a value that may be compared, an atom inside an atom
            if (f.reads() == Vocabulary.Reads.CONTEXT) assertThat(f.meaning()).as(f.syntax()).containsAnyOf("context", "ctx");
            if (f.reads() == Vocabulary.Reads.AS_ITS_ATOM) assertThat(f.syntax()).as(f.syntax()).contains("(atom)");
            // a pattern, a list of values or an argument's value is content
            if (f.syntax().contains("\"re\"") || f.syntax().contains("[") || f.syntax().startsWith("arg")) {
                assertThat(f.reads()).as(f.syntax()).isEqualTo(Vocabulary.Reads.CONTENT);
            }
        }
    }

    @Test void anAtomReadsContentAsItsFormSaysWithComparisonsLatchesAndInnerAtomsTakenIntoAccount() {
        Policy none = Policy.EMPTY;
        assertThat(Vocabulary.readsContent(Session.atom("call(t)"), none)).isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("call(t, \"x\")"), none)).as("the same name, another arity").isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("count(t) <= 3"), none)).isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("arg(t, amount) > 3"), none)).isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("since(call(t)) > 5"), none)).isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("since(user) > 5"), none)).isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("since(call(t, \"x\")) > 5"), none)).isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("since(personal_data) > 5"), none)).isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("calls(t)"), none)).as("outside the vocabulary: nothing says it does not").isTrue();
        // context values: what the latches take them from decides
        Policy latched = Policy.builder()
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.CALL, "approve").set("approved").fromArg("amount"))
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.CALL, "login").set("mode").constant("strict"))
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.RETURN, "quote").set("total").fromResultField("total"))
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.CALL, "promote").add("permissions").fromArg("role"))
                .grant("read").build();
        assertThat(Vocabulary.readsContent(Session.atom("ctx(approved)"), latched)).as("that it holds").isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("ctx(approved) > 100"), latched)).as("its value, from an argument").isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("ctx(ctx.approved) > 100"), latched)).as("the key spelt ctx.k").isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("ctx(mode) == \"strict\""), latched)).as("its value, a constant").isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("ctx(total)"), latched)).as("set only when a result has the field").isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("count(t) <= ctx(approved)"), latched)).as("a bound from an argument").isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("count(t) <= ctx.approved"), latched)).isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("count(t) <= ctx(mode)"), latched)).as("a constant bound").isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("permission(admin)"), latched)).as("permissions added from an argument").isTrue();
        assertThat(Vocabulary.readsContent(Session.atom("permission(read)"), Policy.builder().grant("read").build()))
                .as("granted only").isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("since(ctx(total)) > 1"), latched)).isTrue();
        Policy grantedAndAdded = Policy.builder().grant("read")
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.CALL, "promote").add("permissions").fromArg("role")).build();
        assertThat(Vocabulary.readsContent(Session.atom("permission(READ)"), grantedAndAdded)).as("held from the start, whatever is added").isFalse();
        assertThat(Vocabulary.readsContent(Session.atom("permission(write)"), grantedAndAdded)).as("held once added").isTrue();
        Policy cleared = Policy.builder().grant("read")
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.CALL, "promote").add("permissions").fromArg("role"))
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.CALL, "logout").clear("permissions")).build();
        assertThat(Vocabulary.readsContent(Session.atom("permission(read)"), cleared)).as("a grant a latch can clear").isTrue();
        Policy replaced = Policy.builder().grant("read")
                .latch(Latch.on(dev.tracegate.matchers.event.EventKind.CALL, "switch_role").set("permissions").fromArg("role")).build();
        assertThat(Vocabulary.readsContent(Session.atom("permission(read)"), replaced)).as("a grant a latch can replace").isTrue();
    }

    @Test void markdownTableHasOneRowPerForm() {
        String md = Vocabulary.markdown();
        assertThat(md.lines().count()).isEqualTo(Vocabulary.forms().size() + 2);
        assertThat(md).contains("| `count(T) <op> n` | number |");
    }

    @Test void codeBuiltAtomsWork() {
        Atom a = Atom.of("call", new dev.tracegate.engine.ltl.Term.Name("search"));
        assertThat(Grounding.compile(List.of(a), Policy.EMPTY).atoms()).containsExactly(a);
        assertThatThrownBy(() -> Grounding.check(Atom.of("nope"))).isInstanceOf(VocabularyException.class)
                .hasMessageStartingWith("0:0: atom `nope`");
    }
}
