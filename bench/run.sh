#!/usr/bin/env bash
# Runs the tracegate benchmark suite and writes machine-readable results next to bench/README.md.
#
#   bench/run.sh quick   about 5 minutes on a quiet machine (5 min 3 s recorded, build included): 1 fork, short iterations;
#                        writes bench/results/quick.json (JMH JSON), quick-summary.json (merged, with targets),
#                        quick-tables.md and engine-latency.svg
#   bench/run.sh full    about an hour (54 min 29 s recorded, before the 3 latency runs and 3 tool-loop pairs added about
#                        4 more minutes): the annotations' forks and iterations; the same files named full-*
#
# Builds bench/target/benchmarks.jar and agent/target/tracegate-agent.jar first unless SKIP_BUILD=1. Extra JMH options: JMH_OPTS="..."
# (engine, grounding, JSONL replay and trace-length commands only). Any mode other than quick or full is refused first.
set -euo pipefail
mode="${1:-quick}"
# The mode is checked before anything is built: a mistyped one (quik) is refused at once, not after minutes of Maven.
case "$mode" in
  quick | full) ;;
  *)
    echo "usage: $0 quick|full   (got '$mode'; quick takes about 5 minutes, full about an hour; SKIP_BUILD=1 skips the build)" >&2
    exit 2
    ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out="$here/results"
jar="$here/target/benchmarks.jar"
mkdir -p "$out"

engine='EngineStepBenchmark|DfaVsProgressionBenchmark|ConcurrencyBenchmark|\.ReplayBenchmark'   # \. keeps JsonlReplayBenchmark out
case "$mode" in
  quick)
    steady=(-f 1 -wi 2 -w 500ms -i 3 -r 1s)
    jsonl=(-f 1 -wi 2 -w 300ms -i 3 -r 500ms)   # eight forks: shorter iterations keep quick under 5 minutes
    jsonlBodies='JsonlReplayBenchmark\.(replay|monitor)'   # parsing alone (read) only in full
    passes=1                                   # the replay command reads each trace file this many times
    shots=(-f 1 -wi 5 -i 50)
    latency=(--contracts 10 --rate 100000 --seconds 4)
    cpu=(--contracts 1,10,100 --rounds 5 --shots 20)
    sessions=1000000
    ;;
  full)
    steady=()
    jsonl=()
    jsonlBodies='JsonlReplayBenchmark'
    passes=5
    shots=()
    latency=(--contracts 1,10,100 --rate 100000 --seconds 30)
    cpu=(--contracts 1,10,100 --rounds 11)
    sessions=1000000
    ;;
esac

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  # maven.test.skip: build the jars even while another module's tests do not compile.
  # The agent jar is needed by the intercepted-call, LangChain4j and replay-command runs.
  (cd "$root" && mvn -q -pl agent,bench -am package -Dmaven.test.skip=true)
fi

java=(java -Xmx4g)
# A command-line -jvmArgsAppend replaces the annotations' @Fork(jvmArgsAppend = {"-Xms1g", "-Xmx1g"}) instead of adding to
# it (the forks then ran with the parent's -Xmx4g and no -Xms): every -jvmArgsAppend below starts with these.
heap="-Xms1g -Xmx1g"
callLatency=()   # the intercepted-call latency runs' JSON files, for the report (none when the agent jar is missing)
loopFiles=()     # the LangChain4j tool loop's JMH files, detached and attached in the order they ran
rm -f "$out/$mode"-*.json
# The JSONL traces of the offline-replay runs, written once (small.jsonl, agentdojo.jsonl, replay-policy.yaml).
traces="$(mktemp -d)"
# Every attached JVM (each JMH invocation, each harness) gets a fresh audit file under $audits, deleted when that JVM
# ends: with one file for the whole run, later attached rows measured a writer appending to a file GBs long. The trap
# deletes it also when a run fails (set -e ends the script there).
audits="$(mktemp -d)"
trap 'rm -rf "$traces" "$audits"' EXIT
"${java[@]}" -cp "$jar" dev.tracegate.bench.JsonlTraces --out "$traces" > /dev/null \
  || echo "(JsonlTraces failed, see above: the replay rows of the missing trace will fail)"
