package agent

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/lexicontest"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// testLexicon is a small English–Russian dictionary of invented entries.
func testLexicon(t *testing.T) *lexicon.Lexicon {
	t.Helper()
	return lexicontest.New(t,
		lexicontest.Entry{Head: "lighthouse", Body: "lighthouse\n   [↗laɪthaʊs] _n. маяк"},
		lexicontest.Entry{Head: "keeper", Body: "keeper\n   [↗ki:pɜ] _n.\n   1) хранитель, смотритель\n   2) сторож"},
		lexicontest.Entry{Head: "built", Body: "built\n   _p. и _p-p. от build"},
		lexicontest.Entry{Head: "build", Body: "build\n   [bɪld] _v.\n   1) строить, сооружать\n   2) создавать"},
		lexicontest.Entry{Head: "harbour", Body: "harbour\n   [↗hɑ:bɜ] _n. гавань, порт"},
		lexicontest.Entry{Head: "year", Body: "year\n   [jɜ:] _n. год"},
		lexicontest.Entry{Head: "allow", Body: "allow\n   [əˈlaʊ] _v. разрешать, позволять"},
	)
}

// The letters of a code are no dictionary word: INC-2207's "INC" reads as "ink", whose
// translations matched a sentence about founders' names ("Mets" ~ «метить»); with a code, no
// translation of its parts is looked up, while an ordinary word still is.
func TestCodePartsAreNotTranslated(t *testing.T) {
	lex := lexicontest.New(t, lexicontest.Entry{Head: "ink", Body: "ink\n   [ɪŋk] _n. чернила\n   _v. метить"})
	if got := analyzeQuestion("What caused INC-2207?", lex).stated("The founders are Irja Mets and Oswin Hale."); len(got) != 0 {
		t.Errorf("a sentence of names states %v", got)
	}
	if got := analyzeQuestion("Where is the ink?", lex).stated("Чернила закончились."); !got["ink"] {
		t.Errorf("the word ink is no longer translated: %v", got)
	}
	if got := codeSpans("Is (INC-2207), v1.2.3 or sv-tokenguard?"); !slices.Equal(got, [][2]int{{4, 12}, {15, 21}}) {
		t.Errorf("codeSpans = %v, want INC-2207 and v1.2.3", got)
	}
}

