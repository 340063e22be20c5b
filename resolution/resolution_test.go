package resolution

import (
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func surfaces(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Surface+"→"+m.Keys[0])
	}
	return out
}

func TestMatcherFindsVariants(t *testing.T) {
	m := NewMatcher([]Alias{
		{Text: "Омега-Логистик", EntityKey: "c/omega"},
		{Text: "Донской Причал", EntityKey: "c/kb"},
		{Text: "DP Bank", EntityKey: "c/kb"},
		{Text: "ЭкоЛиния", EntityKey: "c/eko"},
		{Text: "И. Морозова", EntityKey: "p/mor"},
		{Text: "Морозова И.", EntityKey: "p/mor"},
		{Text: "Ирина Морозова", EntityKey: "p/mor"},
		{Text: "СМЗ", EntityKey: "c/smz"},
		{Text: "routekit", EntityKey: "t/routekit"},
		{Text: "эксплуатация", EntityKey: "team/sre", QuotedOnly: true},
		{Text: "Kafka", EntityKey: "t/kafka"},
		{Text: "Анна Светлова", EntityKey: "p/svet"},
		{Text: "Data", EntityKey: "team/data"},
		{Text: "Ольга Миронова", EntityKey: "p/mir"},
		{Text: "СевероВет", EntityKey: "o/nv"},
		{Text: "Соляной путь", EntityKey: "p/salt"},
		{Text: "Азиатский тур", EntityKey: "p/asia"},
		{Text: "Путь", EntityKey: "t/put"},
		{Text: "Helix", EntityKey: "o/helix"},
		{Text: "Redis", EntityKey: "t/redis"},
		{Text: "Tver", EntityKey: "l/tver"},
	})
	tests := []struct {
		text string
		want []string
	}{
		// Several words are specific enough to match in any case (users type «омега логистик»).
		{"Клиент Omega Logistic LLC и омега логистик", []string{"Omega Logistic→c/omega", "омега логистик→c/omega"}},
		{"для банка «Донского Причала» и DP Bank", []string{"Донского Причала→c/kb", "DP Bank→c/kb"}},
		{"выписки Эко-Линии и EkoLinia", []string{"Эко-Линии→c/eko", "EkoLinia→c/eko"}},
		{"Техлид — И. Морозова; Irina Morozova", []string{"И. Морозова→p/mor", "Irina Morozova→p/mor"}},
		{"и Морозова", nil}, // «и» is a conjunction, not an initial
		// The initial after the surname, as reference lists write it, inflected too; a letter
		// without its dot is a word.
		{"Авторы: Морозова И., Светлов П.; статью Морозовой И. цитируют", []string{"Морозова И→p/mor", "Морозовой И→p/mor"}},
		{"Морозова и Светлов", nil},
		// The part of a CamelCase name before an inner capital is another word: «Северо» of
		// «Северо-Западном» is not «СевероВет», which inflects.
		{"в Северо-Западном регионе; сеть «СевероВет», у «СевероВета»", []string{"СевероВет→o/nv", "СевероВета→o/nv"}},
		{"СМЗ и смз", []string{"СМЗ→c/smz"}},
		{"библиотека routekit 0.14.2, RouteKit", []string{"routekit→t/routekit", "RouteKit→t/routekit"}},
		{"команду называют «эксплуатация»; эксплуатация кластеров", []string{"эксплуатация→team/sre"}},
		{"Омега.\n\nЛогистик", nil},                           // a name does not span paragraphs
		{"kafka lag; Kafka 3.6.1", []string{"Kafka→t/kafka"}}, // one word: case matters
		{"routes and routed trips", nil},                      // Latin endings: "routes" is not "routekit"
		// A short first name inflected in its last letter, beside its surname.
		{"у Анны Светловой и Ольги Мироновой", []string{"Анны Светловой→p/svet", "Ольги Мироновой→p/mir"}},
		{"с Анной Светловой", []string{"Анной Светловой→p/svet"}},
		{"Инны Светловой, Анны Смирновой", nil}, // another first name, another surname
		// A noun of a three-letter stem inflects in a name of several words; alone it must be as written.
		{"костюмы к «Соляному пути»; о Соляном пути; пути; Путь", []string{"Соляному пути→p/salt", "Соляном пути→p/salt", "Путь→t/put"}},
		{"солист азиатского тура; об Азиатском туре; тура", []string{"азиатского тура→p/asia", "Азиатском туре→p/asia"}},
		// A one-word Latin name is no first word of a longer name (but in a heading, before a
		// legal form, a month, or across a line it is).
		{"Sea Titan (Helix Offshore Lifting); Helix's director; Helix LLC; Helix May", []string{"Helix→o/helix", "Helix→o/helix", "Helix→o/helix"}},
		{"# Helix Cable Report\nHelix\nOffshore", []string{"Helix→o/helix", "Helix→o/helix"}},
		// A one-word name transliterated is not a part of a hyphenated word; as written it may be.
		{"в дата-центре; Дата-центр; центр-дата", nil},
		{"команда Data и команда «Дата»; Data-команда", []string{"Data→team/data", "Дата→team/data", "Data→team/data"}},
		// A one-word Latin name in lower-case Cyrillic is slang for it, in any case; a word that
		// only starts like it is another word (переплёт твёрдый, hardcover, is not Tver).
		{"кэш в редисе, редис и редиска; переплёт твёрдый, в твери", []string{"редисе→t/redis", "редис→t/redis", "твери→l/tver"}},
		// Words of an e-mail address or a URL are no mentions.
		{"Почта: i.morozova@omega-logistic.example; https://omega-logistic.example/ru, www.omega-logistic.example; Омега-Логистик", []string{"Омега-Логистик→c/omega"}},
	}
	for pass := range 2 { // the second pass reads the memoized first-word filters
		for _, tc := range tests {
			if got := surfaces(m.Find(tc.text)); !slices.Equal(got, tc.want) {
				t.Errorf("pass %d: Find(%q) = %q, want %q", pass, tc.text, got, tc.want)
			}
		}
	}
}

