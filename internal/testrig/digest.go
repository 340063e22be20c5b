package testrig

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/vector"
)

// State is the content of both stores: the graph digest of a Neo4j namespace and the digest of a
// Weaviate class (graph.Digest, vector.Digest). Reliability tests compare the state after faults
// with the state of a clean run over the same corpus, each in a namespace and class of its own.
type State struct {
	Graph  graph.Digest
	Vector vector.Digest
	// IndexLost are the chunks the vector index does not return for their own vector
	// (vector.Store.SelfCheck over every object): a Weaviate crash can lose HNSW entries while
	// the objects and vectors the digest compares survive.
	IndexLost []string
}

// StateDigest reads both stores.
func StateDigest(ctx context.Context, g *graph.Store, v *vector.Store) (State, error) {
	gd, err := g.Digest(ctx)
	if err != nil {
		return State{}, err
	}
	vd, err := v.Digest(ctx)
	if err != nil {
		return State{}, err
	}
	ic, err := v.SelfCheck(ctx, len(vd.Objects))
	if err != nil {
		return State{}, err
	}
	return State{Graph: gd, Vector: vd, IndexLost: ic.Lost}, nil
}

// Problems lists the violations of the invariants one state must hold on its own: no duplicate
// entity key, no orphan (chunk without document, entity without support, relation without or
// with dangling provenance), every graph chunk has exactly one vector object and every vector
// object a graph chunk, no object without a vector, and every object found by its own vector.
func (s State) Problems() []string {
	var out []string
	if n := len(s.IndexLost); n > 0 {
		out = append(out, fmt.Sprintf("%d chunks not found by their own vector (lost HNSW entries), first %s", n, s.IndexLost[0]))
	}
	if n := s.Graph.DuplicateEntityKeys; n > 0 {
		out = append(out, fmt.Sprintf("%d entity keys held by more than one node", n))
	}
	if a := s.Graph.Orphans; a != (graph.Audit{}) {
		out = append(out, fmt.Sprintf("graph audit not clean: %+v", a))
	}
	if n := s.Vector.Duplicates; n > 0 {
		out = append(out, fmt.Sprintf("%d chunk ids held by more than one Weaviate object", n))
	}
	inGraph := map[string]bool{}
	for _, id := range s.Graph.ChunkIDs {
		inGraph[id] = true
		o, ok := s.Vector.Objects[id]
		switch {
		case !ok:
			out = append(out, "chunk without vector: "+id)
		case len(o.Vector) == 0:
			out = append(out, "Weaviate object without a vector: "+id)
		}
	}
	for id := range s.Vector.Objects {
		if !inGraph[id] {
			out = append(out, "vector without chunk: "+id)
		}
	}
	sort.Strings(out)
	return out
}

// MinCosine is the cosine similarity under which two vectors of one chunk count as different:
// the same text embedded by the same model in another batch differs only in float rounding.
const MinCosine = 0.9999

// Diff lists how s differs from want, part by part: each graph part's hash, the Weaviate
// properties' hash, the set of chunk ids with vectors, and each chunk's vector (cosine below
// MinCosine). Empty means equal.
func (s State) Diff(want State) []string {
	var out []string
	for _, p := range []struct{ name, got, want string }{
		{"documents", s.Graph.Documents, want.Graph.Documents},
		{"chunks", s.Graph.Chunks, want.Graph.Chunks},
		{"entities", s.Graph.Entities, want.Graph.Entities},
		{"relations (with provenance)", s.Graph.Relations, want.Graph.Relations},
		{"mentions", s.Graph.Mentions, want.Graph.Mentions},
		{"chunk and document links", s.Graph.Links, want.Graph.Links},
		{"Weaviate properties", s.Vector.Props, want.Vector.Props},
	} {
		if p.got != p.want {
			out = append(out, fmt.Sprintf("%s differ (got %.12s, want %.12s)", p.name, p.got, p.want))
		}
	}
	if s.Graph.Counts != want.Graph.Counts {
		out = append(out, fmt.Sprintf("graph counts %+v, want %+v", s.Graph.Counts, want.Graph.Counts))
	}
	for id, w := range want.Vector.Objects {
		g, ok := s.Vector.Objects[id]
		if !ok {
			out = append(out, "missing vector: "+id)
			continue
		}
		if c := cosine(g.Vector, w.Vector); c < MinCosine {
			out = append(out, fmt.Sprintf("vector of %s differs (cosine %.6f)", id, c))
		}
	}
	for id := range s.Vector.Objects {
		if _, ok := want.Vector.Objects[id]; !ok {
			out = append(out, "extra vector: "+id)
		}
	}
	sort.Strings(out)
	return out
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
