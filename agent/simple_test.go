package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// modeSearch returns fixed hits per search mode and counts the searches.
type modeSearch struct {
	mu    sync.Mutex
	calls map[ariadne.SearchMode]int
	hits  map[ariadne.SearchMode][]ariadne.ScoredChunk
}

func (s *modeSearch) Search(_ context.Context, mode ariadne.SearchMode, _ ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[mode]++
	return slices.Clone(s.hits[mode]), nil
}

// count is how many searches of mode reached the store so far.
func (s *modeSearch) count(mode ariadne.SearchMode) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[mode]
}

func scoredChunk(id, title, text string, score float64) ariadne.ScoredChunk {
	return ariadne.ScoredChunk{Score: score, Chunk: ariadne.Chunk{ID: id, DocID: strings.Split(id, "#")[0], Title: title, Text: text, ACL: []string{"all"}}}
}

// The simple route searches by vector when the question's neighbourhood mixes languages and by
// hybrid search when every vector candidate is in the question's script; either way each search
// reaches the store once (the vector candidates are the route's own search, the hybrid one is the
// prefetched search).
func TestSimpleRouteSearchByScriptOfCandidates(t *testing.T) {
	ruLeave := scoredChunk("policies/leave-ru#0000-aaaaaaaa", "Отпуск", "Ежегодный отпуск длится 28 календарных дней.", 0.9)
	ruSick := scoredChunk("policies/sick-ru#0000-bbbbbbbb", "Больничный", "Больничный лист оформляется в первый день болезни.", 0.8)
	enLeave := scoredChunk("policies/leave-en#0000-cccccccc", "Annual leave", "Annual leave lasts 28 calendar days.", 0.85)
	enSick := scoredChunk("policies/sick-en#0000-dddddddd", "Sick leave", "Sick leave starts on the first day of illness.", 0.8)
	ruRegula := scoredChunk("history/regula#0000-eeeeeeee", "Трактаты", "Трактат Regula sanitatis vacationis написал Иван Отпускной.", 0.7)
	for _, tc := range []struct {
		name           string
		question       string
		vector, hybrid []ariadne.ScoredChunk
		strategy       Strategy
		first          string
	}{
		{"russian question, russian candidates", "Сколько дней длится ежегодный отпуск?",
			[]ariadne.ScoredChunk{ruSick, ruLeave}, []ariadne.ScoredChunk{ruLeave, ruSick}, StrategyHybrid, ruLeave.ID},
		{"russian question, a candidate in english", "Сколько дней длится ежегодный отпуск?",
			[]ariadne.ScoredChunk{enLeave, ruLeave}, []ariadne.ScoredChunk{ruLeave, enLeave}, StrategyVector, enLeave.ID},
		{"english question, english candidates", "How many days does annual leave last?",
			[]ariadne.ScoredChunk{enSick, enLeave}, []ariadne.ScoredChunk{enLeave, enSick}, StrategyHybrid, enLeave.ID},
		{"english question, a candidate in russian", "How many days does annual leave last?",
			[]ariadne.ScoredChunk{enLeave, ruLeave}, []ariadne.ScoredChunk{ruLeave, enLeave}, StrategyVector, enLeave.ID},
		// Most of the letters are Latin (a quoted title), the question is Russian.
		{"russian question quoting a latin title, russian candidates", "Кто написал Regula sanitatis vacationis?",
			[]ariadne.ScoredChunk{ruSick, ruRegula}, []ariadne.ScoredChunk{ruRegula, ruSick}, StrategyHybrid, ruRegula.ID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &modeSearch{calls: map[ariadne.SearchMode]int{}, hits: map[ariadne.SearchMode][]ariadne.ScoredChunk{
				ariadne.SearchVector: tc.vector, ariadne.SearchHybrid: tc.hybrid}}
			r := NewRetriever(s, emptyGraph{}, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
			res, err := r.Retrieve(context.Background(), Request{Question: tc.question, Groups: []string{"all"}, Mode: "simple"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Trace.Steps) != 1 || res.Trace.Steps[0].Strategy != tc.strategy {
				t.Fatalf("steps %+v, want one %s step", res.Trace.Steps, tc.strategy)
			}
			if res.Chunks[0].ID != tc.first {
				t.Errorf("first chunk %s, want %s", res.Chunks[0].ID, tc.first)
			}
			if got := res.Trace.Steps[0].ChunkIDs; len(got) != len(res.Chunks) || got[0] != tc.first {
				t.Errorf("step chunk ids %q, want the %d retrieved, %s first", got, len(res.Chunks), tc.first)
			}
			want := ""
			if tc.strategy == StrategyHybrid {
				want = "all 2 vector candidates are in the question's script: hybrid search"
			}
			if got := res.Trace.Steps[0].Note; got != want {
				t.Errorf("step note %q, want %q", got, want)
			}
			// The vector search is the route's own, once. The hybrid search is the prefetch: once
			// when the route takes it; when it does not, Retrieve may return before the prefetch
			// reaches the store (it is then cancelled), so at most once.
			if n := s.count(ariadne.SearchVector); n != 1 {
				t.Errorf("vector searches: %d, want 1", n)
			}
			n := s.count(ariadne.SearchHybrid)
			if tc.strategy == StrategyHybrid && n != 1 || n > 1 {
				t.Errorf("hybrid searches: %d, want %s", n, map[bool]string{true: "1", false: "at most 1"}[tc.strategy == StrategyHybrid])
			}
		})
	}
}

func TestCyrillicQuestion(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"Кто автор Regula sanitatis vacationis?", true},
		{"Как настроить Keycloak Admin Console?", true},
		{"Who maintains «Северный поток»?", false},
		{"Сколько стоит Enterprise Support of the Platform?", true},
		{"Что значит «What is done cannot be undone»?", false}, // function words of both languages: by its letters
		{"Keycloak SSO LDAP", false},
		{"INC-845", false},
	} {
		if got := cyrillicQuestion(tc.q); got != tc.want {
			t.Errorf("cyrillicQuestion(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}
