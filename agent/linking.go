package agent

import (
	"context"
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Link finds the entities a question names among those the caller (groups) may see: the entity
// fulltext index proposes candidates, as the caller's views, and the resolver's matcher (the same
// normalization, transliteration and inflection rules used at ingestion) confirms them in the
// question text. A name only a restricted document gives is never matched for a caller who may
// not read it. A place the question names is also found by its names in the gazetteer
// (PlaceCandidates): "Vienna" links the entity the knowledge base writes «Вена».
func (r *Retriever) Link(ctx context.Context, question string, groups []string) ([]Linked, error) {
	cands, err := r.graph.EntityCandidates(ctx, question, groups, 60)
	if err != nil {
		return nil, fmt.Errorf("agent: link entities: %w", err)
	}
	places, err := PlaceCandidates(ctx, r.graph.EntityCandidates, r.cfg.Lexicon.Places(), question, groups)
	if err != nil {
		return nil, fmt.Errorf("agent: link entities: %w", err)
	}
	cands = WithPlaceCandidates(cands, places)
	reg := resolution.NewRegistry(nil)
	byKey := map[string]ariadne.EntityCandidate{}
	for _, c := range cands {
		reg.Load(c.Entity, c.Context, c.QuotedAliases)
		byKey[c.Key] = c
	}
	out := []Linked{}
	seen := map[string]bool{}
	names := reg.Matcher()
	found := names.Find(question)
	for _, m := range found {
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
	for _, m := range partialNames(cands, seen).Find(question) {
		if len(m.Keys) != 1 || seen[m.Keys[0]] || !capitalized(m.Surface) ||
			slices.ContainsFunc(found, func(f resolution.Match) bool { return f.Start < m.End && m.Start < f.End }) {
			continue
		}
		k := m.Keys[0]
		seen[k] = true
		c := byKey[k]
		out = append(out, Linked{Key: k, Name: c.Name, Type: c.Type, Surface: m.Surface, LatinName: !hasCyrillic(c.Name), Partial: true, names: names})
	}
	return out, nil
}

// capitalized reports whether s begins with an upper-case letter.
func capitalized(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// partialNames matches the distinctive words of the candidates' names on their own: "the
// Lipetsky plant" names «Липецкий завод металлоконструкций» (alias "Lipetsky Steel Works") by
// the one word the question keeps of it, «Зимин» names «Пётр Зимин». A word is distinctive
// when it is capitalized, not an acronym (those are whole aliases already), at least
// minPartialRunes long, not a legal form, and not a person's first name (the first word of a
// person's name: «Максим» names many). Link takes a match only when it names exactly one
// candidate, is capitalized in the question too (the matcher lets a Latin "Office" match a
// Cyrillic «офис»), and lies outside every whole-name match; skip holds the keys already linked.
func partialNames(cands []ariadne.EntityCandidate, skip map[string]bool) *resolution.Matcher {
	var aliases []resolution.Alias
	for _, c := range cands {
		if skip[c.Key] {
			continue
		}
		for _, name := range append([]string{c.Name}, c.Aliases...) {
			words := textnorm.Words(name)
			if len(words) < 2 {
				continue
			}
			for i, w := range words {
				if !w.Upper || w.AllUpper || utf8.RuneCountInString(w.Text) < minPartialRunes || textnorm.IsLegalForm(w.Text) ||
					i == 0 && c.Type == "person" {
					continue
				}
				aliases = append(aliases, resolution.Alias{Text: w.Text, EntityKey: c.Key, EntityType: c.Type})
			}
		}
	}
	return resolution.NewMatcher(aliases)
}

// minPartialRunes is the shortest word partialNames matches alone: shorter capitalized words of
// names are generic ("Data", "Team", «Порт»).
const minPartialRunes = 5

// wholeLinks returns the links made by a whole name or alias (not Partial): what the routers were
// built and trained on.
func wholeLinks(linked []Linked) []Linked {
	return slices.DeleteFunc(slices.Clone(linked), func(l Linked) bool { return l.Partial })
}
