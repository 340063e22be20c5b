package agent

import (
	"context"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// A comparison cites one sentence about each compared thing: the one that states the compared
// attribute (here a year, which the question never says), from the thing's own page before a
// mention elsewhere; the context the question names ("Orion") is not compared.
func TestPlanComparison(t *testing.T) {
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "people/anna-berg", Name: "Anna Berg", Type: "person", Aliases: []string{"Anna Berg", "Анна Берг"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "people/ivan-lee", Name: "Ivan Lee", Type: "person", Aliases: []string{"Ivan Lee", "Иван Ли"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "organization:orion", Name: "Orion", Type: "organization", Aliases: []string{"Orion"}}, "", nil)
	names := reg.Matcher()
	linked := []Linked{
		{Key: "organization:orion", Name: "Orion", Type: "organization", Surface: "Orion", names: names},
		{Key: "people/anna-berg", Name: "Anna Berg", Type: "person", Surface: "Anna Berg", names: names},
		{Key: "people/ivan-lee", Name: "Ivan Lee", Type: "person", Surface: "Ivan Lee", names: names},
	}
	chunk := func(id, title, text string) ariadne.Chunk {
		return ariadne.Chunk{ID: id, DocID: ariadne.DocIDOfChunk(id), Title: title, Text: text, ACL: []string{"all"}}
	}
	frags := []Fragment{
		{N: 1, Chunk: chunk("meetings/q3#0000-aaaaaaaa", "Q3 planning", "Present: Anna Berg, Ivan Lee. Anna Berg presented the 2024 roadmap.")},
		{N: 2, Chunk: chunk("people/anna-berg#0000-bbbbbbbb", "Anna Berg", "Anna Berg is a backend developer. Phone: ext. 4417. She has been at Orion since 2018.")},
		{N: 3, Chunk: chunk("people/ivan-lee#0000-cccccccc", "Ivan Lee", "Иван Ли руководит командой данных. В «Орионе» с 2021 года.")},
	}
	units := func(p comparePlan) []string {
		var out []string
		for _, u := range p.units {
			out = append(out, u.frag.Chunk.ID+": "+u.quote)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		question string
		frags    []Fragment
		want     []string
	}{
		{"years on each page", "Who joined Orion earlier, Anna Berg or Ivan Lee?", frags, []string{
			"people/anna-berg#0000-bbbbbbbb: She has been at Orion since 2018.",
			"people/ivan-lee#0000-cccccccc: В «Орионе» с 2021 года.",
		}},
		{"one side has no such sentence", "Who joined Orion earlier, Anna Berg or Ivan Lee?", frags[:2], nil},
		{"not a comparison", "When did Anna Berg join Orion?", frags, nil},
		// a year outranks a sentence that states every term of the question but no time
		{"a value over all the terms", "Who joined Orion earlier, Anna Berg or Ivan Lee?", []Fragment{
			{N: 1, Chunk: chunk("people/anna-berg#0001-dddddddd", "Anna Berg", "Anna Berg joined Orion earlier than planned.")},
			{N: 2, Chunk: chunk("people/anna-berg#0002-eeeeeeee", "Anna Berg", "In the team since 2018.")},
			frags[2],
		}, []string{
			"people/anna-berg#0002-eeeeeeee: In the team since 2018.",
			"people/ivan-lee#0000-cccccccc: В «Орионе» с 2021 года.",
		}},
		// A duration is no amount of what "larger" compares (outside tester, stop 58).
		{"a duration is no size", "Who has the larger team, Anna Berg or Ivan Lee?", []Fragment{
			{N: 1, Chunk: chunk("people/anna-berg#0004-12121212", "Anna Berg", "Team calls take 30 minutes. Anna Berg leads a team of 12 engineers.")},
			{N: 2, Chunk: chunk("people/ivan-lee#0002-34343434", "Ivan Lee", "Иван Ли руководит командой из 9 инженеров.")},
		}, []string{
			"people/anna-berg#0004-12121212: Anna Berg leads a team of 12 engineers.",
			"people/ivan-lee#0002-34343434: Иван Ли руководит командой из 9 инженеров.",
		}},
		// How often: a time is the amount.
		{"a time is a frequency's amount", "Who syncs data more often, Anna Berg or Ivan Lee?", []Fragment{
			{N: 1, Chunk: chunk("people/anna-berg#0006-dededede", "Anna Berg", "Anna Berg syncs the data from 3 regional servers in Tver. Anna Berg syncs the data every 10 minutes.")},
			{N: 2, Chunk: chunk("people/ivan-lee#0004-efefefef", "Ivan Lee", "Ivan Lee syncs the data every hour.")},
		}, []string{
			"people/anna-berg#0006-dededede: Anna Berg syncs the data every 10 minutes.",
			"people/ivan-lee#0004-efefefef: Ivan Lee syncs the data every hour.",
		}},
		// The thing's own page, stating the value and an attribute term, before another page's
		// sentence that names it and states a time: the other page's is the other person's
		// tenure (outside tester, stop 58).
		{"own page first", "Who has worked with Orion longer, Anna Berg or Ivan Lee?", []Fragment{
			{N: 1, Chunk: chunk("orion/about#0000-56565656", "Orion", "Orion is a logistics firm in Samara.")},
			{N: 2, Chunk: chunk("people/petr#0000-78787878", "Petr Sokolov", "Petr Sokolov has worked with Anna Berg since 2015.")},
			{N: 3, Chunk: chunk("people/anna-berg#0005-9a9a9a9a", "Anna Berg", "Anna Berg has been an Orion partner since 2018.")},
			{N: 4, Chunk: chunk("people/ivan-lee#0003-bcbcbcbc", "Ivan Lee", "Ivan Lee has worked with Orion since 2021.")},
		}, []string{
			"people/anna-berg#0005-9a9a9a9a: Anna Berg has been an Orion partner since 2018.",
			"people/ivan-lee#0003-bcbcbcbc: Ivan Lee has worked with Orion since 2021.",
		}},
	} {
		got := units(planComparison(tc.question, comparedEntities(tc.question, linked), tc.frags, nil, ""))
		if len(got) != len(tc.want) {
			t.Errorf("%s: units %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: unit %d = %q, want %q", tc.name, i, got[i], tc.want[i])
			}
		}
	}
	// The comparative's word may be followed by any punctuation («раньше:», «больше —»).
	for _, q := range []string{"Кто пришёл раньше: Анна Берг или Иван Ли?", "Кто пришёл раньше — Анна Берг или Иван Ли?", "Which came first, A or B?"} {
		if !timeRE.MatchString(q) {
			t.Errorf("timeRE does not take %q", q)
		}
	}
	for _, q := range []string{"У кого больше: у A или у B?", "Где больше — в A или в B?"} {
		if !quantityRE.MatchString(q) {
			t.Errorf("quantityRE does not take %q", q)
		}
	}
	if ents := comparedEntities("Who joined Orion earlier, Anna Berg or Ivan Lee?", linked); len(ents) != 2 || ents[0].Key != "people/anna-berg" || ents[1].Key != "people/ivan-lee" {
		t.Errorf("compared entities %v, want Anna Berg and Ivan Lee", ents)
	}
	// A question that opens with the first name: its capital is taken for the sentence's, and
	// the compared span starts inside that name.
	for _, q := range []string{"Anna Berg and Ivan Lee joined Orion in the same year?", "Anna Berg и Ivan Lee пришли в Orion в один год?"} {
		if ents := comparedEntities(q, linked); len(ents) != 2 || ents[0].Key != "people/anna-berg" || ents[1].Key != "people/ivan-lee" {
			t.Errorf("%q: compared entities %v, want Anna Berg and Ivan Lee", q, ents)
		}
	}
	same := "Did Anna Berg and Ivan Lee join Orion in the same year?"
	if got := units(planComparison(same, comparedEntities(same, linked), frags, nil, "")); len(got) != 2 ||
		got[0] != "people/anna-berg#0000-bbbbbbbb: She has been at Orion since 2018." || got[1] != "people/ivan-lee#0000-cccccccc: В «Орионе» с 2021 года." {
		t.Errorf("same year: units %q, want each one's year", got)
	}
	// Ages: a year someone joined is no age; a birth year is.
	older := "Who is older, Anna Berg or Ivan Lee?"
	if p := planComparison(older, comparedEntities(older, linked), frags, nil, ""); len(p.units) != 0 || p.missing != "Anna Berg" {
		t.Errorf("older, join years only: units %q, missing %q; want none, Anna Berg", units(p), p.missing)
	}
	born := []Fragment{
		{N: 1, Chunk: chunk("people/anna-berg#0003-ffffffff", "Anna Berg", "Anna Berg was born in 1990 in Tver. She has been at Orion since 2018.")},
		{N: 2, Chunk: chunk("people/ivan-lee#0001-abababab", "Ivan Lee", "Иван Ли родился в 1987 году. В «Орионе» с 2021 года.")},
	}
	if got := units(planComparison(older, comparedEntities(older, linked), born, nil, "")); len(got) != 2 ||
		got[0] != "people/anna-berg#0003-ffffffff: Anna Berg was born in 1990 in Tver." || got[1] != "people/ivan-lee#0001-abababab: Иван Ли родился в 1987 году." {
		t.Errorf("older, birth years: units %q", got)
	}
	// One side without a sentence: the plan names it (Answer refuses with it).
	q := "Who joined Orion earlier, Anna Berg or Ivan Lee?"
	if p := planComparison(q, comparedEntities(q, linked), frags[:2], nil, ""); len(p.units) != 0 || p.missing != "Ivan Lee" {
		t.Errorf("one side missing: units %d, missing %q, want none and Ivan Lee", len(p.units), p.missing)
	}
	// Names joined by "and" and a comparative's standard: the span holds the whole last name.
	for _, q := range []string{"Did Anna Berg and Ivan Lee join Orion in the same year?", "Which of Anna Berg and Ivan Lee joined Orion first?", "Did Anna Berg join later than Ivan Lee?"} {
		if ents := comparedEntities(q, linked); len(ents) != 2 || ents[0].Key != "people/anna-berg" || ents[1].Key != "people/ivan-lee" {
			t.Errorf("%q: compared entities %v, want Anna Berg and Ivan Lee", q, ents)
		}
	}
}

func TestComparedSpan(t *testing.T) {
	for _, tc := range []struct{ question, span string }{
		{"Are Polina Guryeva and Evgeny Sadykov based in the same city?", "Polina Guryeva and Evgeny Sadykov"},
		{"Живут ли Тимур Валиев и Ксения Морозова в одном городе?", "Тимур Валиев и Ксения Морозова"},
		{"Is the Tern Bay Bank office bigger than «Гавань Плюс»?", "Tern Bay Bank office bigger than «Гавань Плюс»"},
		{"Which of Anna Berg and Ivan Lee speaks more languages?", "Which of Anna Berg and Ivan Lee"},
		{"Did Anna Berg join later than Ivan Lee.", "Anna Berg join later than Ivan Lee"},
		{"Who joined earlier, Anna Berg or Ivan Lee?", ", Anna Berg or Ivan Lee?"},
		// A preposition and a common noun before each name (a trial).
		{"Где урожай был выше: в хозяйстве «Ключи» или в хозяйстве «Рассвет»?", ": в хозяйстве «Ключи» или в хозяйстве «Рассвет»?"},
	} {
		start, end, ok := comparedSpan(tc.question)
		if got := tc.question[start:end]; !ok || got != tc.span {
			t.Errorf("comparedSpan(%q) = %q, %v; want %q", tc.question, got, ok, tc.span)
		}
	}
}

// Through Answer's reads: a compared thing's sentence may come from its own page, read as the
// caller may read it — a chunk of another group is never a candidate, and without it the
// comparison is not claimed.
func TestComparisonPagesACL(t *testing.T) {
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "people/anna-berg", Name: "Anna Berg", Type: "person", Aliases: []string{"Anna Berg"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "people/ivan-lee", Name: "Ivan Lee", Type: "person", Aliases: []string{"Ivan Lee"}}, "", nil)
	names := reg.Matcher()
	linked := []Linked{
		{Key: "people/anna-berg", Name: "Anna Berg", Type: "person", Surface: "Anna Berg", names: names},
		{Key: "people/ivan-lee", Name: "Ivan Lee", Type: "person", Surface: "Ivan Lee", names: names},
	}
	anna := ariadne.Chunk{ID: "people/anna-berg#0000-bbbbbbbb", DocID: "people/anna-berg", Title: "Anna Berg", ACL: []string{"all"},
		Text: "Anna Berg is a backend developer. She joined in 2018."}
	ivan := ariadne.Chunk{ID: "people/ivan-lee#0000-cccccccc", DocID: "people/ivan-lee", Title: "Ivan Lee", ACL: []string{"all"},
		Text: "Ivan Lee leads the data team."}
	ivanHR := ariadne.Chunk{ID: "people/ivan-lee#0001-dddddddd", DocID: "people/ivan-lee", Title: "Ivan Lee", ACL: []string{"hr"},
		Text: "He joined in 2021 on a fixed-term contract."}
	a := &Answerer{cfg: AnswerConfig{Chunks: memPages{memChunks{anna, ivan, ivanHR}}}}
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: anna}})
	question := "Who joined earlier, Anna Berg or Ivan Lee?"
	plan := func(groups []string) []string {
		req := Request{Question: question, Groups: groups}
		ents := comparedEntities(question, linked)
		pages, err := a.comparisonPages(context.Background(), req, ents, frags)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range planComparison(question, ents, append(append([]Fragment(nil), frags...), pages...), nil, "").units {
			out = append(out, u.frag.Chunk.ID+": "+u.quote)
		}
		return out
	}
	if got := plan([]string{"all"}); got != nil {
		t.Errorf("caller without hr: %q, want no comparison (Ivan Lee's year is in an hr chunk)", got)
	}
	got := plan([]string{"all", "hr"})
	want := []string{anna.ID + ": She joined in 2018.", ivanHR.ID + ": He joined in 2021 on a fixed-term contract."}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("caller with hr: %q, want %q", got, want)
	}
}

