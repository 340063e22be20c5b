#!/usr/bin/env bash
# deploy/reliability.sh — `make reliability`: run every Go fuzz target (func FuzzX(f *testing.F)
# in a *_test.go file) for FUZZTIME each, one at a time (go test -fuzz takes one target per
# invocation), print one summary line per target and exit non-zero if any target crashed or broke
# an invariant.
#
#   FUZZTIME          time per target, a Go duration or Nx (default 10m)
#   FUZZMINIMIZETIME  time to minimize each new input (default 5s; Go's 60s default can keep both
#                     workers of a 2-core machine minimizing for tens of seconds with 0 execs/s)
#   FUZZ              only targets whose name matches this extended regexp (default: all)
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
