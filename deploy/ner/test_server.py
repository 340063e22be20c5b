"""Unit tests of the NER sidecar's text handling (no models needed): python3 -m unittest deploy/ner/test_server.py

The normal-form tests need pymorphy3 and its dictionary, which the sidecar's venv has (they skip
elsewhere): $ARIADNE_HOME/ner/venv/bin/python -m unittest deploy/ner/test_server.py"""
import http.client
import json
import os
import sys
import threading
import unittest
from http.server import ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server  # noqa: E402


def byte_slice(text, start, end):
    return text.encode("utf-8")[start:end].decode("utf-8")


class TestOffsets(unittest.TestCase):
    def test_byte_offsets_slice_the_utf8_text(self):
        text = "Ёжик 🦔 из «Квазар Лабс» приехал в Екатеринбург; São Paulo, 東京."
        spans = [(text.index("Квазар"), text.index("»"), "ORG"), (text.index("Екатеринбург"), text.index(";"), "LOC"),
                 (text.index("São"), text.index(","), "LOC"), (text.index("東京"), text.index("東京") + 2, "LOC")]
        got = server.mentions(text, spans, server.RU_LABELS)
        self.assertEqual([m["text"] for m in got], ["Квазар Лабс", "Екатеринбург", "São Paulo", "東京"])
        for m in got:
            self.assertEqual(byte_slice(text, m["start"], m["end"]), m["text"])

    def test_ascii_offsets_are_character_offsets(self):
        got = server.mentions("Jane Doe met Acme.", [(0, 8, "PERSON"), (13, 17, "ORG")], server.EN_LABELS)
        self.assertEqual([(m["start"], m["end"], m["label"]) for m in got], [(0, 8, "PER"), (13, 17, "ORG")])

    def test_labels_are_mapped_and_numbers_dropped(self):
        text = "the United Nations on Monday in Paris"
        got = server.mentions(text, [(0, 18, "ORG"), (22, 28, "DATE"), (32, 37, "GPE")], server.EN_LABELS)
        self.assertEqual([(m["text"], m["label"], m["source_label"]) for m in got],
                         [("United Nations", "ORG", "ORG"), ("Paris", "LOC", "GPE")])

    def test_quotes_are_balanced(self):
        text = "ООО «Квазар Лабс» и «Ромашка"
        got = server.mentions(text, [(0, 16, "ORG"), (20, 28, "ORG")], server.RU_LABELS)
        self.assertEqual([m["text"] for m in got], ["ООО «Квазар Лабс»", "Ромашка"])


try:
    import pymorphy3  # noqa: F401  (in the sidecar's venv; deploy/test.sh runs these tests with it)

    NORMALIZER = server.Normalizer()
except ImportError:
    NORMALIZER = None