echo "== JMH: engine step, DFA vs progression, concurrency, replay ($mode)"
"${java[@]}" -jar "$jar" "$engine" "${steady[@]}" -prof gc ${JMH_OPTS:-} -rf json -rff "$out/$mode-steady.json"
echo "== JMH: grounding with the matchers, bench support library and stateless baseline ($mode)"
"${java[@]}" -jar "$jar" 'GroundingBenchmark' -p library=support "${steady[@]}" -prof gc ${JMH_OPTS:-} -rf json -rff "$out/$mode-grounding.json"
echo "== JMH: grounding + step with the built-in libraries ($mode; quick: the call only)"
builtin=GroundingBenchmark.step
[[ $mode == quick ]] && builtin=GroundingBenchmark.stepCall
"${java[@]}" -jar "$jar" "$builtin" -p library=gdpr,injection,sop-refund "${steady[@]}" -prof gc ${JMH_OPTS:-} \
  -rf json -rff "$out/$mode-builtin.json" || echo "(some built-in library failed; see above)"
echo "== JMH and HdrHistogram: an intercepted tool call, agent detached vs attached ($mode)"
agentjar="$root/agent/target/tracegate-agent.jar"
if [[ -f "$agentjar" ]] && unzip -p "$agentjar" META-INF/MANIFEST.MF 2>/dev/null | grep -q Premain-Class; then
  # A copy, so that a concurrent build of the agent cannot swap the jar in the middle of the run.
  cp "$agentjar" "$here/target/tracegate-agent.jar"
  # fresh_audit sets $attach to the agent flags with a new, empty audit file; audit_done deletes it after the JVM ended.
  fresh_audit() {
    rm -rf "$audits/jvm"; mkdir "$audits/jvm"
    attach="-javaagent:$here/target/tracegate-agent.jar=config=$here/agent/tracegate.yaml -Dtracegate.audit.path=$audits/jvm/audit.jsonl"
  }
  audit_done() { rm -rf "$audits/jvm"; }
  # and each JMH fork of an invocation deletes that file before it measures, so the agent starts a new one (FreshAuditFile)
  fresh="-Dbench.audit.fresh=true"
  calls=(-f 1 -wi 2 -w 500ms -i 3 -r 1s)
  [[ $mode == full ]] && calls=()
  quiet() { grep -v '^\[tracegate\] BLOCK' || true; }   # the agent prints one line per blocked call
  "${java[@]}" -jar "$jar" InterceptedCallBenchmark -p agent=detached "${calls[@]}" -prof gc -jvmArgsAppend "$heap -Dbench.agent=detached" \
    -rf json -rff "$out/$mode-call-detached.json" || echo "(detached intercepted-call benchmark failed)"
  fresh_audit
  "${java[@]}" -jar "$jar" InterceptedCallBenchmark -p agent=attached "${calls[@]}" -prof gc -jvmArgsAppend "$heap $attach $fresh -Dbench.agent=attached" \
    -rf json -rff "$out/$mode-call-attached.json" 2>&1 | quiet
  audit_done
  fresh_audit
  "${java[@]}" -jar "$jar" 'InterceptedCallBenchmark.passedCall$' -p agent=attached-audit-drop "${calls[@]}" -prof gc \
    -jvmArgsAppend "$heap $attach $fresh -Dtracegate.audit.on-full=drop -Dbench.agent=attached-audit-drop" \
    -rf json -rff "$out/$mode-call-drop.json" 2>&1 | quiet
  audit_done
  # 200,000 warm-up calls: with 5,000 the quick run measured the JIT's work (p50 11.7 us at 1,000 calls/s).
  # A p99.9 needs many calls and moves between runs of one jar: full makes 3 runs of 30,000 calls each, detached and
  # attached taking turns, and BenchReport gives their range; quick's 3,000 calls give a p99.9 without a verdict.
  seconds=3; latruns=1
  [[ $mode == full ]] && seconds=30 && latruns=3
  for ((run = 1; run <= latruns; run++)); do
    suffix=""; [[ $latruns -gt 1 ]] && suffix="-$run"
    "${java[@]}" -Dbench.agent=detached -cp "$jar" dev.tracegate.bench.agent.InterceptedCallLatency --rate 1000 --seconds "$seconds" \
      --warmup-calls 200000 --out "$out/$mode-call-latency-detached$suffix.json" > /dev/null || echo "(detached call latency failed)"
    fresh_audit
    # shellcheck disable=SC2086
    "${java[@]}" $attach -Dbench.agent=attached -cp "$jar" dev.tracegate.bench.agent.InterceptedCallLatency --rate 1000 \
      --seconds "$seconds" --warmup-calls 200000 --out "$out/$mode-call-latency-attached$suffix.json" 2>&1 | quiet > /dev/null
    audit_done
    callLatency+=("$out/$mode-call-latency-detached$suffix.json" "$out/$mode-call-latency-attached$suffix.json")
  done
  # Caller and audit-writer thread CPU per call (holds on a shared machine); raw JSON kept as $mode-call-cpu.json.
  cpucalls=(--calls 50000 --rounds 5 --warmup-calls 200000); [[ $mode == full ]] && cpucalls=(--calls 100000 --rounds 11 --warmup-calls 300000)
  fresh_audit
  # shellcheck disable=SC2086
  "${java[@]}" $attach -Dbench.agent=attached -cp "$jar" dev.tracegate.bench.agent.InterceptedCallCpuTime "${cpucalls[@]}" \
    --bodies passed,varied,blocked --out "$out/$mode-call-cpu.json" > /dev/null 2>&1 || echo "(intercepted-call CPU-time harness failed)"
  audit_done
  echo "== JMH: a LangChain4j AI service invocation with one tool call, agent detached vs attached ($mode)"
  # LangChain4j with the agent attached needs seconds of JIT warm-up: 2 x 0.5 s left invocations at milliseconds,
  # and 2 x 1.5 s still left the attached row at 2x its warm figure (seen with the 10-contract library)
  # The agent's price is attached minus detached: the two run in turns (ABAB), one fork each, so that each difference
  # is of runs made minutes apart at most, and BenchReport gives the median of the pairs with their min .. max (one
  # detached invocation, then one attached, gave a single difference at different times, with no spread).
  # quick: 2 pairs of the passed invocation; full: 3 pairs of every invocation (the varied question included).
  loop=(-f 1 -wi 4 -w 1500ms -i 3 -r 1s); loopBodies='ToolLoopBenchmark\.passedInvocation$'; pairs=2
  [[ $mode == full ]] && loop=(-f 1) && loopBodies='ToolLoopBenchmark' && pairs=3
  for ((pair = 1; pair <= pairs; pair++)); do
    "${java[@]}" -jar "$jar" "$loopBodies" -p agent=detached "${loop[@]}" -prof gc -jvmArgsAppend "$heap -Dbench.agent=detached" \
      -rf json -rff "$out/$mode-loop-detached-$pair.json" || echo "(detached LangChain4j benchmark failed)"
    fresh_audit
    "${java[@]}" -jar "$jar" "$loopBodies" -p agent=attached "${loop[@]}" -prof gc -jvmArgsAppend "$heap $attach $fresh -Dbench.agent=attached" \
      -rf json -rff "$out/$mode-loop-attached-$pair.json" 2>&1 | quiet
    audit_done
    loopFiles+=("$out/$mode-loop-detached-$pair.json" "$out/$mode-loop-attached-$pair.json")
  done
  echo "== the replay command on JSONL traces (a fresh JVM per run)"
  for trace in small agentdojo; do
    files=(); for ((i = 0; i < passes; i++)); do files+=("$traces/$trace.jsonl"); done
    for lib in gdpr injection; do
      # exit status 1 means some contract failed in the trace (expected); 2 is bad input
      status=0
      "${java[@]}" -jar "$here/target/tracegate-agent.jar" replay "$lib,$traces/replay-policy.yaml" "${files[@]}" --format json --no-progress \
        > "$out/$mode-cli-$trace-$lib.json" 2> /dev/null || status=$?
      [[ $status -le 1 ]] || echo "(replay command failed on $trace with $lib: exit $status)"
    done
  done
