#!/usr/bin/env bash
# JVM start-up a Spring Boot service pays for the agent: bench/boot's Spring Boot 4.0.7 executable jar (Spring AI
# 2.0.1, a @Tool bean, a scripted model; it starts its whole context, runs one chat turn with one tool call and exits)
# run N times without the agent and with it, interleaved; wall-clock and user+sys CPU medians from /usr/bin/time.
# Usage:
#
#   bench/boot-startup.sh [RUNS]        default 5 runs
#
# The agent jar is agent/target/tracegate-agent.jar (build it with: mvn -q -pl agent -am package -Dmaven.test.skip=true);
# AGENT_JARS="old.jar new.jar" compares several in the same interleaved rounds. The service is packaged on first use
# with `mvn -q -f bench/boot/pom.xml package` (Spring Boot and Spring AI come from Maven Central then; REBUILD=1
# packages it again). The agent runs with bench/boot/tracegate.yaml (one contract over the tool). Each run must print
# the turn's answer, and each run with the agent must have its tool call in its audit log, or the script stops (exit 2).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
runs="${1:-5}"
[[ $runs =~ ^[1-9][0-9]*$ ]] || {
  echo "RUNS (the only argument) must be a whole number of runs, 1 or more, got '$runs'; usage: bench/boot-startup.sh [RUNS]" >&2
  exit 2
}
read -r -a jars <<< "${AGENT_JARS:-$(dirname "$here")/agent/target/tracegate-agent.jar}"
for jar in "${jars[@]}"; do
  [[ -f $jar ]] || { echo "no agent jar at $jar: build it with mvn -q -pl agent -am package -Dmaven.test.skip=true" >&2; exit 2; }
done
command -v /usr/bin/time > /dev/null || { echo "/usr/bin/time is needed (apt-get install -y time)" >&2; exit 2; }
app="$here/boot/target/boot-app.jar"
if [[ ! -f $app || ${REBUILD:-0} == 1 ]]; then
  mvn -q -B -f "$here/boot/pom.xml" -DskipTests package || { echo "could not package bench/boot (Maven Central reachable?)" >&2; exit 2; }
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
labels=("none"); agents=("")
for ((j = 0; j < ${#jars[@]}; j++)); do
  label="agent"; [[ ${#jars[@]} -gt 1 ]] && label="jar$((j + 1))"
  labels+=("$label"); agents+=("-javaagent:${jars[j]}=config=$here/boot/tracegate.yaml")
done
for ((i = 0; i < runs; i++)); do
  for ((k = 0; k < ${#labels[@]}; k++)); do
    rm -f "$work/audit.jsonl"
    args=(); [[ -n ${agents[k]} ]] && args=("-Dtracegate.audit.path=$work/audit.jsonl" "${agents[k]}")
    /usr/bin/time -o "$work/time" -f "%e %U %S" java "${args[@]}" -jar "$app" > "$work/out" 2>&1 \
      || { echo "the service failed (${labels[k]}): $(tail -5 "$work/out")" >&2; exit 2; }
    grep -q '^ANSWER ' "$work/out" || { echo "the service ran no chat turn (${labels[k]}): $(tail -5 "$work/out")" >&2; exit 2; }
    if [[ -n ${agents[k]} ]] && ! grep -q '"kind":"call"' "$work/audit.jsonl"; then
      echo "the agent (${labels[k]}) recorded no tool call: it did not supervise the turn; $(grep tracegate "$work/out" | head -5)" >&2; exit 2
    fi
    echo "${labels[k]}|$(cat "$work/time")" >> "$work/times"
  done
done
echo "java: $(java -version 2>&1 | head -1); cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); app: $(stat -c %s "$app") bytes"
for ((j = 0; j < ${#jars[@]}; j++)); do
  prefix=""; [[ ${#jars[@]} -gt 1 ]] && prefix="jar$((j + 1)): "
  echo "$prefix${jars[j]} ($(stat -c %s "${jars[j]}") bytes)"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for label in "${labels[@]}"; do
  rows="$(grep "^$label|" "$work/times" | cut -d'|' -f2)"
  printf '%-8s runs %d  wall median %s s (%s-%s)  user+sys median %s s\n' "$label" "$(wc -l <<< "$rows")" \
    "$(cut -d' ' -f1 <<< "$rows" | median)" "$(cut -d' ' -f1 <<< "$rows" | sort -n | head -1)" "$(cut -d' ' -f1 <<< "$rows" | sort -n | tail -1)" \
    "$(awk '{ print $2 + $3 }' <<< "$rows" | median)"
done
