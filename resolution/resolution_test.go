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
		{Text: "Альфа-Логистик", EntityKey: "c/alfa"},
		{Text: "Камский Берег", EntityKey: "c/kb"},
		{Text: "KB Bank", EntityKey: "c/kb"},
		{Text: "МедЛиния", EntityKey: "c/med"},
		{Text: "И. Соколова", EntityKey: "p/sok"},
		{Text: "Ирина Соколова", EntityKey: "p/sok"},
		{Text: "КМЗ", EntityKey: "c/kmz"},
		{Text: "routekit", EntityKey: "t/routekit"},
		{Text: "эксплуатация", EntityKey: "team/sre", QuotedOnly: true},
		{Text: "Kafka", EntityKey: "t/kafka"},
	})
	tests := []struct {
		text string
		want []string
	}{
		// Several words are specific enough to match in any case (users type «альфа логистик»).
		{"Клиент Alfa Logistic LLC и альфа логистик", []string{"Alfa Logistic→c/alfa", "альфа логистик→c/alfa"}},
		{"для банка «Камского Берега» и KB Bank", []string{"Камского Берега→c/kb", "KB Bank→c/kb"}},
		{"выписки Мед-Линии и MedLinia", []string{"Мед-Линии→c/med", "MedLinia→c/med"}},
		{"Техлид — И. Соколова; Irina Sokolova", []string{"И. Соколова→p/sok", "Irina Sokolova→p/sok"}},
		{"и Соколова", nil}, // «и» is a conjunction, not an initial
		{"КМЗ и кмз", []string{"КМЗ→c/kmz"}},
		{"библиотека routekit 0.14.2, RouteKit", []string{"routekit→t/routekit", "RouteKit→t/routekit"}},
		{"команду называют «эксплуатация»; эксплуатация кластеров", []string{"эксплуатация→team/sre"}},
		{"Альфа.\n\nЛогистик", nil},                           // a name does not span paragraphs
		{"kafka lag; Kafka 3.6.1", []string{"Kafka→t/kafka"}}, // one word: case matters
		{"routes and routed trips", nil},                      // Latin endings: "routes" is not "routekit"
	}
	for _, tc := range tests {
		if got := surfaces(m.Find(tc.text)); !slices.Equal(got, tc.want) {
			t.Errorf("Find(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestMatcherFindWhole(t *testing.T) {
	m := NewMatcher([]Alias{{Text: "ООО «Альфа-Логистик»", EntityKey: "c/alfa", EntityType: "client"}})
	for _, name := range []string{"Alfa Logistic LLC", "альфа логистик", "«Альфа-Логистик»", "AlfaLogistik"} {
		if got := m.FindWhole(name).Keys; !slices.Equal(got, []string{"c/alfa"}) {
			t.Errorf("FindWhole(%q) = %v", name, got)
		}
	}
	if got := m.FindWhole("Альфа-Логистик Групп").Keys; got != nil {
		t.Errorf("a longer name must not match as a whole: %v", got)
	}
}

func TestRegistryResolution(t *testing.T) {
	r := NewRegistry(map[string][]string{"Екатерина": {"Катя"}})
	sok, _ := r.Resolve(Candidate{Name: "Ирина Соколова", Type: "person", DocID: "people/sokolova"})
	bel, _ := r.Resolve(Candidate{Name: "Екатерина Белова", Type: "person", DocID: "people/belova"})
	alfa, _ := r.Resolve(Candidate{Name: "ООО «Альфа-Логистик»", Type: "client", DocID: "clients/alfa", Aliases: []string{"AlfaLog"}})

	tests := []struct {
		c    Candidate
		want string
	}{
		{Candidate{Name: "И. Соколова", Type: "person"}, sok},
		{Candidate{Name: "Irina Sokolova", Type: "person"}, sok},
		{Candidate{Name: "Катя Белова", Type: "person"}, bel},
		{Candidate{Name: "Alfa Logistic LLC", Type: "client"}, alfa},
		{Candidate{Name: "AlfaLog", Type: "organization"}, alfa}, // client and organization are compatible
	}
	for _, tc := range tests {
		got, merged := r.Resolve(tc.c)
		if got != tc.want || !merged {
			t.Errorf("Resolve(%q) = %q merged=%v, want %q merged", tc.c.Name, got, merged, tc.want)
		}
	}
	if e, _ := r.Get(alfa); !slices.Contains(e.Aliases, "Alfa Logistic LLC") || !slices.Contains(e.Aliases, "AlfaLog") {
		t.Errorf("aliases not kept on the merged entity: %v", e.Aliases)
	}
	// The same word as a different type is a different entity.
	if k, merged := r.Resolve(Candidate{Name: "Альфа-Логистик", Type: "project"}); k == alfa || merged {
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

func TestRegistryAdoptsUndocumentedEntity(t *testing.T) {
	r := NewRegistry(nil)
	old, _ := r.Resolve(Candidate{Name: "Alfa Logistic", Type: "organization"})
	r.Load(ariadne.Entity{Key: "technologies/kafka", Name: "Kafka", Type: "technology", DocID: "technologies/kafka"}, "", nil)
	key, _ := r.Resolve(Candidate{Name: "ООО «Альфа-Логистик»", Type: "client", DocID: "clients/alfa"})
	if r.Renames()[old] != key {
		t.Fatalf("renames = %v, want %s → %s", r.Renames(), old, key)
	}
	if _, ok := r.Get(old); ok {
		t.Error("the adopted entity still exists under its old key")
	}
	if e, _ := r.Get(key); !slices.Contains(e.Aliases, "Alfa Logistic") {
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