else
  echo "(no agent jar with a Premain-Class at $agentjar: build it with mvn -pl agent -am package; intercepted-call benchmarks skipped)"
fi
echo "== JMH: offline replay from JSONL: read, ground, decide ($mode)"
# -XX:+AlwaysPreTouch: a fork of a few seconds otherwise spends its measurement in G1's first pass over the fresh 1 GB
# heap, where each allocated page is first touched (about 15 us of CPU a page on session 24's VM: 3-4 times the loop's
# own cost). Pre-touched, the rows give the loop of a long replay; a fresh JVM's cost is the replay command's rows.
"${java[@]}" -jar "$jar" "$jsonlBodies" ${jsonl[@]+"${jsonl[@]}"} -prof gc -jvmArgsAppend "$heap -XX:+AlwaysPreTouch -Dbench.traces=$traces" ${JMH_OPTS:-} \
  -rf json -rff "$out/$mode-jsonl.json"
echo "== JMH: step cost vs trace length ($mode)"
"${java[@]}" -jar "$jar" 'TraceLengthBenchmark' "${shots[@]}" ${JMH_OPTS:-} -rf json -rff "$out/$mode-trace.json"
echo "== CPU time per step"
"${java[@]}" -cp "$jar" dev.tracegate.bench.StepCpuTime "${cpu[@]}" --out "$out/$mode-cpu.json" > /dev/null
echo "== HdrHistogram latency at a fixed rate"
"${java[@]}" -cp "$jar" dev.tracegate.bench.StepLatency "${latency[@]}" --out "$out/$mode-latency.json" > /dev/null
echo "== memory per session"
"${java[@]}" -Djdk.attach.allowAttachSelf=true -cp "$jar" dev.tracegate.bench.SessionFootprint \
  --contracts 10 --jol-sessions 10000 --sessions "$sessions" --out "$out/$mode-footprint.json" > /dev/null
