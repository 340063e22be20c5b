#!/usr/bin/env python3
"""deploy/eval-compare.py OUT_DIR TAG_A TAG_B [SET ...] — compare two runs of deploy/eval-ours.sh.

For each set both tags have: false refusals, answered no-answer questions, evidence coverage,
multi-hop answers citing every gold document, cited documents that are gold, answer F1, citation
validity and latency p50/p95 per route (ms); then each question whose status, cited documents or
coverage changed (the first 12) and how many did. Exits 1 when a tag has no report at all.
"""

LEGEND = ("FR false refusals / answerable · NA answered / no-answer questions · cov evidence coverage · "
          "MH multi-hop answers citing every gold document · prec cited documents that are gold · "
          "F1 answer token F1 · cv citation validity · route p50/p95 latency in ms")
import json
import os
import signal
import sys


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, a, b = sys.argv[1:4]
    sets = sys.argv[4:] or ["second", "noans", "dev", "fitkb", "hold", "cmpq", "la", "gl", "gr", "lg", "vc", "wu", "th", "wf", "pub", "hos", "ag", "av", "cro", "ins", "tour", "mus", "fr", "st", "pt", "br", "fa", "lib", "xq"]
    for tag in (a, b):
        if not any(os.path.exists(f"{out}/{tag}-{s}.json") for s in sets):
            sys.exit(f"eval-compare: no report of tag {tag!r} in {out} (deploy/eval-ours.sh -o {out} -t {tag} writes them)")
    print(LEGEND)
    for s in sets:
        try:
            ra = json.load(open(f"{out}/{a}-{s}.json"))["generators"][0]["report"]
            rb = json.load(open(f"{out}/{b}-{s}.json"))["generators"][0]["report"]
        except FileNotFoundError:
            continue
        for tag, r in ((a, ra), (b, rb)):
            lat = " ".join(f"{k} {v['p50']:.0f}/{v['p95']:.0f}" for k, v in sorted(r["latency_ms"].items()))
            print(f"{s:7s} {tag}: FR {r['false_refusals']}/{r['answerable']} NA {r['answered_no_answer']}/{r['no_answer']} "
                  f"cov {r['evidence_coverage']:.3f} MH {r['all_gold_cited_multi_hop']:.3f} prec {r['cited_gold_precision']:.3f} "
                  f"F1 {r['answer_f1']:.3f} cv {r['citation_validity']:.3f} | {lat}")
        before = {q["id"]: q for q in ra["questions"]}
        changed = 0
        for q in rb["questions"]:
            p = before.get(q["id"])
            if not p:
                continue
            if (p["status"] != q["status"] or sorted(p.get("cited_docs") or []) != sorted(q.get("cited_docs") or [])
                    or abs(p.get("coverage", 0) - q.get("coverage", 0)) > 1e-9):
                changed += 1
                if changed <= 12:
                    print(f"   {q['id']} {q['type']}: {p['status']} -> {q['status']}, cited {p.get('cited_docs')} -> "
                          f"{q.get('cited_docs')} (gold {q.get('gold_docs')}), coverage {p.get('coverage', 0):.2f} -> {q.get('coverage', 0):.2f}")
        print(f"   {changed} questions changed")


if __name__ == "__main__":
    main()
