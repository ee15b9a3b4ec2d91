package dev.tracegate.bench;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The contracts and the event traffic that the engine benchmarks measure: ten common specification
 * patterns, instantiated over disjoint atom vocabularies ("families") to reach 10 or 100 contracts,
 * and sequences of pre-grounded events whose expected decisions are known by construction.
 */
public final class Workload {

    /** Contract {@code i} uses pattern {@code i % PATTERNS} over the atoms of family {@code i / PATTERNS}. */
    public static final int PATTERNS = 10;

    /**
     * The most contracts a harness's {@code --contracts} takes: 100 families of the ten patterns. The README's figures are
     * for 1, 10 and 100; a count in between takes the first N contracts in order (patterns 0..9 of family 0, then of 1, ...).
     */
    public static final int MAX_CONTRACTS = 1000;

    /** Bound on automaton states used to compile the benchmark contracts. */
    public static final int MAX_STATES = 10_000;

    // {name, assumption (null = true), guarantee}; %1$d is the family.
    private static final String[][] PATTERN = {
        {"precedence", null, "G(call(refund_%1$d) -> O approve_%1$d)"},
        {"response", null, "G(call(ticket_%1$d) -> F reply_%1$d)"},
        {"bounded-existence", null, "G(call(refund_%1$d) -> count(refund_%1$d) <= 3)"},
        {"absence-after", null, "G(erase_%1$d -> WX G !disclose_%1$d)"},
        {"since", null, "G(call(send_%1$d) -> (!revoke_%1$d S consent_%1$d))"},
        {"allowlist", null, "G(call_any_%1$d -> tool_in(allowlist_%1$d))"},
        {"assume-guarantee", "G !injected_%1$d", "G(call(pay_%1$d) -> Y confirm_%1$d)"},
        {"precedence-weak-until", null, "!call(write_%1$d) W auth_%1$d"},
        {"bounded-run", null, "G(call(search_%1$d) -> run(search_%1$d) <= 5)"},
        {"historically", null, "G(call(export_%1$d) -> H !flagged_%1$d)"},
    };

    private Workload() {}

    /** The pattern name of contract {@code i}. */
    public static String patternOf(int i) { return PATTERN[i % PATTERNS][0]; }