func TestStatesAmount(t *testing.T) {
	for _, tc := range []struct {
		unit string
		want bool
	}{
		{"Orbita Clinic is a chain of 12 dental clinics in Kazan and Samara.", true},
		{"ООО «Пекарня Заря» — сеть из 37 пекарен в Твери и Клину.", true},
		{"В команде 6 инженеров.", true},
		{"The budget is 1,5 million.", true},
		{"Our work is covered by contract AGR-2024-17.", false},
		{"Клиент «Янтарного моста» с 2022 года.", false},
		{"| Запуск | 01.06.2025 |", false},
		{"Приоритет инцидента — P2.", false},
		{"No numbers here.", false},
	} {
		if got := statesAmount(tc.unit); got != tc.want {
			t.Errorf("statesAmount(%q) = %v, want %v", tc.unit, got, tc.want)
		}
	}
}

// aboutOther: a quote from the page of another thing of the same type as one the question names,
// which does not name it, is about that other thing.
func TestAboutOther(t *testing.T) {
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "teams/data", Name: "Data team", Type: "team", Aliases: []string{"Data team", "Команда данных"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "teams/integrations", Name: "Integrations team", Type: "team", Aliases: []string{"Integrations team"}}, "", nil)
	names := reg.Matcher()
	linked := []Linked{{Key: "teams/data", Name: "Data team", Type: "team", Surface: "Команде данных", names: names}}
	chunk := func(id, docType, title, text string) Fragment {
		return Fragment{N: 1, Chunk: ariadne.Chunk{ID: id, DocID: ariadne.DocIDOfChunk(id), DocType: docType, Title: title, Text: text, ACL: []string{"all"}}}
	}
	other := chunk("teams/integrations#0000-aaaaaaaa", "team", "Команда интеграций", "В команде 6 инженеров.")
	own := chunk("teams/data#0000-bbbbbbbb", "team", "Команда данных", "The Data team runs Kafka.")
	policy := chunk("policies/on-call#0000-cccccccc", "policy", "On-call", "Every team has 2 engineers on call.")
	named := chunk("teams/integrations#0001-dddddddd", "team", "Команда интеграций", "Команда данных забрала у нас двух инженеров.")
	claim := func(f Fragment) ariadne.Claim {
		return ariadne.Claim{Text: f.Chunk.Text, Citations: []ariadne.Citation{{ChunkID: f.Chunk.ID, DocID: f.Chunk.DocID, Quote: f.Chunk.Text}}}
	}
	frags := []Fragment{other, own, policy, named}
	for _, tc := range []struct {
		name   string
		claims []ariadne.Claim
		want   bool
	}{
		{"another team's page", []ariadne.Claim{claim(other)}, true},
		{"its own page", []ariadne.Claim{claim(own)}, false},
		{"a page of another type", []ariadne.Claim{claim(policy)}, false},
		{"another team's page naming it", []ariadne.Claim{claim(named)}, false},
		{"one claim of several elsewhere", []ariadne.Claim{claim(other), claim(own)}, false},
	} {
		l, title, got := aboutOther(linked, tc.claims, frags, sameType)
		if got != tc.want || got && (l.Key != "teams/data" || title != "Команда интеграций") {
			t.Errorf("%s: %v (%s, %q), want %v", tc.name, got, l.Key, title, tc.want)
		}
	}
	// Two pages titled alike, both linked by the question's words (a management-only contract and
	// a public page that took its name): a quote from either is about the thing the name means.
	reg.Load(ariadne.Entity{Key: "contracts/ctr-2025-07", Name: "Договор CTR-2025-07", Type: "contract", Aliases: []string{"CTR-2025-07"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "contracts/public-ctr", Name: "Договор CTR-2025-07", Type: "contract", Aliases: []string{"CTR-2025-07"}}, "", nil)
	names = reg.Matcher()
	restricted := chunk("contracts/ctr-2025-07#0001-eeeeeeee", "contract", "Договор CTR-2025-07 — коммерческие условия",
		"Если доступность ниже 99,5%, «Кварц Системс» выплачивает штраф 2% от месячной стоимости.")
	both := []Linked{{Key: "contracts/public-ctr", Name: "Договор CTR-2025-07", Type: "contract", Surface: "договору CTR-2025-07", names: names},
		{Key: "contracts/ctr-2025-07", Name: "Договор CTR-2025-07", Type: "contract", Surface: "договору CTR-2025-07", names: names}}
	if l, _, got := aboutOther(both, []ariadne.Claim{claim(restricted)}, []Fragment{restricted}, sameType); got {
		t.Errorf("a quote from one of two pages the question's name means is refused as about another %s (%s)", l.Type, l.Key)
	}
	if _, _, got := aboutOther(both[:1], []ariadne.Claim{claim(restricted)}, []Fragment{restricted}, sameType); !got {
		t.Error("with only the public page linked, the restricted page's quote is about another contract (as before)")
	}
}