func TestAgentVerb(t *testing.T) {
	for key, want := range map[string]string{"leader": "lead", "keeper": "keep", "owner": "own", "user": "", "lead": "", "manag": ""} {
		if got := agentVerb(key); got != want {
			t.Errorf("agentVerb(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestQuestionTermsAcrossLanguages(t *testing.T) {
	lex := testLexicon(t)
	tests := []struct {
		question, text string
		lex            *lexicon.Lexicon
		want           []string // question terms the text states
	}{
		// same language: as before, with or without the lexicon
		{"Кто смотритель маяка?", "Смотритель маяка живёт в гавани.", nil, []string{"maiak", "smotritel"}},
		// a Russian question over an English sentence: only with the lexicon
		{"Кто смотритель маяка?", "The lighthouse keeper lives by the harbour.", nil, nil},
		{"Кто смотритель маяка?", "The lighthouse keeper lives by the harbour.", lex, []string{"maiak", "smotritel"}},
		// an English question over a Russian sentence; "built" has no translation of its own, "year" does
		{"What year was the lighthouse built?", "Маяк построили в 1887 году.", lex, []string{"iear", "lighthouse"}},
		// loanwords the dictionary lacks: cognates across scripts, both ways, only with the lexicon
		{"В каком офисе сидит менеджер?", "Office: Kazan. The manager is away.", lex, []string{"menedzher", "ofis"}},
		{"В каком офисе сидит менеджер?", "Office: Kazan. The manager is away.", nil, nil},
		{"Which office does the manager use?", "Менеджер сидит в офисе на втором этаже.", lex, []string{"manager", "ofise"}},
		// the dictionary read back: «разрешено» is no key of the Russian → English direction (the
		// dictionary gives «разрешать»), but "allowed"'s translations hold an inflection of it
		{"Разрешено ли ночевать на маяке?", "Staying overnight at the lighthouse is allowed.", lex, []string{"maiak", "razresh"}},
		{"Разрешено ли ночевать на маяке?", "Staying overnight at the lighthouse is allowed.", nil, nil},
		// a translation that is an agent noun ("keeper") is stated by its verb
		{"Кто смотритель маяка?", "Two brothers keep the lighthouse.", lex, []string{"maiak", "smotritel"}},
	}
	for _, tc := range tests {
		q := newQuestionTerms(tc.question, tc.lex, testScope)
		var got []string
		for term := range q.stated(tc.text) {
			got = append(got, term)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q over %q (lexicon %v): stated %q, want %q (terms %q)", tc.question, tc.text, tc.lex != nil, got, tc.want, q.terms)
		}
	}
}

// A linked entity's other names state the question's words for it: «ТернБей» in the question,
// "Tern Bay Bank" in the text, one entity for the resolver's matcher.
func TestQuestionTermsLinkedEntities(t *testing.T) {
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "client:tern-bay", Name: "Tern Bay Bank", Type: "client", Aliases: []string{"Tern Bay Bank", "ТернБей"}}, "", nil)
	reg.Load(ariadne.Entity{Key: "client:gull-rock", Name: "Gull Rock", Type: "client", Aliases: []string{"Gull Rock"}}, "", nil)
	names := reg.Matcher()
	question := "Сколько отделений у ТернБей?"
	linked := []Linked{{Key: "client:tern-bay", Name: "Tern Bay Bank", Surface: "ТернБей", names: names}}
	for _, tc := range []struct {
		name   string
		linked []Linked
		text   string
		want   []string
	}{
		{"alias in the other script", linked, "Tern Bay Bank has twelve offices.", []string{"ternb"}},
		{"another entity", linked, "Gull Rock has twelve offices.", nil},
		{"not linked", nil, "Tern Bay Bank has twelve offices.", nil},
		{"linked without a matcher", []Linked{{Key: "client:tern-bay", Surface: "ТернБей"}}, "Tern Bay Bank has twelve offices.", nil},
	} {
		q := newQuestionTerms(question, nil, testScope).withLinked(tc.linked)
		var got []string
		for term := range q.stated(tc.text) {
			got = append(got, term)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: stated %q, want %q (terms %q)", tc.name, got, tc.want, q.terms)
		}
	}
}

// The other-script bars: a best unit in the other script than the question is held to BestCross
// and UnionCross on simple and hybrid routes, one in the question's script to Best and Union, and
// a multi_hop answer to the multi-hop bars.
func TestChooseCrossScriptBars(t *testing.T) {
	idf := map[string]float64{"a": 1, "b": 1, "c": 1, "d": 1}
	unit := func(cross bool, covered map[string]float64) termUnit {
		var cov float64
		for _, w := range covered {
			cov += w / 4
		}
		return termUnit{frag: Fragment{N: 1, Chunk: ariadne.Chunk{ID: "d#0", DocID: "d"}}, text: "x", score: cov, cover: cov, covered: covered, cross: cross}
	}
	bars := TermBars{Best: 0.3, Union: 0.45, Gain: 0.04, BestMultiHop: 0.05, UnionMultiHop: 0.3, BestCross: 0.05, UnionCross: 0.2}
	noCross := bars
	noCross.BestCross, noCross.UnionCross = 0, 0
	for _, tc := range []struct {
		name  string
		u     termUnit
		bars  TermBars
		route ariadne.Route
		want  bool // answered
	}{
		{"other script, a quarter covered", unit(true, map[string]float64{"a": 1}), bars, ariadne.RouteSimple, true},
		{"other script, no cross bars", unit(true, map[string]float64{"a": 1}), noCross, ariadne.RouteSimple, false},
		{"same script, a quarter covered", unit(false, map[string]float64{"a": 1}), bars, ariadne.RouteHybrid, false},
		{"same script, half covered", unit(false, map[string]float64{"a": 1, "b": 1}), bars, ariadne.RouteHybrid, true},
		{"other script, below the union bar", unit(true, map[string]float64{"a": 0.5}), bars, ariadne.RouteSimple, false},
		{"multi_hop keeps its bars", unit(true, map[string]float64{"a": 1}), bars, ariadne.RouteMultiHop, false},
	} {
		c := termCandidates{units: []termUnit{tc.u}, idf: idf, total: 4}
		if got := len(c.choose(tc.bars, 4, tc.route)) > 0; got != tc.want {
			t.Errorf("%s: answered %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A Russian question whose only answer is an English sentence: the term-coverage generator refuses
// it without a lexicon and quotes the sentence with one.
func TestTermExtractiveAcrossLanguages(t *testing.T) {
	frags := Fragments([]ariadne.ScoredChunk{
		{Chunk: ariadne.Chunk{ID: "notes/harbour#0", DocID: "notes/harbour", Title: "Harbour notes", Text: "The harbour opens at six. Boats pay a fee."}},
		{Chunk: ariadne.Chunk{ID: "notes/light#0", DocID: "notes/light", Title: "North light", Text: "The lighthouse keeper is Ada Morn. She lives in the old tower."}},
	})
	q := "Кто смотритель маяка?"
	for _, tc := range []struct {
		lex  *lexicon.Lexicon
		want string // quoted sentence, "" for not found
	}{{nil, ""}, {testLexicon(t), "The lighthouse keeper is Ada Morn."}} {
		raw, err := TermExtractive{Lexicon: tc.lex}.Generate(context.Background(), GenerationInput{Question: q, Fragments: frags, Route: ariadne.RouteSimple})
		if err != nil {
			t.Fatal(err)
		}
		out, err := ParseOutput(raw)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if !out.NotFound {
			got = out.Claims[0].Citations[0].Quote
		}
		if got != tc.want {
			t.Errorf("lexicon %v: first quote %q, want %q (%s)", tc.lex != nil, got, tc.want, raw)
		}
	}
}

// The LLM prompt's unit ranking: with the lexicon, an English sentence that answers a Russian
// question ranks first and so reaches the prompt.
func TestLexicalUnitRankerAcrossLanguages(t *testing.T) {
	frags := Fragments([]ariadne.ScoredChunk{
		{Chunk: ariadne.Chunk{ID: "notes/harbour#0", DocID: "notes/harbour", Title: "Harbour notes", Text: "Boats pay a fee at the pier."}},
		{Chunk: ariadne.Chunk{ID: "notes/light#0", DocID: "notes/light", Title: "North light", Text: "The lighthouse keeper lives in the old tower."}},
	})
	units := SplitFragments(frags)
	q := "Где живёт смотритель маяка?"
	for _, tc := range []struct {
		lex  *lexicon.Lexicon
		best bool // the keeper's sentence scores above the other
	}{{nil, false}, {testLexicon(t), true}} {
		scores, err := LexicalUnitRanker(tc.lex)(context.Background(), q, units)
		if err != nil {
			t.Fatal(err)
		}
		if got := scores[1] > scores[0]; got != tc.best {
			t.Errorf("lexicon %v: scores %v", tc.lex != nil, scores)
		}
	}
}

func TestInflectionOf(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"svetlova", "svetlov", true},      // "Svetlova" and the stem of «Светловой»
		{"managers", "manager", true},      // an English plural
		{"manager", "managers", true},      // either order
		{"manager", "manager", false},      // equal terms match directly, not here
		{"form", "forms", false},           // too short to tell
		{"kazan", "kazanskaia", false},     // a different word
		{"office", "officer", true},        // the rule's cost: one letter apart
		{"svetlov", "sokolovsk", false},    // not a prefix
		{"superkubok", "superkubk", true},  // «Суперкубок» and «Суперкубка»: a fleeting vowel
		{"blokirovk", "blokirovok", true},  // «блокировки» and «блокировок»
		{"vladelets", "vladelts", true},    // «владелец» and «владельца»
		{"vladelets", "vladeltsam", true},  // and «владельцам»
		{"zashchitnik", "zashchit", false}, // «защитник» and «защита»: another word
		{"srok", "srk", false},             // too short to tell
		{"podtverd", "podtverzhda", true},  // «подтвердить» and «подтверждать»: д / жд
		{"otvecha", "otvet", true},         // «отвечать» and «ответить»: т / ч
		{"ustanovlen", "ustanov", true},    // «установлен» and «установить»: в / вл
		{"nachal", "natal", false},         // an alternation only at the stem's end
	} {
		if got := inflectionOf(tc.a, tc.b); got != tc.want {
			t.Errorf("inflectionOf(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestDerivationOf: one root with another derivational suffix, which Snowball stems apart.
func TestDerivationOf(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"klasifitsir", "klasifikats", true},       // «классифицирует» and «классификация»
		{"marshrutizats", "marshrutizir", true},    // «маршрутизация» and «маршрутизируются»
		{"prestupn", "prestuplen", true},           // «преступность» and «преступление»
		{"afroamerikants", "afroamerikansk", true}, // «афроамериканцы» and «афроамериканский»
		{"zashchitnik", "zashchit", true},          // «защитник» and «защита»: the rule's cost, a related word
		{"sputnik", "sputnits", false},             // «спутник» and «спутница»: six letters only
		{"sepsis", "septichesk", false},            // «сепсис» and «септический»: three
		{"predstavitel", "predsta", true},          // seven of seven: «представитель» and «представление»'s stem
		{"kompensats", "kom", false},               // too short
	} {
		if got := derivationOf(tc.a, tc.b); got != tc.want {
			t.Errorf("derivationOf(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestStatedDerivation: a Russian question word is stated by a word of its root with another
// suffix, with or without a lexicon; an English one is not (its words are not stemmed).
func TestStatedDerivation(t *testing.T) {
	q := newQuestionTerms("На основе какого признака классифицирует задачи теория?", nil, testScope)
	got := q.stated("Теория сложности проводит классификацию задач по признаку трудности.")
	for _, term := range []string{"klasifitsir", "priznak", "zadach", "teor"} {
		if !got[term] {
			t.Errorf("term %q not stated (stated: %v; question terms %v)", term, got, q.terms)
		}
	}
	en := newQuestionTerms("Which university did she attend?", nil, testScope)
	if got := en.stated("The universe is old."); got["university"] {
		t.Errorf("an English word matched by its first letters: %v", got)
	}
}

// TestHasKindDate: what answers "when" — dates, years, times of day and weekdays, not any number.
func TestHasKindDate(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Договор подписан 12.03.2024.", true},
		{"The office opened in 2019.", true},
		{"Отчёт сдаётся до 5 апреля.", true},
		{"Releases go out on Tuesdays between 21:00 and 23:00.", true},
		{"Релизы выходят по вторникам.", true},
		{"Планёрка проходит в среду утром.", true},
		{"Тестовая среда обновляется автоматически.", false}, // «среда» as an environment
		{"The limit is 45 000 roubles.", false},
		{"Scale 1:250 000 maps.", false},
	} {
		if got := hasKind(tc.text, "date"); got != tc.want {
			t.Errorf("hasKind(%q, date) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestTermExtractiveWhenAndWho: a question asking "when" and "who" of one document gets the
// sentence with the time (a weekday and hours, no date) even when the sentence with the name
// covers more of its terms and is chosen first.
func TestTermExtractiveWhenAndWho(t *testing.T) {
	c := firstChunk
	frags := Fragments([]ariadne.ScoredChunk{
		{Chunk: c("runbooks/release", "Release checklist", "Releases go out on Tuesdays between 21:00 and 23:00, after the shops close. The rollback plan for portal releases must be approved by Anna Berg.")},
		{Chunk: c("projects/portal", "Portal", "The portal lets customers order spare parts online.")},
	})
	q := "When do portal releases go out, and who approves the rollback plan?"
	raw, err := TermExtractive{}.Generate(context.Background(), GenerationInput{Question: q, Fragments: frags, Route: ariadne.RouteSimple})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseOutput(raw)
	if err != nil || out.NotFound {
		t.Fatalf("%v %s", err, raw)
	}
	var quotes []string
	for _, cl := range out.Claims {
		quotes = append(quotes, cl.Citations[0].Quote)
	}
	if !slices.ContainsFunc(quotes, func(s string) bool { return strings.Contains(s, "Tuesdays between 21:00 and 23:00") }) ||
		!slices.ContainsFunc(quotes, func(s string) bool { return strings.Contains(s, "Anna Berg") }) {
		t.Errorf("quotes %q, want the time and the approver", quotes)
	}
}

// BenchmarkQuestionTermsStated measures term coverage of a Russian paragraph for a Russian
// question with the lexicon on (the extractive path's inner loop: once per unit per question).
func BenchmarkQuestionTermsStated(b *testing.B) {
	b.Run("lexicon", func(b *testing.B) { benchmarkStated(b, testLexicon(&testing.T{})) })
	// With a thesaurus that knows synonyms of three of the question's words, none in the text.
	th, err := lexicon.ReadThesaurus("bench", strings.NewReader("офис\tконтора\tбюро\nсидеть\tнаходиться\tпребывать\nзаместитель\tпомощник\tдублёр\tсменщик\n"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("lexicon+thesaurus", func(b *testing.B) { benchmarkStated(b, testLexicon(&testing.T{}).WithThesaurus(th)) })
}

func benchmarkStated(b *testing.B, lex *lexicon.Lexicon) {
	q := newQuestionTerms("В каком офисе сидит аккаунт-менеджер клиента и кто его заместитель?", lex, testScope)
	text := "Аккаунт-менеджер от «Белой совы» — Ксения Морозова; она же ведёт ежеквартальные встречи по качеству сервиса. " +
		"Клиент работает с нами с 2019 года, договор продлевается ежегодно, отчёты уходят каждый второй четверг (Sales wiki)."
	b.ReportAllocs()
	for b.Loop() {
		q.stated(text)
	}
}

// extractive-v1 says what it decided from: the best unit's cover and the union's against their
// bars, the question terms no chosen unit states, and why it refused.
func TestTermExtractiveDecision(t *testing.T) {
	frags := Fragments([]ariadne.ScoredChunk{
		{Chunk: ariadne.Chunk{ID: "notes/light#0", DocID: "notes/light", Title: "North light", Text: "The lighthouse keeper is Ada Morn. She lives in the old tower."}},
		{Chunk: ariadne.Chunk{ID: "notes/harbour#0", DocID: "notes/harbour", Title: "Port", Text: "The harbour opens at six."}},
	})
	// IDF over the two fragments: log(1 + 3/(df+1)).
	once, never := math.Log(1+3.0/2), math.Log(1+3.0/1)
	for _, tc := range []struct {
		question string
		want     EvidenceDecision
	}{
		{"Who is the lighthouse keeper?", EvidenceDecision{ChunkID: "notes/light#0", Unit: "The lighthouse keeper is Ada Morn.",
			UnitScore: 1, UnitThreshold: 0.3, Value: 1, Threshold: 0.4, Answered: true}},
		{"When did the harbour master retire from the navy?", EvidenceDecision{ChunkID: "notes/harbour#0", Unit: "The harbour opens at six.",
			UnitScore: once / (once + 3*never), UnitThreshold: 0.3, Value: once / (once + 3*never), Threshold: 0.4,
			Missing: []string{"master", "navi", "retire"}, Reason: "the best sentence states too little of the question"}},
		{"What does ERR-7713 mean for the harbour?", EvidenceDecision{Reason: "the code ERR-7713 is in no fragment"}},
	} {
		var got EvidenceDecision
		raw, err := TermExtractive{}.Generate(context.Background(), GenerationInput{Question: tc.question, Fragments: frags, Route: ariadne.RouteSimple, Decision: &got})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.UnitScore-tc.want.UnitScore) < 1e-9 && math.Abs(got.Value-tc.want.Value) < 1e-9 {
			got.UnitScore, got.Value = tc.want.UnitScore, tc.want.Value
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: decision\n%+v, want\n%+v (%s)", tc.question, got, tc.want, raw)
		}
	}
}

// A Russian question word is stated by its synonyms when the lexicon has a thesaurus.
func TestStatedSynonym(t *testing.T) {
	th, err := lexicon.ReadThesaurus("test", strings.NewReader("использовать\tприменять\tупотреблять\n"))
	if err != nil {
		t.Fatal(err)
	}
	question, text := "Какие методы применяют аналитики?", "Аналитики могут использовать три метода."
	for _, tc := range []struct {
		name string
		lex  *lexicon.Lexicon
		want bool
	}{
		{"no lexicon", nil, false},
		{"lexicon without a thesaurus", testLexicon(t), false},
		{"lexicon with a thesaurus", testLexicon(t).WithThesaurus(th), true},
	} {
		q := newQuestionTerms(question, tc.lex, testScope)
		verb := textnorm.SearchTerms("применяют")[0]
		if got := q.stated(text)[verb]; got != tc.want {
			t.Errorf("%s: «применяют» stated %v, want %v (terms %q)", tc.name, got, tc.want, q.terms)
		}
	}
}

// A hyphenated compound of words counts as its words, so a text that writes them apart or in the
// other language states it; a code with a digit keeps its joined term (terms are phonetic Latin:
// "inc" is "ink").
func TestQuestionTermsCompounds(t *testing.T) {
	lex := testLexicon(t)
	tests := []struct {
		question, text string
		wantTerms      []string
		wantStated     []string
	}{
		{"Кто аккаунт-менеджер клиента?", "Account manager on our side: Ksenia Morozova.", []string{"akaunt", "klient", "menedzher"}, []string{"akaunt", "menedzher"}},
		{"Кто аккаунт-менеджер клиента?", "Аккаунт-менеджер клиента в отпуске.", []string{"akaunt", "klient", "menedzher"}, []string{"akaunt", "klient", "menedzher"}},
		{"Where is the online-store team?", "The online store team sits in Kazan.", []string{"online", "store", "team"}, []string{"online", "store", "team"}},
		// codes: the parts stated apart are not the code
		{"What broke in INC-845?", "INC-812 affected 845 users.", []string{"845", "broke", "ink", "ink845"}, []string{"845", "ink"}},
		// a code of letters only counts as its words too
		{"Who runs svc-ledger?", "The ledger service is run by the SVC team.", []string{"ledger", "runs", "svk"}, []string{"ledger", "svk"}},
	}
	for _, tc := range tests {
		q := newQuestionTerms(tc.question, lex, testScope)
		if got := slices.Sorted(slices.Values(q.terms)); !slices.Equal(got, tc.wantTerms) {
			t.Errorf("%q: terms %q, want %q", tc.question, got, tc.wantTerms)
		}
		var got []string
		for term := range q.stated(tc.text) {
			got = append(got, term)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.wantStated) {
			t.Errorf("%q over %q: stated %q, want %q", tc.question, tc.text, got, tc.wantStated)
		}
	}
}

// TestQuestionFrameTerms: the verbs that frame a question (asking for a name, a time, a place)
// are no terms the answer must state; the rest are.
func TestQuestionFrameTerms(t *testing.T) {
	for _, tc := range []struct {
		question string
		want     []string
	}{
		{"When did INC-2057 happen?", []string{"2057", "ink", "ink2057"}},
		{"Когда произошёл INC-2057?", []string{"2057", "ink", "ink2057"}},
		{"Когда случился сбой?", []string{"sbo"}},
		{"В каком городе находится Бореал Агро?", []string{"agr", "borea", "gorod"}},
		{"Where is the warehouse located?", []string{"varehouse"}},
		{"Как называется библиотека?", []string{"bibliotek"}},
		{"Какой страховой случай оплачивается?", []string{"oplachiva", "slucha", "strahov"}}, // «случай» is a term
	} {
		if got := newQuestionTerms(tc.question, nil, testScope).terms; !slices.Equal(got, tc.want) {
			t.Errorf("%q: terms %q, want %q", tc.question, got, tc.want)
		}
	}
}

// A question's analysis is kept between stages: the cached one equals a fresh one, per lexicon,
// and a copy a stage modifies (withLinked, memoized) leaves the kept one as it was.
func TestQuestionTermsCached(t *testing.T) {
	lex := testLexicon(t)
	const question = "Who built the lighthouse of Harbour Vale?"
	first := newQuestionTerms(question, lex, testScope)
	if !questionTermsCache.Contains(questionKey{question, lex, testScope}) {
		t.Fatal("the analysis is not kept")
	}
	fresh := analyzeQuestion(question, lex)
	fresh.scope = testScope
	if !reflect.DeepEqual(first, fresh) {
		t.Fatalf("cached analysis %+v differs from a fresh one", first)
	}
	if got := newQuestionTerms(question, nil, testScope); got.lex != nil || len(got.tr) != 0 {
		t.Errorf("without a lexicon: %+v, want no translations", got)
	}
	reg := resolution.NewRegistry(nil)
	reg.Load(ariadne.Entity{Key: "place:harbour vale", Name: "Harbour Vale", Type: "place"}, "", nil)
	linked := first.withLinked([]Linked{{Key: "place:harbour vale", Surface: "Harbour Vale", names: reg.Matcher()}}).memoized()
	if len(linked.ents) != 1 || linked.memo == nil {
		t.Fatalf("withLinked: ents %v memo %v, want the place and a memo", linked.ents, linked.memo)
	}
	if again := newQuestionTerms(question, lex, testScope); len(again.ents) != 0 || again.memo != nil || !reflect.DeepEqual(again, first) {
		t.Errorf("the kept analysis changed: %+v", again)
	}
}

// BenchmarkQuestionTerms: a question's analysis with the installed dictionary, fresh and kept.
func BenchmarkQuestionTerms(b *testing.B) {
	lex, err := lexicon.Load("../.ariadne/lexicon/mueller7")
	if err != nil {
		b.Skipf("no lexicon (deploy/local.sh install lexicon): %v", err)
	}
	for _, question := range []string{"Who stands in during vacations for the engineer who reloaded the missing readings?", "Кто замещает на время отпуска инженера, который перезагрузил пропущенные показания?"} {
		b.Run(fmt.Sprintf("fresh/%.2s", question), func(b *testing.B) {
			for range b.N {
				analyzeQuestion(question, lex)
			}
		})
		b.Run(fmt.Sprintf("kept/%.2s", question), func(b *testing.B) {
			for range b.N {
				newQuestionTerms(question, lex, testScope)
			}
		})
	}
}

// An acronym of the question is stated by a text that spells it out in words ("chief executive
// officer" for CEO; outside tester, stop 58: "Who is the CEO of …?" was refused over the page
// that wrote it out), not by words with other initials, a two-letter acronym's lookalikes, or an
// acronym inside a code.
func TestStatedAcronym(t *testing.T) {
	for _, tc := range []struct {
		question, word, text string
		want                 bool
	}{
		{"Who is the CEO of Northwind?", "CEO", "Irina Levchenko is the chief executive officer of Northwind.", true},
		{"Who is the CEO of Northwind?", "CEO", "Irina Levchenko is the chief financial officer of Northwind.", false},
		{"When does the NDA with Polar expire?", "NDA", "The non-disclosure agreement with Polar runs until 2027.", true},
		{"Кто подписал СДА?", "СДА", "Соглашение о доставке подписал Орлов; срочный договор аренды — Петрова.", true},
		{"Who leads HR?", "HR", "Helen Reyes leads the team.", false},
		{"What did INC-2041 break?", "INC", "It impacted nine customers.", false},
	} {
		t.Run(tc.word, func(t *testing.T) {
			q := newQuestionTerms(tc.question, nil, testScope)
			ts := textnorm.SearchTerms(tc.word)
			if len(ts) == 0 {
				t.Fatalf("%q gives no term", tc.word)
			}
			if got := q.stated(tc.text)[ts[len(ts)-1]]; got != tc.want {
				t.Errorf("%q in %q: stated %v, want %v", tc.word, tc.text, got, tc.want)
			}
		})
	}
}
