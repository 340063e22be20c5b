package agent

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestBridgeCandidates(t *testing.T) {
	first := []ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "a#0"}}, {Chunk: ariadne.Chunk{ID: "b#0"}}, {Chunk: ariadne.Chunk{ID: "c#0"}}}
	ents := map[string][]string{
		"a#0": {"journal", "press"},         // the question names the journal
		"b#0": {"founder", "press", "city"}, // press is seen again: counted, not repeated
		"c#0": {"city", "hidden"},           // hidden has no name this caller may see
	}
	names := map[string]string{"journal": "Journal of Tide Studies", "press": "Harbor Press", "founder": "Ada Kell", "city": "Port Wren"}
	tests := []struct {
		m    int
		want [][2]string
	}{
		{1, [][2]string{{"press", "Harbor Press"}}},
		// founder and city both first appear in rank 2; city is mentioned twice, founder once
		{3, [][2]string{{"press", "Harbor Press"}, {"city", "Port Wren"}, {"founder", "Ada Kell"}}},
		{0, nil},
	}
	for _, tc := range tests {
		got := bridgeCandidates("Who founded the publisher of the Journal of Tide Studies?", first, ents, names, tc.m)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("m=%d: %v, want %v", tc.m, got, tc.want)
		}
	}
}

// bridgeGraph knows which entities two chunks mention and their names; it records the groups of
// every read. A caller without "all" reads nothing.
type bridgeGraph struct {
	emptyGraph
	mu     sync.Mutex
	groups [][]string
	bounds [][2]int // EntityMentions' per and expand, per call
}

func (g *bridgeGraph) saw(groups []string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.groups = append(g.groups, groups)
	return slices.Contains(groups, "all")
}

func (g *bridgeGraph) EntitiesOfChunks(_ context.Context, ids, groups []string) (map[string][]string, error) {
	if !g.saw(groups) {
		return nil, nil
	}
	return map[string][]string{"journal#0": {"journal", "press"}}, nil
}

func (g *bridgeGraph) EntityMentions(_ context.Context, keys, groups []string, per, expand int) (map[string]ariadne.EntityMentions, error) {
	g.mu.Lock()
	g.bounds = append(g.bounds, [2]int{per, expand})
	g.mu.Unlock()
	if !g.saw(groups) {
		return nil, nil
	}
	names := map[string]string{"journal": "Journal of Tide Studies", "press": "Harbor Press"}
	out := map[string]ariadne.EntityMentions{}
	for _, k := range keys {
		out[k] = ariadne.EntityMentions{Node: ariadne.PathNode{Key: k, Name: names[k]}, Mentions: 1}
	}
	return out, nil
}

// recordingSearch returns the press page for a query that names the press and records every
// query.
type recordingSearch struct {
	mu      sync.Mutex
	queries []ariadne.SearchQuery
}

func (s *recordingSearch) Search(_ context.Context, _ ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	if strings.Contains(q.Text, "Harbor Press") {
		return []ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "press#0", DocID: "press"}, Score: 1}}, nil
	}
	return nil, nil
}

// The bridge hop searches the question together with the name of an entity the first pass's top
// chunk mentions and the question does not name, with the caller's groups on every read and
// search; a caller who may read none of those mentions gets no bridge.
func TestBridgeHop(t *testing.T) {
	question := "Who founded the publisher of the Journal of Tide Studies?"
	first := []ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "journal#0", DocID: "journal"}, Score: 1}}
	g, s := &bridgeGraph{}, &recordingSearch{}
	r := NewRetriever(s, g, fixedEmbedder{}, nil, RetrievalConfig{}, nil)
	lists, bridges, err := r.BridgeHop(context.Background(), Request{Question: question, Groups: []string{"all"}}, first, 3, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(bridges, [][2]string{{"press", "Harbor Press"}}) {
		t.Fatalf("bridges %v, want the press only (the question names the journal)", bridges)
	}
	if len(lists) != 1 || len(lists[0]) != 1 || lists[0][0].ID != "press#0" {
		t.Fatalf("lists %v, want the press page", lists)
	}
	if len(s.queries) != 1 || s.queries[0].Text != "Harbor Press. "+question || !reflect.DeepEqual(s.queries[0].Groups, []string{"all"}) {
		t.Errorf("queries %+v, want one hybrid search of the bridge and the question with the caller's groups", s.queries)
	}
	for _, gs := range g.groups {
		if !reflect.DeepEqual(gs, []string{"all"}) {
			t.Errorf("a graph read with groups %v, want the caller's", gs)
		}
	}
	// Names only: one chunk id at most and the mention count stopped at 2, never a hub's count
	// (expand 0 counts up to 2 000 mentions and sorts them all).
	if !reflect.DeepEqual(g.bounds, [][2]int{{1, 1}}) {
		t.Errorf("EntityMentions(per, expand) calls %v, want one with (1, 1)", g.bounds)
	}
	lists, bridges, err = r.BridgeHop(context.Background(), Request{Question: question, Groups: []string{"guests"}}, first, 3, 2, nil)
	if err != nil || lists != nil || bridges != nil {
		t.Errorf("a caller who reads nothing: lists %v, bridges %v, err %v; want none", lists, bridges, err)
	}
}

