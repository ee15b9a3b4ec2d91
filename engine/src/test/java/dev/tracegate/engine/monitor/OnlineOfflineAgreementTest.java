package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
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
