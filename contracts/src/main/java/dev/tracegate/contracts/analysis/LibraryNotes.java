package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Term;

import java.util.List;

/**
 * The notes on a library that loads but will puzzle at run time, one line each (file:line where the library has one,
 * what, and how to fix): {@code check} prints them after its findings ({@code note: ...}), and the agent prints them as
 * WARN lines on its background analysis thread at start and after each hot reload ({@code library analysis: ...}), so
 * an operator who never ran {@code check} still reads them before the first session shows their effect.
 */
public final class LibraryNotes {
    private LibraryNotes() {}

    /**
     * What loads but will puzzle at run time (none changes {@code check}'s exit status): unread or misspelt policy
     * sections and categories, near-duplicate tool names, assumptions the agent's own calls can break, a guarantee that
     * holds on every trace, a contract that can act but has no {@code message} (its block tells the agent only the
     * contract id), a guarantee that an event tracegate cannot refuse makes fail (at the first event of a session, or
     * later), a purpose that atoms name and no policy declares, a context key that atoms read and no latch writes.
     */
    public static List<String> notes(Library lib) {
        List<String> notes = new java.util.ArrayList<>();
        for (String note : PolicySections.notes(lib.specs())) notes.add(note);
        for (String note : PolicySections.unread(lib)) notes.add(note);
        for (String note : PolicySections.categoryNotes(lib.specs())) notes.add(note);
        for (String note : ToolNames.notes(lib.specs())) notes.add(note);
        for (String note : AgentAssumptions.notes(lib)) notes.add(note);
        for (int c = 0; c < lib.info().size(); c++) {
            Library.ContractInfo info = lib.info().get(c);
            boolean literalTrue = lib.contracts().contracts().get(c).guarantee() instanceof Formula.Const k && k.value();
            var guarantee = lib.contracts().formulas().get(lib.contracts().guaranteeOf(c));
            boolean valid = guarantee.verdict(guarantee.initialState()) == dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_SATISFIED;
            String consented;
            if (valid && !literalTrue) {
                // e.g. G(call(pay) -> O returned(verify) | true): a typo that turns a contract into one that never acts
                notes.add(info.file() + ":" + info.line() + ": contract " + info.id() + "'s guarantee holds on every trace,"
                        + " so the contract never acts; check the formula (" + dev.tracegate.engine.ltl.Formulas.print(lib.contracts().contracts().get(c).guarantee()) + ")");
            } else if (!literalTrue && (consented = consentedNote(lib, c)) != null) {
                // trial42 05: G(assistant & personal_data -> consented), where consented is true at every event it reads
                notes.add(consented);
            } else if (!literalTrue && neverFails(lib, c)) {
                // trial36 06: G !(call(a) & call(b)) (one event is one call of one tool), assume F user / guarantee F user
                notes.add(info.file() + ":" + info.line() + ": contract " + info.id() + " can never fail: its guarantee ("
                        + dev.tracegate.engine.ltl.Formulas.print(lib.contracts().contracts().get(c).guarantee()) + ") holds on every"
                        + " trace " + (info.assumeText().strip().equals("true") ? "" : "that keeps its assumption ")
                        + "where one event is one call of one tool (or one result, one user message...), so the contract never"
                        + " acts; check the formula");
            }
            if (!valid && info.message().isBlank()) {
                notes.add(info.file() + ":" + info.line() + ": contract " + info.id() + " has no message, so a refused agent"
                        + " is told only the contract id; add 'message:' (why) and 'next:' (what to do instead)");
            }
        }
        java.util.Map<Integer, String> firstEvent = failsOnFirstEvent(lib);
        notes.addAll(firstEvent.values());
        // a guarantee a result or a user message can make fail later in a session (the first-event note already covers
        // the contracts that fail at once)
        for (var f : EnvironmentFailures.find(lib)) {
            if (!firstEvent.containsKey(f.contract())) notes.add(EnvironmentFailures.note(lib, f));
        }
        java.util.Set<String> latched = new java.util.HashSet<>();
        for (var latch : lib.policy().latches()) latched.add(latch.key());
        java.util.Map<String, String> read = new java.util.LinkedHashMap<>();
        for (Atom atom : lib.contracts().atoms()) {
            for (String key : contextKeys(atom)) read.putIfAbsent(key, atom.key());
        }
        java.util.Set<String> purposes = lib.policy().purposes();
        for (Atom atom : lib.contracts().atoms()) {
            if ((atom.name().equals("purpose") || atom.name().equals("consent")) && atom.args().size() == 1
                    && atom.args().get(0) instanceof Term.Name p && !purposes.contains(p.value().toLowerCase(java.util.Locale.ROOT))) {
                notes.add(atom.key() + " names purpose '" + p.value() + "', which no gdpr.purposes declares"
                        + (purposes.isEmpty() ? " (none are declared)" : " (declared: " + String.join(", ", new java.util.TreeSet<>(purposes)) + ")")
                        + ", so no call is for it; declare it or fix the name");
            }
        }
        notes.addAll(fieldsNamedLikeTools(lib));
        notes.addAll(erasureObligations(lib));
        read.forEach((key, atom) -> {
            if (!latched.contains(key) && !key.equals("permissions")) {
                notes.add("context key '" + key + "' is read by " + atom + " but no latch under 'context:' sets it,"
                        + " so it stays empty (a comparison with an empty key is false, or unevaluable when the key is the bound);"
                        + " add a latch with 'set: " + key + "' or fix the name");
            }
        });
        return notes;
    }

