package agent

import (
	"context"
	"fmt"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// Link finds the entities a question names among those the caller (groups) may see: the entity
// fulltext index proposes candidates, as the caller's views, and the resolver's matcher (the same
// normalization, transliteration and inflection rules used at ingestion) confirms them in the
// question text. A name only a restricted document gives is never matched for a caller who may
// not read it.
func (r *Retriever) Link(ctx context.Context, question string, groups []string) ([]Linked, error) {
	cands, err := r.graph.EntityCandidates(ctx, question, groups, 60)
	if err != nil {
		return nil, fmt.Errorf("agent: link entities: %w", err)
	}
	reg := resolution.NewRegistry(nil)
	byKey := map[string]ariadne.EntityCandidate{}
	for _, c := range cands {
		reg.Load(c.Entity, c.Context, c.QuotedAliases)
		byKey[c.Key] = c
	}
	out := []Linked{}
	seen := map[string]bool{}
	names := reg.Matcher()
	for _, m := range names.Find(question) {
		if len(m.Keys) > 3 {
			continue // too ambiguous to be evidence
		}
		for _, k := range m.Keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			c := byKey[k]
			out = append(out, Linked{Key: k, Name: c.Name, Type: c.Type, Surface: m.Surface, LatinName: !hasCyrillic(c.Name), names: names})
		}
	}
	return out, nil
}