// TestMatcherAddAfterFind: an alias added after Find memoized a word's candidates is found.
func TestMatcherAddAfterFind(t *testing.T) {
	m := NewMatcher([]Alias{{Text: "Омега-Логистик", EntityKey: "c/omega"}})
	text := "поставщик «Омега-Лизинг» и Omega Logistic"
	if got := surfaces(m.Find(text)); !slices.Equal(got, []string{"Omega Logistic→c/omega"}) {
		t.Fatalf("before: %q", got)
	}
	m.add(Alias{Text: "Омега-Лизинг", EntityKey: "c/omega-leasing"})
	if got := surfaces(m.Find(text)); !slices.Equal(got, []string{"Омега-Лизинг→c/omega-leasing", "Omega Logistic→c/omega"}) {
		t.Fatalf("after add: %q", got)
	}
}

func TestMatcherFindWhole(t *testing.T) {
	m := NewMatcher([]Alias{{Text: "ООО «Омега-Логистик»", EntityKey: "c/omega", EntityType: "client"}})
	for _, name := range []string{"Omega Logistic LLC", "омега логистик", "«Омега-Логистик»", "OmegaLogistik"} {
		if got := m.FindWhole(name).Keys; !slices.Equal(got, []string{"c/omega"}) {
			t.Errorf("FindWhole(%q) = %v", name, got)
		}
	}
	if got := m.FindWhole("Омега-Логистик Групп").Keys; got != nil {
		t.Errorf("a longer name must not match as a whole: %v", got)
	}
	// A code whose prefix is spelled like a legal form ("Inc") keeps it.
	m = NewMatcher([]Alias{{Text: "INC-2041", EntityKey: "incidents/inc-2041"}})
	if got := m.FindWhole("INC-2041").Keys; !slices.Equal(got, []string{"incidents/inc-2041"}) {
		t.Errorf("FindWhole(INC-2041) = %v", got)
	}
}

