package dev.tracegate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The report's LangChain4j price and offline-replay targets, from hand-made JMH and replay-command JSON. */
class BenchReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static ObjectNode jmh(String benchmark, String param, String value, double median, String unit) {
        ObjectNode b = JSON.createObjectNode();
        b.put("benchmark", "dev.tracegate.bench." + benchmark);
        b.put("mode", "avgt");
        b.put("threads", 1);
        b.put("forks", 1);
        ObjectNode ps = b.putObject("params");
        for (String p : param.split(",")) {
            if (!p.isEmpty()) ps.put(p, value.split(",")[List.of(param.split(",")).indexOf(p)]);
        }
        ObjectNode pm = b.putObject("primaryMetric");
        pm.put("score", median);
        pm.put("scoreError", 0.0);
        ObjectNode pct = pm.putObject("scorePercentiles");
        for (String k : new String[] {"0.0", "50.0", "90.0", "100.0"}) pct.put(k, median);
        pm.put("scoreUnit", unit);
        pm.putArray("rawData").addArray().add(median).add(median).add(median);
        return b;
    }

    @Test
    void theAgentsPriceIsTheAttachedMinusTheDetachedMedianOfTheSameInvocation() {
        ArrayNode j = JSON.createArrayNode();
        j.add(jmh("agent.ToolLoopBenchmark.passedInvocation", "agent", "detached", 30_000, "ns/op"));
        j.add(jmh("agent.ToolLoopBenchmark.passedInvocation", "agent", "attached", 30_800, "ns/op"));
        j.add(jmh("agent.ToolLoopBenchmark.blockedInvocation", "agent", "detached", 25_000, "ns/op"));
        j.add(jmh("agent.ToolLoopBenchmark.blockedInvocation", "agent", "attached", 40_000, "ns/op"));
        ArrayNode price = BenchReport.toolLoopPrice(BenchReport.rows(j));
        assertThat(price).hasSize(2);
        assertThat(price.get(0).get("priceNs").asDouble()).isEqualTo(800.0);
        assertThat(price.get(1).get("priceNs").asDouble()).isEqualTo(15_000.0);
        List<BenchReport.Target> t = BenchReport.toolLoopTargets(price);
        assertThat(t).singleElement().satisfies(x -> assertThat(x.met()).isTrue());
    }

    @Test
    void everyJsonlReplayPathIsHeldToAMillionEventsPerSecond(@TempDir Path dir) throws IOException {
        ArrayNode j = JSON.createArrayNode();
        j.add(jmh("JsonlReplayBenchmark.monitor", "library,trace", "gdpr,small", 1_200_000, "ops/s"));
        j.add(jmh("JsonlReplayBenchmark.replay", "library,trace", "gdpr,small", 999_999, "ops/s"));
        j.add(jmh("JsonlReplayBenchmark.read", "trace", "small", 5_000_000, "ops/s"));
        Path cli = dir.resolve("quick-cli-agentdojo-injection.json");
        Files.writeString(cli, "{\"libraries\":\"injection\",\"sessions\":[],\"summary\":{\"events\":8000,\"sessions\":753,\"seconds\":0.5}}");
        ArrayNode cliRows = BenchReport.replayCli(cli.toString());
        assertThat(cliRows).singleElement().satisfies(c -> {
            assertThat(c.get("trace").asText()).isEqualTo("agentdojo");
            assertThat(c.get("library").asText()).isEqualTo("injection");
            assertThat(c.get("eventsPerSecond").asDouble()).isEqualTo(16_000.0);
        });
        List<BenchReport.Target> t = BenchReport.replayTargets(BenchReport.rows(j), cliRows);
        assertThat(t).extracting(BenchReport.Target::met).containsExactly(true, false, false);
        assertThat(t.get(0).name()).contains("replay command's loop").contains("small").contains("gdpr");
        String tables = BenchReport.tables(BenchReport.rows(j), t, null, null, null, null, null, cliRows);
        assertThat(tables).contains("| agentdojo | injection | 8000 | 753 | 0.50 | 16,000 |");
    }

    @Test
    void aReplayCommandOutputMustBeNamedAfterItsTraceAndLibrary() {
        assertThatThrownBy(() -> BenchReport.replayCli("/tmp/whatever.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cli-<trace>-<library>.json");
    }

    @Test
    void theCallLatencyTableShowsThePlatformsStallsBesideTheCallsWhenTheHarnessRecordedThem() {
        ArrayNode runs = JSON.createArrayNode();
        for (boolean withStalls : new boolean[] {true, false}) {
            ObjectNode l = runs.addObject();
            l.put("agent", withStalls ? "attached" : "detached");
            l.put("rate", 1000);
            l.put("calls", 8000);
            for (String key : new String[] {"fromDueTimeNs", "serviceTimeNs"}) {
                ObjectNode p = l.putObject(key);
                for (String k : new String[] {"p50", "p90", "p99", "p99.9", "max"}) p.put(k, 1000);
            }
            if (withStalls) {
                ObjectNode st = l.putObject("platformStallsNs");
                st.put("p50", 14_000).put("p90", 21_000).put("p99", 30_000).put("p99.9", 41_000).put("max", 52_000).put("count", 2_900);
                st.put("thresholdNs", 5_000).put("perSecond", 362.5).put("callsHitPerMillion", 725);
            }
        }
        String tables = BenchReport.tables(List.of(), List.of(), null, null, null, runs, null, null);
        assertThat(tables).contains("| attached | 1000 | 2900 stalls | the platform: gaps over 5 µs while the thread idled (362.5 per second;"
                + " a call lands on one ~725 times in a million) | 14000 | 21000 | 30000 | 41000 | 52000 |");
        assertThat(tables).doesNotContain("| detached | 1000 | 2900 stalls");
    }

    static ObjectNode cpuTraceLengths(Integer window, double at100, double at1e6) {
        ObjectNode cpu = JSON.createObjectNode();
        cpu.putArray("runs");
        ArrayNode tl = cpu.putArray("traceLength");
        for (double[] r : new double[][] {{100, at100}, {1_000_000, at1e6}}) {
            ObjectNode row = tl.addObject();
            row.put("contracts", 10).put("traceLength", (int) r[0]).put("shots", 20).put("cpuNsPerEventMedian", r[1]).put("cpuNsPerEventMin", r[1]);
            if (window != null) {
                row.put("window", window).put("clockFloorNs", 600.0).put("cpuNsPerEventP10", r[1] - 0.5).put("cpuNsPerEventP90", r[1] + 1);
            }
        }
        return cpu;
    }

    /** 100-event windows cannot resolve ±10% (a 0.6 µs clock around 2 µs of work): no verdict; 10,000-event windows get one. */
    @Test
    void theTraceLengthCpuVerdictNeedsLongWindows() {
        BenchReport.Target short100 = traceTarget(cpuTraceLengths(null, 50.6, 48.9));
        assertThat(short100.met()).isNull();
        assertThat(short100.measured()).isEqualTo("48.9 vs 50.6 ns/event (-3.4%), with 100-event windows whose shot-to-shot spread is wider than ±10% (see Trace length)");
        assertThat(short100.cell()).isEqualTo("**not shown** (the block profile below shows it)");
        BenchReport.Target flat = traceTarget(cpuTraceLengths(10_000, 21.0, 21.4));
        assertThat(flat.met()).isTrue();
        assertThat(flat.measured()).contains("windows of 10,000 events").contains("p10 .. p90 20.9 .. 22.4 vs 20.5 .. 22.0");
        assertThat(traceTarget(cpuTraceLengths(10_000, 21.0, 24.0)).met()).isFalse();
        String tables = BenchReport.tables(List.of(), List.of(), null, cpuTraceLengths(10_000, 21.0, 21.4), null, null, null, null);
        assertThat(tables).contains("| 10 | 1000000 | 21.4 | 20.9 .. 22.4 | 21.4 | 20 |").contains("600 ns per shot");
    }

    private static BenchReport.Target traceTarget(ObjectNode cpu) {
        return BenchReport.targets(List.of(), null, cpu).stream().filter(t -> t.name().startsWith("cost at trace length 10^6 vs 10^2, CPU"))
                .findFirst().orElseThrow();
    }

    static ObjectNode callLatency(String agent, int rate, long calls, long p999) {
        ObjectNode l = JSON.createObjectNode();
        l.put("agent", agent).put("rate", rate).put("calls", calls);
        for (String key : new String[] {"fromDueTimeNs", "serviceTimeNs"}) {
            ObjectNode p = l.putObject(key);
            for (String k : new String[] {"p50", "p90", "p99", "max"}) p.put(k, 1_000);
            p.put("p99.9", key.equals("fromDueTimeNs") ? p999 : p999 - 100);
        }
        return l;
    }

    /** The p99.9 of 3,000 calls (quick) is printed without a verdict; several long runs give a range and a verdict from all. */
    @Test
    void theP999TargetNeedsThirtyThousandCallsAndReportsTheRangeOfRuns() {
        ArrayNode quick = JSON.createArrayNode().add(callLatency("detached", 1000, 3_000, 900)).add(callLatency("attached", 1000, 3_000, 35_615));
        BenchReport.Target q = BenchReport.callTargets(List.of(), quick).get(0);
        assertThat(q.met()).isNull();
        assertThat(q.cell()).isEqualTo("no verdict (needs >= 30,000 calls per run)");
        assertThat(q.measured()).startsWith("35,615 ns (service time 35,515 ns), from 3,000 calls: the p99.9 is about the 4th-largest value");

        ArrayNode full = JSON.createArrayNode();
        for (long p : new long[] {31_000, 27_000, 44_000}) full.add(callLatency("attached", 1000, 30_000, p));
        BenchReport.Target f = BenchReport.callTargets(List.of(), full).get(0);
        assertThat(f.met()).isFalse();
        assertThat(f.measured()).isEqualTo("27,000 .. 44,000 ns over 3 runs (service time 26,900 .. 43,900 ns)");
        full.add(callLatency("attached", 1000, 30_000, 9_000));
        assertThat(BenchReport.callTargets(List.of(), full).get(0).cell()).isEqualTo("in some runs only");
        ArrayNode met = JSON.createArrayNode().add(callLatency("attached", 1000, 30_000, 9_000)).add(callLatency("attached", 1000, 30_000, 8_000));
        assertThat(BenchReport.callTargets(List.of(), met).get(0).met()).isTrue();
    }

    /** Detached and attached JVMs run in turns: the i-th of each pair up, and the price is the median of the pairs' differences. */
    @Test
    void theToolLoopPriceOfInterleavedPairsIsTheMedianOfTheirDifferencesWithTheirRange() {
        ArrayNode j = JSON.createArrayNode();
        double[][] pairs = {{4_000, 6_400}, {4_100, 5_000}, {3_900, 4_600}};   // prices 2,400, 900, 700
        for (double[] p : pairs) {
            j.add(jmh("agent.ToolLoopBenchmark.passedInvocation", "agent", "detached", p[0], "ns/op"));
            j.add(jmh("agent.ToolLoopBenchmark.passedInvocation", "agent", "attached", p[1], "ns/op"));
        }
        ArrayNode price = BenchReport.toolLoopPrice(BenchReport.rows(j));
        assertThat(price).singleElement().satisfies(p -> {
            assertThat(p.get("pairs").asInt()).isEqualTo(3);
            assertThat(p.get("priceNs").asDouble()).isEqualTo(900.0);
            assertThat(p.get("priceMinNs").asDouble()).isEqualTo(700.0);
            assertThat(p.get("priceMaxNs").asDouble()).isEqualTo(2_400.0);
        });
        BenchReport.Target t = BenchReport.toolLoopTargets(price).get(0);
        assertThat(t.met()).isNull();
        assertThat(t.cell()).isEqualTo("in some pairs only");
        assertThat(t.measured()).isEqualTo("900 ns, median of pairs (min .. max 700 .. 2,400)");
        assertThat(BenchReport.tables(BenchReport.rows(j), List.of(), null, null, null, null, price, null))
                .contains("| passed (search) | 3 | 4,000 | 5,000 | 900 | 700 .. 2,400 | 1.25× |");
    }

    /** A replay target met in the median of few iterations says how few, and whether the slowest was below the target. */
    @Test
    void aReplayTargetMetOnlyInTheMedianSaysSo(@TempDir Path dir) throws IOException {
        ArrayNode j = JSON.createArrayNode();
        ObjectNode slowest = jmh("JsonlReplayBenchmark.monitor", "library,trace", "gdpr,small", 1_154_752, "ops/s");
        ((ObjectNode) slowest.get("primaryMetric").get("scorePercentiles")).put("0.0", 772_668);
        j.add(slowest);
        j.add(jmh("JsonlReplayBenchmark.monitor", "library,trace", "injection,small", 1_402_233, "ops/s"));
        List<BenchReport.Target> t = BenchReport.replayTargets(BenchReport.rows(j), JSON.createArrayNode());
        assertThat(t.get(0).measured()).isEqualTo("1,154,752 events/s (1 fork x 3 iterations, min 772,668)");
        assertThat(t.get(0).cell()).isEqualTo("yes, in this run's median");
        assertThat(t.get(1).cell()).isEqualTo("yes");
        // run.sh deletes the replay command's outputs; an earlier summary keeps its rows for a second report
        Path summary = dir.resolve("quick-summary.json");
        Files.writeString(summary, "{\"replayCli\":[{\"trace\":\"small\",\"library\":\"gdpr\",\"events\":48000,\"sessions\":2000,"
                + "\"seconds\":0.5,\"eventsPerSecond\":96000.0}]}");
        assertThat(BenchReport.replayCli(summary.toString())).singleElement()
                .satisfies(c -> assertThat(c.get("eventsPerSecond").asDouble()).isEqualTo(96_000.0));
    }

    /** The goal of the linearity row says what is checked: an upper bound only. */
    @Test
    void theLinearityGoalIsAnUpperBoundAndTheEngineStepRowNamesItsHotSession() {
        ArrayNode j = JSON.createArrayNode();
        j.add(jmh("EngineStepBenchmark.passing", "contracts", "10", 21.3, "ns/op"));
        j.add(jmh("EngineStepBenchmark.passing", "contracts", "100", 20.0, "ns/op"));
        List<BenchReport.Target> t = BenchReport.targets(BenchReport.rows(j), null, null);
        assertThat(t).filteredOn(x -> x.name().startsWith("cost vs contracts")).singleElement().satisfies(x -> {
            assertThat(x.target()).isEqualTo("100/10 ratio at most 12.5 (no worse than linear)");
            assertThat(x.met()).isTrue();   // a ratio under 1 passes: the check is one-sided, as the goal now says
        });
        assertThat(t.get(0).name()).isEqualTo("engine step, 10 contracts, median (one hot session)");
    }

    /** The JMH trace-length rows are per event of the JSON's batch size; 100-event shots get no verdict, 10,000-event ones do. */
    @Test
    void theJmhTraceLengthRowsAreDividedByTheirBatchAndShortShotsGetNoVerdict() {
        for (int batch : new int[] {100, 10_000}) {
            ArrayNode j = JSON.createArrayNode();
            ObjectNode a = jmh("TraceLengthBenchmark.step", "traceLength", "100", 21.0 * batch, "ns/op").put("measurementBatchSize", batch);
            ObjectNode z = jmh("TraceLengthBenchmark.step", "traceLength", "1000000", 21.5 * batch, "ns/op").put("measurementBatchSize", batch);
            j.add(a).add(z);
            BenchReport.Target t = BenchReport.targets(BenchReport.rows(j), null, null).stream()
                    .filter(x -> x.name().equals("cost at trace length 10^6 vs 10^2")).findFirst().orElseThrow();
            assertThat(t.measured()).startsWith("21.5 vs 21.0 ns/event (+2.4%), single shots of ");
            if (batch == 100) {
                assertThat(t.met()).isNull();
                assertThat(t.cell()).startsWith("**not shown**");
            } else {
                assertThat(t.met()).isTrue();
            }
            assertThat(BenchReport.tables(BenchReport.rows(j), List.of(), null, null, null, null, null, null))
                    .contains("score is per window of " + batch + " events").contains("| 1 × 3 | 21.5 |");
        }
    }

    /**
     * trial22 05: a --jmh file that does not exist (m=ful in bench/README's regeneration command) was skipped, and the report
     * of nothing overwrote --summary (there also the --replay-cli input) and --tables with exit 0. Any missing input is now
     * refused before anything is written.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jmh", "latency", "cpu", "footprint", "call-latency", "replay-cli"})
    void aMissingInputFileIsRefusedAndNoOutputIsTouched(String option, @TempDir Path dir) throws IOException {
        Path good = dir.resolve("quick.json");
        ArrayNode rows = JSON.createArrayNode();
        rows.add(jmh("EngineStepBenchmark.passing", "contracts", "10", 40.0, "ns/op"));
        Files.writeString(good, rows.toString());
        Path summary = dir.resolve("quick-summary.json");
        Files.writeString(summary, "{\"keep\":\"me\"}");
        Path missing = dir.resolve("results/ful.json");
        String jmh = option.equals("jmh") ? good + "," + missing : good.toString();
        java.util.List<String> args = new java.util.ArrayList<>(List.of("--jmh", jmh, "--summary", summary.toString(),
                "--tables", dir.resolve("tables.md").toString(), "--jmh-merged", dir.resolve("merged.json").toString()));
        if (!option.equals("jmh")) args.addAll(List.of("--" + option, missing.toString()));
        assertThatThrownBy(() -> BenchReport.cli(args.toArray(String[]::new))).isInstanceOf(Args.BadOption.class)
                .hasMessageContaining("--" + option + " " + missing).hasMessageContaining("nothing was written");
        assertThat(Files.readString(summary)).as("the summary is left alone").isEqualTo("{\"keep\":\"me\"}");
        assertThat(dir.resolve("tables.md")).doesNotExist();
        assertThat(dir.resolve("merged.json")).doesNotExist();
    }
}
