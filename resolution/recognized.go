package resolution

import (
	"slices"
	"sort"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// ResolveRecognized maps a name that entity recognition (NER) found in running text to an entity
// key, creating the entity when it is new. It returns "" when the name is ambiguous and should
// not become a mention. A recognizer's type is only a guess from its label (slovnet calls one
// company ORG in one sentence, PER or LOC in the next), and its surfaces are inflected forms, so
// the rules differ from Resolve:
//
//   - Documented entities win: a name (or alias) matching exactly one entity a document
//     describes joins it whatever its type; matching several, it joins the one of its own type,
//     or stays ambiguous ("").
//   - Otherwise a person joins the person of the same name and Context (homonyms in different
//     contexts stay apart, as in Resolve), or the only person of that name when either has no
//     Context (is ambiguous among several when it has none); any other name joins the single
//     undocumented entity it matches whatever its type, or among several the one of its type
//     (and Context).
//   - Otherwise it becomes a new undocumented entity (UndocumentedKey of its type, Name and
//     Context) with its Aliases.
//
// Only entities that reach the candidate join it (Registry.Reaches with c.ACL): a name recognized
// in a public chunk does not join a project only a management page defines, and becomes an
// undocumented entity of its own.
//
// Joining an existing entity adds no aliases to it: every recognized surface already matches it
// (Matcher.FindWhole), and aliases of a documented entity are what its document defines, not
// what other chunks write. merged reports a join.
func (r *Registry) ResolveRecognized(c Candidate) (key string, merged bool) {
	key, found, ambiguous := r.FindRecognized(c)
	switch {
	case found:
		r.merges++
		r.widenReach(key, c.ACL, false)
		return key, true
	case ambiguous:
		return "", false
	}
	key = UndocumentedKey(c.Type, c.Name, c.Context)
	r.entities[key] = &ariadne.Entity{Key: key, Name: c.Name, Type: c.Type, Aliases: mergeAliases(nil, c.Aliases, c.Name)}
	r.context[key] = c.Context
	r.setAliases(key)
	r.widenReach(key, c.ACL, true)
	return key, false
}

// FindRecognized is ResolveRecognized without changing the registry: the key of the entity c
// joins (found), or ambiguous when c matches several it cannot choose between; neither when c
// would become a new entity.
func (r *Registry) FindRecognized(c Candidate) (key string, found, ambiguous bool) {
	names := append([]string{c.Name}, c.Aliases...)
	var keys []string
	add := func(ks []string) {
		for _, k := range ks {
			if r.entities[k] != nil && r.Reaches(k, c.ACL) && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	for _, n := range names {
		add(r.Matcher().FindWhole(n).Keys)
		add(r.Matcher().matchedBy(n))
	}
	sort.Strings(keys)
	var documented []string
	for _, k := range keys {
		if r.entities[k].DocID != "" {
			documented = append(documented, k)
		}
	}
	switch {
	case len(documented) == 1:
		return documented[0], true, false
	case len(documented) > 1:
		if k := r.only(documented, func(e string) bool { return compatible(c.Type, r.entities[e].Type) }); k != "" {
			return k, true, false
		}
		return "", false, true
	}
	if c.Type == "person" {
		if k := r.only(keys, func(e string) bool { return r.entities[e].Type == "person" && r.context[e] == c.Context }); k != "" {
			return k, true, false
		}
		// A name without a context is the one person of that name, whatever context that one
		// was named in, and a name in a context is the one person of that name named without
		// one: a note that names «Ирина Левченко» and the company page that names her are one
		// person (outside tester, stop 58: every person a company page named was two entities).
		// Homonyms in two contexts stay apart, and a name without one between them is ambiguous.
		persons := slices.DeleteFunc(slices.Clone(keys), func(e string) bool { return r.entities[e].Type != "person" })
		if len(persons) == 1 && (c.Context == "" || r.context[persons[0]] == "") {
			return persons[0], true, false
		}
		if len(persons) > 1 && c.Context == "" {
			return "", false, true
		}
		keys = slices.DeleteFunc(keys, func(e string) bool { return r.entities[e].Type == "person" })
	}
	switch {
	case len(keys) == 1:
		return keys[0], true, false
	case len(keys) > 1:
		if k := r.only(keys, func(e string) bool {
			return compatible(c.Type, r.entities[e].Type) && r.context[e] == c.Context
		}); k != "" {
			return k, true, false
		}
		return "", false, true
	}
	key = UndocumentedKey(c.Type, c.Name, c.Context)
	if e, ok := r.entities[key]; ok && e != nil {
		return key, true, false // a name FindWhole does not match back (no letters of a known script)
	}
	return "", false, false
}

// matchedBy returns the keys of the known aliases that name, taken as an alias, would match whole:
// the reverse of FindWhole. Matching is not symmetric — Latin text may add up to 3 letters to an
// alias word ("Max" finds "Maxim") but not drop them — so a short form a recognizer found ("Max
// Fedotov") must be checked both ways, or it becomes a new entity that every "Maxim Fedotov"
// then also matches.
func (m *Matcher) matchedBy(name string) []string {
	probe := NewMatcher([]Alias{{Text: name, EntityKey: "probe"}})
	kt := textnorm.KeyTokens(name)
	if len(kt) == 0 {
		return nil
	}
	var out []string
	for _, e := range m.candidates(kt[0]) {
		if !slices.Contains(out, e.EntityKey) && len(probe.FindWhole(e.Text).Keys) > 0 {
			out = append(out, e.EntityKey)
		}
	}
	return out
}

// only returns the single key of keys for which ok holds, or "".
func (r *Registry) only(keys []string, ok func(string) bool) string {
	found := ""
	for _, k := range keys {
		if ok(k) {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}
