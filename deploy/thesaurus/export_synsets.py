"""Write the synonym sets of wiki-ru-wordnet's SQLite database as a TSV for package lexicon.

Usage: export_synsets.py DB OUT

One line per synset that has two or more one-word lemmas (lower case, at least three letters; a
lemma with a space or a hyphen is left out), the lemmas tab-separated and sorted; synsets in id
order. Lines starting with '#' are comments. Only the standard library's sqlite3 reads the
database: no code of the package that carries it is imported.
"""

import collections
import sqlite3
import sys


def main(db: str, out: str) -> None:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    by_synset = collections.defaultdict(set)
    for synset_id, lemma in con.execute("SELECT synset_id, lemma FROM synsets"):
        lemma = lemma.strip().lower()
        if " " in lemma or "-" in lemma or len(lemma) < 3:
            continue
        by_synset[synset_id].add(lemma)
    con.close()
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        f.write("# Russian synonym sets from the Russian Wiktionary (CC BY-SA), via the PyPI package\n")
        f.write("# wiki-ru-wordnet 1.0.3 (its synsets table); written by deploy/thesaurus/export_synsets.py\n")
        for synset_id in sorted(by_synset):
            lemmas = by_synset[synset_id]
            if len(lemmas) > 1:
                f.write("\t".join(sorted(lemmas)) + "\n")
                n += 1
    print(n)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: export_synsets.py DB OUT")
    main(sys.argv[1], sys.argv[2])
