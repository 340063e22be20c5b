#!/usr/bin/env bash
# deploy/demo.sh — the main job end to end (`make demo`):
#   1. starts Neo4j (+ Browser), Weaviate, the e5 embedder and NER on loopback (installing them once),
#   2. builds Ariadne and runs the extraction job on demo/corpus (a small bilingual knowledge base),
#   3. starts the API (keys: demo/api-keys.yaml) and asks it questions over HTTP — one per route,
#      one the documents do not answer, one only management may read, without and with the
#      management key — printing each verified answer with its citations,
#   4. prints where to look at the graph in Neo4j Browser, and last the analyst page's address.
# Everything stays up until `make down`.
#
# Answers come from the offline extractive path (quoted sentences, no model) unless
# ARIADNE_LOCAL_LLM names a local chat model (e.g. qwen2.5-1.5b; installed once, see
# docs/local-llm.md): then the units citation mode, the support judge on, the rule router (one
# model call less per question), a query budget of ARIADNE_QUERY_TIMEOUT (default 300s here).
# The model is not the default: measured on this demo (fresh clone, 2 cores) it added about 8
# minutes of setup and 25-71 s per answer, refused the English multi-hop question, and answered
# the management-only question without a key with an unrelated verified claim (README).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ARIADNE_HOME=${ARIADNE_HOME:-$PWD/.ariadne}
export ARIADNE_HOME
export ARIADNE_LOCAL_LLM=${ARIADNE_LOCAL_LLM:-none}
if [ "$ARIADNE_LOCAL_LLM" != none ]; then
	export ARIADNE_GENERATOR=${ARIADNE_GENERATOR:-llm} ARIADNE_JUDGE=${ARIADNE_JUDGE:-true} \
		ARIADNE_ROUTER=${ARIADNE_ROUTER:-rules} ARIADNE_QUERY_TIMEOUT=${ARIADNE_QUERY_TIMEOUT:-300s} \
		ARIADNE_LLM_TIMEOUT=${ARIADNE_LLM_TIMEOUT:-280s} # one model call may take minutes on a busy machine
	ASK_TIMEOUT=${ARIADNE_ASK_TIMEOUT:-330s} # the ask client waits a little longer than the API
else
	export ARIADNE_GENERATOR=${ARIADNE_GENERATOR:-extractive}
	ASK_TIMEOUT=120s
fi
BIN=$ARIADNE_HOME/bin
PASSWORD_NOTE="ariadne-dev-password (the default; ARIADNE_NEO4J_PASSWORD changes it)"
[ -n "${ARIADNE_NEO4J_PASSWORD:-}" ] && PASSWORD_NOTE="from ARIADNE_NEO4J_PASSWORD"
# Server addresses (ports follow ARIADNE_PORT_OFFSET and ARIADNE_*_PORT; see deploy/local.sh).
addresses=$(deploy/local.sh env) || exit 2 # a bad port offset: local.sh says why
eval "$addresses"
API_PORT=$ARIADNE_API_PORT
# A process this checkout did not start on the API port fails the demo now, not after the
# servers and the extraction job (README trial).
deploy/local.sh check-api-port
NEO4J_HTTP=$ARIADNE_NEO4J_HTTP
NEO4J_URI=$ARIADNE_NEO4J_URI

step() { printf '\n=== %s\n' "$*"; }

step "1/4 servers"
deploy/local.sh up

step "2/4 build and run the extraction job on demo/corpus"
mkdir -p "$BIN"
go build -o "$BIN/" ./cmd/extract ./cmd/api ./cmd/ask
# The demo's own graph: the extraction job syncs this corpus as the source `default` (other sources stay).
# If the chunk class was built with another embedder (e5 vs the lexical fallback), re-index.
if ! "$BIN/extract" --corpus demo/corpus 2>"$ARIADNE_HOME/logs/demo-extract.log"; then
	if grep -q "re-index" "$ARIADNE_HOME/logs/demo-extract.log"; then
		echo "the chunk class holds vectors of another embedder: re-indexing the demo corpus"
		"$BIN/extract" --corpus demo/corpus --reindex
	else
		cat "$ARIADNE_HOME/logs/demo-extract.log" >&2
		exit 1
	fi
