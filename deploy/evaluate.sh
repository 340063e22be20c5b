#!/usr/bin/env bash
# deploy/evaluate.sh — reproduce the figures in docs/evaluation.md (`make eval`).
# Runs cmd/eval on the golden dev set, MuSiQue-100 and XQuAD-ru, with the lexical embedder and
# with multilingual-e5-small side by side, and writes docs/eval/<set>-<embedder>.{md,json}.
# Each run indexes its corpus (replacing Ariadne's graph in Neo4j) into its own Weaviate class.
# Takes about 20 minutes on 2 cores, most of it embedding with e5 on the CPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SHARED=${ARIADNE_SHARED:-../shared}
OUT=docs/eval
mkdir -p "$OUT" .ariadne/bin
deploy/local.sh up
addresses=$(deploy/local.sh env) || exit 2 # a bad port offset: local.sh says why
eval "$addresses"
go build -o .ariadne/bin/ ./cmd/eval
EVAL=.ariadne/bin/eval

run() { # name embedder args...
	local name=$1 emb=$2
	shift 2
	echo "== $name ($emb)"
	"$EVAL" "$@" --embedder "$emb" --json "$OUT/$name-$emb.json" | tee "$OUT/$name-$emb.md"
}

for emb in lexical e5; do
	class=$(echo "$emb" | sed 's/^./\U&/')
	run golden "$emb" golden --golden "$SHARED/corpus/golden-dev.jsonl" --corpus "$SHARED/corpus/kb" --index --weaviate-class "EvalGolden$class"
	run musique "$emb" musique --dataset "$SHARED/datasets/musique_100.json" --weaviate-class "EvalMusique$class"
	run xquad "$emb" xquad --dataset "$SHARED/datasets/xquad_ru.json" --weaviate-class "EvalXquad$class" --strategies vector,hybrid
done
echo "reports in $OUT/"