    /**
     * Contracts that an ordinary first event of the environment, which tracegate cannot refuse, already makes FAIL:
     * a user message "hello" or a result "ok" of a tool no contract names, each as the first event of a fresh
     * session, grounded and stepped as the agent would. Such a contract is violated for good at the start of every
     * session and never acts. The advice fits what fails there ({@link #firstEventAdvice}): an argument read without
     * its call as guard ({@code G(arg(T, f) <= n)} instead of {@code G(call(T) -> arg(T, f) <= n)}), a counter that a
     * session starts at 0 ({@code G(count(T) >= 1)}), a {@code since} before its condition ever held; none otherwise.
     */
    static java.util.Map<Integer, String> failsOnFirstEvent(Library lib) {
        java.util.Map<Integer, String> failing = new java.util.LinkedHashMap<>();
        java.util.Map<Integer, long[]> letters = new java.util.HashMap<>();
        String[][] probes = {{"a first user message 'hello'", null}, {"a first result 'ok' of a tool no contract names", "tracegate_probe_tool"}};
        for (String[] probe : probes) {
            dev.tracegate.matchers.event.Event e = probe[1] == null
                    ? dev.tracegate.matchers.event.Event.user("tracegate-check", 1, "hello")
                    : dev.tracegate.matchers.event.Event.returned("tracegate-check", 1, probe[1], "ok", false);
            dev.tracegate.engine.monitor.Replay.Step step = lib.replay("tracegate-check").next(e, false, true);
            if (step.decision() != dev.tracegate.engine.monitor.Decision.Kind.VIOLATION) continue;
            for (int c : step.contracts()) {
                if (failing.putIfAbsent(c, probe[0]) == null) letters.put(c, step.valuation().clone());
            }
        }
        java.util.Map<Integer, String> notes = new java.util.LinkedHashMap<>();
        failing.forEach((c, by) -> {
            Library.ContractInfo info = lib.info().get(c);
            String advice = firstEventAdvice(lib, c, letters.get(c));
            notes.put(c, info.file() + ":" + info.line() + ": contract " + info.id() + " fails at " + by
                    + ", which tracegate cannot refuse, so it is violated at the start of a session and then acts on nothing"
                    + (advice.isEmpty() ? "" : "; " + advice + " (docs/FORMULAS.md)"));
        });
        return notes;
    }

    /** Atoms that read the current call's arguments, false at any other event. */
    private static boolean readsArguments(Atom a) {
        return a.name().startsWith("arg") || a.name().equals("len") || a.name().equals("path_within") || a.name().equals("flow")
                || a.name().equals("untrusted");
    }

    /**
     * What to write instead, fitted to the atoms of contract {@code c}'s guarantee that decide its failure at the first
     * event (those whose truth alone, flipped in that event's {@code valuation}, would keep the guarantee; all of its
     * atoms when no single one would): the call as guard for an argument or a {@code since} bound; for a counter
     * ({@code count}, {@code run}, {@code sum}: 0 at a session's start) compared so that 0 fails, the F of an obligation or
     * a cap; "" when none of these decides it (trial21 leftover: the guard advice came for {@code G(count(T) >= 1)} too).
     */
    static String firstEventAdvice(Library lib, int c, long[] valuation) {
        var set = lib.contracts();
        int f = set.guaranteeOf(c);
        dev.tracegate.engine.automaton.Dfa g = set.formulas().get(f);
        int[] index = set.atomIndex(f);
        List<Atom> blamed = new java.util.ArrayList<>();
        for (int j = 0; j < g.atoms().size(); j++) {
            long[] flipped = valuation.clone();
            flipped[index[j] >>> 6] ^= 1L << index[j];
            if (g.verdict(g.step(g.initialState(), flipped, index)) != dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_VIOLATED) {
                blamed.add(g.atoms().get(j));
            }
        }
        if (blamed.isEmpty()) blamed = g.atoms();
        List<String> advice = new java.util.ArrayList<>();
        Atom argument = null;
        Atom since = null;
        Atom counter = null;
        for (Atom a : blamed) {
            if (argument == null && readsArguments(a)) argument = a;
            if (since == null && a.name().equals("since") && a.comparison() != null && !holds(Double.POSITIVE_INFINITY, a)) since = a;
            if (counter == null && failsAtZero(a)) counter = a;
        }
        if (argument != null) {
            advice.add("a guarantee usually needs its call as a guard: G(call(T) -> arg(T, f) <= n), not G(arg(T, f) <= n)");
        }
        if (since != null) {
            advice.add(since.key() + " is false until its condition first holds (since is infinite before), so it needs the call it"
                    + " is about as a guard: G(call(T) -> " + since.key() + ")");
        }
        if (counter != null) advice.add(counterAdvice(counter));
        return String.join("; ", advice);
    }

