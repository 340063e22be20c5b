package agent

import (
	"context"
	"fmt"
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
		name   string
		linked ariadne.Entity
		want   ariadne.Status
	}{
		{"count on another team's page", ariadne.Entity{Key: "teams/mobile", Name: "Mobile Team", Type: "team"}, ariadne.StatusNotFound},
		// The same quotes when the question names the team whose page states the count.
		{"count on the asked team's page", ariadne.Entity{Key: "teams/data", Name: "Mobile Team", Type: "team"}, ariadne.StatusAnswered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{replies: []string{reply}}
			r := NewRetriever(fakeSearch{[]ariadne.ScoredChunk{mobile, data}}, oneEntityGraph{e: tc.linked}, fixedEmbedder{}, nil, RetrievalConfig{MinCoverage: 0.01}, nil)
			a := NewAnswerer(r, LLMGenerator{Model: s.server(t)}, fixedCount(2), AnswerConfig{}, Hooks{}, nil)
			ans := ask(t, a, "How many people are in the Mobile Team?")
			if ans.Status != tc.want {
				t.Fatalf("status %s (reason %q, answer %q), want %s", ans.Status, ans.Reason, ans.Answer, tc.want)
			}
			if tc.want == ariadne.StatusNotFound && !strings.Contains(ans.Reason, `another team (Data Platform)`) {
				t.Errorf("reason %q, want it to name the other team's page", ans.Reason)
			}
		})
	}
}

// relatedGraph is oneEntityGraph that also knows which entities chunks mention and one edge.
type relatedGraph struct {
	oneEntityGraph
	mentions map[string][]string
	edges    []ariadne.Edge
}

func (g relatedGraph) EntitiesOfChunks(_ context.Context, ids, _ []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, id := range ids {
		out[id] = g.mentions[id]
	}
	return out, nil
}
func (g relatedGraph) Edges(context.Context, []string, []string, []string, int) ([]ariadne.Edge, error) {
	return g.edges, nil
}

// TestUnrelatedAnswer: an answer none of whose quotes names, mentions or is a page linked to what
// the question names is not_found (README trial: "Which team delivers the project for Lavrovo
// River Port?" answered with another client's project's team); one related quote keeps the answer.
func TestUnrelatedAnswer(t *testing.T) {
	port := ariadne.Entity{Key: "clients/lavrovo-port", Name: "Lavrovo River Port", Type: "client"}
	other := ariadne.ScoredChunk{Score: 0.9, Chunk: ariadne.Chunk{ID: "projects/coldtrack#0000-aaaaaaaa", DocID: "projects/coldtrack", DocType: "project",
		Title: "ColdTrack", ACL: []string{"all"}, Text: "The project is delivered by the Data team."}}
	planner := ariadne.ScoredChunk{Score: 0.8, Chunk: ariadne.Chunk{ID: "projects/berth-planner#0000-bbbbbbbb", DocID: "projects/berth-planner", DocType: "project",
		Title: "Berth Planner", ACL: []string{"all"}, Text: "The project is delivered by the Integrations team."}}
	cite := func(f int, c ariadne.ScoredChunk) string {
		return fmt.Sprintf(`{"text":%q,"citations":[{"fragment":%d,"chunk_id":%q,"quote":%q}]}`, c.Text, f, c.ID, c.Text)
	}
	for _, tc := range []struct {
		name  string
		reply string
		want  ariadne.Status
	}{
		{"only another client's project", `{"status":"answer","claims":[` + cite(1, other) + `]}`, ariadne.StatusNotFound},
		{"the port's own project too", `{"status":"answer","claims":[` + cite(1, other) + `,` + cite(2, planner) + `]}`, ariadne.StatusAnswered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := relatedGraph{oneEntityGraph: oneEntityGraph{e: port},
				edges: []ariadne.Edge{{From: ariadne.PathNode{Key: "projects/berth-planner"}, To: ariadne.PathNode{Key: port.Key}, Type: "WITH_CLIENT"}}}
			s := &scripted{replies: []string{tc.reply}}
			r := NewRetriever(fakeSearch{[]ariadne.ScoredChunk{other, planner}}, g, fixedEmbedder{}, nil, RetrievalConfig{MinCoverage: 0.01}, nil)
			a := NewAnswerer(r, LLMGenerator{Model: s.server(t)}, fixedCount(2), AnswerConfig{}, Hooks{}, nil)
			ans := ask(t, a, "Which team delivers the project for Lavrovo River Port?")
			if ans.Status != tc.want {
				t.Fatalf("status %s (reason %q, answer %q), want %s", ans.Status, ans.Reason, ans.Answer, tc.want)
			}
		})
	}
}
