package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The online monitor (arena, CAS, rollback) and the plain offline replay agree on the decision and
 * on every contract's verdict at every prefix, and on the end-of-session reading, for random
 * contract sets and random traces with refusals, in enforce and shadow mode.
 */
class OnlineOfflineAgreementTest {

    @Test
    void onlineAndOfflineAgreeAtEveryPrefix() {
        DfaCompiler compiler = new DfaCompiler(2_000);
        int sets = 0;
        long refusals = 0;
        long events = 0;
        for (int seed = 0; sets < 300; seed++) {
            Random r = new Random(seed);
            int atoms = 2 + r.nextInt(3);
            List<Contract> contracts = RandomContracts.contracts(r, 1 + r.nextInt(4), atoms);
            ContractSet set;
            try {
                set = ContractSet.compile(contracts, compiler);
            } catch (StateLimitException tooBig) {
                continue;
            }
            sets++;
            boolean enforce = r.nextInt(4) != 0;
            SessionMonitor<BitsGrounder.Ev> online = new SessionMonitor<>(set, new BitsGrounder());
            Replay<BitsGrounder.Ev> offline = new Replay<>(set, new BitsGrounder(), true, "s");
            Worker w = online.newWorker();
            Session s = online.session("s");
            int len = r.nextInt(25);
            for (int i = 0; i < len; i++) {
                int width = set.atoms().size();
                long bits = width == 0 ? 0 : r.nextLong() & ((1L << width) - 1);
                long unev = r.nextInt(8) == 0 && width > 0 ? 1L << r.nextInt(width) : 0;
                boolean agent = r.nextInt(3) != 0;
                BitsGrounder.Ev e = new BitsGrounder.Ev(i, bits, unev, agent);
                Decision d = online.step(s, e, agent, enforce, w);
                Replay.Step o = offline.next(e, agent, enforce);
                String where = "seed " + seed + " event " + i + " " + e + " contracts " + contracts;
                assertThat(d.kind()).as(where).isEqualTo(o.decision());
                assertThat(d.applied()).as(where).isEqualTo(o.applied());
                assertThat(d.contracts()).as(where).containsExactly(o.contracts());
                assertThat(online.verdicts(s)).as(where).containsExactly(o.verdicts());
                assertThat(online.snapshot(s).words).as(where).containsExactly(0 + s.applied(), online.snapshot(s).words[1]);
                if (d.refused()) refusals++;
                events++;
            }
            EndReport endOffline = offline.end();
            EndReport endOnline = online.end(s);
            assertThat(endOnline.verdicts()).as("seed " + seed).isEqualTo(endOffline.verdicts());
            assertThat(endOnline.unmet()).as("seed " + seed).isEqualTo(endOffline.unmet());
        }
        // The comparison is only worth something if refusals of each kind actually happened.
        assertThat(refusals).as("refusals among %d events", events).isGreaterThan(events / 50);
    }

