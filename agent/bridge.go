package agent

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Second hop by query reformulation with a bridge entity: the question's second hop is about an
// entity the question does not name ("the founder of the company that published X": the first
// pass finds X's passage, which names the publisher), so the question searched again together with
// the name of an entity the first pass's top chunks mention finds passages the question's own
// words do not. This is the entity form of iterative retrieval (IRCoT, Trivedi et al., ACL 2023,
// which lets a model write the next query; here the graph's entities of the retrieved chunks are
// the candidates, no model).

// bridgeCandidates returns up to m entities mentioned by the top chunks of first (in rank order,
// then by how many of those chunks mention them, then by key) whose names are not already in the
// question (every search term of the name among the question's), as (key, name) pairs.
func bridgeCandidates(question string, first []ariadne.ScoredChunk, chunkEnts map[string][]string, names map[string]string, m int) [][2]string {
	qTerms := textnorm.SearchTerms(question)
	type cand struct {
		key, name   string
		rank, count int
	}
	byKey := map[string]*cand{}
	var order []*cand
	for i, c := range first {
		for _, k := range chunkEnts[c.ID] {
			if x, ok := byKey[k]; ok {
				x.count++
				continue
			}
			name := names[k]
			if name == "" {
				continue
			}
			ts := textnorm.SearchTerms(name)
			if len(ts) == 0 || !slices.ContainsFunc(ts, func(t string) bool { return !slices.Contains(qTerms, t) }) {
				continue // the question names it already
			}
			x := &cand{key: k, name: name, rank: i, count: 1}
			byKey[k] = x
			order = append(order, x)
		}
	}
	slices.SortStableFunc(order, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(b.count, a.count), strings.Compare(a.key, b.key))
	})
	var out [][2]string
	for _, x := range order[:min(m, len(order))] {
		out = append(out, [2]string{x.key, x.name})
	}
	return out
}

// BridgeHop reads the entities the top depth chunks of first mention (as the caller may read
// them), picks up to m that the question does not name (bridgeCandidates) and returns one hybrid
// search per bridge: the bridge's name and the question, embedded and searched together
// (Candidates chunks each, best first, the caller's groups). No entity: nil. Names are the mention
// reader's, as the caller may see them.
func (r *Retriever) BridgeHop(ctx context.Context, req Request, first []ariadne.ScoredChunk, depth, m int, tr *Trace) ([][]ariadne.ScoredChunk, [][2]string, error) {
	if tr == nil {
		tr = newTrace()
	}
	top := first[:min(depth, len(first))]
	mr, ok := r.graph.(MentionReader)
	if len(top) == 0 || !ok {
		return nil, nil, nil
	}
	var ids []string
	for _, c := range top {
		ids = append(ids, c.ID)
	}
	chunkEnts, err := r.graph.EntitiesOfChunks(ctx, ids, req.Groups)
	if err != nil {
		return nil, nil, fmt.Errorf("agent: bridge entities: %w", err)
	}
	set := map[string]bool{}
	for _, ks := range chunkEnts {
		for _, k := range ks {
			set[k] = true
		}
	}
	keys := slices.Sorted(maps.Keys(set))
	if len(keys) == 0 {
		return nil, nil, nil
	}
	// Only the names are needed: expand 1 stops the count of each entity's readable mentions at 2
	// and lists none for an entity with more. Counting a hub's (expand 0: up to 2 000, each
	// chunk's groups read, and its first chunk id sorted out of them all) more than doubled the
	// route's Neo4j time on a 100 000-chunk graph (docs/performance.md, "The bridge hop at 100k").
	ments, err := mr.EntityMentions(ctx, keys, req.Groups, 1, 1)
	if err != nil {
		return nil, nil, fmt.Errorf("agent: bridge entity names: %w", err)
	}
	names := map[string]string{}
	for k, em := range ments {
		names[k] = em.Node.Name // as the caller may see it (an opaque entity: a readable surface)
	}
	bridges := bridgeCandidates(req.Question, top, chunkEnts, names, m)
	var lists [][]ariadne.ScoredChunk
	for _, b := range bridges {
		text := b[1] + ". " + req.Question
		vec, err := r.embedQuery(ctx, text, tr)
		if err != nil {
			return nil, nil, err
		}
		hits, err := r.search(ctx, ariadne.SearchHybrid, ariadne.SearchQuery{Text: text, Terms: textnorm.SearchTerms(text), Vector: vec,
			Alpha: r.cfg.Alpha, Fusion: r.cfg.Fusion, Groups: req.Groups, Limit: r.cfg.Candidates}, tr)
		if err != nil {
			return nil, nil, err
		}
		lists = append(lists, hits)
	}
	return lists, bridges, nil
}