    /** Whether {@code a} is a counter ({@code count}, {@code run}, {@code sum}) compared with a number so that 0 fails. */
    static boolean failsAtZero(Atom a) {
        return (a.name().equals("count") || a.name().equals("run") || a.name().equals("sum")) && a.comparison() != null
                && a.bound() instanceof Term.Num && !holds(0, a);
    }

    /** What to write instead of a counter that a session starts below ({@link #failsAtZero}): the F of an obligation, or a cap. */
    static String counterAdvice(Atom counter) {
        String t = counter.args().isEmpty() ? "T" : counter.args().get(0).toString();
        return counter.key() + " is false before the first call of " + t + " (count, run and sum are 0 when a session"
                + " starts), and G asks for it from the first event on; for a number to reach by the end of the session put"
                + " it under F: F(" + counter.key() + ") (replay and the session's end record report it unmet if the"
                + " session ends short of it); a cap is G(" + counter.name() + "(" + counter.args().stream().map(Term::toString)
                .collect(java.util.stream.Collectors.joining(", ")) + ") <= n)";
    }

    /** Whether the comparison of {@code a} holds when its value is {@code value} (the bound a number). */
    private static boolean holds(double value, Atom a) {
        return !(a.bound() instanceof Term.Num) || EnvironmentFailures.compare(value, a);
    }

    /** The context keys an atom reads: {@code ctx(k)}, {@code ctx.k}, {@code arg_eq_ctx(..., k)}, a {@code ctx} bound, nested atoms. */
    public static List<String> contextKeys(Atom atom) {
        List<String> keys = new java.util.ArrayList<>();
        if (atom.name().startsWith("ctx.")) keys.add(atom.name().substring(4));
        if ((atom.name().equals("ctx") || atom.name().equals("arg_eq_ctx")) && !atom.args().isEmpty()
                && atom.args().get(atom.args().size() - 1) instanceof Term.Name n) {
            keys.add(bare(n.value()));
        }
        for (Term t : atom.args()) contextKeys(t, keys);
        if (atom.bound() != null) contextKeys(atom.bound(), keys);
        return keys;
    }

    private static void contextKeys(Term t, List<String> keys) {
        if (t instanceof Term.Name n && n.value().startsWith("ctx.")) keys.add(n.value().substring(4));
        if (t instanceof Term.Call c) {
            if ((c.name().equals("ctx") || c.name().equals("arg_eq_ctx")) && !c.args().isEmpty()
                    && c.args().get(c.args().size() - 1) instanceof Term.Name n) {
                keys.add(bare(n.value()));
            }
            for (Term a : c.args()) contextKeys(a, keys);
        }
    }

    private static String bare(String key) { return key.startsWith("ctx.") ? key.substring(4) : key; }

    /** One-argument forms that read a field of the current call: arg(f), arg_matches(f, re), ... (field first). */
    private static final java.util.Set<String> FIELD_FORMS = java.util.Set.of("arg/1", "arg_matches/2", "arg_in/2", "path_within/2",
            "arg_eq_ctx/2", "flow/1", "untrusted/1");
    /** Forms whose first argument names a tool. */
    private static final java.util.Set<String> TOOL_FORMS = java.util.Set.of("call/1", "call/2", "returned/1", "failed/1",
            "result_matches/2", "arg/2", "arg_matches/3", "arg_in/3", "path_within/3", "arg_eq_ctx/3", "flow/2", "untrusted/2",
            "count/1", "run/1", "sum/2");

