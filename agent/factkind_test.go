package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// oneEntityGraph links one documented entity by its name; it knows nothing else.
type oneEntityGraph struct {
	emptyGraph
	e ariadne.Entity
}

func (g oneEntityGraph) EntityCandidates(context.Context, string, []string, int) ([]ariadne.EntityCandidate, error) {
	return []ariadne.EntityCandidate{{StoredEntity: ariadne.StoredEntity{Entity: g.e}}}, nil
}

// TestCountFromAnotherPage: asked how many people a team has, an answer whose only quote with a
// count comes from another team's page is not_found, whatever it quotes about the asked team
// (outside tester: "How many people are in the Mobile Team?" answered with the Data Platform
// team's «В команде 7 человек.» beside Mobile Team sentences without a count). With the count on
// the asked team's own page the same answer stands.
func TestCountFromAnotherPage(t *testing.T) {
	mobile := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "teams/mobile#0000-aaaaaaaa", DocID: "teams/mobile", DocType: "team",
		Title: "Mobile Team", ACL: []string{"all"}, Text: "The Mobile Team builds the driver app."}}
	data := ariadne.ScoredChunk{Score: 0.8, Chunk: ariadne.Chunk{ID: "teams/data#0000-bbbbbbbb", DocID: "teams/data", DocType: "team",
		Title: "Data Platform", ACL: []string{"all"}, Text: "В команде 7 человек."}}
	reply := `{"status":"answer","claims":[` +
		`{"text":"The Mobile Team builds the driver app.","citations":[{"fragment":1,"chunk_id":"teams/mobile#0000-aaaaaaaa","quote":"The Mobile Team builds the driver app."}]},` +
		`{"text":"The team has 7 people.","citations":[{"fragment":2,"chunk_id":"teams/data#0000-bbbbbbbb","quote":"В команде 7 человек."}]}]}`
	for _, tc := range []struct {
		name    string
		linked  ariadne.Entity
		docType string // of the page that states the count
		want    ariadne.Status
	}{
		{"count on another team's page", ariadne.Entity{Key: "teams/mobile", Name: "Mobile Team", Type: "team"}, "team", ariadne.StatusNotFound},
		// The same quotes when the question names the team whose page states the count.
		{"count on the asked team's page", ariadne.Entity{Key: "teams/data", Name: "Mobile Team", Type: "team"}, "team", ariadne.StatusAnswered},
		// A company's headcount is no count of a client or a team the question names (trial 69).
		{"count on a company's page", ariadne.Entity{Key: "teams/mobile", Name: "Mobile Team", Type: "team"}, "company", ariadne.StatusNotFound},
		// A person's page is no organisation's: it may state the count of the team they lead.
		{"count on a person's page", ariadne.Entity{Key: "teams/mobile", Name: "Mobile Team", Type: "team"}, "person", ariadne.StatusAnswered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{replies: []string{reply}}
			page := data
			page.DocType = tc.docType
			r := NewRetriever(fakeSearch{[]ariadne.ScoredChunk{mobile, page}}, oneEntityGraph{e: tc.linked}, fixedEmbedder{}, nil, RetrievalConfig{MinCoverage: 0.01}, nil)
			a := NewAnswerer(r, LLMGenerator{Model: s.server(t)}, fixedCount(2), AnswerConfig{}, Hooks{}, nil)
			ans := ask(t, a, "How many people are in the Mobile Team?")
			if ans.Status != tc.want {
				t.Fatalf("status %s (reason %q, answer %q), want %s", ans.Status, ans.Reason, ans.Answer, tc.want)
			}
			if tc.want == ariadne.StatusNotFound && !strings.Contains(ans.Reason, `another organisation or thing of its kind (Data Platform)`) {
				t.Errorf("reason %q, want it to name the other team's page", ans.Reason)
			}
		})
	}
}

// quoting answers with a fixed reply and is a quoting generator (QuotesOnly), like extractive-v1.
type quoting struct{ reply string }

func (quoting) Name() string     { return "quoting" }
func (quoting) QuotesOnly() bool { return true }
func (g quoting) Generate(context.Context, GenerationInput) (string, error) {
	return g.reply, nil
}

// TestFurtherQuoteAboutAnother: after the best quote, a quote from the page of another thing of
// the kind the question names pads the answer with that thing's facts and is left out (a question
// about one person's team got a colleague's sentence about hers after his own). A further quote
// from the asked entity's page, or one that names it, stays.
func TestFurtherQuoteAboutAnother(t *testing.T) {
	varin := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "people/varin#0000-aaaaaaaa", DocID: "people/varin", DocType: "person",
		Title: "Oleg Varin", ACL: []string{"all"}, Text: "Oleg Varin is the head of the infra team. He joined in 2019."}}
	lutsk := ariadne.ScoredChunk{Score: 0.8, Chunk: ariadne.Chunk{ID: "people/lutsk#0000-bbbbbbbb", DocID: "people/lutsk", DocType: "person",
		Title: "Vera Lutsk", ACL: []string{"all"}, Text: "Since 2021 she has led the mobile team. She works with Oleg Varin."}}
	claim := func(n int, id, quote string) string {
		return fmt.Sprintf(`{"text":%q,"citations":[{"fragment":%d,"chunk_id":%q,"quote":%q}]}`, quote, n, id, quote)
	}
	for _, tc := range []struct {
		name, second string
		want         []string
	}{
		{"another person's page", claim(2, lutsk.Chunk.ID, "Since 2021 she has led the mobile team."),
			[]string{varin.Chunk.ID}},
		{"the asked person's page", claim(1, varin.Chunk.ID, "He joined in 2019."),
			[]string{varin.Chunk.ID, varin.Chunk.ID}},
		{"another page naming him", claim(2, lutsk.Chunk.ID, "She works with Oleg Varin."),
			[]string{varin.Chunk.ID, lutsk.Chunk.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := `{"status":"answer","claims":[` + claim(1, varin.Chunk.ID, "Oleg Varin is the head of the infra team.") + "," + tc.second + `]}`
			r := NewRetriever(fakeSearch{[]ariadne.ScoredChunk{varin, lutsk}}, oneEntityGraph{e: ariadne.Entity{Key: "people/varin", Name: "Oleg Varin", Type: "person"}},
				fixedEmbedder{}, nil, RetrievalConfig{MinCoverage: 0.01}, nil)
			a := NewAnswerer(r, quoting{reply}, fixedCount(2), AnswerConfig{}, Hooks{}, nil)
			ans := ask(t, a, "Since when has Oleg Varin led the infra team?")
			var got []string
			for _, c := range ans.Claims {
				got = append(got, c.Citations[0].ChunkID)
			}
			if ans.Status != ariadne.StatusAnswered || !slices.Equal(got, tc.want) {
				t.Fatalf("status %s (%q), claims cite %v, want answered citing %v", ans.Status, ans.Reason, got, tc.want)
			}
		})
	}
}