fi

step "3/4 the API, asked over HTTP"
deploy/local.sh down api >/dev/null 2>&1 || true # a previous demo's API may hold an old index
# Callers without a key read what group `all` may; demo/api-keys.yaml adds a management key.
export ARIADNE_API_KEYS_FILE=${ARIADNE_API_KEYS_FILE:-$PWD/demo/api-keys.yaml}
deploy/local.sh start-api "$BIN/api"
ask() { "$BIN/ask" --url "http://127.0.0.1:$API_PORT" --timeout "$ASK_TIMEOUT" "$@"; }
if [ "$ARIADNE_LOCAL_LLM" != none ]; then
	echo "answers written by the local model $ARIADNE_LOCAL_LLM (units citation mode, support judge on);"
	echo "each takes seconds to minutes on 2 cores (docs/local-llm.md). ARIADNE_LOCAL_LLM=none: the extractive path."
fi
echo
echo "--- simple (one fact), hybrid (an exact code), multi_hop (a chain over documents):"
ask "Сколько календарных дней ежегодного отпуска положено сотруднику?" \
	"What was the root cause of INC-812?" \
	"Who is the account manager of the client whose refrigerated trucks were hit by the delayed SMS alerts of INC-845?"
echo "--- multi_hop in Russian, across an incident, a library, a team:"
ask "Какая команда владеет библиотекой, которая стала причиной INC-812?"
echo "--- a comparison: one verified sentence about each compared incident (\`compared\` in the API's answer):"
ask "Какой инцидент случился раньше: INC-812 или INC-845?"
echo "--- no answer in the documents:"
ask "Какой бюджет выделен на новогодний корпоратив в 2025 году?"
acl_q="Какой штраф платит «Кварц Системс» по договору CTR-2025-07, если доступность ниже 99,5%?"
echo "--- a management-only document, asked without a key (the contract is filtered out before any"
echo "    prompt, so the answer is the same refusal as for a fact no document holds):"
ask "$acl_q"
echo "--- the same question with the management key from demo/api-keys.yaml:"
ask --key demo-management-key "$acl_q"

step "4/4 the graph in Neo4j Browser"
LLM_UP=""
[ "$ARIADNE_LOCAL_LLM" = none ] || LLM_UP=1
# With a port offset, the shell the user asks from needs it too (ask and make down read it).
OFFSET_HINT=
if [ "${ARIADNE_PORT_OFFSET:-0}" != 0 ]; then
	OFFSET_HINT="ARIADNE_PORT_OFFSET=$ARIADNE_PORT_OFFSET "
fi
# So does a home other than the default (make down reads the pid files there).
if [ -n "${ARIADNE_HOME:-}" ] && [ "$(cd "$ARIADNE_HOME" 2>/dev/null && pwd -P)" != "$(cd "$PWD/.ariadne" 2>/dev/null && pwd -P)" ]; then
	OFFSET_HINT="${OFFSET_HINT}ARIADNE_HOME=$ARIADNE_HOME "
fi
cat <<MSG
Open $NEO4J_HTTP/browser/ and connect to $NEO4J_URI as user neo4j, password $PASSWORD_NOTE.
Style: run :style and paste deploy/neo4j/browser-style.grass. Ready queries: deploy/neo4j/browser-queries.cypher.
Try:

  MATCH p = (c:Client)-[:HAS_PROJECT|FOR_CLIENT]-(:Project)-[:USES]-(:Technology) RETURN p

  MATCH (i:Incident {key: 'incidents/inc-812'})-[r]-(n:Entity) RETURN i, r, n

The API stays up at $ARIADNE_API_URL (try: ${OFFSET_HINT}$BIN/ask "your question"; add --key demo-management-key
to read management documents), and so do Neo4j,
Weaviate, the embedder and the NER sidecar${LLM_UP:+ and the local chat model}: stop everything with  ${OFFSET_HINT}make down
MSG
echo
echo "The analyst page (ask, check citations, explore the graph and the documents): http://127.0.0.1:$API_PORT/ui/"
