#!/usr/bin/env bash
# The demo: build tracegate, then run a LangChain4j customer-service agent (it/src/main/java/demoapp/support)
# under the agent jar with the gdpr, injection and sop-refund libraries, and verify the audit log.
set -euo pipefail
cd "$(dirname "$0")"
echo "== building (mvn package, tests skipped) =="
mvn -B -ntp -q -DskipTests package
AGENT=agent/target/tracegate-agent.jar
CP="it/target/classes:$(cat it/target/app-classpath.txt)"
# audit.path in it/demo/tracegate.yaml is read from that file's directory (a relative path written in the file)
LOG=it/demo/target/demo-audit.jsonl
rm -f "$LOG"
mkdir -p it/demo/target
echo
echo "== running the support desk under tracegate =="
java -javaagent:"$AGENT"=config=it/demo/tracegate.yaml -cp "$CP" demoapp.support.SupportDesk
echo
echo "== audit log: $LOG =="
java -jar "$AGENT" audit verify "$LOG"