    /**
     * Sets large enough that the monitor's packed state spans several longs, its joint transition
     * tables are split into many groups, and one formula has more atoms than a transition table
     * holds (a decision-diagram automaton stepped on its own): the same agreement at every prefix.
     */
    @Test
    void onlineAndOfflineAgreeOnLargeSetsWithWideFormulas() {
        DfaCompiler compiler = new DfaCompiler(2_000);
        StringBuilder wide = new StringBuilder("G(p0 -> F(p1");
        for (int i = 2; i < 13; i++) wide.append(" | p").append(i);
        Contract manyAtoms = new Contract("wide", Formula.Const.TRUE, Parser.parse(wide + "))"), "block", "");
        Contract manyAtomsSafety = new Contract("wide-safety", Formula.Const.TRUE,
                Parser.parse("G(!(p3 & p4 & p5 & p6 & p7 & p8 & p9 & p10 & p11 & p12 & p13))"), "block", "");
        int sets = 0;
        long refusals = 0;
        long events = 0;
        int wideWords = 0;
        int manyWords = 0;
        for (int seed = 0; sets < 40; seed++) {
            Random r = new Random(1000 + seed);
            int atoms = 20 + r.nextInt(40);
            List<Contract> contracts = new java.util.ArrayList<>(RandomContracts.contracts(r, 12 + r.nextInt(20), atoms));
            if (seed % 2 == 0) contracts.add(manyAtoms);
            if (seed % 3 == 0) contracts.add(manyAtomsSafety);
            ContractSet set;
            try {
                set = ContractSet.compile(contracts, compiler);
            } catch (StateLimitException tooBig) {
                continue;
            }
            if (set.atoms().size() > 64) continue; // BitsGrounder fills one valuation word
            sets++;
            if (set.flatTransitions().packedWords > 1) wideWords++;
            if (set.flatTransitions().manyWords) manyWords++;
            boolean enforce = r.nextInt(4) != 0;
            SessionMonitor<BitsGrounder.Ev> online = new SessionMonitor<>(set, new BitsGrounder());
            Replay<BitsGrounder.Ev> offline = new Replay<>(set, new BitsGrounder(), true, "s");
            Worker w = online.newWorker();
            Session s = online.session("s");
            int width = set.atoms().size();
            for (int i = 0; i < 60; i++) {
                // Sparse letters, as real events are: each atom holds with probability 1/8.
                long bits = 0;
                for (int g = 0; g < width; g++) if (r.nextInt(8) == 0) bits |= 1L << g;
                long unev = r.nextInt(8) == 0 ? 1L << r.nextInt(width) : 0;
                boolean agent = r.nextInt(3) != 0;
                BitsGrounder.Ev e = new BitsGrounder.Ev(i, bits, unev, agent);
                Decision d = online.step(s, e, agent, enforce, w);
                Replay.Step o = offline.next(e, agent, enforce);
                String where = "seed " + seed + " event " + i + " " + e;
                assertThat(d.kind()).as(where).isEqualTo(o.decision());
                assertThat(d.applied()).as(where).isEqualTo(o.applied());
                assertThat(d.contracts()).as(where).containsExactly(o.contracts());
                assertThat(online.snapshot(s).states).as(where).isEqualTo(offline.states());
                assertThat(w.statesAfter(d)).as(where).isEqualTo(offline.states());
                assertThat(online.verdicts(s)).as(where).containsExactly(o.verdicts());
                if (d.refused()) refusals++;
                events++;
            }
            EndReport endOffline = offline.end();
            EndReport endOnline = online.end(s);
            assertThat(endOnline.verdicts()).as("seed " + seed).isEqualTo(endOffline.verdicts());
            assertThat(endOnline.unmet()).as("seed " + seed).isEqualTo(endOffline.unmet());
        }
        assertThat(wideWords).as("sets whose packed state spans several longs").isGreaterThan(10);
        assertThat(manyWords).as("of which without diagram automata (stepped long by long in straight-line code)").isGreaterThan(5);
        assertThat(refusals).as("refusals among %d events", events).isGreaterThan(events / 50);
    }

