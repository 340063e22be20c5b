package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// ChunkReader reads chunks by id as a caller (groups) may read them; a chunk the caller may not
// read is not returned (graph.Store).
type ChunkReader interface {
	Chunks(ctx context.Context, ids []string, groups []string) ([]ariadne.Chunk, error)
}

// ChainHop is one hop of the evidence path a multi-hop answer cites: the relation between two
// entities and the verified sentence of a readable chunk that names both.
type ChainHop struct {
	From     string           `json:"from"` // entity name as the caller may see it
	To       string           `json:"to"`
	Type     string           `json:"type"` // relationship type
	Citation ariadne.Citation `json:"citation"`
}

// chainClaims finds, for the best evidence path, one sentence per hop: a unit of one of the
// edge's provenance chunks (readable by the caller: the path's chunk ids already are, and the
// chunks are read again as the caller) that names both ends of the edge by name (Latin keys, so
// either script and inflected forms match; one end may be named by the chunk's title or section
// instead). A path is claimed only when every hop has such a sentence; among those, the one with
// the most hops (≤ 3), first in retrieval order. The claims are verified like any other
// (Verify, levels 1–2) against fragments that include the chunks read for them.
func (a *Answerer) chainClaims(ctx context.Context, req Request, paths []ariadne.Path, frags []Fragment) ([]ariadne.Claim, []ChainHop, error) {
	byID := map[string]Fragment{}
	for _, f := range frags {
		byID[f.Chunk.ID] = f
	}
	var missing []string
	for _, p := range paths {
		for _, e := range p.Edges {
			for _, id := range e.ChunkIDs {
				if _, ok := byID[id]; !ok && !containsString(missing, id) {
					missing = append(missing, id)
				}
			}
		}
	}
	all := append([]Fragment(nil), frags...)
	if len(missing) > 0 && a.cfg.Chunks != nil {
		cs, err := a.cfg.Chunks.Chunks(ctx, missing, req.Groups)
		if err != nil {
			return nil, nil, fmt.Errorf("agent: read chain chunks: %w", err)
		}
		for _, c := range cs {
			if !ariadne.CanRead(c.ACL, req.Groups) {
				continue // defence in depth: the reader already filters
			}
			f := Fragment{N: len(all) + 1, Chunk: c}
			all = append(all, f)
			byID[c.ID] = f
		}
	}
	var best []hopUnit
	var bestPath ariadne.Path
	for _, p := range paths {
		if p.Hops() == 0 || p.Hops() > 3 || p.Hops() <= len(best) {
			continue
		}
		nodes := map[string]ariadne.PathNode{}
		for _, n := range p.Nodes {
			nodes[n.Key] = n
		}
		var hops []hopUnit
		for _, e := range p.Edges {
			h, ok := hopSentence(nodes[e.From], nodes[e.To], e.ChunkIDs, byID)
			if !ok {
				break
			}
			hops = append(hops, h)
		}
		if len(hops) == p.Hops() {
			best, bestPath = hops, p
		}
	}
	if len(best) == 0 {
		return nil, nil, nil
	}
	out := Output{}
	for _, h := range best {
		out.Claims = append(out.Claims, OutputClaim{Text: h.quote, Citations: []OutputCitation{{Fragment: h.frag.N, ChunkID: h.frag.Chunk.ID, Quote: h.quote}}})
	}
	v, err := Verify(ctx, out, all, nil)
	if err != nil || len(v.Claims) != len(best) {
		return nil, nil, err // a hop that does not verify: the chain is not claimed
	}
	names := map[string]string{}
	for _, n := range bestPath.Nodes {
		names[n.Key] = n.Name
	}
	var chain []ChainHop
	for i, e := range bestPath.Edges {
		chain = append(chain, ChainHop{From: names[e.From], To: names[e.To], Type: e.Type, Citation: v.Claims[i].Citations[0]})
	}
	return v.Claims, chain, nil
}

type hopUnit struct {
	frag  Fragment
	quote string
}

// hopSentence returns the shortest unit of the edge's chunks that names both ends.
func hopSentence(from, to ariadne.PathNode, chunkIDs []string, byID map[string]Fragment) (hopUnit, bool) {
	var best hopUnit
	for _, id := range chunkIDs {
		f, ok := byID[id]
		if !ok {
			continue
		}
		ctxText := f.Chunk.Title + " " + f.Chunk.HeadingPath()
		fromCtx, toCtx := namesEntity(ctxText, from.Name), namesEntity(ctxText, to.Name)
		for _, u := range splitUnits(f.Chunk.Text) {
			if injectionRE.MatchString(u) {
				continue
			}
			inFrom, inTo := namesEntity(u, from.Name), namesEntity(u, to.Name)
			if inFrom && inTo || inFrom && toCtx || inTo && fromCtx {
				if best.quote == "" || len(u) < len(best.quote) {
					best = hopUnit{f, u}
				}
			}
		}
	}
	return best, best.quote != ""
}

// namesEntity reports whether text names the entity: every token of the name's Latin key starts a
// token of the text's Latin key (the first max(4, n−2) letters of longer tokens, three of
// four-letter ones, so «Иванова»
// names "Ivanov" and "Omega Logistic" names «Омега Логистик»), or is given by its initial («М.
// Орлова» names Марина Орлова) while at least one token matches in full.
func namesEntity(text, name string) bool {
	nts := textnorm.KeyTokens(name)
	if len(nts) == 0 {
		return false
	}
	toks := textnorm.KeyTokens(text)
	full := 0
	for _, nt := range nts {
		stem := nt
		switch r := []rune(nt); {
		case len(r) >= 5:
			stem = string(r[:max(4, len(r)-2)])
		case len(r) == 4 && !numberRE.MatchString(nt):
			stem = string(r[:3]) // «Ольгу», «Ольги» name Ольга
		}
		ok, initial := false, false
		for _, t := range toks {
			if strings.HasPrefix(t, stem) {
				ok = true
				break
			}
			if len(nts) > 1 && len([]rune(t)) == 1 && strings.HasPrefix(nt, t) {
				initial = true
			}
		}
		switch {
		case ok:
			full++
		case !initial:
			return false
		}
	}
	return full > 0
}
