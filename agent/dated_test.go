package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/internal/lexicontest"
)

func TestEventTerms(t *testing.T) {
	for _, tc := range []struct {
		question string
		linked   []Linked
		want     string // the event terms joined by spaces, sorted; "" for none
	}{
		{"When was Helix Cable Systems founded?", nil, "founded"},
		{"Когда родилась Ольга Ветрова?", nil, "rod"},
		{"When did Kseniya Melnikova get her A320neo type rating?", nil, "rating tipe"},
		{"When did Rustam Khairullin become head of the rheumatology department?", nil, "department head rheumatologi"},
		{"When did INC-2057 happen?", nil, ""},                   // a code and a frame verb
		{"In what year did the Senior CRA start?", nil, "start"}, // an acronym and a capitalized word are names
		{"Когда был открыт центр 07?", nil, "otkr tsentr"},       // a number is no event
		{"when was the office opened?", []Linked{{Surface: "office"}}, "opened"},
		{"Who leads the team?", nil, ""}, // asks no time
	} {
		got := ""
		if q := eventTerms(tc.question, tc.linked, nil, ""); q != nil {
			got = strings.Join(slices.Sorted(slices.Values(q.terms)), " ")
		}
		if got != tc.want {
			t.Errorf("eventTerms(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

func TestDatedPredicate(t *testing.T) {
	for _, tc := range []struct{ question, want string }{
		{"В каком году был распущен оркестр?", "raspushch"},
		{"Когда была основана компания?", "osnova"},
		{"Когда было принято решение?", "priniat"},
		{"До какой даты нужно было устранить уязвимость?", ""}, // an infinitive
		{"Когда он был директором?", ""},                       // a noun
		{"When was the fire claim paid in full?", "paid"},
		{"When was the orchestra disbanded?", "disbanded"},
		{"When was Olga Vetrova born?", "born"},
		{"When did the orchestra move to the new hall?", ""}, // no marked predicate
	} {
		if got := strings.Join(datedPredicate(tc.question), " "); got != tc.want {
			t.Errorf("datedPredicate(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

// The passive predicate alone decides a quote in the question's language; a quote in the other
// language is judged on every event term.
func TestDatesOfOtherPredicate(t *testing.T) {
	lex := lexicontest.New(t, lexicontest.Entry{Head: "orchestra", Body: "orchestra\n   _n. оркестр"})
	other := datesOfOther("В каком году был распущен оркестр?", nil, lex, "")
	for _, tc := range []struct {
		quote string
		want  bool
	}{
		{"Лебедев — главный дирижёр оркестра с 2012 года.", true}, // the orchestra, not its disbanding
		{"Оркестр был распущен в 2019 году.", false},
		{"Lebedev has led the orchestra since 2012.", false}, // English: judged on every event term, and «распущен» has no translation here
	} {
		if got := other(tc.quote); got != tc.want {
			t.Errorf("%q: dates another event %v, want %v", tc.quote, got, tc.want)
		}
	}
}

func TestDatesOnlyOther(t *testing.T) {
	lex := lexicontest.New(t,
		lexicontest.Entry{Head: "found", Body: "found\n   _v. основывать, основать, учреждать"},
		lexicontest.Entry{Head: "rating", Body: "rating\n   _n. рейтинг; квалификация"},
		lexicontest.Entry{Head: "visit", Body: "visit\n   _n. визит, посещение\n   _v. посещать"},
		lexicontest.Entry{Head: "appoint", Body: "appoint\n   _v. назначать"},
		lexicontest.Entry{Head: "join", Body: "join\n   _v. вступить, присоединиться"},
	)
	for _, tc := range []struct {
		question, quote string
		want            bool
	}{
		// The date is of another event.
		{"When was Helix Cable Systems founded?", "The cable was supplied and installed by Helix Cable Systems in 2014.", true},
		{"Когда родилась Ольга Ветрова?", "Ольга Ветрова — заведующая отделением лучевой диагностики с 2019 года.", true},
		{"When was Helix Cable Systems founded?", "Кабель поставила Helix Cable Systems в 2014 году.", true},
		// The event is stated, in either language and in another form of the word.
		{"When was Helix Cable Systems founded?", "Helix Cable Systems was founded in Aberdeen in 1998.", false},
		{"When was Helix Cable Systems founded?", "Компания Helix Cable Systems основана в 1998 году.", false},
		{"Когда Ханна Линдквист посетила Тарту?", "Hanna Lindqvist visited Tartu on 21 May 2025.", false},
		{"When did Ingrid Holmsen visit Perm?", "I can confirm my visit to Perm from 10 to 21 March 2025.", false},
		// A translation that shares its stem with a word of the quote («назначать», «назначен»).
		{"When was Dmitry Orlov appointed?", "Дмитрий Орлов назначен старшим монитором с 1 декабря 2025 года.", false},
		{"When was Dmitry Orlov appointed?", "Дмитрий Орлов работает в компании с 2019 года.", true},
		// A word of the question's language that shares a translation with the event's word.
		{"Когда Дания вступила в ЕС?", "Дания присоединилась к ЕС в 1973 году.", false},
		{"Когда Дания вступила в ЕС?", "Дания подписала договор с ЕС в 1972 году.", true},
		// Not judged: no time in the quote, or another language's words the lexicon cannot read.
		{"When was Helix Cable Systems founded?", "Helix Cable Systems supplied the cable.", false},
		{"Когда открыт офис в Казани?", "The Kazan office opened in March 2021.", false}, // «открыт» has no translation here
	} {
		event := eventTerms(tc.question, nil, lex, "")
		if event == nil {
			t.Fatalf("eventTerms(%q) = nil", tc.question)
		}
		if got := datesOnlyOther(tc.quote, *event, cyrillicShare(tc.question) > 0.5); got != tc.want {
			t.Errorf("datesOnlyOther(%q, %q) = %v, want %v (terms %v)", tc.question, tc.quote, got, tc.want, event.terms)
		}
	}
}
