package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/embedding"
)

func TestPPRTwoNodes(t *testing.T) {
	// a–b, restart at a, d = 0.5: s_a = 0.5 + 0.5·s_b, s_b = 0.5·s_a, so s_a = 2/3, s_b = 1/3.
	g := newWGraph()
	g.link("a", "b", 3)
	s := g.ppr(map[string]float64{"a": 1}, 0.5, 60)
	if math.Abs(s["a"]-2.0/3) > 1e-9 || math.Abs(s["b"]-1.0/3) > 1e-9 {
		t.Fatalf("ppr = %v, want a 2/3, b 1/3", s)
	}
	if len(g.ppr(map[string]float64{}, 0.5, 10)) != 0 {
		t.Fatal("no restart mass must give no scores")
	}
}

func TestPPRFollowsEdgeWeights(t *testing.T) {
	// From a, the heavier edge (to b, weight 3) carries three times the mass of the lighter (to c).
	g := newWGraph()
	g.link("a", "b", 3)
	g.link("a", "c", 1)
	g.link("a", "b", 2) // a parallel link keeps the largest weight
	s := g.ppr(map[string]float64{"a": 1}, 0.5, 60)
	if r := s["b"] / s["c"]; math.Abs(r-3) > 1e-9 {
		t.Fatalf("b/c = %v, want 3 (scores %v)", r, s)
	}
}

func TestMinMax(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]float64
		want map[string]float64
	}{
		{map[string]float64{"a": 0.8, "b": 0.9, "c": 0.85}, map[string]float64{"a": 0, "b": 1, "c": 0.5}},
		{map[string]float64{"a": 0.3, "b": 0.3}, map[string]float64{"a": 1, "b": 1}},
		{map[string]float64{}, map[string]float64{}},
	} {
		got := minMax(tc.in)
		for k, v := range tc.want {
			if math.Abs(got[k]-v) > 1e-9 {
				t.Errorf("minMax(%v)[%s] = %v, want %v", tc.in, k, got[k], v)
			}
		}
	}
}