func TestRegistryResolution(t *testing.T) {
	r := NewRegistry(map[string][]string{"Екатерина": {"Катя"}})
	sok, _ := r.Resolve(Candidate{Name: "Ирина Морозова", Type: "person", DocID: "people/morozova"})
	bel, _ := r.Resolve(Candidate{Name: "Екатерина Орлова", Type: "person", DocID: "people/orlova"})
	omega, _ := r.Resolve(Candidate{Name: "ООО «Омега-Логистик»", Type: "client", DocID: "clients/omega", Aliases: []string{"OmegaLog"}})

	tests := []struct {
		c    Candidate
		want string
	}{
		{Candidate{Name: "И. Морозова", Type: "person"}, sok},
		{Candidate{Name: "Морозова И.", Type: "person"}, sok}, // a reference list's order
		{Candidate{Name: "Irina Morozova", Type: "person"}, sok},
		{Candidate{Name: "Катя Орлова", Type: "person"}, bel},
		{Candidate{Name: "Omega Logistic LLC", Type: "client"}, omega},
		{Candidate{Name: "OmegaLog", Type: "organization"}, omega}, // client and organization are compatible
	}
	for _, tc := range tests {
		got, merged := r.Resolve(tc.c)
		if got != tc.want || !merged {
			t.Errorf("Resolve(%q) = %q merged=%v, want %q merged", tc.c.Name, got, merged, tc.want)
		}
	}
	if e, _ := r.Get(omega); !slices.Contains(e.Aliases, "Omega Logistic LLC") || !slices.Contains(e.Aliases, "OmegaLog") {
		t.Errorf("aliases not kept on the merged entity: %v", e.Aliases)
	}
	// The same word as a different type is a different entity.
	if k, merged := r.Resolve(Candidate{Name: "Омега-Логистик", Type: "project"}); k == omega || merged {
		t.Errorf("a project named like a client merged into it: %s", k)
	}
}

func TestRegistryKeepsHomonymsApart(t *testing.T) {
	r := NewRegistry(nil)
	a, _ := r.Resolve(Candidate{Name: "Анна Иванова", Type: "person", Context: "clients/a"})
	b, _ := r.Resolve(Candidate{Name: "Анна Иванова", Type: "person", Context: "clients/b"})
	if a == b {
		t.Fatalf("two people with the same name at different clients merged into %s", a)
	}
	again, merged := r.Resolve(Candidate{Name: "А. Иванова", Type: "person", Context: "clients/a"})
	if again != a || !merged {
		t.Errorf("«А. Иванова» at client a = %s (merged %v), want %s", again, merged, a)
	}
	if k, _ := r.Resolve(Candidate{Name: "Anna Ivanova", Type: "person"}); k == a || k == b {
		t.Errorf("a person without context was merged into one of two homonyms: %s", k)
	}
}

// TestRegistryAdoptsCodeFoundFirst: a code discovered (type identifier) before the page that
// describes it is adopted by that page's subject, whatever its type.
func TestRegistryAdoptsCodeFoundFirst(t *testing.T) {
	r := NewRegistry(nil)
	old, _ := r.Resolve(Candidate{Name: "INC-2041", Type: "identifier"})
	key, _ := r.Resolve(Candidate{Name: "INC-2041", Type: "incident", DocID: "incidents/inc-2041"})
	if r.Renames()[old] != key {
		t.Fatalf("renames = %v, want %s → %s", r.Renames(), old, key)
	}
	if m := r.Matcher().Find("после INC-2041."); len(m) != 1 || !slices.Equal(m[0].Keys, []string{key}) {
		t.Errorf("the code names %+v, want only %s", m, key)
	}
}

// TestRegistryAdoptsOnlyWhatItsReadersRead: a page adopts a code found before it only when every
// reader of the texts that gave the code may read the page. A management contract whose aliases
// include «NB-913» leaves a public note's code its own entity (F1: the note's readers lost it to
// the hidden contract when the contract was posted after the note, in another source).
func TestRegistryAdoptsOnlyWhatItsReadersRead(t *testing.T) {
	mgmt, sales, public := []string{"management"}, []string{"sales"}, []string{ariadne.PublicGroup}
	for _, tc := range []struct {
		name          string
		codeACL, page []string
		adopted       bool
	}{
		{"public code, public page", public, public, true},
		{"management code, management page", mgmt, mgmt, true},
		{"management code, public page", mgmt, public, true},
		{"public code, management page", public, mgmt, false},
		{"sales code, management page", sales, mgmt, false},
		{"management and sales code, management page", []string{"management", "sales"}, mgmt, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry(nil)
			// As ingest loads it from the graph: its reach is who may read the texts that spell it.
			r.Load(ariadne.Entity{Key: "identifier:nb 913", Name: "NB-913", Type: "identifier"}, "", nil)
			r.SetReach("identifier:nb 913", tc.codeACL)
			key, _ := r.Resolve(Candidate{Name: "Contract CTR-2026-NB-913", Type: "contract", DocID: "audit/contracts/ctr-2026-nb-913",
				Aliases: []string{"CTR-2026", "NB-913"}, ACL: tc.page})
			_, kept := r.Get("identifier:nb 913")
			if adopted := r.Renames()["identifier:nb 913"] == key; adopted != tc.adopted || kept == adopted {
				t.Errorf("renames %v, code kept %v; want adopted %v", r.Renames(), kept, tc.adopted)
			}
			// The code's readers find it by the name as before; the page's, both when not adopted.
			for _, m := range r.Matcher().FindIf("discussed NB-913", func(k string) bool { return r.Reaches(k, tc.codeACL) }) {
				if want := map[bool]string{true: key, false: "identifier:nb 913"}[tc.adopted]; !slices.Equal(m.Keys, []string{want}) {
					t.Errorf("the code's readers find %v, want %s", m.Keys, want)
				}
			}
		})
	}
}

