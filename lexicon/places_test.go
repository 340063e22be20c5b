package lexicon

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// placesTSV is a gazetteer in the format build_places.py writes, with GeoNames' real rows cut
// down (ids, countries and populations as GeoNames gives them).
const placesTSV = `# kind, id, country, population, name, other names
region	150		0	Europe	Европа
country	DE	DE	82927922	Germany	Германия
country	US	US	327167434	United States	Соединенные Штаты	US	США
country	LU	LU	607728	Luxembourg	Люксембург
city	2960316	LU	76684	Luxembourg	Luxemburg	Люксембург
city	2761369	AT	1691468	Vienna	VIE	Vin	Vine	Wien	Вена	Беч	Відень
city	4791160	US	16522	Vienna	Ayr Hill	Вијена
city	2969284	FR	32293	Vienne	Вьенн
city	498817	RU	5351935	Saint Petersburg	Leningrad	St. Petersburg	Sankt-Peterburg	Lungsod ng Sankt-Peterburg	Санкт-Петербург	Петербург	Выборг ош
city	4171563	US	260999	St. Petersburg	Сент-Питерсберг
city	524901	RU	10381222	Moscow	MOW	Moskva	Москва
city	5601538	US	25060	Moscow	Moskva	Москва
city	3173435	IT	1371498	Milan	Milano	Милан
city	5140405	US	144142	Syracuse	Milan	Сиракьюс
city	629634	BY	340141	Brest	Брест
city	3030300	FR	139926	Brest	Брест
`

func TestGazetteerFind(t *testing.T) {
	g, err := ReadGazetteer("places.tsv", strings.NewReader(placesTSV))
	if err != nil {
		t.Fatal(err)
	}
	if g.Size() != 16 {
		t.Errorf("Size %d, want 16", g.Size())
	}
	for _, tc := range []struct {
		names []string
		id    string // "" when no place
		first string // Names[0]
	}{
		{[]string{"Vienna"}, "2761369", "Vienna"},                   // 100 times Vienna, Virginia
		{[]string{"Вена"}, "2761369", "Vienna"},                     // a Russian name
		{[]string{"Wien"}, "", ""},                                  // four letters: not a name Vienna is found by, and not "Vienne"
		{[]string{"Vine"}, "", ""},                                  // a clipped form
		{[]string{"VIE"}, "", ""},                                   // an airport code
		{[]string{"Відень"}, "", ""},                                // Ukrainian letters
		{[]string{"санкт петербург"}, "498817", "Saint Petersburg"}, // case and punctuation do not count
		{[]string{"St. Petersburg"}, "498817", "Saint Petersburg"},  // 20 times St. Petersburg, Florida, whose name it is
		{[]string{"Sankt-Peterburg"}, "498817", "Saint Petersburg"},
		{[]string{"Lungsod ng Sankt-Peterburg"}, "", ""}, // not a proper name word by word
		{[]string{"Moscow"}, "524901", "Moscow"},         // 400 times Moscow, Idaho
		{[]string{"Москва"}, "524901", "Moscow"},
		{[]string{"Milan"}, "3173435", "Milan"},      // its English name, not Syracuse's other name
		{[]string{"Brest"}, "", ""},                  // Belarus 2.4 times France: too close
		{[]string{"Luxembourg"}, "LU", "Luxembourg"}, // the country before the city
		{[]string{"США"}, "US", "United States"},     // a CLDR short name
		{[]string{"Германия"}, "DE", "Germany"},      // no transliteration relates them
		{[]string{"Европа"}, "150", "Europe"},
		{[]string{"Nowhere", "Вена"}, "2761369", "Vienna"}, // the first name that finds a place
		{[]string{"Nowhere"}, "", ""},
	} {
		p, ok := g.Find(tc.names...)
		if ok != (tc.id != "") || p.ID != tc.id || (ok && p.Names[0] != tc.first) {
			t.Errorf("Find(%q) = %q %v (ok %v), want %q first %q", tc.names, p.ID, p.Names, ok, tc.id, tc.first)
		}
	}
	spb, _ := g.Find("Петербург")
	if want := []string{"Saint Petersburg", "St. Petersburg", "Санкт-Петербург", "Петербург"}; !slices.Equal(spb.Names, want) {
		t.Errorf("Saint Petersburg's names %q, want %q (English, its St. form, Russian)", spb.Names, want)
	}
	if _, named, ok := g.Lookup("Brest"); !named || ok {
		t.Errorf("Lookup(Brest): named %v ok %v, want named and not chosen", named, ok)
	}
	if _, named, _ := g.Lookup("Санкт-Петербурге"); named {
		t.Error("Lookup: an inflected form is no name as written")
	}
	if p, ok := g.Choose([]int{5, 6}); !ok || p.ID != "2761369" { // both Viennas
		t.Errorf("Choose(Viennas) = %q %v, want 2761369", p.ID, ok)
	}
	if _, ok := g.Choose([]int{14, 15}); ok { // both Brests
		t.Error("Choose(Brests): chose one")
	}
	var nilG *Gazetteer
	if _, ok := nilG.Find("Vienna"); ok || nilG.Size() != 0 || nilG.Name() != "" {
		t.Error("a nil gazetteer knows a place")
	}
	if (*Lexicon)(nil).WithGazetteer(g).Places() != g || (*Lexicon)(nil).Places() != nil {
		t.Error("WithGazetteer/Places do not carry the gazetteer")
	}
}

func TestReadGazetteerErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":              "# nothing\n",
		"short line":         "city\t1\tRU\t5\n",
		"unknown kind":       "town\t1\tRU\t5\tVolkhov\n",
		"bad population":     "city\t1\tRU\tmany\tVolkhov\n",
		"no name in a place": "city\t1\tRU\t5\t\n",
	} {
		if _, err := ReadGazetteer("x.tsv", strings.NewReader(in)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	if _, err := LoadGazetteer(t.TempDir() + "/missing.tsv"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: %v, want ErrNotFound", err)
	}
}