func TestSynonymPairs(t *testing.T) {
	vecs := map[string][]float32{
		"nyc":      {1, 0, 0},
		"new-york": {0.99, 0.141, 0}, // cos 0.990 with nyc
		"ny-city":  {0.97, 0, 0.243}, // cos 0.970 with nyc, 0.960 with new-york
		"paris":    {0, 0, 1},
	}
	for _, tc := range []struct {
		min  float64
		k    int
		want []string
	}{
		{0.95, 2, []string{"new-york|nyc", "new-york|ny-city", "ny-city|nyc"}},
		{0.95, 1, []string{"new-york|nyc", "ny-city|nyc"}},
		{0.98, 2, []string{"new-york|nyc"}},
		{0.999, 2, nil},
	} {
		var got []string
		for _, p := range synonymPairs(vecs, tc.min, tc.k) {
			got = append(got, p.A+"|"+p.B)
		}
		if !equalStrings(got, tc.want) {
			t.Errorf("synonymPairs(min %v, k %d) = %v, want %v", tc.min, tc.k, got, tc.want)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A question names entity A; A has two relations, to B (stated by a chunk that matches the
// question well) and to C (stated by one that does not). B's and C's pages are equally relevant
// otherwise: the walk must prefer B's page, because the hop to B is what the question asks.
func TestWalkWeightsHopsByQuestion(t *testing.T) {
	in := walkInput{
		ChunkSim:      map[string]float64{"a#0": 0.86, "A-B": 0.88, "A-C": 0.76, "b#0": 0.80, "c#0": 0.80},
		ChunkEntities: map[string][]string{"a#0": {"A"}, "A-B": {"A", "B"}, "A-C": {"A", "C"}},
		DocChunks:     map[string][]string{"B": {"b#0"}, "C": {"c#0"}},
		Edges: []ariadne.Edge{
			edgeOf(ariadne.PathNode{Key: "A"}, ariadne.PathNode{Key: "B"}), // stated by chunk "A-B"
			edgeOf(ariadne.PathNode{Key: "A"}, ariadne.PathNode{Key: "C"}),
		},
		Mentions: map[string]int{"A": 3, "B": 1, "C": 1},
		Linked:   map[string]float64{"A": 1},
	}
	p := defaultWalkParams()
	r := walk(in, p)
	if !(r.ChunkScore["b#0"] > r.ChunkScore["c#0"]) {
		t.Fatalf("b#0 %.4f must outrank c#0 %.4f", r.ChunkScore["b#0"], r.ChunkScore["c#0"])
	}
	if !(r.ChunkScore["A-B"] > r.ChunkScore["A-C"]) {
		t.Fatalf("A-B %.4f must outrank A-C %.4f", r.ChunkScore["A-B"], r.ChunkScore["A-C"])
	}
	// Unweighted (every chunk equally similar), B's and C's pages tie.
	flat := in
	flat.ChunkSim = map[string]float64{"a#0": 0.8, "A-B": 0.8, "A-C": 0.8, "b#0": 0.8, "c#0": 0.8}
	fr := walk(flat, p)
	if math.Abs(fr.ChunkScore["b#0"]-fr.ChunkScore["c#0"]) > 1e-12 {
		t.Fatalf("flat: b#0 %.6f and c#0 %.6f must tie", fr.ChunkScore["b#0"], fr.ChunkScore["c#0"])
	}
	// Only a linked entity seeds entities: all entity seed mass is strong.
	if r.Seeds != 1 || r.Confidence <= 0 || r.Confidence > 1 {
		t.Fatalf("seeds %d, confidence %v", r.Seeds, r.Confidence)
	}
	var sum float64
	for _, s := range r.ChunkScore {
		sum += s
	}
	for _, s := range r.Entity {
		sum += s
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("PPR mass %v, want 1", sum)
	}
	if r.Chunks[0] != "A-B" && r.Chunks[0] != "a#0" {
		t.Fatalf("top chunk %s, want one mentioning A", r.Chunks[0])
	}
}

// The question's name matches entity X only through its embedding; X's page is reachable only
// through a synonym edge to X2, the entity whose page it is.
func TestWalkSynonymEdges(t *testing.T) {
	in := walkInput{
		ChunkSim:  map[string]float64{"x#0": 0.8, "y#0": 0.7},
		DocChunks: map[string][]string{"X2": {"x#0"}, "Y": {"y#0"}},
		NameSim:   map[string]float64{"X": 0.95, "X2": 0.70, "Y": 0.60},
		NameVec:   map[string][]float32{"X": {1, 0}, "X2": {0.99, 0.141}, "Y": {0, 1}},
		Mentions:  map[string]int{"X": 1, "X2": 1, "Y": 1},
	}
	p := defaultWalkParams()
	p.NameSeeds = 1
	with := walk(in, p)
	if with.Synonyms != 1 || !(with.ChunkScore["x#0"] > 0) {
		t.Fatalf("with synonyms: %d edges, x#0 %v", with.Synonyms, with.ChunkScore["x#0"])
	}
	p.SynonymMin = 0.999
	without := walk(in, p)
	if without.Synonyms != 0 || without.ChunkScore["x#0"] != 0 {
		t.Fatalf("without synonyms: %d edges, x#0 %v (want 0: unreachable)", without.Synonyms, without.ChunkScore["x#0"])
	}
	// The name seed is a near-exact name match (rescaled 1 ≥ 0.9): strong, so confidence > 0.
	if with.Confidence <= 0 {
		t.Fatalf("confidence %v", with.Confidence)
	}
}

// Passage seeds alone (no entity named or matched) give no confidence: the walk then adds
// little to hybrid.
func TestWalkConfidence(t *testing.T) {
	base := walkInput{
		ChunkSim:      map[string]float64{"a#0": 0.9, "b#0": 0.8},
		ChunkEntities: map[string][]string{"a#0": {"A"}, "b#0": {"A", "B"}},
		Mentions:      map[string]int{"A": 2, "B": 1},
		Pool:          map[string]float64{"a#0": 0.03, "b#0": 0.02},
	}
	p := defaultWalkParams()
	if c := walk(base, p).Confidence; c != 0 {
		t.Fatalf("no entity seeds: confidence %v, want 0", c)
	}
	linked := base
	linked.Linked = map[string]float64{"B": 1}
	c := walk(linked, p).Confidence
	if c <= 0.5 || c > 1 {
		t.Fatalf("a linked entity whose chunks hold all the mass: confidence %v, want (0.5, 1]", c)
	}
}

func TestGraphWeight(t *testing.T) {
	for _, tc := range []struct{ conf, lo, hi, want float64 }{
		{0, 0.5, 1.5, 0.5},
		{1, 0.5, 1.5, 1.5},
		{0.25, 0.5, 1.5, 0.75},
		{-1, 0.5, 1.5, 0.5},
		{3, 0.5, 1.5, 1.5},
	} {
		if got := graphWeight(tc.conf, tc.lo, tc.hi); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("graphWeight(%v, %v, %v) = %v, want %v", tc.conf, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestEvidencePathsGoThroughTheChunksEdge: a chunk that supports an edge is explained by a path
// through that edge, not by the BFS tree's path to the edge's far end (which reaches the team
// through the service the incident affected, not through the library that caused it).
func TestEvidencePathsGoThroughTheChunksEdge(t *testing.T) {
	n := func(key string) ariadne.PathNode { return ariadne.PathNode{Key: key, Name: key} }
	inc, svc, lib, team := n("inc"), n("svc"), n("lib"), n("team")
	edge := func(a, b ariadne.PathNode, typ, chunk string) ariadne.Edge {
		return ariadne.Edge{From: a, To: b, Type: typ, ChunkIDs: []string{chunk}}
	}
	sg := subgraph{
		nodes: map[string]ariadne.PathNode{"inc": inc, "svc": svc, "lib": lib, "team": team},
		edges: []ariadne.Edge{
			edge(inc, svc, "AFFECTS", "inc#0"),
			edge(inc, lib, "INVOLVES", "inc#0"),
			edge(team, svc, "OWNS", "team#0"),
			edge(team, lib, "OWNS", "team#0"),
		},
	}
	top := []ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "team#0"}}, {Chunk: ariadne.Chunk{ID: "inc#0"}}}
	var got []string
	for _, p := range evidencePaths(sg, []string{"inc"}, top, pathChunks, 12) {
		got = append(got, pathSignature(p))
	}
	want := []string{"inc|AFFECTS|svc", "inc|INVOLVES|lib", "inc|AFFECTS|svc|OWNS|team", "inc|INVOLVES|lib|OWNS|team"}
	if !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	if p := evidencePaths(sg, []string{"inc"}, top, pathChunks, 1); len(p) != 1 {
		t.Errorf("max 1: %d paths", len(p))
	}
}

// The walk's ranking is a function of the graph, not of the order the store returned its rows in
// nor of Go's map iteration: scores are bit-identical and ties fall to the chunk id. Before the
// sums ran in id order, multi-hop citations changed after a Neo4j restart (rows in another order)
// and between runs.
func TestWalkIndependentOfRowOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	in := walkInput{ChunkSim: map[string]float64{}, ChunkEntities: map[string][]string{}, DocChunks: map[string][]string{},
		Mentions: map[string]int{}, Linked: map[string]float64{"E0": 0.9, "E1": 0.7}, Pool: map[string]float64{}}
	ents := make([]string, 12)
	for i := range ents {
		ents[i] = fmt.Sprintf("E%d", i)
		in.Mentions[ents[i]] = 1 + rng.IntN(5)
	}
	for c := range 40 {
		id := fmt.Sprintf("d%d#%d", c/4, c%4)
		// Few distinct similarities: many chunks tie in exact arithmetic.
		in.ChunkSim[id] = []float64{0.71, 0.8, 0.83}[rng.IntN(3)]
		in.ChunkEntities[id] = []string{ents[rng.IntN(len(ents))], ents[rng.IntN(len(ents))]}
		if c%5 == 0 {
			in.Pool[id] = 0.01 * float64(1+rng.IntN(3))
		}
		if c%4 == 0 {
			e := ents[c/4%len(ents)]
			in.DocChunks[e] = append(in.DocChunks[e], id)
		}
	}
	ids := walkKeys(in.ChunkSim)
	for i := range 30 {
		from, to := ents[rng.IntN(len(ents))], ents[rng.IntN(len(ents))]
		in.Edges = append(in.Edges, ariadne.Edge{From: ariadne.PathNode{Key: from}, To: ariadne.PathNode{Key: to},
			Type: "RELATES_TO", ChunkIDs: []string{ids[i%len(ids)], ids[(7*i+3)%len(ids)]}})
	}
	p := defaultWalkParams()
	want := walk(in, p)
	if len(want.Chunks) != 40 {
		t.Fatalf("%d chunks ranked, want 40", len(want.Chunks))
	}
	for run := range 50 {
		shuffled := in
		shuffled.Edges = slices.Clone(in.Edges)
		rng.Shuffle(len(shuffled.Edges), func(i, j int) { shuffled.Edges[i], shuffled.Edges[j] = shuffled.Edges[j], shuffled.Edges[i] })
		got := walk(shuffled, p)
		if !slices.Equal(got.Chunks, want.Chunks) || got.Confidence != want.Confidence {
			t.Fatalf("run %d: order %v (confidence %v), want %v (%v)", run, got.Chunks[:8], got.Confidence, want.Chunks[:8], want.Confidence)
		}
		for id, s := range want.ChunkScore {
			if got.ChunkScore[id] != s {
				t.Fatalf("run %d: %s scores %v, want %v (bit-identical)", run, id, got.ChunkScore[id], s)
			}
		}
	}
}

// With no linked entity, the evidence paths start at the walk's best entities (topEntities: by
// score, ties by key), so a question naming its entity in words the linker cannot confirm still
// gets paths for its chain.
func TestEvidencePathsFromWalkRoots(t *testing.T) {
	roots := topEntities(map[string]float64{"lib": 0.2, "inc": 0.3, "svc": 0.2, "team": 0.05}, 3)
	if !slices.Equal(roots, []string{"inc", "lib", "svc"}) {
		t.Fatalf("topEntities = %v, want inc, then lib and svc (tied, by key)", roots)
	}
	if got := topEntities(map[string]float64{"a": 1}, 3); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("topEntities of one = %v", got)
	}
	n := func(key string) ariadne.PathNode { return ariadne.PathNode{Key: key, Name: key} }
	sg := subgraph{nodes: map[string]ariadne.PathNode{"inc": n("inc"), "team": n("team")},
		edges: []ariadne.Edge{{From: n("team"), To: n("inc"), Type: "HANDLED", ChunkIDs: []string{"inc#0"}}}}
	top := []ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "inc#0"}}}
	if p := evidencePaths(sg, nil, top, pathChunks, 12); len(p) != 0 {
		t.Fatalf("no roots: %d paths", len(p))
	}
	if p := evidencePaths(sg, roots, top, pathChunks, 12); len(p) != 1 || pathSignature(p[0]) != "inc|HANDLED|team" {
		t.Fatalf("from the walk's roots: %+v", p)
	}
}