    /**
     * A one-argument field form whose field is named like a tool of the library, and that no two-argument form reads as
     * a field ({@code arg(pay) > 100} beside {@code call(pay)}): most likely {@code arg(pay, amount)} was meant, and
     * {@code arg(pay)} reads a field named pay that is absent, so the comparison is false on every call (trial21). The
     * same for a dotted field whose first segment is such a tool ({@code arg(refund.amount)}: {@code arg(refund, amount)}
     * meant; trial24). The note says what the contracts then do, as their automata give with the atom false
     * ({@link #effectWhenFalse}): refuse every call of a tool, or never act.
     */
    static List<String> fieldsNamedLikeTools(Library lib) {
        java.util.Set<String> tools = new java.util.TreeSet<>();
        java.util.Set<String> fields = new java.util.HashSet<>();
        List<Atom> oneArg = new java.util.ArrayList<>();
        for (Atom atom : lib.contracts().atoms()) {
            Atom a = atom;
            if (a.name().equals("len") && a.args().size() == 1 && a.args().get(0) instanceof Term.Call inner && inner.name().equals("arg")) {
                String form = "arg/" + inner.args().size();
                if (form.equals("arg/1")) oneArg.add(atom);
                if (form.equals("arg/2")) {
                    tools.add(fold(inner.args().get(0)));
                    fields.add(fold(inner.args().get(1)));
                }
                continue;
            }
            String form = a.name() + "/" + a.args().size();
            if (FIELD_FORMS.contains(form)) oneArg.add(atom);
            if (TOOL_FORMS.contains(form)) {
                tools.add(fold(a.args().get(0)));
                if (form.startsWith("arg") || form.startsWith("path_within") || form.startsWith("flow") || form.startsWith("untrusted")
                        || form.equals("sum/2")) {
                    if (a.args().size() > 1) fields.add(fold(a.args().get(1)));
                }
            }
        }
        // the first segments of the fields read by two-argument forms: arg(order, refund.id) makes refund a field name
        java.util.Set<String> heads = new java.util.HashSet<>();
        for (String f : fields) heads.add(head(f));
        List<String> out = new java.util.ArrayList<>();
        for (Atom atom : oneArg) {
            boolean len = atom.name().equals("len");
            Term field = len ? ((Term.Call) atom.args().get(0)).args().get(0) : atom.args().get(0);
            String f = fold(field);
            String tool = head(f);
            if (!tools.contains(tool) || heads.contains(tool)) continue;
            String effect = effectWhenFalse(lib, atom);
            if (tool.equals(f)) {
                out.add(atom.key() + " reads the argument field '" + f + "' of the current call, but " + f + " is a tool this library"
                        + " names and no arg(T, " + f + ") reads a field of that name; did you mean arg(" + f + ", <field>), the field of"
                        + " a call of " + f + "? (" + effect + "; docs/LIBRARY.md)");
            } else {
                String rest = f.substring(tool.length() + 1);
                out.add(atom.key() + " reads the nested argument field '" + f + "' of the current call, but " + tool + " is a tool"
                        + " this library names and no arg(T, ...) reads a field " + tool + "; did you mean " + suggestion(atom, len, tool, rest)
                        + ", the field " + rest + " of a call of " + tool + "? (" + effect + "; docs/LIBRARY.md)");
            }
        }
        return out;
    }

    private static String head(String field) {
        int dot = field.indexOf('.');
        return dot < 0 ? field : field.substring(0, dot);
    }

    /** {@code arg(refund.amount) <= 100} written as meant: {@code arg(refund, amount) <= 100}. */
    private static String suggestion(Atom atom, boolean len, String tool, String rest) {
        List<Term> args = new java.util.ArrayList<>();
        args.add(new Term.Name(tool));
        args.add(new Term.Name(rest));
        String meant;
        if (len) {
            meant = "len(arg" + printArgs(args) + ")";
        } else {
            args.addAll(atom.args().subList(1, atom.args().size()));
            meant = atom.name() + printArgs(args);
        }
        return atom.comparison() == null ? meant : meant + " " + atom.comparison() + " " + atom.bound();
    }

    private static String printArgs(List<Term> args) {
        return args.stream().map(Term::toString).collect(java.util.stream.Collectors.joining(", ", "(", ")"));
    }