// The bridge hop's finds follow the route's first chunk: the first new documents of the bridge
// lists by rank (one chunk per document, none of a kept document), then the route's list without
// the chunks moved up.
func TestInsertBridge(t *testing.T) {
	c := func(id string) ariadne.ScoredChunk {
		doc, _, _ := strings.Cut(id, "#")
		return ariadne.ScoredChunk{Chunk: ariadne.Chunk{ID: id, DocID: doc}}
	}
	list := []ariadne.ScoredChunk{c("a#0"), c("b#0"), c("c#0"), c("d#0")}
	for _, tc := range []struct {
		name    string
		list    []ariadne.ScoredChunk
		bridges [][]string
		kept, n int
		want    []string
	}{
		{"two new documents after the first", list, [][]string{{"x#0", "a#1", "y#0", "z#0"}}, 1, 2, []string{"a#0", "x#0", "y#0", "b#0", "c#0", "d#0"}},
		{"a chunk of the route's moves up, once", list, [][]string{{"c#0"}}, 1, 2, []string{"a#0", "c#0", "b#0", "d#0"}},
		{"one chunk per document", list, [][]string{{"x#0", "x#1", "y#0"}}, 1, 2, []string{"a#0", "x#0", "y#0", "b#0", "c#0", "d#0"}},
		{"lists taken by rank", list, [][]string{{"x#0", "y#0"}, {"z#0", "w#0"}}, 1, 2, []string{"a#0", "x#0", "z#0", "b#0", "c#0", "d#0"}},
		{"two kept", list, [][]string{{"b#1", "x#0"}}, 2, 1, []string{"a#0", "b#0", "x#0", "c#0", "d#0"}},
		{"a short bridge list", list, [][]string{{"x#0"}}, 1, 2, []string{"a#0", "x#0", "b#0", "c#0", "d#0"}},
		{"nothing new", list, [][]string{{"a#1"}, nil}, 1, 2, []string{"a#0", "b#0", "c#0", "d#0"}},
		{"an empty route list", nil, [][]string{{"x#0", "y#0", "z#0"}}, 1, 2, []string{"x#0", "y#0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lists [][]ariadne.ScoredChunk
			for _, ids := range tc.bridges {
				var l []ariadne.ScoredChunk
				for _, id := range ids {
					l = append(l, c(id))
				}
				lists = append(lists, l)
			}
			var got []string
			for _, h := range insertBridge(tc.list, lists, tc.kept, tc.n) {
				got = append(got, h.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// The bridge hop is on by default (one bridge); a negative setting turns it off.
func TestBridgeHopsSetting(t *testing.T) {
	for set, want := range map[int]int{0: 1, 1: 1, 2: 2, -1: 0} {
		if got := (RetrievalConfig{BridgeHops: set}).bridgeHops(); got != want {
			t.Errorf("BridgeHops %d: %d bridges, want %d", set, got, want)
		}
	}
}

// The bridge hop's finds follow the route's first chunk, two documents of them, unless set.
func TestBridgeInsertSetting(t *testing.T) {
	for _, tc := range []struct {
		cfg        RetrievalConfig
		kept, docs int
	}{
		{RetrievalConfig{}, 1, 2},
		{RetrievalConfig{BridgeKept: 3, BridgeDocs: 1}, 3, 1},
		{RetrievalConfig{BridgeKept: -1, BridgeDocs: -2}, 1, 2},
	} {
		if c := tc.cfg.withDefaults(); c.BridgeKept != tc.kept || c.BridgeDocs != tc.docs {
			t.Errorf("%+v: kept %d, docs %d; want %d, %d", tc.cfg, c.BridgeKept, c.BridgeDocs, tc.kept, tc.docs)
		}
	}
	// Retriever.InsertBridge (cmd/eval fit-walk) joins the lists with the retriever's settings.
	c := func(id string) ariadne.ScoredChunk {
		doc, _, _ := strings.Cut(id, "#")
		return ariadne.ScoredChunk{Chunk: ariadne.Chunk{ID: id, DocID: doc}}
	}
	list := []ariadne.ScoredChunk{c("a#0"), c("b#0"), c("c#0")}
	bridge := [][]ariadne.ScoredChunk{{c("x#0"), c("y#0"), c("z#0")}}
	for _, tc := range []struct {
		cfg  RetrievalConfig
		want []string
	}{
		{RetrievalConfig{}, []string{"a#0", "x#0", "y#0", "b#0", "c#0"}},
		{RetrievalConfig{BridgeKept: 2, BridgeDocs: 1}, []string{"a#0", "b#0", "x#0", "c#0"}},
	} {
		var got []string
		for _, h := range NewRetriever(nil, nil, nil, nil, tc.cfg, nil).InsertBridge(list, bridge) {
			got = append(got, h.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: InsertBridge gave %v, want %v", tc.cfg, got, tc.want)
		}
	}
}