// TestWalkListsFuse: the multi_hop route's final list, at both ends of the walk's confidence.
func TestWalkListsFuse(t *testing.T) {
	chunk := func(id string) ariadne.ScoredChunk {
		return ariadne.ScoredChunk{Chunk: ariadne.Chunk{ID: id + "#0", DocID: id}}
	}
	l := WalkLists{Hybrid: []ariadne.ScoredChunk{chunk("a"), chunk("b"), chunk("c")}, Walk: []ariadne.ScoredChunk{chunk("c"), chunk("d")}}
	ids := func(cs []ariadne.ScoredChunk) (out []string) {
		for _, c := range cs {
			out = append(out, c.DocID)
		}
		return out
	}
	for _, tc := range []struct {
		conf float64
		want []string
	}{
		// weight 0.5: c 1/63 + 0.5/61, a 1/61, b 1/62, d 0.5/62
		{0, []string{"c", "a", "b", "d"}},
		// weight 1.5: c 1/63 + 1.5/61, d 1.5/62, a 1/61, b 1/62
		{1, []string{"c", "d", "a", "b"}},
	} {
		l.Confidence = tc.conf
		if got := ids(l.Fuse(0.5, 1.5, 2)); !slices.Equal(got, tc.want) {
			t.Errorf("confidence %v: %v, want %v", tc.conf, got, tc.want)
		}
	}
}