    /**
     * What the contracts whose guarantee or assumption holds {@code atom} do when it is false at every event (an absent
     * field makes a comparison false, and a matcher on it too), decided on their automata with the atom replaced by false,
     * as the monitor reads a contract: it acts (FAIL) only while its assumption is not broken for good, and an agent's
     * event that breaks the assumption is applied and leaves the contract idle (a tool result or user message that would
     * is withheld instead). The guarantee holds on every trace: the contract never acts. No trace with a call of a tool T
     * satisfies it ({@code G(call(T) -> arg(T.f) <= n)}): the contract refuses every call of T, unless such a call breaks
     * the assumption itself (then it refuses none), and only as long as the assumption holds when the assumption can be
     * broken at all (the note then says so, with the assumption). Else it acts as though the atom were false. A contract
     * that holds the atom only in its assumption: every call of T breaks the assumption, or it reads the atom as false.
     */
    /**
     * Whether no non-empty trace where one event is one event (the analysis's axioms) keeps contract {@code c}'s
     * assumption and breaks its guarantee: then no prefix is FAIL (a guarantee violated for good with the assumption
     * still keepable would extend to such a trace). False when the automaton is beyond the library's bound.
     */
    static boolean neverFails(Library lib, int c) {
        int maxStates = dev.tracegate.contracts.library.LibrarySpec.Settings.DEFAULT.maxStates();
        for (var spec : lib.specs()) maxStates = Math.max(maxStates, spec.settings().maxStates());
        var contract = lib.contracts().contracts().get(c);
        Formula f = dev.tracegate.engine.ltl.Formulas.and(LibraryAnalysis.axioms(List.of(contract), Formula.Const.TRUE, LibraryAnalysis.purposesDeclared(lib)),
                dev.tracegate.engine.ltl.Formulas.and(contract.assume(), dev.tracegate.engine.ltl.Formulas.not(contract.guarantee())));
        try {
            return LibraryAnalysis.emptyNonEmptyTraces(new dev.tracegate.engine.automaton.DfaCompiler(maxStates).compile(f));
        } catch (dev.tracegate.engine.automaton.CompileException e) {
            return false;   // beyond the bound: not judged
        }
    }

    /** The atom {@code consented}: true at every event without purposes ({@link AtomRelations#falseKinds}). */
    private static final Atom CONSENTED = Atom.of("consented");

    /**
     * The note for contract {@code c} when it reads {@code consented} only where it holds: its assumption and guarantee
     * with {@code consented} replaced by true keep and break the same traces where one event is one event (the analysis's
     * axioms, which know that a user message, a reply, an erasure and the end carry no purposes, so {@code consented} is
     * true there); null otherwise, or when an automaton is beyond the library's bound. Decided on the automata, not on the
     * spelling: {@code G(assistant -> consented)} and {@code G(user_matches("x") & personal_data -> consented)} are noted,
     * {@code G(call(send) -> consented)} and {@code G((assistant | call(send)) -> consented)} are not (a call has purposes).
     */
    static String consentedNote(Library lib, int c) {
        var contract = lib.contracts().contracts().get(c);
        Formula assume = contract.assume() == null ? Formula.Const.TRUE : contract.assume();
        Formula guarantee = contract.guarantee();
        int inAssume = occurrences(assume, CONSENTED), inGuarantee = occurrences(guarantee, CONSENTED);
        if (inAssume + inGuarantee == 0) return null;
        int maxStates = dev.tracegate.contracts.library.LibrarySpec.Settings.DEFAULT.maxStates();
        for (var spec : lib.specs()) maxStates = Math.max(maxStates, spec.settings().maxStates());
        var compiler = new dev.tracegate.engine.automaton.DfaCompiler(maxStates);
        Formula axioms = LibraryAnalysis.axioms(List.of(contract), Formula.Const.TRUE, LibraryAnalysis.purposesDeclared(lib));
        List<String> consentPurposes = new java.util.ArrayList<>();
        for (String p : new java.util.TreeSet<>(lib.policy().purposes())) if (lib.policy().requiresConsent(p)) consentPurposes.add(p);
        String p = consentPurposes.size() == 1 ? consentPurposes.get(0) : "p";
        Formula consent = new Atom("consent", List.of(new Term.Name(p)), null, null, 0, 0);
        // each use on its own: replaced by true, does the formula keep and break the same traces (one event one event)?
        Formula assumeTrue = assume, guaranteeTrue = guarantee, assumeMeant = assume, guaranteeMeant = guarantee;
        int vacuous = 0;
        try {
            // last to first, so the uses before one replaced keep their numbers; each tried beside those already replaced
            for (int k = inAssume - 1; k >= 0; k--) {
                Formula tried = replaceNth(assumeTrue, CONSENTED, Formula.Const.TRUE, k);
                if (equivalent(compiler, axioms, assume, tried)) {
                    assumeTrue = tried;
                    assumeMeant = replaceNth(assumeMeant, CONSENTED, consent, k);
                    vacuous++;
                }
            }
            for (int k = inGuarantee - 1; k >= 0; k--) {
                Formula tried = replaceNth(guaranteeTrue, CONSENTED, Formula.Const.TRUE, k);
                if (equivalent(compiler, axioms, guarantee, tried)) {
                    guaranteeTrue = tried;
                    guaranteeMeant = replaceNth(guaranteeMeant, CONSENTED, consent, k);
                    vacuous++;
                }
            }
        } catch (dev.tracegate.engine.automaton.CompileException e) {
            return null;   // beyond the bound: not judged
        }
        if (vacuous == 0) return null;
        String effect;
        try {
            var fails = compiler.compile(dev.tracegate.engine.ltl.Formulas.and(axioms, dev.tracegate.engine.ltl.Formulas.and(assumeTrue,
                    dev.tracegate.engine.ltl.Formulas.not(guaranteeTrue))));
            effect = LibraryAnalysis.emptyNonEmptyTraces(fails) ? "so the contract can never fail and never acts"
                    : "so the contract acts as though consented were true there";
        } catch (dev.tracegate.engine.automaton.CompileException e) {
            effect = "so the contract acts as though consented were true there";
        }
        Library.ContractInfo info = lib.info().get(c);
        boolean guaranteeUse = guaranteeMeant != guarantee;
        return info.file() + ":" + info.line() + ": contract " + info.id() + " reads consented where it is always true ("
                + (guaranteeUse ? "" : "assume: ") + dev.tracegate.engine.ltl.Formulas.print(guaranteeUse ? guarantee : assume)
                + "): consented (every purpose of the event that rests on consent has the subject's consent) is true at an event"
                + " without purposes, and only calls, results and consent events carry purposes (a user message, a reply, an"
                + " erasure and the end carry none), " + effect + "; for \"only after the data subject consented to " + p
                + "\" write consent(" + p + "): " + (guaranteeUse ? "" : "assume: ")
                + dev.tracegate.engine.ltl.Formulas.print(guaranteeUse ? guaranteeMeant : assumeMeant)
                + (consentPurposes.size() > 1 ? " (p one of the purposes that rest on consent: " + String.join(", ", consentPurposes) + ")"
                        : consentPurposes.isEmpty() ? " (p a purpose that gdpr.purposes declares)" : "")
                + " (docs/LIBRARY.md, Analysis)";
    }

