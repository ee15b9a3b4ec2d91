package dev.tracegate.contracts.library;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Every class of loader mistake gives its exact message: file:line:column, what, and a hint. */
class LibraryReaderErrorsTest {

    private static final String PROVENANCE =
            "library: x\ninjection:\n  side-effecting:\n    send: [to]\n  provenance:\n%scontracts:\n  - id: c\n    guarantee: G !p\n";

    private static final String PAST_ONLY = "rewrite so that the future operator is outside and the past one inside, "
            + "e.g. G(b -> O a) (every b preceded by an a) instead of O(F ...) or H(X ...)";

    static Stream<Arguments> mistakes() {
        return Stream.of(
                Arguments.of("empty file", "",
                        "lib.yaml:1:1: the file is empty\n  hint: a library starts with 'library: <name>' and has a 'contracts:' list"),
                Arguments.of("not a map", "- a\n- b\n",
                        "lib.yaml:1:1: the library must be a map, found a list\n  hint: write it as 'key: value' lines indented under it"),
                Arguments.of("unknown top key with suggestion", "library: x\ncontract:\n  - id: a\n    guarantee: G !p\n",
                        "lib.yaml:2:1: unknown key 'contract' in the library\n  hint: did you mean 'contracts'? valid keys: atoms, context, contracts, description, gdpr, injection, library, permissions, settings, tracegate"),
                Arguments.of("missing library name", "contracts:\n  - id: a\n    guarantee: G !p\n",
                        "lib.yaml:1:1: the library has no 'library'\n  hint: start the file with 'library: <name>'"),
                Arguments.of("missing contracts", "library: x\n",
                        "lib.yaml:1:1: the library has no 'contracts'\n  hint: add a 'contracts:' list with at least one contract"),
                Arguments.of("contracts not a list", "library: x\ncontracts: 3\n",
                        "lib.yaml:2:12: contracts must be a list, found an integer\n  hint: start each contract with '- id: ...'"),
                Arguments.of("empty contracts", "library: x\ncontracts: []\n",
                        "lib.yaml:2:12: the library has no contracts\n  hint: add at least one '- id: ...' under contracts"),
                Arguments.of("contract without id", "library: x\ncontracts:\n  - guarantee: G !p\n",
                        "lib.yaml:3:5: a contract has no 'id'\n  hint: give every contract an 'id:'"),
                Arguments.of("duplicate id", "library: x\ncontracts:\n  - id: a\n    guarantee: G !p\n  - id: a\n    guarantee: G !q\n",
                        "lib.yaml:5:9: duplicate contract id 'a'\n  hint: it is already used at line 3; ids must be unique"),
                Arguments.of("duplicate key", "library: x\nlibrary: y\ncontracts:\n  - id: a\n    guarantee: G !p\n",
                        "lib.yaml:2:1: duplicate key 'library'\n  hint: it is already set at line 1; keep one"),
                Arguments.of("unknown contract key", "library: x\ncontracts:\n  - id: a\n    guarantee: G !p\n    stratgy: block\n",
                        "lib.yaml:5:5: unknown key 'stratgy' in a contract\n  hint: did you mean 'strategy'? valid keys: assume, description, guarantee, id, message, next, redirect-to, strategy"),
                Arguments.of("bad strategy", "library: x\ncontracts:\n  - id: a\n    guarantee: G !p\n    strategy: blok\n",
                        "lib.yaml:5:15: a contract.strategy is 'blok', which is not one of block, escalate, redact, redirect, suppress\n  hint: did you mean 'block'?"),
                Arguments.of("redirect without target", "library: x\ncontracts:\n  - id: a\n    guarantee: G !p\n    strategy: redirect\n",
                        "lib.yaml:3:5: contract 'a' has strategy redirect but no 'redirect-to'\n  hint: name the tool to run instead: redirect-to: <tool>"),
                Arguments.of("missing guarantee", "library: x\ncontracts:\n  - id: a\n",
                        "lib.yaml:3:5: a contract has no 'guarantee'\n  hint: every contract needs a 'guarantee:' formula, e.g. G(refund -> O approve)"),
                Arguments.of("bad formula", "library: x\ncontracts:\n  - id: a\n    guarantee: G(p ->)\n",
                        "lib.yaml:4:22: in formula 'G(p ->)': unexpected ')', expected a formula after '->'\n  hint: the formula syntax is in docs/FORMULAS.md"),
                Arguments.of("RE2 class with one backslash in a plain scalar", "library: x\ncontracts:\n  - id: a\n    guarantee: G !user_matches(\"\\d{4}\")\n",
                        "lib.yaml:4:33: in formula 'G !user_matches(\"\\d{4}\")': unexpected escape '\\d' in a string, expected one of \\\" \\\\ \\n"
                                + " (a pattern's backslash is written twice in a formula: \\\\d, and four times inside a YAML double-quoted scalar: \\\\\\\\d)\n"
                                + "  hint: write the pattern's backslash twice: \\\\d; the formula syntax is in docs/FORMULAS.md"),
                Arguments.of("RE2 class with two backslashes in a double-quoted scalar",
                        "library: x\ncontracts:\n  - id: a\n    guarantee: \"G !user_matches(\\\"\\\\d{4}\\\")\"\n",
                        "lib.yaml:4:35: in formula 'G !user_matches(\"\\d{4}\")': unexpected escape '\\d' in a string, expected one of \\\" \\\\ \\n"
                                + " (a pattern's backslash is written twice in a formula: \\\\d, and four times inside a YAML double-quoted scalar: \\\\\\\\d)\n"
                                + "  hint: this formula is a YAML double-quoted scalar, which reads its backslashes first: write \\\\\\\\d for the"
                                + " pattern's \\d (or leave the formula unquoted, or in single quotes, and write \\\\d); the formula syntax is in docs/FORMULAS.md"),
                Arguments.of("RE2 class with one backslash in a double-quoted scalar",
                        "library: x\ncontracts:\n  - id: a\n    guarantee: \"G !user_matches(\\\"\\d{4}\\\")\"\n",
                        "lib.yaml:4:36: not valid YAML: found unknown escape character d(100)\n"
                                + "  hint: in a YAML double-quoted scalar a backslash starts a YAML escape: for a pattern's \\d (say) in a formula write"
                                + " \\\\\\\\d there (YAML reads it as \\\\d, which the formula reads as \\d), or leave the formula unquoted or in single"
                                + " quotes and write \\\\d (docs/FORMULAS.md)"),
                Arguments.of("bound written first", "library: x\ncontracts:\n  - id: a\n    guarantee: G(call(pay) -> 100 >= arg(pay, amount))\n",
                        "lib.yaml:4:31: in formula 'G(call(pay) -> 100 >= arg(pay, amount))': unexpected '100', expected a formula after '->'\n"
                                + "  hint: a comparison starts with its atom: write arg(pay, amount) <= 100; the formula syntax is in docs/FORMULAS.md"),
                Arguments.of("future operator inside a past one", "library: g1\ncontracts:\n  - id: g1.a\n    guarantee: O(F call(x))\n",
                        "lib.yaml:4:18: in formula 'O(F call(x))': future operator F inside past operator O; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                Arguments.of("future operator inside since, in an assumption", "library: x\ncontracts:\n  - id: c\n    assume: G(p -> (q S (r U s)))\n    guarantee: G !p\n",
                        "lib.yaml:4:28: in formula 'G(p -> (q S (r U s)))': future operator U inside past operator S; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                // trial13 past-operand-column: the column is the future operator's, not its operand's first atom's
                Arguments.of("future operator inside a past one, quoted", "library: e\ncontracts:\n  - id: e.x\n    guarantee: \"H(X call(a))\"\n",
                        "lib.yaml:4:19: in formula 'H(X call(a))': future operator X inside past operator H; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                Arguments.of("future operator right after a past one", "library: e\ncontracts:\n  - id: e.x\n    guarantee: Y G call(a)\n",
                        "lib.yaml:4:18: in formula 'Y G call(a)': future operator G inside past operator Y; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                Arguments.of("until inside once", "library: e\ncontracts:\n  - id: e.x\n    guarantee: call(b) -> O(call(c)  U  (call(a)))\n",
                        "lib.yaml:4:38: in formula 'call(b) -> O(call(c)  U  (call(a)))': future operator U inside past operator O; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                Arguments.of("future operator on a later line of a block", "library: e\ncontracts:\n  - id: e.x\n    guarantee: |\n      call(b) ->\n        call(a) S (F\n          call(b))\n",
                        "lib.yaml:6:20: in formula 'call(b) ->\n  call(a) S (F\n    call(b))': future operator F inside past operator S; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                Arguments.of("named atom with a future operator inside a past one", "library: x\natoms:\n  later: F call(x)\ncontracts:\n  - id: c\n    guarantee: G(call(y) -> O later)\n",
                        "lib.yaml:6:31: in formula 'G(call(y) -> O later)': named atom 'later' (F call(x)) has future operator F and is used inside past operator O; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                Arguments.of("future operator inside a past one in a named atom", "library: x\natoms:\n  seen: H(X p)\ncontracts:\n  - id: c\n    guarantee: G !seen\n",
                        "lib.yaml:3:11: in formula 'H(X p)': future operator X inside past operator H; the operands of Y, O, H and S must be past-only\n"
                                + "  hint: " + PAST_ONLY),
                Arguments.of("formula read as a YAML tag", "library: x\ncontracts:\n  - id: a\n    guarantee: !call(refund) W returned(approve_refund)\n",
                        "lib.yaml:4:16: formula '!call(refund) W returned(approve_refund)' starts with '!call(refund)', which YAML reads as a tag and drops, leaving 'W returned(approve_refund)'\n"
                                + "  hint: quote the formula: guarantee: \"!call(refund) W returned(approve_refund)\""),
                Arguments.of("whole formula read as a YAML tag, in a named atom", "library: x\natoms:\n  no_refund: !call(refund)\ncontracts:\n  - id: a\n    guarantee: G no_refund\n",
                        "lib.yaml:3:14: formula '!call(refund)' starts with '!call(refund)', which YAML reads as a tag and drops, leaving ''\n"
                                + "  hint: quote the formula: no_refund: \"!call(refund)\""),
                Arguments.of("tag that YAML cannot scan", "library: x\ncontracts:\n  - id: a\n    assume: !user_matches(\"no\") W p\n    guarantee: G !p\n",
                        "lib.yaml:4:13: not valid YAML: YAML reads the value that starts here with '!' as a tag and cannot scan it\n"
                                + "  hint: YAML reads a value that starts with '!' as a tag; quote a formula that starts with '!', e.g. guarantee: \"!call(x) W y\""),
                Arguments.of("tagged formula with a pattern", "library: x\ncontracts:\n  - id: a\n    assume: !ready W user_matches(\"no\")\n    guarantee: G !p\n",
                        "lib.yaml:4:13: formula '!ready W user_matches(\"no\")' starts with '!ready', which YAML reads as a tag and drops, leaving 'W user_matches(\"no\")'\n"
                                + "  hint: quote the formula: assume: '!ready W user_matches(\"no\")'"),
                Arguments.of("guarantee is a list", "library: x\ncontracts:\n  - id: a\n    guarantee: [G p]\n",
                        "lib.yaml:4:16: guarantee must be a string, found a list"),
                Arguments.of("bad id characters", "library: x\ncontracts:\n  - id: a b\n    guarantee: G !p\n",
                        "lib.yaml:3:9: contract id 'a b' has characters other than letters, digits, '_', '.', ':' and '-'"),
                Arguments.of("named atom cycle", "library: x\natoms:\n  a: b | p\n  b: a & q\ncontracts:\n  - id: c\n    guarantee: G !a\n",
                        "lib.yaml:3:6: named atoms refer to each other in a cycle: a -> b -> a\n  hint: define one of them without the others"),
                Arguments.of("reserved atom name", "library: x\natoms:\n  G: call(x)\ncontracts:\n  - id: c\n    guarantee: G !p\n",
                        "lib.yaml:3:3: atom name 'G' is a reserved operator\n  hint: choose another name"),
                Arguments.of("settings type", "library: x\nsettings:\n  max-states: lots\ncontracts:\n  - id: c\n    guarantee: G !p\n",
                        "lib.yaml:3:15: settings.max-states must be an integer, found a string\n  hint: for example: max-states: 10000"),
                Arguments.of("undeclared purpose", "library: x\ngdpr:\n  purposes:\n    billing: [name]\n  tools:\n    send_newsletter: [marketing]\ncontracts:\n  - id: c\n    guarantee: G !p\n",
                        "lib.yaml:6:22: tool 'send_newsletter' is bound to purpose 'marketing', which is not declared\n  hint: declare it under gdpr.purposes with the categories it needs (declared: billing)"),
                Arguments.of("empty consent purposes", "library: x\ngdpr:\n  purposes:\n    billing: [name]\n  consent-purposes: []\ncontracts:\n  - id: c\n    guarantee: G !p\n",
                        "lib.yaml:5:21: consent-purposes is empty, which would mean that every purpose rests on consent (as when the key is left out), not that none does\n"
                                + "  hint: list the purposes that rest on consent, write 'consent-purposes: none' when none does, or leave the key out for all of them"),
                Arguments.of("latch with two modes", "library: x\ncontext:\n  - on: {kind: RETURN, tool: t}\n    set: a\n    add: b\ncontracts:\n  - id: c\n    guarantee: G !p\n",
                        "lib.yaml:3:5: a latch needs exactly one of 'set', 'add', 'clear'\n  hint: set: key (single value), add: key (set of values) or clear: key"),
                Arguments.of("latch bad kind", "library: x\ncontext:\n  - on: {kind: RETRUN}\n    set: a\ncontracts:\n  - id: c\n    guarantee: G !p\n",
                        "lib.yaml:3:16: on.kind is 'RETRUN', which is not one of ASSISTANT, CALL, CONSENT, ERASURE, RETURN, USER\n  hint: did you mean 'RETURN'?"),
                Arguments.of("tab indenting a key", "library: shop\ncontracts:\n  - id: a.b\n    guarantee: G !call(x)\n\tmessage: hi\n",
                        "lib.yaml:5:1: not valid YAML: a tab in the indentation: tabs are not allowed for indentation in YAML\n"
                                + "  hint: use spaces: indent with as many spaces as the lines around it"),
                Arguments.of("tab after spaces", "library: shop\ncontracts:\n  - id: a.b\n  \t guarantee: G !call(x)\n",
                        "lib.yaml:4:3: not valid YAML: a tab in the indentation: tabs are not allowed for indentation in YAML\n"
                                + "  hint: use spaces: indent with as many spaces as the lines around it"),
                Arguments.of("key without a colon", "library: x\ndescription the shop\ncontracts:\n  - id: a\n    guarantee: G !p\n",
                        "lib.yaml:2:1: not valid YAML: 'description the shop' has no ':' after its key\n"
                                + "  hint: write 'description: the shop' (a ':' and a space after the key)"),
                Arguments.of("quote not closed", "library: x\ncontracts:\n  - id: a\n    message: \"Money\n    guarantee: G !p\n",
                        "lib.yaml:4:14: not valid YAML: the quoted text that starts here is not closed (the parser read on to line 6)\n"
                                + "  hint: add the closing quote at the end of the value, or escape a quote inside it"),
                Arguments.of("line indented between two levels", "library: x\ncontracts:\n  - id: a\n    guarantee: G !p\n   message: m\n",
                        "lib.yaml:5:4: not valid YAML: the indentation of this line (3 spaces) matches none of the mappings above it\n"
                                + "  hint: indent it like the keys it belongs with: the first key on line 4 ('guarantee: G !p') has 4 spaces before it"),
                Arguments.of("key of a list item indented like its '-'", "library: ops\ncontracts:\n  - id: ops.search-cap\n   guarantee: G p\n",
                        "lib.yaml:4:4: not valid YAML: the indentation of this line (3 spaces) matches none of the mappings above it\n"
                                + "  hint: indent it like the keys it belongs with: the first key on line 3 ('- id: ops.search-cap') has 4 spaces"
                                + " before it ('- ' counts)"),
                Arguments.of("formula cut by a comment", "library: y\ncontracts:\n  - id: y.x\n    guarantee: G(call(post) -> !arg_matches(post, text, \"buy #ad\"))\n",
                        "lib.yaml:4:62: in formula 'G(call(post) -> !arg_matches(post, text, \"buy': unexpected unterminated string \"buy,"
                                + " expected a closing '\"' on the same line, because YAML reads ' #' and what follows"
                                + " on the line ('#ad\"))') as a comment and cuts the formula there\n"
                                + "  hint: quote the formula: 'G(call(post) -> !arg_matches(post, text, \"buy #ad\"))'"),
                Arguments.of("formula read as an alias", "library: q\ncontracts:\n  - id: q.a\n    guarantee: *G\n",
                        "lib.yaml:4:16: formula '*G' starts with '*', which YAML reads as an alias (a reference to a value marked '&G') and"
                                + " drops, leaving 'G'\n  hint: quote the formula: \"*G\""),
                Arguments.of("formula read as an alias that parses", "library: q\ncontracts:\n  - id: q.a\n    guarantee: *p # no p\n",
                        "lib.yaml:4:16: formula '*p' starts with '*', which YAML reads as an alias (a reference to a value marked '&p') and"
                                + " drops, leaving 'p'\n  hint: quote the formula: \"*p\""),
                Arguments.of("value holding ': '", "library: x\ncontracts:\n  - id: a\n    guarantee: G !p\n    message: Don't: do it\n",
                        "lib.yaml:5:14: not valid YAML: the value of 'message' contains ': ', which YAML reads as the start of another key\n"
                                + "  hint: quote the value: message: \"Don't: do it\""),
                Arguments.of("parent key without colon", "library: x\nsettings\n  max-states: 100\ncontracts: []\n",
                        "lib.yaml:2:1: not valid YAML: 'settings' has no ':' after its key\n"
                                + "  hint: write 'settings:' (the indented lines below it are its keys)"),
                Arguments.of("line indented under a key with a value", "library: x\n  description: d\ncontracts: []\n",
                        "lib.yaml:2:3: not valid YAML: this line is indented under 'library' (line 1), which already has a value\n"
                                + "  hint: indent it like line 1 (0 spaces), or, if it belongs under 'library', write 'library:' with nothing after it"),
                Arguments.of("yaml syntax", "library: x\ncontracts:\n  - id: a\n   guarantee: G p\n",
                        null),
                Arguments.of("provenance unknown key", PROVENANCE.formatted("    whole-field: true\n"),
                        "lib.yaml:6:5: unknown key 'whole-field' in injection.provenance\n  hint: did you mean 'whole-fields'? valid keys: delegation, endorse, fetch-tools, labelled-lines, link-payloads, max-chars, named-owner, whole-fields"),
                Arguments.of("provenance not a boolean", PROVENANCE.formatted("    delegation: sometimes\n"),
                        "lib.yaml:6:17: injection.provenance.delegation must be true or false, found a string"),
                Arguments.of("provenance endorse", PROVENANCE.formatted("    endorse: records\n"),
                        "lib.yaml:6:14: injection.provenance.endorse is 'records', which is not one of direct, none, record, transitive\n  hint: did you mean 'record'?"),
                Arguments.of("provenance fetch tool not side-effecting", PROVENANCE.formatted("    fetch-tools: [get_page]\n"),
                        "lib.yaml:6:18: injection.provenance.fetch-tools names 'get_page', which is not under injection.side-effecting\n  hint: declare the tool under side-effecting with its target arguments"),
                Arguments.of("provenance link tool misspelt", PROVENANCE.formatted("    link-payloads: {sned: [body]}\n"),
                        "lib.yaml:6:21: injection.provenance.link-payloads names 'sned', which is not under injection.side-effecting\n  hint: did you mean 'send'? declare the tool under side-effecting with its target arguments"),
                Arguments.of("provenance link without arguments", PROVENANCE.formatted("    link-payloads: {send: []}\n"),
                        "lib.yaml:6:27: injection.provenance.link-payloads.send lists no argument\n  hint: name the payload arguments, e.g. [body, subject]"),
                Arguments.of("provenance bound too small", PROVENANCE.formatted("    max-chars: 10\n"),
                        "lib.yaml:6:16: injection.provenance.max-chars is 10, outside 1024..2147483647"),
                Arguments.of("provenance empty", PROVENANCE.formatted(""),
                        "lib.yaml:5:14: injection.provenance is empty\n  hint: write 'provenance: {}' for whole-word provenance without refinements, or list refinements such as 'whole-fields: true'"),
                Arguments.of("two documents", "library: x\ncontracts:\n  - id: a\n    guarantee: G !p\n---\nlibrary: y\n",
                        "lib.yaml:6:1: more than one YAML document\n  hint: keep one library per file (remove the second '---')"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void eachMistakeHasItsExactMessage(String name, String yaml, String expected) {
        LibraryException e = catchThrowableOfType(LibraryException.class, () -> LibraryReader.read("lib.yaml", yaml));
        assertThat(e).as(name).isNotNull();
        if (expected != null) {
            assertThat(e.getMessage()).isEqualTo(expected);
        } else {
            assertThat(e.getMessage()).startsWith("lib.yaml:").contains("not valid YAML").contains("hint:");
        }
        assertThat(e.getStackTrace()).as("no stack trace for a user mistake").isEmpty();
    }
}
