package agent

import (
	"context"
	"reflect"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestQuestionQualifiers(t *testing.T) {
	tests := []struct {
		q    string
		want []string // name number
	}{
		{"When will Grafana 11 be rolled out?", []string{"grafana 11"}},
		{"Когда переходим на PostgreSQL 16?", []string{"postgresql 16"}},
		{"Does the app still support iPhone 8 and Python 3.9?", []string{"iphone 8", "python 3.9"}},
		{"Which bug did Tern 3.2.2 fix?", nil},                  // three parts: an exact term (versionRE)
		{"Can Anna Petrova spend 38 500 RUB on a course?", nil}, // a digit group, not a version
		{"What happens after May 5 and In 12 days?", nil},       // a month, a preposition
		{"What changed in 2024 for Nginx 2024?", nil},           // four digits: a year
		{"Who owns Redis 7 and redis 7?", []string{"redis 7"}},  // once
		{"сколько дней отпуска у сотрудника?", nil},             // no name
		{"Is SEV 1 paged at night?", []string{"sev 1"}},         // a level is a qualifier too
	}
	for _, tc := range tests {
		var got []string
		for _, q := range questionQualifiers(tc.q) {
			got = append(got, q.name+" "+q.number)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestQualifierContradicts(t *testing.T) {
	grafana := questionQualifiers("When will Grafana 11 be rolled out?")[0]
	python := questionQualifiers("Is Python 3.12 allowed?")[0]
	tests := []struct {
		q    qualifier
		text string
		want bool
	}{
		{grafana, "The rollout of Grafana 10 is planned for March.", true},
		{grafana, "Grafana 10 stays until Grafana 11 is rolled out in May.", false},
		{grafana, "We run grafana v11.2.0 in production.", false}, // 11 is a prefix of 11.2.0
		{grafana, "Обновление до Grafana версии 10 запланировано на март.", true},
		{grafana, "Grafana is rolled out by the SRE team.", false}, // no number: not about another version
		{grafana, "| Grafana | 10.4 |", false},                     // a table cell apart: not read as a version
		{python, "Python 3.11 is the only allowed runtime.", true},
		{python, "Python 3 is allowed.", false},
	}
	for _, tc := range tests {
		if got := tc.q.contradicts(tc.text); got != tc.want {
			t.Errorf("%s %s in %q: %v, want %v", tc.q.name, tc.q.number, tc.text, got, tc.want)
		}
	}
}

// A question about one version of a product is not answered by a sentence about another: the
// near miss whose every term but a number matches (both offline generators).
func TestExtractiveQualifierNearMiss(t *testing.T) {
	frags := Fragments([]ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "technologies/grafana#0001-aaaaaaaa", DocID: "technologies/grafana", Title: "Grafana",
		Text: "The upgrade to Grafana 10 is scheduled for the first week of March. Dashboards are reviewed every quarter."}}})
	for _, g := range []Generator{TermExtractive{}, Extractive{}} {
		for q, answer := range map[string]bool{
			"When is the upgrade to Grafana 10 scheduled?": true,
			"When is the upgrade to Grafana 11 scheduled?": false,
		} {
			raw, err := g.Generate(context.Background(), GenerationInput{Question: q, Fragments: frags, Route: ariadne.RouteSimple})
			if err != nil {
				t.Fatal(err)
			}
			out, err := ParseOutput(raw)
			if err != nil {
				t.Fatal(err)
			}
			if answer && (out.NotFound || len(out.Claims) == 0 || out.Claims[0].Citations[0].Quote != "The upgrade to Grafana 10 is scheduled for the first week of March.") {
				t.Errorf("%s, %q: %s, want the upgrade sentence", g.Name(), q, raw)
			}
			if !answer && !out.NotFound {
				t.Errorf("%s, %q: %s, want not_found", g.Name(), q, raw)
			}
		}
	}
}