    /** How often {@code atom} occurs in {@code f}. */
    private static int occurrences(Formula f, Atom atom) {
        if (f instanceof Atom a) return a.equals(atom) ? 1 : 0;
        if (f instanceof Formula.Unary u) return occurrences(u.arg(), atom);
        if (f instanceof Formula.Binary b) return occurrences(b.left(), atom) + occurrences(b.right(), atom);
        return 0;
    }

    /** {@code f} with occurrence {@code n} (from 0, left to right) of {@code atom} replaced by {@code by}. */
    private static Formula replaceNth(Formula f, Atom atom, Formula by, int n) {
        int[] left = {n};
        return replaceNth(f, atom, by, left);
    }

    private static Formula replaceNth(Formula f, Atom atom, Formula by, int[] left) {
        if (f instanceof Atom a) return a.equals(atom) && left[0]-- == 0 ? by : a;
        if (f instanceof Formula.Unary u) return new Formula.Unary(u.op(), replaceNth(u.arg(), atom, by, left));
        if (f instanceof Formula.Binary b) {
            Formula l = replaceNth(b.left(), atom, by, left);
            return new Formula.Binary(b.op(), l, replaceNth(b.right(), atom, by, left));
        }
        return f;
    }

    /** Whether {@code f} and {@code g} keep the same non-empty traces among those that keep {@code axioms}. */
    private static boolean equivalent(dev.tracegate.engine.automaton.DfaCompiler compiler, Formula axioms, Formula f, Formula g) {
        if (f.equals(g)) return true;
        Formula differ = dev.tracegate.engine.ltl.Formulas.or(dev.tracegate.engine.ltl.Formulas.and(f, dev.tracegate.engine.ltl.Formulas.not(g)),
                dev.tracegate.engine.ltl.Formulas.and(dev.tracegate.engine.ltl.Formulas.not(f), g));
        return LibraryAnalysis.emptyNonEmptyTraces(compiler.compile(dev.tracegate.engine.ltl.Formulas.and(axioms, differ)));
    }

