#!/usr/bin/env bash
# JVM start-up added by the agent: a Hello program run N times without the agent and with it, interleaved,
# wall-clock and user+sys CPU medians from /usr/bin/time, and the classes each JVM loads. Usage:
#
#   bench/startup.sh [RUNS] [AGENT_ARGS...]      defaults: 7 runs; libraries=sop-refund and libraries=gdpr;temporal-classes;sop-refund
#
# The agent jar is agent/target/tracegate-agent.jar (build it with: mvn -q -pl agent -am package -Dmaven.test.skip=true).
# CP_EXTRA=... adds a class path (e.g. a framework's jars, so that the agent matches the application's classes from
#   the first one on): CP_EXTRA=$(cat it/target/app-classpath.txt), written by mvn -q -o -pl it generate-test-resources.
# AGENT_JARS="old.jar new.jar" compares several agent jars in the same interleaved rounds (copy the old one aside first).
# STAY=N (default 3; 0 turns it off) adds rows for a program that prints and then stays alive N seconds: Hello exits
#   before the agent's deferred work (its warm-up thread, JMX registration, the JIT compiling what premain ran) is
#   done, so its user+sys is a lower bound; the "alive Ns" rows give the process's CPU over its first N seconds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# checked first, so that a bad RUNS is refused before anything is built or run ("abc" would otherwise end the script
# with "unbound variable", and 0 or -2 printed rows of no runs)
runs="${1:-7}"; shift || true
[[ $runs =~ ^[1-9][0-9]*$ ]] || {
  echo "RUNS (the first argument) must be a whole number of runs, 1 or more, got '$runs'; usage: bench/startup.sh [RUNS] [AGENT_ARGS...] (the agent arguments come after RUNS)" >&2
  exit 2
}
read -r -a jars <<< "${AGENT_JARS:-$(dirname "$here")/agent/target/tracegate-agent.jar}"
for jar in "${jars[@]}"; do
  [[ -f $jar ]] || { echo "no agent jar at $jar: build it with mvn -q -pl agent -am package -Dmaven.test.skip=true" >&2; exit 2; }
done
command -v /usr/bin/time > /dev/null || { echo "/usr/bin/time is needed (apt-get install -y time)" >&2; exit 2; }
stay="${STAY:-3}"
[[ $stay =~ ^[0-9]+$ ]] || { echo "STAY must be a whole number of seconds (0 for Hello only), got '$stay'" >&2; exit 2; }
configs=("$@"); [[ ${#configs[@]} -gt 0 ]] || configs=("libraries=sop-refund" "libraries=gdpr;temporal-classes;sop-refund")
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
printf 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n' > "$work/Hello.java"
printf 'public class Stay { public static void main(String[] a) throws Exception { System.out.println("hello"); Thread.sleep(Long.parseLong(a[0]) * 1000); } }\n' > "$work/Stay.java"
javac -d "$work" "$work/Hello.java" "$work/Stay.java"
# the programs measured: Hello, and with STAY > 0 the one alive STAY seconds; a row's key is "<program> <label>"
programs=("Hello"); [[ $stay -gt 0 ]] && programs+=("Stay $stay")
key() { [[ $1 == Hello ]] && echo "$2" || echo "alive ${stay}s: $2"; }
cp="$work${CP_EXTRA:+:$CP_EXTRA}"
# one row per (jar, configuration): "jarN config" when several jars are compared, else the configuration alone
labels=(); agents=()
for ((j = 0; j < ${#jars[@]}; j++)); do
  for c in "${configs[@]}"; do
    prefix=""; [[ ${#jars[@]} -gt 1 ]] && prefix="jar$((j + 1)) "   # (a failed test inside $(...) would end the script under set -e)
    labels+=("$prefix$c"); agents+=("-javaagent:${jars[j]}=$c")
  done
done
for ((i = 0; i < runs; i++)); do
  for prog in "${programs[@]}"; do
    # shellcheck disable=SC2086   # $prog is the class and its argument
    /usr/bin/time -f "$(key "$prog" none)|%e %U %S" java -cp "$cp" $prog 2>&1 > /dev/null | grep -F "$(key "$prog" none)|" >> "$work/times"
    for ((k = 0; k < ${#labels[@]}; k++)); do
      # shellcheck disable=SC2086
      /usr/bin/time -f "$(key "$prog" "${labels[k]}")|%e %U %S" java -Dtracegate.audit.path="$work/audit.jsonl" "${agents[k]}" -cp "$cp" $prog \
        2>&1 > /dev/null | grep -F "$(key "$prog" "${labels[k]}")|" >> "$work/times" \
        || { echo "the JVM with ${agents[k]} failed; run it alone to see why: java ${agents[k]} -version" >&2; exit 2; }
    done
  done
done
# classes loaded by Hello (the deferred work of a longer-lived process loads more; not counted here)
classes() { java -Xlog:class+load:file="$work/classes.log" "$@" -cp "$cp" Hello > /dev/null 2>&1; wc -l < "$work/classes.log"; }
echo "java: $(java -version 2>&1 | head -1); cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((j = 0; j < ${#jars[@]}; j++)); do
  prefix=""; [[ ${#jars[@]} -gt 1 ]] && prefix="jar$((j + 1)): "
  echo "$prefix${jars[j]} ($(stat -c %s "${jars[j]}") bytes)"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
row() {
  local rows wall cpu
  rows="$(grep -F "$1|" "$work/times" | grep "^$1|" | cut -d'|' -f2 || true)"
  wall="$(cut -d' ' -f1 <<< "$rows" | median)"
  cpu="$(awk '{ print $2 + $3 }' <<< "$rows" | median)"
  printf '%-56s runs %d  wall median %s s  user+sys median %s s  classes loaded %s\n' "$1" "$(wc -l <<< "$rows")" "$wall" "$cpu" "$2"
}
counts=("$(classes)")
for ((k = 0; k < ${#labels[@]}; k++)); do counts+=("$(classes -Dtracegate.audit.path="$work/audit.jsonl" "${agents[k]}")"); done
for prog in "${programs[@]}"; do
  [[ $prog == Hello ]] || echo "a program alive ${stay} s: user+sys is the process's CPU over its life (wall includes the ${stay} s)"
  same=""; [[ $prog == Hello ]] || same=" (Hello's)"
  row "$(key "$prog" none)" "${counts[0]}$same"
  for ((k = 0; k < ${#labels[@]}; k++)); do row "$(key "$prog" "${labels[k]}")" "${counts[k + 1]}$same"; done
done