// TestNameCosineIsUnitDot: the sparse cosine gives unitDot's result bit for bit, for dense and
// sparse vectors of lengths with and without a tail past a multiple of 4, in either order.
func TestNameCosineIsUnitDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func(n int, density float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			if rng.Float64() < density {
				v[i] = float32(rng.NormFloat64())
			}
		}
		return v
	}
	sparse := 0
	for _, n := range []int{1, 3, 4, 13, 384, 767, 768} {
		for _, da := range []float64{0.02, 0.1, 0.3, 1} {
			for _, db := range []float64{0.02, 0.1, 0.3, 1} {
				for range 20 {
					a, b := newNameUnit(vec(n, da)), newNameUnit(vec(n, db))
					if a.idx != nil {
						sparse++
					}
					want := unitDot(a.dense, b.dense)
					if got := nameCosine(a, b); math.Float64bits(got) != math.Float64bits(want) && !(got == 0 && want == 0) {
						t.Fatalf("n %d: nameCosine %v, unitDot %v", n, got, want)
					}
					if got := nameCosine(b, a); math.Float64bits(got) != math.Float64bits(unitDot(b.dense, a.dense)) && !(got == 0 && want == 0) {
						t.Fatalf("n %d, swapped: nameCosine %v, unitDot %v", n, got, unitDot(b.dense, a.dense))
					}
				}
			}
		}
	}
	if sparse == 0 {
		t.Fatal("no vector took the sparse path")
	}
	if got := nameCosine(newNameUnit([]float32{1, 0}), newNameUnit([]float32{1, 0, 0})); got != 0 {
		t.Errorf("mismatched lengths: %v, want 0", got)
	}
}