    static String effectWhenFalse(Library lib, Atom atom) {
        int maxStates = dev.tracegate.contracts.library.LibrarySpec.Settings.DEFAULT.maxStates();
        for (var spec : lib.specs()) maxStates = Math.max(maxStates, spec.settings().maxStates());
        var compiler = new dev.tracegate.engine.automaton.DfaCompiler(maxStates);
        List<String> effects = new java.util.ArrayList<>();
        for (int c = 0; c < lib.info().size(); c++) {
            Formula guarantee = lib.contracts().contracts().get(c).guarantee();
            Formula assume = lib.contracts().contracts().get(c).assume();
            boolean inGuarantee = dev.tracegate.engine.ltl.Formulas.atoms(guarantee).contains(atom);
            boolean inAssume = assume != null && dev.tracegate.engine.ltl.Formulas.atoms(assume).contains(atom);
            if (!inGuarantee && !inAssume) continue;
            String id = lib.info().get(c).id();
            String assumeText = lib.info().get(c).assumeText();
            String shownAssume = "assume: " + (assumeText != null && !assumeText.isBlank() ? assumeText.strip()
                    : assume == null ? "true" : dev.tracegate.engine.ltl.Formulas.print(assume));
            Formula assumeWithout = assume == null ? Formula.Const.TRUE : replace(assume, atom);
            try {
                if (!inGuarantee) {
                    java.util.Set<String> breaking = alwaysViolatedByACall(compiler, assumeWithout);
                    effects.add(breaking.isEmpty() ? "contract " + id + "'s assumption then reads it as false at every call"
                            : "every call of " + String.join(", ", breaking) + " then breaks contract " + id + "'s assumption ("
                            + shownAssume + "), which leaves the contract idle for the rest of the session");
                    continue;
                }
                Formula without = replace(guarantee, atom);
                var dfa = compiler.compile(without);
                if (dfa.verdict(dfa.initialState()) == dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_SATISFIED) {
                    effects.add("contract " + id + " then never acts");
                    continue;
                }
                java.util.Set<String> refused = alwaysViolatedByACall(compiler, without);
                // a call that also breaks the assumption for good leaves the contract idle instead of failing it: never refused
                java.util.Set<String> excused = alwaysViolatedByACall(compiler, assumeWithout);
                java.util.Set<String> passing = new java.util.TreeSet<>(refused);
                passing.retainAll(excused);
                refused.removeAll(excused);
                String assumption = canBreak(compiler.compile(assumeWithout))
                        ? " as long as its assumption (" + shownAssume + ") holds (a tool result or user message that would break"
                                + " it is withheld; a call or answer of the agent that breaks it leaves the contract idle for the rest of the"
                                + " session)" : "";
                StringBuilder e = new StringBuilder("contract " + id + " then ");
                if (refused.isEmpty()) e.append("acts as though it were false at every call").append(assumption);
                else e.append("refuses every call of ").append(String.join(", ", refused)).append(assumption);
                if (!passing.isEmpty()) {
                    e.append(refused.isEmpty() ? ", though " : ", and ").append("no call of ").append(String.join(", ", passing))
                            .append(": each one breaks its assumption (").append(shownAssume).append("), which leaves the contract idle");
                }
                effects.add(e.toString());
            } catch (RuntimeException tooLarge) {
                effects.add("contract " + id + " then acts as though it were false at every call"
                        + (inAssume || assume != null && !(assume instanceof Formula.Const) ? " (its assumption was not considered: its automaton is too large)" : ""));
            }
        }
        String what = atom.comparison() != null ? "an absent field makes the comparison false" : "an absent field makes the atom false";
        return effects.isEmpty() ? what + " at every call" : what + " at every call, so " + String.join(", and ", effects);
    }

