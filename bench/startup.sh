#!/usr/bin/env bash
# JVM start-up added by the agent: a Hello program run N times without the agent and with it, interleaved,
# wall-clock and user+sys CPU medians from /usr/bin/time. Usage:
#
#   bench/startup.sh [RUNS] [AGENT_ARGS...]      defaults: 7 runs; libraries=sop-refund and libraries=gdpr;temporal-classes;sop-refund
#
# The agent jar is agent/target/tracegate-agent.jar (build it with: mvn -q -pl agent -am package -Dmaven.test.skip=true).
# CP_EXTRA=... adds a class path (e.g. a framework's jars, so the agent weaves from the first class on).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="$(dirname "$here")/agent/target/tracegate-agent.jar"
[[ -f $jar ]] || { echo "no agent jar at $jar: build it with mvn -q -pl agent -am package -Dmaven.test.skip=true" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "/usr/bin/time is needed (apt-get install -y time)" >&2; exit 2; }
runs="${1:-7}"; shift || true
configs=("$@"); [[ ${#configs[@]} -gt 0 ]] || configs=("libraries=sop-refund" "libraries=gdpr;temporal-classes;sop-refund")
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
printf 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n' > "$work/Hello.java"
javac -d "$work" "$work/Hello.java"
cp="$work${CP_EXTRA:+:$CP_EXTRA}"
for ((i = 0; i < runs; i++)); do
  /usr/bin/time -f "none %e %U %S" java -cp "$cp" Hello 2>&1 > /dev/null | grep '^none ' >> "$work/times"
  for c in "${configs[@]}"; do
    /usr/bin/time -f "$c %e %U %S" java -Dtracegate.audit.path="$work/audit.jsonl" "-javaagent:$jar=$c" -cp "$cp" Hello 2>&1 > /dev/null \
      | grep -F "$c " >> "$work/times"
  done
done
echo "java: $(java -version 2>&1 | head -1); cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); agent jar: $(stat -c %s "$jar") bytes"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for k in none "${configs[@]}"; do
  rows="$(grep -F "$k " "$work/times" | grep "^$k " || true)"
  [[ $k == none ]] && rows="$(grep '^none ' "$work/times")"
  wall="$(cut -d' ' -f2 <<< "$rows" | median)"
  cpu="$(awk '{ print $3 + $4 }' <<< "$rows" | median)"
  printf '%-50s runs %d  wall median %s s  user+sys median %s s\n' "$k" "$(wc -l <<< "$rows")" "$wall" "$cpu"
done