// benchNames are 220 entity names, as many as a multi_hop question's walk has at 100k chunks,
// embedded by the lexical embedder (sparse) and as dense unit-normal vectors of e5's width.
func benchNames(b *testing.B) (lexical, dense map[string][]float32) {
	lex := embedding.NewLexical(0)
	rng := rand.New(rand.NewPCG(3, 4))
	first := []string{"Anna", "Boris", "Clara", "Dmitri", "Elena", "Felix", "Galina", "Hugo", "Irina", "Jonas", "Ксения", "Лев"}
	last := []string{"Ivanova", "Petrov", "Schmidt", "Orlova", "Nordic Freight", "Logistics", "Volkov", "Kuznetsova", "Терпласт", "Orbita", "Lumen", "Baltic", "Zenit", "Atlas", "Vega", "Sever", "Mira", "Delta", "Omega"}
	lexical, dense = map[string][]float32{}, map[string][]float32{}
	for i := range 220 {
		name := first[i%len(first)] + " " + last[(i/len(first))%len(last)]
		v, err := lex.EmbedQuery(b.Context(), name)
		if err != nil {
			b.Fatal(err)
		}
		key := fmt.Sprintf("e%03d", i)
		lexical[key] = v
		d := make([]float32, 384)
		for j := range d {
			d[j] = float32(rng.NormFloat64())
		}
		dense[key] = d
	}
	return lexical, dense
}

// BenchmarkSynonymPairs times the synonym edges of one walk: 220 names, ~24 000 pairs.
func BenchmarkSynonymPairs(b *testing.B) {
	lexical, dense := benchNames(b)
	for _, bc := range []struct {
		name string
		vecs map[string][]float32
	}{{"lexical768", lexical}, {"dense384", dense}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				synonymPairs(bc.vecs, 0.95, 2)
			}
		})
	}
}

// TestWalkReachKeepsFirstPass: the first pass's chunks lead the walk's reach in their order, a
// chunk that mentions no entity among them, and a cap keeps them before anything the graph adds
// (before this, reach was sorted by id: "a#…" chunks the graph added pushed a first-pass "z#…"
// chunk out under the cap, and a first-pass chunk without entities was never in it, so the
// walk's ranking dropped hybrid's best hit whenever it named nothing).
func TestWalkReachKeepsFirstPass(t *testing.T) {
	in := walkInput{
		First:         []string{"z#0001", "m#0000", "z#0001", "q#0003"}, // q#0003 mentions no entity
		ChunkEntities: map[string][]string{"z#0001": {"e1"}, "m#0000": {"e2"}},
		DocChunks:     map[string][]string{"e1": {"b#0000", "a#0000"}},
	}
	edges := []ariadne.Edge{{ChunkIDs: []string{"c#0002", "a#0000"}}}
	if got, want := walkReach(in, nil), []string{"z#0001", "m#0000", "q#0003", "a#0000", "b#0000"}; !slices.Equal(got, want) {
		t.Errorf("reach %v, want %v", got, want)
	}
	got := walkReach(in, edges)
	if want := []string{"z#0001", "m#0000", "q#0003", "a#0000", "b#0000", "c#0002"}; !slices.Equal(got, want) {
		t.Errorf("reach with edges %v, want %v", got, want)
	}
	if capped, want := capIDs(got, 4), []string{"z#0001", "m#0000", "q#0003", "a#0000"}; !slices.Equal(capped, want) {
		t.Errorf("cap 4: %v, want %v", capped, want)
	}
}
