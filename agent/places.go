package agent

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// placeMatchers holds, per gazetteer, two matchers over the places' names (Place.Names: English
// names, Russian names, "St." forms), keyed by the place's index: one over the names in Cyrillic
// script, one over the others. A name is matched in its own script only (inflected, as the
// resolver's matcher does): across scripts the resolver would match by transliteration, and
// GeoNames' other names make that find "Juara" (Brazil) in «ЮАР»; exonyms are names of their own
// in the file. Built once, by WarmPlaces or on the first question.
var placeMatchers sync.Map // *lexicon.Gazetteer → func() [2]*resolution.Matcher

func placeMatcher(g *lexicon.Gazetteer) [2]*resolution.Matcher {
	build, _ := placeMatchers.LoadOrStore(g, sync.OnceValue(func() [2]*resolution.Matcher {
		var aliases [2][]resolution.Alias
		for i := range g.Size() {
			key := strconv.Itoa(i)
			for _, n := range g.Place(i).Names {
				s := scriptIndex(hasCyrillic(n))
				aliases[s] = append(aliases[s], resolution.Alias{Text: n, EntityKey: key, EntityType: "location"})
			}
		}
		return [2]*resolution.Matcher{resolution.NewMatcher(aliases[0]), resolution.NewMatcher(aliases[1])}
	}))
	return build.(func() [2]*resolution.Matcher)()
}

// WarmPlaces builds the gazetteer's place matcher ahead of the first question that names a place
// (about 0.7 s and 15 MB for the 34 169 places of cities15000 and the CLDR); nothing without a
// gazetteer.
func (r *Retriever) WarmPlaces() {
	if g := r.cfg.Lexicon.Places(); g != nil {
		placeMatcher(g)
	}
}

// CandidateSearch is the entity index's search (graph.Store.EntityCandidates): entities whose
// names match text, as the caller (groups) may see them.
type CandidateSearch func(ctx context.Context, text string, groups []string, limit int) ([]ariadne.EntityCandidate, error)

// PlaceCandidates returns the location entities, as the caller (groups) may see them, of the
// places text names by a name their entities may not have: "Vienna" asked of a knowledge base
// that writes only «Вена». The gazetteer finds the places in text (placesIn); search is run with
// each place's names, and a location candidate one of whose names is a name of the place is
// returned with the place's names added to its aliases, so that the resolver's matcher then finds
// it in text. The names
// added are the gazetteer's (public reference data), never a restricted chunk's; which entities
// are returned is search's answer for groups. Nil without a gazetteer.
func PlaceCandidates(ctx context.Context, search CandidateSearch, g *lexicon.Gazetteer, text string, groups []string) ([]ariadne.EntityCandidate, error) {
	if g == nil {
		return nil, nil
	}
	var out []ariadne.EntityCandidate
	seen := map[string]bool{}
	for _, m := range placesIn(g, text) {
		p := m.Place
		if seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		cands, err := search(ctx, strings.Join(p.Names, " "), groups, 20)
		if err != nil {
			return nil, err
		}
		var aliases []resolution.Alias
		for _, n := range p.Names {
			aliases = append(aliases, resolution.Alias{Text: n, EntityKey: "place", EntityType: "location"})
		}
		names := resolution.NewMatcher(aliases)
		for _, c := range cands {
			if c.Type != "location" || !slices.ContainsFunc(append([]string{c.Name}, c.Aliases...), func(n string) bool {
				return len(names.FindWhole(n).Keys) > 0
			}) {
				continue
			}
			c.Aliases = slices.Clone(c.Aliases) // the caller's view is shared with the index's answer
			for _, n := range p.Names {
				if n != c.Name && !slices.Contains(c.Aliases, n) {
					c.Aliases = append(c.Aliases, n)
				}
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// placeMention is a place a text names (Place) with the byte offsets of the name in the text.
type placeMention struct {
	lexicon.Place
	Start, End int
}

// placesIn returns the places text names, in text order: capitalized surfaces of three letters or
// more (or an acronym: "UK") that the gazetteer's matchers find in their own script
// (placeMatcher), not a part of a hyphenated word («Южно» of «Южно-Африканской»); a name as the
// gazetteer writes it is chosen as at ingestion (Gazetteer.Lookup: «Венёв» is not Vienna,
// "Odessa" — Ukraine's or Texas's — nobody's), an inflected one («в Вене») by Gazetteer.Choose
// among the places the matcher finds for it. Nil without a gazetteer.
func placesIn(g *lexicon.Gazetteer, text string) []placeMention {
	if g == nil {
		return nil
	}
	var out []placeMention
	for s, matcher := range placeMatcher(g) {
		for _, m := range matcher.Find(text) {
			if !capitalized(m.Surface) || scriptIndex(hasCyrillic(m.Surface)) != s || utf8.RuneCountInString(m.Surface) < 3 && strings.ToUpper(m.Surface) != m.Surface ||
				resolution.InCompound(text, m.Start, m.End) {
				continue
			}
			p, named, ok := g.Lookup(m.Surface)
			if !named {
				idx := make([]int, 0, len(m.Keys))
				for _, k := range m.Keys {
					i, _ := strconv.Atoi(k)
					idx = append(idx, i)
				}
				p, ok = g.Choose(idx)
			}
			if ok {
				out = append(out, placeMention{Place: p, Start: m.Start, End: m.End})
			}
		}
	}
	slices.SortFunc(out, func(a, b placeMention) int { return a.Start - b.Start })
	return out
}

// WithPlaceCandidates returns cands with places (PlaceCandidates) merged in: a candidate of both
// takes the place's view (its aliases extended), one only of places is appended.
func WithPlaceCandidates(cands, places []ariadne.EntityCandidate) []ariadne.EntityCandidate {
	for _, p := range places {
		if i := slices.IndexFunc(cands, func(c ariadne.EntityCandidate) bool { return c.Key == p.Key }); i >= 0 {
			cands[i] = p
		} else {
			cands = append(cands, p)
		}
	}
	return cands
}
