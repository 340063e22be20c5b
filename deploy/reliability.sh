#!/usr/bin/env bash
# deploy/reliability.sh — `make reliability`: first the fault, concurrency, load and prompt
# injection suite (SUITE=0 skips it; see docs/reliability.md), then every Go fuzz target (func FuzzX(f *testing.F)
# in a *_test.go file) for FUZZTIME each, one at a time (go test -fuzz takes one target per
# invocation), print one summary line per target and exit non-zero if any target crashed or broke
# an invariant.
#
#   FUZZTIME          time per target, a Go duration or Nx (default 10m)
#   FUZZMINIMIZETIME  time to minimize each new input (default 5s; Go's 60s default can keep both
#                     workers of a 2-core machine minimizing for tens of seconds with 0 execs/s)
#   FUZZ              only targets whose name matches this extended regexp (default: all)
#   SUITE             1 (default): before fuzzing, deploy/faults.sh long (servers of its own) and
#                     the load, concurrent-writer and prompt-injection tests against `make up`'s
#                     servers; 0: fuzzing only
#
# Time: the suite takes about 40 minutes on a loaded 2-core machine (go test timeouts bound it at
# 90 + 30 minutes), the fuzz targets FUZZTIME each (7 × 10 min) — about 2 hours in all.
#
# A failing input is written by Go to <package>/testdata/fuzz/<FuzzX>/<hash>; it then runs with the
# seed corpus in every `go test` (and `make test`) until it is fixed — commit it with the fix.
# Full logs: ${ARIADNE_HOME:-.ariadne}/logs/fuzz/<FuzzX>.log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10m}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-5s}
FILTER=${FUZZ:-.}
log_dir=${ARIADNE_HOME:-$PWD/.ariadne}/logs/fuzz
mkdir -p "$log_dir"

# "<package dir> <FuzzName>" for every fuzz target, sorted.
targets=$(git ls-files --cached --others --exclude-standard '*_test.go' 2>/dev/null || find . -name '*_test.go' -not -path './.ariadne/*')
targets=$(grep -H -o -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' $targets |
	sed -E 's#^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+).*#\1 \2#; s#^[^/ ]+_test\.go:func (Fuzz[A-Za-z0-9_]+).*#. \1#' |
	grep -E " ($FILTER)" | sort -u)
if [ -z "$targets" ]; then
	echo "[reliability] no fuzz targets match '$FILTER'"
	exit 1
fi
n=$(wc -l <<<"$targets")
echo "[reliability] $n fuzz targets, $FUZZTIME each (minimize $FUZZMINIMIZETIME), $(nproc) CPUs, $($GO version | cut -d' ' -f3), logs in $log_dir"

failed=0
summary=()
if [ "${SUITE:-1}" = 1 ]; then
	echo "[reliability] fault injection (deploy/faults.sh long)"
	deploy/faults.sh long || failed=1
	echo "[reliability] load, concurrent writers, prompt injection (against make up's servers)"
	deploy/local.sh up neo4j weaviate embedder
	eval "$(deploy/local.sh env)"
	suite_log=$log_dir/suite.log
	# The prompt-injection test also asks the local chat model when one is up (deploy/local.sh up llm),
	# and the lighter load run (TestIntegrationLoadLocalModel) has it answer.
	local_llm=""
	deploy/local.sh is-up llm && local_llm=$ARIADNE_LOCAL_LLM_URL
	ARIADNE_INJECTION_LLM_URL=$local_llm ARIADNE_LOAD_LLM_URL=$local_llm ARIADNE_LOAD_LLM_MODEL=${ARIADNE_LOCAL_LLM:-} \
		ARIADNE_INJECTION_LLM_MODEL=${ARIADNE_INJECTION_LLM_MODEL:-${ARIADNE_LOCAL_LLM:-}} \
		ARIADNE_REQUIRE_INTEGRATION=1 ARIADNE_LOAD_LONG=1 $GO test -count=1 -v -p 1 -timeout 60m \
		-run '^TestIntegration(Load|LoadLocalModel|ConcurrentWriters|PromptInjection)$' ./httpapi ./ingest ./agent >"$suite_log" 2>&1 || failed=1
	grep -E 'RESULT|--- (FAIL|SKIP)|^(ok|FAIL)' "$suite_log" | sed 's/^ *//' || true
	[ $failed -eq 0 ] || echo "[reliability] the suite FAILED; logs: $suite_log and the faults log above"
fi
while read -r dir name; do
	log=$log_dir/$name.log
	echo "[reliability] $name (./$dir) for $FUZZTIME ..."
	$GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" \
		-timeout 0 "./$dir" >"$log" 2>&1
	rc=$?
	last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -1)
	elapsed=$(sed -E 's/^fuzz: elapsed: ([^,]+),.*/\1/' <<<"$last")
	execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
	newi=$(sed -E 's/.*new interesting: ([0-9]+) \(total: ([0-9]+)\).*/\1 (corpus \2)/' <<<"$last")
	crashes=0
	if [ $rc -ne 0 ] || grep -q -- '--- FAIL' "$log"; then
		crashes=1
		failed=1
	fi
	line=$(printf '%-20s %-12s elapsed=%-6s execs=%-10s new_interesting=%-14s crashes=%d' \
		"$name" "./$dir" "${elapsed:-0s}" "${execs:-0}" "${newi:-0}" "$crashes")
	summary+=("$line")
	echo "[reliability] $line"
	if [ $crashes -ne 0 ]; then
		grep -E -A12 -- '--- FAIL|panic:|Failing input written' "$log" | head -40
		echo "[reliability] $name failed (exit $rc); full log: $log"
	fi
done <<<"$targets"

echo "[reliability] summary ($FUZZTIME per target):"
printf '  %s\n' "${summary[@]}"
if [ $failed -ne 0 ]; then
	echo "[reliability] FAILED: a fuzz target crashed or broke an invariant; the failing inputs are under */testdata/fuzz/"
	exit 1
fi
echo "[reliability] all fuzz targets passed"
