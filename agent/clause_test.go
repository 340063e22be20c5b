package agent

import (
	"maps"
	"testing"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

func TestMainClauseTerms(t *testing.T) {
	terms := func(words string) map[string]bool {
		m := map[string]bool{}
		for _, t := range textnorm.SearchTerms(words) {
			m[t] = true
		}
		return m
	}
	tests := []struct {
		question string
		want     map[string]bool // nil: no relative clause
	}{
		{"Who signs the invoices for the engineer who restarted the tracker after INC-1?", terms("signs invoices engineer")},
		{"Who leads the team that owns the service which broke?", terms("leads team")},
		{"Кто аккаунт-менеджер клиента, для которого делается проект Alpha?", terms("аккаунт-менеджер клиента")},
		{"В каком городе базируется тот, кто руководил инцидентом INC-1?", terms("городе базируется")},
		{"Сколько инженеров в команде человека, чей сервис упал?", terms("инженеров команде человека")},
		{"Who is the lead of the team whose lead left?", terms("team")}, // "lead" is said of both
		{"Какая команда делает проект, пострадавший от INC-1?", terms("команда делает проект")},
		{"Какой курс читает руководитель, указанный в договоре D-1?", terms("курс читает руководитель")},
		{"Кто ведёт проект, а кто его тестирует?", nil}, // two questions
		{"Who leads Alpha, and who tests it?", nil},
		{"Кто ведёт проект, названный Alpha?", terms("ведёт проект")},
		{"In which city does the tech lead of Alpha work?", nil}, // "which" asks, after no term
		{"Which team owns the tracker?", nil},
		{"Кто руководит командой Alpha?", nil},
		{"At the client hit by the ingestion lag, who has to approve changes to the alerts?", terms("has approve changes alerts")},
		{"У клиента, пострадавшего от INC-1, кто согласует изменения?", terms("согласует изменения")},
		{"Is the engineer who restarted the tracker on call?", terms("engineer")},
		{"Name the team that owns the tracker.", terms("name team")}, // no interrogative: a marker after a term
		{"For Alpha's client, which city is the office in?", terms("city office")},
		{"", nil},
	}
	for _, tc := range tests {
		got := mainClauseTerms(tc.question)
		if (got == nil) != (tc.want == nil) || !maps.Equal(got, tc.want) {
			t.Errorf("mainClauseTerms(%q) = %v, want %v", tc.question, got, tc.want)
		}
	}
}
