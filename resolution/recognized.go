package resolution

import (
	"slices"
	"sort"

	"github.com/ariadne-graphrag/ariadne"
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
//     contexts stay apart, as in Resolve); any other name joins the single undocumented entity
//     it matches whatever its type, or among several the one of its type (and Context).
//   - Otherwise it becomes a new undocumented entity (UndocumentedKey of its type, Name and
//     Context) with its Aliases.
//
// Joining an existing entity adds no aliases to it: every recognized surface already matches it
// (Matcher.FindWhole), and aliases of a documented entity are what its document defines, not
// what other chunks write. merged reports a join.
func (r *Registry) ResolveRecognized(c Candidate) (key string, merged bool) {
	names := append([]string{c.Name}, c.Aliases...)
	var keys []string
	for _, n := range names {
		for _, k := range r.Matcher().FindWhole(n).Keys {
			if r.entities[k] != nil && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	var documented []string
	for _, k := range keys {
		if r.entities[k].DocID != "" {
			documented = append(documented, k)
		}
	}
	join := func(k string) (string, bool) { r.merges++; return k, true }
	switch {
	case len(documented) == 1:
		return join(documented[0])
	case len(documented) > 1:
		if k := r.only(documented, func(e string) bool { return compatible(c.Type, r.entities[e].Type) }); k != "" {
			return join(k)
		}
		return "", false
	}
	if c.Type == "person" {
		if k := r.only(keys, func(e string) bool { return r.entities[e].Type == "person" && r.context[e] == c.Context }); k != "" {
			return join(k)
		}
		keys = slices.DeleteFunc(keys, func(e string) bool { return r.entities[e].Type == "person" })
	}
	switch {
	case len(keys) == 1:
		return join(keys[0])
	case len(keys) > 1:
		if k := r.only(keys, func(e string) bool {
			return compatible(c.Type, r.entities[e].Type) && r.context[e] == c.Context
		}); k != "" {
			return join(k)
		}
		return "", false
	}
	key = UndocumentedKey(c.Type, c.Name, c.Context)
	if e, ok := r.entities[key]; ok && e != nil {
		return join(key) // a name FindWhole does not match back (no letters of a known script)
	}
	r.entities[key] = &ariadne.Entity{Key: key, Name: c.Name, Type: c.Type, Aliases: mergeAliases(nil, c.Aliases, c.Name)}
	r.context[key] = c.Context
	r.setAliases(key)
	return key, false
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