    /**
     * Sets whose packed state fits one long but whose joint tables are more than four groups, or
     * whose atoms span more than four bytes of the valuation: the monitor's one-long step handles the
     * first four of each in straight-line code and the rest in loops; both agree with the replay.
     */
    @Test
    void onlineAndOfflineAgreeOnOneLongSetsWithManyGroups() {
        DfaCompiler compiler = new DfaCompiler(2_000);
        // Mostly two-atom safety patterns of one state bit, so that 30+ atoms still pack into one long.
        String[] patterns = {"G !(%s & %s)", "G !(%s & %s)", "G !(%s & %s)", "G(%s -> O %s)", "!%s W %s", "G(%s -> WX !%s)"};
        int manyGroups = 0;
        int manyBytes = 0;
        long refusals = 0;
        long events = 0;
        for (int seed = 0; seed < 100; seed++) {
            Random r = new Random(7000 + seed);
            int n = 15 + r.nextInt(4);
            List<Integer> atoms = new java.util.ArrayList<>();
            for (int i = 0; i < 2 * n; i++) atoms.add(i);
            java.util.Collections.shuffle(atoms, r);
            List<Contract> contracts = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                String g = String.format(patterns[r.nextInt(patterns.length)], "a" + atoms.get(2 * i), "a" + atoms.get(2 * i + 1));
                // Each contract steps its own copy of a shared assumption (see ContractSet.compile): few of them, to stay in one long.
                Formula assume = r.nextInt(8) == 0 ? Parser.parse("G !z") : Formula.Const.TRUE;
                contracts.add(new Contract("c" + i, assume, Parser.parse(g), "block", ""));
            }
            ContractSet set = ContractSet.compile(contracts, compiler);
            FlatTransitions flat = set.flatTransitions();
            if (!flat.oneWord || flat.groups.length <= 4) continue;
            manyGroups++;
            if (flat.source.length > 4) manyBytes++;
            boolean enforce = r.nextInt(4) != 0;
            SessionMonitor<BitsGrounder.Ev> online = new SessionMonitor<>(set, new BitsGrounder());
            Replay<BitsGrounder.Ev> offline = new Replay<>(set, new BitsGrounder(), true, "s");
            Worker w = online.newWorker();
            Session s = online.session("s");
            int width = set.atoms().size();
            for (int i = 0; i < 60; i++) {
                long bits = 0;
                for (int g = 0; g < width; g++) if (r.nextInt(8) == 0) bits |= 1L << g;
                long unev = r.nextInt(8) == 0 ? 1L << r.nextInt(width) : 0;
                boolean agent = r.nextInt(3) != 0;
                BitsGrounder.Ev e = new BitsGrounder.Ev(i, bits, unev, agent);
                Decision d = online.step(s, e, agent, enforce, w);
                Replay.Step o = offline.next(e, agent, enforce);
                String where = "seed " + seed + " event " + i + " " + e;
                assertThat(d.kind()).as(where).isEqualTo(o.decision());
                assertThat(d.applied()).as(where).isEqualTo(o.applied());
                assertThat(d.contracts()).as(where).containsExactly(o.contracts());
                assertThat(online.snapshot(s).states).as(where).isEqualTo(offline.states());
                assertThat(w.statesAfter(d)).as(where).isEqualTo(offline.states());
                if (d.refused()) refusals++;
                events++;
            }
            assertThat(online.end(s).verdicts()).as("seed " + seed).isEqualTo(offline.end().verdicts());
        }
        assertThat(manyGroups).as("one-long sets with more than four groups").isGreaterThan(80);
        assertThat(manyBytes).as("of which atoms span more than four valuation bytes").isGreaterThan(50);
        assertThat(refusals).as("refusals among %d events", events).isGreaterThan(events / 50);
    }

    @Test
    void offlineReplayStepsTheSameStatesAsTheMonitor() {
        DfaCompiler compiler = new DfaCompiler(2_000);
        Random r = new Random(42);
        ContractSet set = ContractSet.compile(RandomContracts.contracts(r, 3, 3), compiler);
        SessionMonitor<BitsGrounder.Ev> online = new SessionMonitor<>(set, new BitsGrounder());
        Replay<BitsGrounder.Ev> offline = new Replay<>(set, new BitsGrounder(), true, "s");
        Worker w = online.newWorker();
        Session s = online.session("s");
        for (int i = 0; i < 200; i++) {
            BitsGrounder.Ev e = new BitsGrounder.Ev(i, r.nextLong() & 7, 0, r.nextBoolean());
            online.step(s, e, e.agent, true, w);
            offline.next(e, e.agent, true);
            assertThat(online.snapshot(s).states).as("event %d", i).isEqualTo(offline.states());
        }
        assertThat(Arrays.stream(offline.verdicts()).count()).isEqualTo(3);
    }
}
