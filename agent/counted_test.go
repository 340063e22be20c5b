package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne/internal/lexicontest"
)

func TestCountedTerms(t *testing.T) {
	for _, tc := range []struct {
		question string
		want     string // the counted terms joined by spaces; "" for none
	}{
		{"How many doctors work at the Kirillov polyclinic?", "doktors vork"},
		{"How many task cards were in the work package?", "kards task"},
		{"Сколько всего сотрудников работает на базе?", "rabota sotrudnik"},
		{"How many people died in the fire?", ""},   // a generic counter
		{"Сколько дней длилась задержка?", ""},      // a unit of time
		{"How many years has she worked here?", ""}, // a duration (asksCount: no)
		{"Сколько стоит аренда ангара?", ""},        // a sum of money
		{"When was the hangar opened?", ""},         // no count
		{"How many were arrested?", ""},             // nothing named
		{"How many of the staff are engineers?", "staf"},
		{"Сколько ждать выдачи доступа после заявки?", ""}, // how long: a verb, not a thing
	} {
		got := ""
		if q := countedTerms(tc.question, nil, ""); q != nil {
			got = strings.Join(slices.Sorted(slices.Values(q.terms)), " ")
		}
		if got != tc.want {
			t.Errorf("countedTerms(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

func TestCountsOnlyOther(t *testing.T) {
	lex := lexicontest.New(t,
		lexicontest.Entry{Head: "bed", Body: "bed\n   _n. кровать, койка"},
		lexicontest.Entry{Head: "doctor", Body: "doctor\n   _n. врач, доктор"},
		lexicontest.Entry{Head: "employee", Body: "employee\n   _n. служащий, сотрудник"},
		lexicontest.Entry{Head: "ton", Body: "ton\n   _n. тонна"},
	)
	for _, tc := range []struct {
		question, quote string
		want            bool
	}{
		// Every count is of something else.
		{"How many doctors work at the polyclinic?", "The main site has 410 beds and Cherepovets 260 beds.", true},
		{"Сколько сотрудников работает на заводе?", "Завод перерабатывает до 120 тонн молока в сутки.", true},
		{"How many doctors work there?", "Завод перерабатывает до 120 тонн молока в сутки.", true},
		{"How many doctors work at the polyclinic?", "The network runs three sites.", true},
		// A count of the asked thing, in either language and on either side of the number.
		{"How many doctors work at the polyclinic?", "The polyclinic has 410 beds and 35 doctors.", false},
		{"Сколько сотрудников работает на заводе?", "The plant has 640 employees.", false},
		{"Сколько сотрудников на заводе?", "Штат завода — 85, из них сотрудников лаборатории 12 человек.", false},
		{"How many employees does the plant have?", "Сотрудников на заводе — 85 на 2025 год.", false},
		// Counts the check cannot judge: unnamed, generic, or a word the lexicon does not know.
		{"How many doctors work at the polyclinic?", "Their number rose to 35 in 2025.", false},
		{"Сколько заявок обрабатывает команда?", "Стандартный срок выполнения — 2 рабочих дня.", false},
		{"How many doctors work at the polyclinic?", "It employs 35 people.", false},
		{"How many beds does the hospital have?", "В больнице 410 коек.", false},
		{"Сколько договоров упоминали права человека?", "Ни в одном из договоров права не упоминаются, в 1989 году — 12 статей.", false},
		{"Сколько заявок обрабатывает команда?", "Стандартный срок выполнения — 2 рабочих дня.", false},
		{"Сколько договоров упоминали права человека?", "Ни в одном из договоров права не упоминаются, в 1989 году — 12 статей.", false},
		// No count at all: factKinds' count check refuses that, not this one.
		{"How many doctors work at the polyclinic?", "The polyclinic opened in 2019.", false},
	} {
		q := countedTerms(tc.question, lex, "")
		if q == nil {
			t.Fatalf("countedTerms(%q) = nil", tc.question)
		}
		if got := countsOnlyOther(tc.quote, *q, cyrillicShare(tc.question) > 0.5); got != tc.want {
			t.Errorf("countsOnlyOther(%q, %q) = %v, want %v", tc.question, tc.quote, got, tc.want)
		}
	}
}