    /** The tools T of {@code f}'s call(T) atoms such that no non-empty trace with a call of T satisfies {@code f}. */
    private static java.util.Set<String> alwaysViolatedByACall(dev.tracegate.engine.automaton.DfaCompiler compiler, Formula f) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (Atom a : dev.tracegate.engine.ltl.Formulas.atoms(f)) {
            if (!a.name().equals("call") || a.args().size() != 1 || a.comparison() != null) continue;
            // every successor of the start of f & F call(T) fails for good
            var withCall = compiler.compile(dev.tracegate.engine.ltl.Formulas.and(f,
                    dev.tracegate.engine.ltl.Formulas.unary(Formula.UnOp.EVENTUALLY, a)));
            boolean none = true;
            for (int s : withCall.successors(withCall.initialState())) {
                if (withCall.verdict(s) != dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_VIOLATED) none = false;
            }
            if (none) out.add(fold(a.args().get(0)));
        }
        return out;
    }

    /** Whether some trace breaks the formula of {@code dfa} for good (a state that is permanently violated is reachable). */
    private static boolean canBreak(dev.tracegate.engine.automaton.Dfa dfa) {
        java.util.BitSet seen = new java.util.BitSet();
        java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>();
        todo.add(dfa.initialState());
        seen.set(dfa.initialState());
        while (!todo.isEmpty()) {
            int s = todo.poll();
            if (dfa.verdict(s) == dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_VIOLATED) return true;
            for (int n : dfa.successors(s)) if (!seen.get(n)) { seen.set(n); todo.add(n); }
        }
        return false;
    }

    /** {@code f} with every occurrence of {@code atom} replaced by false. */
    private static Formula replace(Formula f, Atom atom) {
        return replace(f, atom, Formula.Const.FALSE);
    }

    /** {@code f} with every occurrence of {@code atom} replaced by {@code by}. */
    private static Formula replace(Formula f, Atom atom, Formula by) {
        if (f instanceof Atom a) return a.equals(atom) ? by : a;
        if (f instanceof Formula.Unary u) return new Formula.Unary(u.op(), replace(u.arg(), atom, by));
        if (f instanceof Formula.Binary b) return new Formula.Binary(b.op(), replace(b.left(), atom, by), replace(b.right(), atom, by));
        return f;
    }

    /**
     * A contract that obliges a call of a tool after an erasure ({@code G(erasure -> F returned(delete_customer))}: an
     * implication whose premise reads {@code erasure} and whose conclusion has a {@code call(T)} or {@code returned(T)}
     * under {@code F}, {@code U} or {@code W}), where T is not under gdpr {@code erasure-tools} and the gdpr library is
     * loaded: P4 refuses T's call for the erased subject (it names them), so for that subject the obligation can never be
     * met. The dead-end search cannot see it: whether a call names the erased subject is data, not an atom the
     * automata relate to {@code erasure} (trial26 03).
     */
    static List<String> erasureObligations(Library lib) {
        List<String> out = new java.util.ArrayList<>();
        boolean p4 = false;
        for (Library.ContractInfo info : lib.info()) p4 |= info.id().equals("gdpr.P4-erasure");
        if (!p4) return out;
        for (int c = 0; c < lib.info().size(); c++) {
            Library.ContractInfo info = lib.info().get(c);
            if (info.id().startsWith("gdpr.")) continue;
            Formula g = lib.contracts().contracts().get(c).guarantee();
            java.util.Set<String> obliged = new java.util.TreeSet<>();
            obligedAfterErasure(g, obliged);
            for (String tool : obliged) {
                if (lib.policy().isErasureTool(tool)) continue;
                out.add(info.file() + ":" + info.line() + ": contract " + info.id() + " obliges a call of " + tool + " after an erasure ("
                        + dev.tracegate.engine.ltl.Formulas.print(g) + "), but " + tool + " is not under gdpr erasure-tools, so"
                        + " gdpr.P4-erasure refuses its call for the erased subject (the call names them) and the obligation can never be"
                        + " met for that subject; if " + tool + " carries the erasure out, declare it under erasure-tools ("
                        + tool + ": {subject: <its subject argument>}; docs/LIBRARY.md, P4, \"Carrying an erasure out\")");
            }
        }
        return out;
    }

    /** The tools {@code f} obliges after an erasure: {@code erasure -> ... F call(T) / returned(T) ...} (or under U, W). */
    private static void obligedAfterErasure(Formula f, java.util.Set<String> tools) {
        if (f instanceof Formula.Binary b) {
            if (b.op() == Formula.BinOp.IMPLIES && readsErasure(b.left())) eventualTools(b.right(), false, tools);
            obligedAfterErasure(b.left(), tools);
            obligedAfterErasure(b.right(), tools);
        } else if (f instanceof Formula.Unary u) {
            obligedAfterErasure(u.arg(), tools);
        }
    }

    private static boolean readsErasure(Formula f) {
        if (f instanceof Atom a) return a.name().equals("erasure") && a.args().isEmpty();
        if (f instanceof Formula.Unary u) return u.op() != Formula.UnOp.NOT && readsErasure(u.arg());
        if (f instanceof Formula.Binary b) return (b.op() == Formula.BinOp.AND || b.op() == Formula.BinOp.OR) && (readsErasure(b.left()) || readsErasure(b.right()));
        return false;
    }

    /** call(T) and returned(T) atoms that {@code f} requires to happen: under F, or as the right side of U or W. */
    private static void eventualTools(Formula f, boolean eventual, java.util.Set<String> tools) {
        if (f instanceof Atom a) {
            if (eventual && (a.name().equals("call") || a.name().equals("returned")) && !a.args().isEmpty() && a.comparison() == null) {
                tools.add(fold(a.args().get(0)));
            }
        } else if (f instanceof Formula.Unary u) {
            if (u.op() == Formula.UnOp.NOT) return;
            eventualTools(u.arg(), eventual || u.op() == Formula.UnOp.EVENTUALLY, tools);
        } else if (f instanceof Formula.Binary b) {
            if (b.op() == Formula.BinOp.UNTIL || b.op() == Formula.BinOp.WEAK_UNTIL) {
                eventualTools(b.right(), true, tools);
            } else if (b.op() == Formula.BinOp.AND) {
                // both are required; of an OR, either would do, so neither alone is an obligation
                eventualTools(b.left(), eventual, tools);
                eventualTools(b.right(), eventual, tools);
            }
        }
    }

    private static String fold(Term t) {
        String name = t instanceof Term.Name n ? n.value() : t instanceof Term.Str s ? s.value() : t.toString();
        return name.strip().toLowerCase(java.util.Locale.ROOT);
    }
}