func TestRegistryAdoptsUndocumentedEntity(t *testing.T) {
	r := NewRegistry(nil)
	old, _ := r.Resolve(Candidate{Name: "Omega Logistic", Type: "organization"})
	r.Load(ariadne.Entity{Key: "technologies/kafka", Name: "Kafka", Type: "technology", DocID: "technologies/kafka"}, "", nil)
	key, _ := r.Resolve(Candidate{Name: "ООО «Омега-Логистик»", Type: "client", DocID: "clients/omega"})
	if r.Renames()[old] != key {
		t.Fatalf("renames = %v, want %s → %s", r.Renames(), old, key)
	}
	if _, ok := r.Get(old); ok {
		t.Error("the adopted entity still exists under its old key")
	}
	if e, _ := r.Get(key); !slices.Contains(e.Aliases, "Omega Logistic") {
		t.Errorf("adopted aliases lost: %v", e.Aliases)
	}
}

func TestPairwiseScores(t *testing.T) {
	groups := map[string][]string{"a": {"a1", "a2", "a3"}, "b": {"b1", "b2"}}
	pred := map[string]string{"a1": "A", "a2": "A", "a3": "", "b1": "B", "b2": "A"}
	s := PairwiseScores(groups, func(v string) string { return pred[v] })
	// pairs: (a1,a2) TP; (a1,a3),(a2,a3) FN; (b1,b2) FN; (a1,b2),(a2,b2) FP
	if s.TP != 1 || s.FN != 3 || s.FP != 2 || s.Precision != 1.0/3 || s.Recall != 0.25 || !slices.Equal(s.Unresolved, []string{"a3"}) {
		t.Fatalf("scores = %+v", s)
	}
}

func TestResolveReach(t *testing.T) {
	mgmt, public := []string{"management"}, []string{ariadne.PublicGroup}
	r := NewRegistry(nil)
	r.Resolve(Candidate{Name: "Vertograd Holding", Type: "client", DocID: "clients/vertograd", ACL: mgmt})
	if got := r.Reach("clients/vertograd"); !slices.Equal(got, mgmt) {
		t.Fatalf("reach %v, want %v", got, mgmt)
	}
	// A name found in a management document joins the definition; the same name in a public
	// one becomes an entity of its own, as if the definition did not exist.
	if k, merged := r.Resolve(Candidate{Name: "Vertograd Holding", Type: "organization", ACL: mgmt}); k != "clients/vertograd" || !merged {
		t.Errorf("management candidate: %q merged %v, want clients/vertograd true", k, merged)
	}
	if k, merged := r.Resolve(Candidate{Name: "Vertograd Holding", Type: "organization", ACL: public}); k != "organization:vertograd holding" || merged {
		t.Errorf("public candidate: %q merged %v, want organization:vertograd holding false", k, merged)
	}
	// Made public, the definition reaches every text.
	r.Resolve(Candidate{Name: "Vertograd Holding", Type: "client", DocID: "clients/vertograd", ACL: public})
	if r.Reach("clients/vertograd") != nil || !r.Reaches("clients/vertograd", mgmt) || !r.Reaches("clients/vertograd", nil) {
		t.Errorf("public definition: reach %v", r.Reach("clients/vertograd"))
	}
}