@unittest.skipIf(NORMALIZER is None, "pymorphy3 is not installed (run with $ARIADNE_HOME/ner/venv/bin/python)")
class TestNormal(unittest.TestCase):
    def test_normal_forms(self):
        for label, surface, want in (
                ("LOC", "Мурманске", "Мурманск"),
                ("PER", "Анны Светловой", "Анна Светлова"),
                ("PER", "Кнутов Зорислав Игоревич", "Зорислав Кнутов"),  # surname first, patronymic dropped
                ("PER", "Кнутова Зорислава Игоревича", "Зорислав Кнутов"),
                ("PER", "Зорислав Игоревич Кнутов", "Зорислав Кнутов"),
                ("PER", "Олегом Рябцевым", "Олег Рябцев"),
                ("PER", "Оливером Хартманном", "Оливер Хартманн"),  # a foreign surname by its ending
                ("PER", "Льва Толстого", "Лев Толстой"),
                ("PER", "Петра Иванова", "Петр Иванов"),  # ё only where the surface writes it
                ("PER", "Вера Соколова", "Вера Соколова"),  # her nominative, not «Вер Соколов»'s genitive
                ("PER", "Верой Соколовой", "Вера Соколова"),
                ("PER", "Петра Соколова", "Петр Соколов"),  # Пётр's genitive is likelier than Petra
                ("PER", "Зорислав Игоревич", "Зорислав Игоревич"),  # no surname: the patronymic stays
                ("PER", "А. С. Пушкина", "А. С. Пушкин"),
                ("PER", "Oliver Hartmann", "Oliver Hartmann"),
                ("PER", "Светлова", "Светлова"),  # his genitive or her nominative: unsure, as written
                ("PER", "Джованни Баттиста Тьеполо", "Джованни Баттиста Тьеполо"),  # no declined word shows a case
                ("ORG", "ООО «Вертоград Холдинг»", "ООО «Вертоград Холдинг»"),  # quoted words as written
                ("ORG", "«Ростелекома»", "«Ростелекома»"),
                ("ORG", "Ростелекома", "Ростелеком"),
                ("ORG", "Министерства обороны", "Министерство обороны"),  # the genitive attribute stays
                ("ORG", "Велтриксу", "Велтрикс"),  # a word the dictionary does not know, by its guess
                ("ORG", "Норлинг Системс", "Норлинг Системс"),  # guesses that may be nominative: as written
                ("ORG", "Высшей футбольной лиге", "Высшей футбольной лиге"),  # the lexeme's nominative is «высочайшая»
                ("LOC", "Нижнем Новгороде", "Нижний Новгород"),  # adjectives agreeing with the head
                ("LOC", "Ханты-Мансийском автономном округе", "Ханты-Мансийский автономный округ"),
                ("LOC", "Соединённых Штатах Америки", "Соединённые Штаты Америки"),
                ("LOC", "Самаре", "Самара"),
                ("LOC", "Самару", "Самару"),  # Самара or Самар: a tie, as written
                ("LOC", "Оклахоме", "Оклахома"),
                ("LOC", "Тольятти", "Тольятти"),
                ("LOC", "ЕКАТЕРИНБУРГЕ", "ЕКАТЕРИНБУРГ"),
                ("LOC", "Берген-оп-Зом", "Берген-оп-Зом"),
                ("ORG", "Калинов мост", "Калинов мост"),  # a possessive before its head: not «Калины мост»
                ("LOC", "Дмитров посад", "Дмитров посад"),
                ("MISC", "Мурманске", "Мурманске")):
            self.assertEqual(NORMALIZER(surface, label), want, (label, surface))

    def test_mentions_carry_normal_forms_when_asked(self):
        text = "Встреча с Олегом Рябцевым в Мурманске."
        spans = [(text.index("Олегом"), text.index(" в "), "PER"), (text.index("Мурманске"), len(text) - 1, "LOC")]
        got = server.mentions(text, spans, server.RU_LABELS, NORMALIZER)
        self.assertEqual([(m["text"], m["normal"]) for m in got], [("Олегом Рябцевым", "Олег Рябцев"), ("Мурманске", "Мурманск")])
        for m in got:  # the surface and its offsets are the text's
            self.assertEqual(byte_slice(text, m["start"], m["end"]), m["text"])
        self.assertNotIn("normal", server.mentions(text, spans, server.RU_LABELS)[0])

    def test_first_name_and_patronymic_take_in_their_surname(self):
        for text, tagged, want_text, want_normal in (
                ("Галиев Тимур Рашидович согласовал оплату.", "Тимур Рашидович", "Галиев Тимур Рашидович", "Тимур Галиев"),
                ("Оплату согласовал Тимур Рашидович Галиев.", "Тимур Рашидович", "Тимур Рашидович Галиев", "Тимур Галиев"),
                ("Приказ подписала Кнутова Зорислава Игоревна.", "Зорислава Игоревна", "Кнутова Зорислава Игоревна", "Зорислава Кнутова"),
                ("Тимура Рашидовича все знают.", "Тимура Рашидовича", "Тимура Рашидовича", "Тимур Рашидович"),  # no surname
                ("Вчера Тимур Рашидович согласовал оплату.", "Тимур Рашидович", "Тимур Рашидович", "Тимур Рашидович"),  # an adverb
                ("Директор Тимур Рашидович согласовал.", "Тимур Рашидович", "Тимур Рашидович", "Тимур Рашидович"),  # a noun
                ("Пётр Ершов и Тимур Рашидович пришли.", "Тимур Рашидович", "Тимур Рашидович", "Тимур Рашидович"),  # «и» between
                ("Анна Светлова пришла.", "Анна Светлова", "Анна Светлова", "Анна Светлова")):  # no patronymic: as tagged
            start = text.index(tagged)
            got = server.mentions(text, [(start, start + len(tagged), "PER")], server.RU_LABELS, NORMALIZER)
            self.assertEqual([(m["text"], m["normal"]) for m in got], [(want_text, want_normal)], text)
            self.assertEqual(byte_slice(text, got[0]["start"], got[0]["end"]), want_text)

    def test_a_name_that_begins_a_clause_is_read_in_the_nominative(self):
        # «Яна Серова» is her nominative or the genitive of «Ян Серов»; the dictionary's scores
        # prefer him, the place of the name in the text settles it.
        for text, want in (
                ("Яна Серова переводит с норвежского.", "Яна Серова"),
                ("# Яна Серова", "Яна Серова"),
                ("| Переводчик | Яна Серова |", "Яна Серова"),
                ("Переводчик — Яна Серова.", "Яна Серова"),
                ("Он сказал: «Яна Серова согласна».", "Яна Серова"),
                ("Вышел роман Яна Серова.", "Ян Серов"),  # after a noun: the likelier genitive
                ("Письмо от Яны Серовой.", "Яна Серова")):
            start = text.index("Ян")
            stop = start + len("Яна Серова") + (1 if "Серовой" in text else 0)
            got = server.mentions(text, [(start, stop, "PER")], server.RU_LABELS, NORMALIZER)
            self.assertEqual([m["normal"] for m in got], [want], text)

    def test_clause_start(self):
        for line, want in (("Яна", True), ("  - Яна", True), ("1. Яна", True), ("| a | Яна", True),
                           ("Итак: «Яна", True), ("Конец. Яна", True), ("Роман Яна", False),
                           ("и Яна", False), ("Многоточие.. Яна", False)):
            self.assertEqual(server.clause_start("до\n" + line, len("до\n" + line) - 3), want, line)

    def test_a_surname_tagged_on_its_own_stays_its_own(self):
        text = "Галиев Тимур Рашидович согласовал."
        spans = [(0, 6, "PER"), (7, 22, "PER")]
        got = server.mentions(text, spans, server.RU_LABELS, NORMALIZER)
        self.assertEqual([m["text"] for m in got], ["Галиев", "Тимур Рашидович"])