// sameType maps a document type to itself: the tests' pages use entity types as their types.
func sameType(t string) string { return t }

// TestAboutOtherByEntityType: pages are compared by the entity type their document type gives
// (the ontology's document_types): another warehouse's page — a type the ontology does not know,
// so a topic — is about another thing of the kind the question names (a fresh-clone check, stop
// 58: "How many loading docks does Kryazh have?" was answered by the other warehouse's page), as
// is a synonym's page ("employee" for a person).
func TestAboutOtherByEntityType(t *testing.T) {
	o, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "warehouses/north", Name: "North Hub", Type: "topic", Aliases: []string{"North Hub"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "people/anna", Name: "Anna Berg", Type: "person", Aliases: []string{"Anna Berg"}}, "", nil)
	names := reg.Matcher()
	page := func(id, docType, text string) Fragment {
		return Fragment{N: 1, Chunk: ariadne.Chunk{ID: id, DocID: ariadne.DocIDOfChunk(id), DocType: docType, Title: id, Text: text, ACL: []string{"all"}}}
	}
	claim := func(f Fragment) ariadne.Claim {
		return ariadne.Claim{Text: f.Chunk.Text, Citations: []ariadne.Citation{{ChunkID: f.Chunk.ID, DocID: f.Chunk.DocID, Quote: f.Chunk.Text}}}
	}
	for _, tc := range []struct {
		linked Linked
		frag   Fragment
	}{
		{Linked{Key: "warehouses/north", Name: "North Hub", Type: "topic", Surface: "North Hub", names: names},
			page("warehouses/south#0000-aaaaaaaa", "warehouse", "It has 24 loading docks.")},
		{Linked{Key: "people/anna", Name: "Anna Berg", Type: "person", Surface: "Anna Berg", names: names},
			page("people/ivan#0000-bbbbbbbb", "employee", "Phone: ext. 4417.")},
	} {
		if _, _, got := aboutOther([]Linked{tc.linked}, []ariadne.Claim{claim(tc.frag)}, []Fragment{tc.frag}, o.EntityTypeOfDocument); !got {
			t.Errorf("%s's quote for a question about %s: not about another %s", tc.frag.Chunk.DocID, tc.linked.Name, tc.linked.Type)
		}
		if _, _, got := aboutOther([]Linked{tc.linked}, []ariadne.Claim{claim(tc.frag)}, []Fragment{tc.frag}, sameType); got {
			t.Errorf("by the raw document type (%s), %s's quote counted as another %s's", tc.frag.Chunk.DocType, tc.frag.Chunk.DocID, tc.linked.Type)
		}
	}
}