echo "== report"
# BenchReport refuses a file that does not exist; a run that failed above (and said so) left its file out, and its rows are
# left out of the report: present gives the files of its arguments that exist, comma-separated.
present() { local f kept=(); for f in "$@"; do [[ -f $f ]] && kept+=("$f"); done; (IFS=,; echo "${kept[*]:-}"); }
"${java[@]}" -cp "$jar" dev.tracegate.bench.BenchReport \
  --jmh "$(present "$out/$mode-steady.json" "$out/$mode-grounding.json" "$out/$mode-builtin.json" "$out/$mode-call-detached.json" \
    "$out/$mode-call-attached.json" "$out/$mode-call-drop.json" ${loopFiles[@]+"${loopFiles[@]}"} "$out/$mode-jsonl.json" "$out/$mode-trace.json")" \
  --replay-cli "$(present "$out/$mode-cli-small-gdpr.json" "$out/$mode-cli-small-injection.json" "$out/$mode-cli-agentdojo-gdpr.json" \
    "$out/$mode-cli-agentdojo-injection.json")" \
  --jmh-merged "$out/$mode.json" --call-latency "$(present ${callLatency[@]+"${callLatency[@]}"})" \
  --cpu "$out/$mode-cpu.json" --latency "$out/$mode-latency.json" --footprint "$out/$mode-footprint.json" \
  --summary "$out/$mode-summary.json" --tables "$out/$mode-tables.md" --chart "$out/engine-latency$([[ $mode == quick ]] || echo -full).svg" \
  --command "bench/run.sh $mode"
rm -f "$out/$mode-steady.json" "$out/$mode-grounding.json" "$out/$mode-builtin.json" "$out/$mode-trace.json" \
  "$out/$mode-call-detached.json" "$out/$mode-call-attached.json" "$out/$mode-call-drop.json" \
  "$out/$mode"-loop-*.json "$out/$mode-jsonl.json" "$out"/"$mode"-cli-*.json
echo "results in $out"