class TestWorkers(unittest.TestCase):
    def test_split_balanced_covers_every_text_in_order(self):
        for texts, parts in ((["a"] * 7, 2), (["x" * 1000, "y", "z"], 2), (["a"], 3), ([], 2), (["a", "b"], 5)):
            ranges = server.split_balanced(texts, parts)
            self.assertLessEqual(len(ranges), parts)
            flat = [i for a, b in ranges for i in range(a, b)]
            self.assertEqual(flat, list(range(len(texts))), (texts, parts, ranges))
        self.assertEqual(server.split_balanced(["a"] * 8, 2), [(0, 4), (4, 8)])


class CountingRecognizer:
    """Labels every capitalized word PER and records the texts it was asked about."""

    model = "counting"

    def __init__(self):
        self.calls = []

    def recognize(self, texts, lang):
        self.calls.append((list(texts), lang))
        out = []
        for t in texts:
            out.append([{"start": i, "end": i + len(w), "text": w, "label": "PER", "source_label": "PER"}
                        for i, w in ((t.index(w), w) for w in t.split() if w[:1].isupper())])
        return out, [lang or server.detect_lang(t) for t in texts]


class TestCache(unittest.TestCase):
    def test_repeated_texts_are_answered_from_the_cache(self):
        inner = CountingRecognizer()
        c = server.Cache(inner, 3)
        first, langs = c.recognize(["Anna met Bob", "Иван здесь", "Anna met Bob"], "")
        self.assertEqual(langs, ["en", "ru", "en"])
        self.assertEqual([[m["text"] for m in r] for r in first], [["Anna", "Bob"], ["Иван"], ["Anna", "Bob"]])
        # One call per detected language; the duplicate within a request is computed once more only
        # because neither copy was cached yet.
        self.assertEqual(sorted(l for _, l in inner.calls), ["en", "ru"])
        inner.calls.clear()
        again, _ = c.recognize(["Иван здесь", "Anna met Bob"], "")
        self.assertEqual(again, [first[1], first[0]])
        self.assertEqual(inner.calls, [])
        self.assertEqual((c.hits, c.misses), (2, 3))
        # The oldest entry is evicted past the size; the language is part of the key.
        c.recognize(["Carl", "Dora"], "en")
        inner.calls.clear()
        c.recognize(["Anna met Bob", "Иван здесь"], "ru")
        self.assertEqual(inner.calls, [(["Anna met Bob", "Иван здесь"], "ru")])

    def test_uncached_requests_skip_the_cache(self):
        inner = CountingRecognizer()
        c = server.Cache(inner, 3)
        c.recognize(["Anna"], "en")
        c.recognize_uncached(["Anna"], "en")
        c.recognize_uncached(["Bob"], "en")
        c.recognize(["Bob"], "en")
        self.assertEqual([t for t, _ in inner.calls], [["Anna"], ["Anna"], ["Bob"], ["Bob"]])
        self.assertEqual((c.hits, c.misses), (0, 2))

    def test_scopes_do_not_share_entries(self):
        inner = CountingRecognizer()
        c = server.Cache(inner, 10)
        c.recognize(["Anna met Bob"], "en", "management")
        c.recognize(["Anna met Bob"], "en", "")  # a public copy of a restricted text: a miss
        c.recognize(["Anna met Bob"], "en", "management")
        self.assertEqual([t for t, _ in inner.calls], [["Anna met Bob"], ["Anna met Bob"]])
        self.assertEqual((c.hits, c.misses), (1, 2))

    def test_size_zero_is_off(self):
        inner = CountingRecognizer()
        c = server.Cache(inner, 0)
        c.recognize(["Anna"], "en")
        c.recognize(["Anna"], "en")
        self.assertEqual(len(inner.calls), 2)


