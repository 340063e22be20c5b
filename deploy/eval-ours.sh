#!/usr/bin/env bash
# deploy/eval-ours.sh — answers on our own question sets, golden dev as a check, and XQuAD-ru:
# the before/after runs of docs/evaluation.md's later sections (about 6 minutes on 2 cores once
# the indexes exist; the first run indexes them, about 4 minutes more).
#
#   deploy/eval-ours.sh [-b EVAL_BINARY] [-o OUT_DIR] [-t TAG] [-s "SET …"] [--no-xquad] [--reindex]
#
# Writes OUT_DIR/TAG-<set>.json (cmd/eval's report) and .log for: second (kb-second, 60 over the
# shared KB), noans (our 17 no-answer questions), dev (golden dev), fitkb (150 over our KB),
# hold (its hold-out), cmpq (comparisons), la (an outside tester's KB), the new users' corpora of
# later trials — gl (glaciology), gr (grants), lg (logistics), vc (vet clinics), wu (a water
# utility), th (a theatre), wf (a wind farm), pub (a publishing house), hos (a children's
# hospital network), ag (an agricultural holding), av (an aircraft maintenance company), cro (a
# contract research organisation running clinical trials), ins (a property insurer), tour (a
# concert touring agency), mus (a museum's exhibitions and loans department), fr (a freight rail
# operator), st (a film production studio), pt (a container port terminal), br (a craft
# brewery), fa (a fashion retailer), lib (a city library network) — and xq (XQuAD-ru).
# -s runs only the sets it names (xq among them); --reindex indexes every corpus again (after a
# change to extraction). Compare two tags' figures with deploy/eval-compare.py OUT_DIR TAG_A TAG_B.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SHARED=${ARIADNE_SHARED:-../shared}
BIN="" OUT=.ariadne/eval-ours TAG=run XQ=1 SETS="" REINDEX=0
while [ $# -gt 0 ]; do
	case $1 in
	-b) BIN=$2; shift 2 ;;
	-o) OUT=$2; shift 2 ;;
	-t) TAG=$2; shift 2 ;;
	-s) SETS=" $2 "; shift 2 ;;
	--no-xquad) XQ=0; shift ;;
	--reindex) REINDEX=1; shift ;;
	*) echo "usage: $0 [-b EVAL_BINARY] [-o OUT_DIR] [-t TAG] [-s \"SET …\"] [--no-xquad] [--reindex]" >&2; exit 2 ;;
	esac
done
wanted() { [ -z "$SETS" ] || [[ $SETS == *" $1 "* ]]; }
if [ "$REINDEX" = 1 ]; then rm -f "$OUT"/.indexed-*; fi
mkdir -p "$OUT" .ariadne/bin
if [ -z "$BIN" ]; then
	go build -o .ariadne/bin/ ./cmd/eval
	BIN=.ariadne/bin/eval
fi
deploy/local.sh up neo4j weaviate embedder ner lexicon
addresses=$(deploy/local.sh env) || exit 2
eval "$addresses"
common=(--embedder e5 --strategies hybrid --router rules --generators extractive)

run() { # set namespace class golden corpus
	local set=$1 ns=$2 class=$3 golden=$4 corpus=$5 index=()
	wanted "$set" || return 0
	# A namespace is indexed once (cmd/eval golden indexes only with --index).
	if ! [ -e "$OUT/.indexed-$ns" ]; then index=(--index); fi
	echo "== $set"
	"$BIN" golden --golden "$golden" --corpus "$corpus" "${index[@]}" --neo4j-namespace "$ns" --weaviate-class "$class" \
		"${common[@]}" --json "$OUT/$TAG-$set.json" >"$OUT/$TAG-$set.log" 2>&1 || { tail -5 "$OUT/$TAG-$set.log"; exit 1; }
	touch "$OUT/.indexed-$ns"
}

T=evaluation/testdata
run second EvidenceEval EvidenceEvalChunk $T/kb-second-questions.jsonl "$SHARED/corpus/kb"
run noans EvidenceEval EvidenceEvalChunk $T/evidence/no-answer.jsonl "$SHARED/corpus/kb"
run dev EvidenceEval EvidenceEvalChunk "$SHARED/corpus/golden-dev.jsonl" "$SHARED/corpus/kb"
run fitkb FitKB FitKBChunk $T/fitkb-questions.jsonl $T/fitkb
run hold FitKB FitKBChunk $T/fitkb-holdout-questions.jsonl $T/fitkb
run cmpq FitKB FitKBChunk $T/fitkb-comparison-questions.jsonl $T/fitkb
run la LastikaEval LastikaEvalChunk $T/lastika-questions.jsonl $T/lastika
for c in gl:glaciology gr:grants lg:logistics vc:vetclinics wu:waterutility th:theatre wf:windfarm pub:publishing hos:hospital ag:agro av:aviation cro:cro ins:insurance tour:touring mus:museum fr:freight st:studio pt:port br:brewery fa:fashion lib:library; do
	set=${c%%:*} name=${c#*:}
	ns="Trial${name^}"
	run "$set" "$ns" "${ns}Chunk" "$T/$name-questions.jsonl" "$T/$name"
done
if [ "$XQ" = 1 ] && wanted xq; then
	echo "== xq"
	"$BIN" xquad --dataset "$SHARED/datasets/xquad_ru.json" --neo4j-namespace EvalXquadE5 --weaviate-class EvalXquadE5 \
		"${common[@]}" --json "$OUT/$TAG-xq.json" >"$OUT/$TAG-xq.log" 2>&1 || { tail -5 "$OUT/$TAG-xq.log"; exit 1; }
fi
echo "reports in $OUT/$TAG-*.json; compare: deploy/eval-compare.py $OUT TAG_A $TAG"
