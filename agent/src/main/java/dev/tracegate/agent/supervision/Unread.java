package dev.tracegate.agent.supervision;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;

import java.util.ArrayList;
import java.util.List;

/**
 * Which contracts of a refusal refuse only because tracegate could not read what they check: an atom it could not
 * evaluate (an argument missing or not a number, a context key still empty, a side-effecting call without its target
 * arguments; {@code unevaluable: refuse}), or an {@code untrusted_target} that holds only because a scanning bound of the
 * injection check was reached, which fails closed. A contract is such when some value of those atoms would not make it
 * fail: its own message (for {@code injection}, that the target came from a tool output) would then tell the model
 * something nobody knows, so the refusal says instead that the event could not be checked, why, and what to do.
 * Computed right after the step (the worker still holds it); for refusals only, never for an event that passes.
 */
final class Unread {
    /** Per contract index: why its refusal rests on what could not be read (null: it does not). */
    private final String[] why;
    /** Per contract index: what the model can do instead (null: the contract's own {@code next}). */
    private final String[] instead;

    /** The runtime and session of the event (null: not known), for {@link #contextEmpty}. */
    private final Runtime rt;
    private final Session session;
    /** The session's state, read at the first {@link #contextEmpty} (the event, refused, did not change it). */
    private SessionState state;

    private static final Unread NONE = new Unread(null, null, null, null);

    private Unread(String[] why, String[] instead, Runtime rt, Session session) {
        this.why = why;
        this.instead = instead;
        this.rt = rt;
        this.session = session;
    }

    /** No contract refuses only for what could not be read; the session still answers {@link #contextEmpty}. */
    private static Unread none(Runtime rt, Session s) {
        return s == null ? NONE : new Unread(null, null, rt, s);
    }

    /**
     * Whether context key {@code key} (no quotes, no {@code ctx.}) has no value in the event's session, which makes an
     * atom that compares with it unevaluable; null when the session is not known here.
     */
    Boolean contextEmpty(String key) {
        SessionState state = state();
        if (state == null) return null;
        Object v = rt.library.grounding().context(state, key);
        return v == null || v instanceof dev.tracegate.matchers.predicate.ValueSet set && set.isEmpty();
    }

    /** The session's state before the event (the event, refused, did not change it); null when the session is not known here. */
    SessionState state() {
        if (session == null) return null;
        if (state == null) state = rt.monitor.snapshot(session);
        return state;
    }

    /** At most this many uncertain atoms of one contract are tried value by value; beyond it the refusal rests on them. */
    private static final int MAX_TRIED = 12;

    /**
     * The analysis of {@code d}, the decision on agent event {@code e} that worker {@code w} just stepped, in session
     * {@code s} (its state before the event is read for the scanning bounds; null: not read).
     */
    static Unread of(Runtime rt, Worker w, Decision d, Event e, Session s) {
        if (!e.kind().controlledByAgent() || d.contractCount() == 0
                || d.kind() != Decision.Kind.BLOCK && d.kind() != Decision.Kind.UNEVALUABLE) {
            return none(rt, s);
        }
        ContractSet set = rt.library.contracts();
        long[] valuation = w.valuation();
        long[] unev = w.unevaluable();
        int atoms = rt.atomKeys.length;
        // untrusted_target atoms that held only because a bound was reached: the other value is possible too
        String[] bound = null;
        SessionState state = null;
        for (int g = 0; g < atoms; g++) {
            if (!bit(valuation, g) || !rt.atomKeys[g].equals("untrusted_target")) continue;
            if (state == null) state = s == null ? null : rt.monitor.snapshot(s);
            String cause = state == null ? null : rt.library.boundCause(g, e, state);
            if (cause != null) {
                if (bound == null) bound = new String[atoms];
                bound[g] = cause;
            }
        }
        if (w.unevaluableCount() == 0 && bound == null) return none(rt, s);
        int[] before = w.statesBefore().clone();
        String[] why = null;
        String[] instead = null;
        for (int i = 0; i < d.contractCount(); i++) {
            int c = d.contract(i);
            int[] fs = {set.assumeOf(c), set.guaranteeOf(c)};
            List<Integer> uncertain = new ArrayList<>();
            for (int f : fs) {
                for (int g : set.atomIndex(f)) {
                    if ((bit(unev, g) || bound != null && bound[g] != null) && !uncertain.contains(g)) uncertain.add(g);
                }
            }
            if (uncertain.isEmpty() || !someValuePasses(set, c, fs, before, valuation, uncertain)) continue;
            if (why == null) {
                why = new String[set.contracts().size()];
                instead = new String[why.length];
            }
            String boundWhy = null;
            for (int g : uncertain) if (bound != null && bound[g] != null && boundWhy == null) boundWhy = bound[g];
            String what = e.kind() == dev.tracegate.matchers.event.EventKind.CALL ? "call" : "answer";
            why[c] = "tracegate could not check this " + what + " against this contract, so it refuses it"
                    + (boundWhy == null ? "" : ": " + boundWhy + ".");
            instead[c] = boundWhy == null
                    ? "Call it again only with what the contract reads: every argument it names, given as a plain value (and, if"
                    + " it compares with a context value, after the step that sets it); otherwise tell the user that this could not be checked."
                    : boundWhy.startsWith("its ")   // a target (or a link payload) too long to check
                    ? "Send to fewer or shorter targets (at most " + dev.tracegate.matchers.predicate.Identifiers.MAX_PER_TEXT
                    + " distinct values and " + String.format(java.util.Locale.ROOT, "%,d", dev.tracegate.matchers.predicate.Identifiers.MAX_SCAN)
                    + " characters in one), or ask the user to confirm the target in their own words."
                    : "Ask the user to write the target in their own words (a target the user wrote is checked), or ask for a smaller"
                    + " input (a shorter document, fewer values) so that it can be read whole.";
        }
        return why == null ? none(rt, s) : new Unread(why, instead, rt, s);
    }

    /** Whether some value of the {@code uncertain} atoms leaves contract {@code c} not failing (trying at most 2^12). */
    private static boolean someValuePasses(ContractSet set, int c, int[] fs, int[] before, long[] valuation, List<Integer> uncertain) {
        if (uncertain.size() > MAX_TRIED) return true;
        long[] probe = valuation.clone();
        int[] trial = before.clone();
        for (long mask = 0; mask < (1L << uncertain.size()); mask++) {
            for (int b = 0; b < uncertain.size(); b++) {
                int g = uncertain.get(b);
                if ((mask >>> b & 1) != 0) probe[g >>> 6] |= 1L << g;
                else probe[g >>> 6] &= ~(1L << g);
            }
            for (int f : fs) {
                Dfa dfa = set.formulas().get(f);
                trial[f] = dfa.step(before[f], probe, set.atomIndex(f));
            }
            if (set.verdict(c, trial) != Verdict.FAIL) return true;
        }
        return false;
    }

    private static boolean bit(long[] bits, int g) {
        return g >>> 6 < bits.length && (bits[g >>> 6] & (1L << g)) != 0;
    }

    /** Why contract {@code c}'s refusal rests on what could not be read, or null. */
    String why(int c) { return why == null ? null : why[c]; }

    /** What to do instead of contract {@code c}'s own {@code next}, or null. */
    String instead(int c) { return instead == null ? null : instead[c]; }
}