class TestRequest(unittest.TestCase):
    def test_detect_lang(self):
        self.assertEqual(server.detect_lang("Компания Microsoft открыла офис"), "ru")
        self.assertEqual(server.detect_lang("Microsoft opened an office in Москва"), "en")
        self.assertEqual(server.detect_lang("12345"), "en")

    def test_parse_request_limits(self):
        self.assertEqual(server.parse_request(b'{"texts": ["a"], "lang": "ru"}'), (["a"], "ru", True, ""))
        self.assertEqual(server.parse_request(b'{"texts": ["a"], "cache": false}'), (["a"], "", False, ""))
        self.assertEqual(server.parse_request(b'{"texts": ["a"], "scope": "management"}'), (["a"], "", True, "management"))
        with self.assertRaises(server.BadRequest):
            server.parse_request(b'{"texts": ["a"], "scope": 7}')
        for body in (b"not json", b'{"texts": ["a"], "cache": "no"}', b"[]", b'{"texts": "a"}', b'{"texts": [1]}', b'{"texts": [], "lang": "de"}',
                     ('{"texts": ["%s"]}' % ("x" * (server.MAX_TEXT_CHARS + 1))).encode(),
                     ('{"texts": [%s]}' % ",".join(['"a"'] * (server.MAX_TEXTS + 1))).encode(),
                     b'{"texts": ["\\ud800"]}'):
            with self.assertRaises(server.BadRequest, msg=body[:40]):
                server.parse_request(body)


class FakeRecognizer:
    model = "fake 1.0"

    def recognize(self, texts, lang):
        if "boom" in texts:
            raise RuntimeError("model exploded")
        return [server.mentions(t, [(0, len(t), "PER")], server.RU_LABELS) for t in texts], [lang or "ru"] * len(texts)

    def recognize_uncached(self, texts, lang):  # tells the two paths apart by the label
        return [server.mentions(t, [(0, len(t), "LOC")], server.RU_LABELS) for t in texts], [lang or "ru"] * len(texts)


class TestHTTP(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = ThreadingHTTPServer(("127.0.0.1", 0), server.make_handler(FakeRecognizer()))
        cls.srv.RequestHandlerClass.log_message = lambda *a: None
        threading.Thread(target=cls.srv.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.shutdown()
        cls.srv.server_close()

    def call(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.srv.server_address[1], timeout=10)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        out = r.status, json.loads(r.read())
        c.close()
        return out

    def test_health(self):
        self.assertEqual(self.call("GET", "/health"), (200, {"status": "ok", "model": "fake 1.0", "languages": ["ru", "en"]}))

    def test_ner(self):
        code, got = self.call("POST", "/v1/ner", json.dumps({"texts": ["Ёж"], "lang": ""}).encode())
        self.assertEqual(code, 200)
        self.assertEqual(got["results"], [[{"start": 0, "end": 4, "text": "Ёж", "label": "PER", "source_label": "PER"}]])
        self.assertEqual(got["model"], "fake 1.0")

    def test_cache_false_is_answered_uncached(self):
        for cache, label in ((True, "PER"), (False, "LOC")):
            code, got = self.call("POST", "/v1/ner", json.dumps({"texts": ["Ёж"], "cache": cache}).encode())
            self.assertEqual((code, got["results"][0][0]["label"]), (200, label))

    def test_errors_are_json(self):
        for method, path, body, headers, want in (
                ("POST", "/v1/ner", b"{", None, 400),
                ("POST", "/v1/ner", b'{"texts": ["boom"]}', None, 500),
                ("POST", "/v1/other", b"{}", None, 404),
                ("GET", "/v1/ner", None, None, 404),
                ("POST", "/v1/ner", b"x" * 10, {"Content-Length": str(server.MAX_BODY + 1)}, 400)):
            code, got = self.call(method, path, body, headers)
            self.assertEqual(code, want, (path, body[:20] if body else None))
            self.assertIn("error", got)


if __name__ == "__main__":
    unittest.main()