    /** {@code n} contracts: patterns 0..9 over family 0, then again over family 1, and so on. */
    public static List<Contract> contracts(int n) {
        if (n < 1) throw new IllegalArgumentException("need at least one contract, got " + n);
        List<Contract> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String[] p = PATTERN[i % PATTERNS];
            int family = i / PATTERNS;
            Formula assume = p[1] == null ? Formula.Const.TRUE : Parser.parse(String.format(p[1], family));
            Formula guarantee = Parser.parse(String.format(p[2], family));
            out.add(new Contract(p[0] + "-" + family, assume, guarantee, "block", "benchmark contract " + i));
        }
        return out;
    }

    /** The compiled set of {@link #contracts(int) n contracts}. */
    public static ContractSet compile(int n) {
        return ContractSet.compile(contracts(n), new DfaCompiler(MAX_STATES));
    }

    /**
     * A sequence of pre-grounded events and, for each, what the monitor must decide when the events
     * are stepped in order on one session (cycling back to the start is fine: the cycle begins with
     * events that every pattern tolerates again).
     *
     * @param valuations one valuation per event (bit {@code g} of word {@code g >>> 6} = global atom {@code g})
     * @param agent      whether the agent controls the event (a tool call) or its environment does
     * @param expected   the decision kind
     * @param blamed     the contract the decision names, or -1 for PASS
     */
    public record Traffic(long[][] valuations, boolean[] agent, Decision.Kind[] expected, int[] blamed) {
        public int length() { return valuations.length; }

        /** Number of events that are not expected to pass. */
        public int refusals() {
            int n = 0;
            for (Decision.Kind k : expected) if (k != Decision.Kind.PASS) n++;
            return n;
        }
    }

    /**
     * Events in session order: a prelude (approvals, consents, authorisations for every family),
     * then random tool calls and environment events that keep every contract satisfied; with
     * probability {@code refusalShare} an event is instead one that must be refused (a refund over
     * the counter bound, a tool outside the allowlist, or a tool result carrying an injection).
     */
    public static Traffic ordered(ContractSet set, int length, double refusalShare, long seed) {
        Builder b = new Builder(set);
        b.prelude();
        SplittableRandom rnd = new SplittableRandom(seed);
        while (b.size() < length) {
            int family = rnd.nextInt(b.families);
            if (refusalShare > 0 && rnd.nextDouble() < refusalShare && b.refusal(family, rnd.nextInt(3))) continue;
            int kind = rnd.nextInt(11);
            if (kind == 10 && b.size() + 2 > length) kind = 0;
            b.passing(family, kind);
        }
        return b.build();
    }

    /**
     * Events that pass in any order once {@link #prelude} has been applied (no pair that must stay
     * adjacent), for benchmarks where several threads step one session.
     */
    public static Traffic commutative(ContractSet set, int length, long seed) {
        Builder b = new Builder(set);
        SplittableRandom rnd = new SplittableRandom(seed);
        while (b.size() < length) b.passing(rnd.nextInt(b.families), rnd.nextInt(10));
        return b.build();
    }

    /** The events that open every session: approval, consent and authorisation for every family. */
    public static Traffic prelude(ContractSet set) {
        Builder b = new Builder(set);
        b.prelude();
        return b.build();
    }

    /** Builds valuations from atom texts, ignoring atoms the contract set does not read. */
    private static final class Builder {
        final ContractSet set;
        final int families;
        final Map<String, Integer> index = new HashMap<>();
        final List<long[]> valuations = new ArrayList<>();
        final List<Boolean> agent = new ArrayList<>();
        final List<Decision.Kind> expected = new ArrayList<>();
        final List<Integer> blamed = new ArrayList<>();
        final int contracts;

        Builder(ContractSet set) {
            this.set = set;
            this.contracts = set.contracts().size();
            this.families = (contracts + PATTERNS - 1) / PATTERNS;
            List<Atom> atoms = set.atoms();
            for (int g = 0; g < atoms.size(); g++) index.put(atoms.get(g).key(), g);
        }

        int size() { return valuations.size(); }

        void prelude() {
            for (int f = 0; f < families; f++) {
                env(f, "approve_%d");
                env(f, "consent_%d");
                env(f, "auth_%d");
            }
        }

        /** One event (two for kind 10) that every contract accepts after the prelude. */
        void passing(int f, int kind) {
            switch (kind) {
                case 0 -> call(f, "call(refund_%d)");
                case 1 -> env(f, "approve_%d");
                case 2 -> call(f, "call(ticket_%d)");
                case 3 -> env(f, "reply_%d");
                case 4 -> call(f, "call(send_%d)");
                case 5 -> call(f, "call(search_%d)");
                case 6 -> call(f, "call(write_%d)");
                case 7 -> call(f, "call(export_%d)");
                case 8 -> env(f, "erase_%d");
                case 9 -> env(f);                       // a user message or tool result no contract reads
                case 10 -> {                            // confirmation immediately followed by payment
                    env(f, "confirm_%d");
                    call(f, "call(pay_%d)");
                }
                default -> throw new IllegalArgumentException("kind " + kind);
            }
        }

        /** A refused event, if the family has the pattern it violates; false otherwise. */
        boolean refusal(int f, int which) {
            int base = f * PATTERNS;
            switch (which) {
                case 0 -> { // a refund over the counter bound: bounded existence fails
                    if (base + 2 >= contracts) return false;
                    add(f, true, Decision.Kind.BLOCK, base + 2, new String[] {"count(refund_%d) <= 3"},
                            "call(refund_%d)", "call_any_%d", "tool_in(allowlist_%d)");
                }
                case 1 -> { // a tool outside the allowlist
                    if (base + 5 >= contracts) return false;
                    add(f, true, Decision.Kind.BLOCK, base + 5, new String[0], "call_any_%d");
                }
                default -> { // a tool result carrying an injection breaks an assumption: withheld
                    if (base + 6 >= contracts) return false;
                    add(f, false, Decision.Kind.SUPPRESS, base + 6, new String[0], "injected_%d");
                }
            }
            return true;
        }

        private void call(int f, String tool) {
            add(f, true, Decision.Kind.PASS, -1, new String[0], tool, "call_any_%d", "tool_in(allowlist_%d)");
        }

        private void env(int f, String... atoms) {
            add(f, false, Decision.Kind.PASS, -1, new String[0], atoms);
        }

        /**
         * Adds an event where the given atoms of family {@code f} hold, plus the counter atoms of every
         * family (counters are below their bounds) except those listed in {@code falseCounters}.
         */
        private void add(int f, boolean isAgent, Decision.Kind kind, int contract, String[] falseCounters, String... atoms) {
            long[] v = new long[set.valuationWords()];
            for (int other = 0; other < families; other++) {
                for (String counter : new String[] {"count(refund_%d) <= 3", "run(search_%d) <= 5"}) {
                    if (other == f && List.of(falseCounters).contains(counter)) continue;
                    set(v, String.format(counter, other));
                }
            }
            for (String a : atoms) set(v, String.format(a, f));
            valuations.add(v);
            agent.add(isAgent);
            expected.add(kind);
            blamed.add(contract);
        }

        private void set(long[] v, String atomText) {
            Integer g = index.get(((Atom) Parser.parse(atomText)).key());
            if (g != null) v[g >>> 6] |= 1L << g;
        }

        Traffic build() {
            int n = valuations.size();
            boolean[] a = new boolean[n];
            int[] c = new int[n];
            for (int i = 0; i < n; i++) {
                a[i] = agent.get(i);
                c[i] = blamed.get(i);
            }
            return new Traffic(valuations.toArray(new long[0][]), a, expected.toArray(new Decision.Kind[0]), c);
        }
    }
}