func TestDateValue(t *testing.T) {
	for _, tc := range []struct {
		s, want string
		ok      bool
	}{
		{"12 февраля 2025 года сервис заказов «Зари» не принимал заказы.", "2025-02-12", true},
		{"On 1 March 2025 the booking API answered with errors.", "2025-03-01", true},
		{"The pilot started on March 4, 2024.", "2024-03-04", true},
		{"| Запуск | 01.06.2025 |", "2025-06-01", true},
		{"Release 2024-11-05 fixed it.", "2024-11-05", true},
		{"В «Белой сове» с 2017 года.", "2017", true},
		{"On 1 March 2025, a year after the 2024 pilot.", "2025-03-01", true}, // a full date wins over a bare year
		{"From 2019 to 2021 she led the team.", "", false},
		{"Between 1 March 2025 and 4 April 2025.", "", false},
		{"No dates here, only 37 bakeries.", "", false},
	} {
		got, ok := dateValue(tc.s)
		if got != tc.want || ok != tc.ok {
			t.Errorf("dateValue(%q) = %q, %v; want %q, %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCompareDates(t *testing.T) {
	items := func(vs ...string) []ComparedItem {
		var out []ComparedItem
		for i, v := range vs {
			out = append(out, ComparedItem{Entity: string(rune('A' + i)), Value: v})
		}
		return out
	}
	for _, tc := range []struct {
		question string
		items    []ComparedItem
		want     string // "entity/by"; "" for none
	}{
		{"Какой инцидент случился раньше: A или B?", items("2025-02-12", "2025-03-01"), "A/earliest date"},
		{"Who joined later, A or B?", items("2017", "2020"), "B/latest date"},
		{"Who is older, A or B?", items("1990-05-01", "1987"), "B/earliest date"},
		{"Кто моложе: A или B?", items("1990", "1987"), "A/latest date"},
		{"Who joined earlier, A or B?", items("2025", "2025-03-01"), ""}, // a tie at the shared precision
		{"Who joined earlier, A or B?", items("2017", ""), ""},           // one value missing
		{"Which lasted longer, A or B?", items("2017", "2020"), ""},      // a duration: not ordered
		{"Who has more engineers, A or B?", items("2017", "2020"), ""},
		// Whether they share a day, a month or a year: no entity, the answer in By.
		{"A и B случились в один день?", items("2025-02-12", "2025-03-01"), "/different days"},
		{"A и B случились в один и тот же день?", items("2025-03-01", "2025-03-01"), "/same day"},
		{"Did A and B happen in the same month?", items("2025-03-01", "2025-03-30"), "/same month"},
		{"Did A and B start in the same year?", items("2024-12-30", "2025-01-02"), "/different years"},
		{"Were A and B founded in one year?", items("2019", "2019-06-01"), "/same year"},
		{"A и B начались в одном году?", items("2019", "2020"), "/different years"},
		{"Did A and B happen on the same day?", items("2025-03-01", "2025"), ""}, // a year says nothing of a day
		{"Did A and B happen on the same day?", items("2025-03-01", ""), ""},
	} {
		got := ""
		if o := compareDates(tc.question, tc.items); o != nil {
			got = o.Entity + "/" + o.By
		}
		if got != tc.want {
			t.Errorf("%q %v: %q, want %q", tc.question, tc.items, got, tc.want)
		}
	}
}
