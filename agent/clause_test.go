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

func TestRoleTerms(t *testing.T) {
	terms := func(words ...string) map[string]bool {
		out := map[string]bool{}
		for _, w := range words {
			for _, t := range textnorm.SearchTerms(w) {
				out[t] = true
			}
		}
		return out
	}
	for _, tc := range []struct {
		question, surface string
		want              map[string]bool
	}{
		{"Where did the underwriter of policy ASH-MI-7731 work before joining Ashgrove?", "policy ASH-MI-7731", terms("underwriter")},
		{"Where did the principal conductor of the Neva Virtuosi work before?", "Neva Virtuosi", terms("principal", "conductor")},
		{"Who is the UK agent for Clara Whitfield?", "Clara Whitfield", terms("UK", "agent")},
		{"Where did the underwriter of policy ASH-MI-7731 work before?", "ASH-MI-7731", terms("underwriter")}, // the kind outside the surface
		{"Где работал раньше андеррайтер полиса ASH-MI-7731?", "полиса ASH-MI-7731", nil},                     // Russian: none
		{"Какой срок хранения у кластера, на котором случилась авария INC-2371?", "INC-2371", nil},
		{"Where did Igor Lebedev study?", "Igor Lebedev", nil},                    // no role: the name is the subject
		{"Which concerts of the Neva Virtuosi were moved?", "Neva Virtuosi", nil}, // "which" is no determiner: the asked thing is the concerts themselves, counted by the main clause
		{"What happened at the hall of Albion?", "Albion", terms("hall")},
		{"Who signed the contract with Hale & Rowe Concerts?", "Hale & Rowe Concerts", nil}, // "with" is no role's preposition
	} {
		got := roleTerms(tc.question, []Linked{{Key: "k", Surface: tc.surface}})
		if len(got) != len(tc.want) {
			t.Errorf("roleTerms(%q) = %v, want %v", tc.question, got, tc.want)
			continue
		}
		for w := range tc.want {
			if !got[w] {
				t.Errorf("roleTerms(%q) = %v, want %v", tc.question, got, tc.want)
			}
		}
	}
}
