package resolution

import (
	"slices"
	"sort"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Candidate is an entity as an extractor proposes it, before resolution.
type Candidate struct {
	Name    string   // surface name as found (source language kept)
	Type    string   // ontology entity type
	Aliases []string // other surface forms the extractor saw for it
	DocID   string   // set when a document describes this entity (its subject)
	// Context is the key of the organization the candidate belongs to, when known (for a person:
	// the client of the document that mentions them). Two people with the same name in different
	// contexts stay two entities.
	Context string
	// ACL is who may read where the candidate was found (its document's or chunks' ACL; empty:
	// public). A described candidate's ACL is its entity's reach (Registry.Reaches); any other
	// candidate only joins an entity whose reach holds every reader of it.
	ACL []string
}

// Registry is the set of resolved entities with their aliases. It is not safe for concurrent
// writes; the ingestion pipeline resolves in one goroutine.
type Registry struct {
	entities map[string]*ariadne.Entity
	aliases  map[string][]Alias // entity key → aliases
	context  map[string]string  // entity key → Context it was created with
	renames  map[string]string  // undocumented key → documented key it was adopted into
	matcher  *Matcher           // rebuilt lazily after changes
	merges   int
	nicks    map[string][]string // textnorm.Key(full first name) → short forms
	// reach is, for an entity a document describes, that document's ACL: who may know what the
	// definition says (its type, its aliases, that two spellings are one thing). Absent or empty:
	// everyone.
	reach map[string][]string
}

// NewRegistry returns an empty registry. nicknames maps full first names to their short forms
// (ontology's `nicknames`), so that «Лена Орлова» finds «Екатерина Белова».
func NewRegistry(nicknames map[string][]string) *Registry {
	r := &Registry{entities: map[string]*ariadne.Entity{}, aliases: map[string][]Alias{},
		context: map[string]string{}, renames: map[string]string{}, nicks: map[string][]string{}, reach: map[string][]string{}}
	for full, short := range nicknames {
		k := textnorm.Key(full)
		r.nicks[k] = append(r.nicks[k], short...)
	}
	return r
}

// personVariants returns the other ways a two-word person name "First Last" is written: with the
// first name's initial, before the surname («А. Морозова») or after it, as reference lists and
// author lines write it («Морозова А.», "Polunin A."), and with each short form of the first
// name («Катя Белова»).
func (r *Registry) personVariants(name string) []string {
	words := textnorm.Words(name)
	if len(words) != 2 || !words[0].Upper || !words[1].Upper || len([]rune(words[0].Text)) < 2 {
		return nil
	}
	first, last := words[0].Text, words[1].Text
	initial := string([]rune(first)[0]) + "."
	out := []string{initial + " " + last, last + " " + initial}
	for _, nick := range r.nicks[textnorm.Key(first)] {
		out = append(out, nick+" "+last)
	}
	return out
}

// UndocumentedKey is the key of an entity no document describes: "<type>:<textnorm.Key(name)>",
// plus "@<context>" when a context separates homonyms.
func UndocumentedKey(typ, name, context string) string {
	k := typ + ":" + textnorm.Key(name)
	if context != "" {
		k += "@" + context
	}
	return k
}

// Load adds an already-resolved entity (e.g. read back from the graph) with its aliases and the
// aliases that only match quoted.
func (r *Registry) Load(e ariadne.Entity, context string, quotedOnly []string) {
	cp := e
	cp.Aliases = slices.Clone(e.Aliases)
	r.entities[e.Key] = &cp
	r.context[e.Key] = context
	r.setAliases(e.Key)
	for _, q := range quotedOnly {
		r.AddAlias(e.Key, Alias{Text: q, QuotedOnly: true})
	}
}

// SetReach records who may read the document that defines an entity (its ACL; empty: everyone),
// for an entity loaded with Load; Resolve records it for the candidates it is given.
func (r *Registry) SetReach(key string, acl []string) {
	if ariadne.ReadersWithin(nil, acl) { // public: no restriction to record
		delete(r.reach, key)
		return
	}
	r.reach[key] = slices.Clone(acl)
}

// widenReach records that a text readable by acl names the undocumented entity key on its own
// evidence (recognition or discovery found the name there): the entity reaches acl's readers
// too. A new undocumented entity reaches only the readers of the text that gave it, so a name
// found only in a management note is not linked to a public chunk that writes it (the readers of
// that chunk would see an entity only the management note makes). Documented entities keep
// their document's reach.
func (r *Registry) widenReach(key string, acl []string, created bool) {
	if e := r.entities[key]; e == nil || e.DocID != "" {
		return
	}
	if created {
		r.SetReach(key, acl)
		return
	}
	if cur, restricted := r.reach[key]; restricted { // else everyone already
		r.SetReach(key, ariadne.WiderACL(cur, acl))
	}
}

// Reach returns the ACL recorded by SetReach or Resolve (nil: everyone).
func (r *Registry) Reach(key string) []string { return r.reach[key] }

// Reaches reports whether a text readable by acl may be linked to the entity by its names: every
// caller who may read the text may read the entity's definition (ariadne.ReadersWithin). A public
// chunk naming a project that only a management page defines is not linked to that project:
// its link would show every reader the page's type, aliases and relations.
func (r *Registry) Reaches(key string, acl []string) bool {
	return ariadne.ReadersWithin(acl, r.reach[key])
}

// QuotedAliases returns the aliases of an entity that only match quoted.
func (r *Registry) QuotedAliases(key string) []string {
	var out []string
	for _, a := range r.aliases[key] {
		if a.QuotedOnly {
			out = append(out, a.Text)
		}
	}
	return out
}

// setAliases recompiles the alias list of one entity from its name and aliases. A new entity's
// aliases are added to the compiled matcher; replacing an entity's aliases recompiles it lazily.
func (r *Registry) setAliases(key string) {
	e := r.entities[key]
	_, had := r.aliases[key]
	var out []Alias
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		out = append(out, Alias{Text: n, EntityKey: key, EntityType: e.Type})
		if e.Type == "person" {
			for _, v := range r.personVariants(n) {
				out = append(out, Alias{Text: v, EntityKey: key, EntityType: e.Type})
			}
		}
	}
	r.aliases[key] = out
	if had || r.matcher == nil {
		r.matcher = nil
		return
	}
	for _, a := range out {
		r.matcher.add(a)
	}
}

// AddAlias records another alias for an existing entity. QuotedOnly aliases only match quoted.
func (r *Registry) AddAlias(key string, a Alias) {
	e, ok := r.entities[key]
	if !ok {
		return
	}
	a.EntityKey, a.EntityType = key, e.Type
	if !a.QuotedOnly && !slices.Contains(e.Aliases, a.Text) && a.Text != e.Name {
		e.Aliases = append(e.Aliases, a.Text)
	}
	for _, x := range r.aliases[key] {
		if x.Text == a.Text && x.QuotedOnly == a.QuotedOnly {
			return
		}
	}
	r.aliases[key] = append(r.aliases[key], a)
	if r.matcher != nil {
		r.matcher.add(a)
	}
}

// Get returns the entity with key, if any.
func (r *Registry) Get(key string) (ariadne.Entity, bool) {
	e, ok := r.entities[key]
	if !ok {
		return ariadne.Entity{}, false
	}
	return *e, true
}

// Entities returns all entities, sorted by key.
func (r *Registry) Entities() []ariadne.Entity {
	out := make([]ariadne.Entity, 0, len(r.entities))
	for _, e := range r.entities {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Context returns the context an entity was resolved in ("" when none).
func (r *Registry) Context(key string) string { return r.context[key] }

// Renames returns the undocumented entities that were adopted by a document in this registry:
// old key → documented key.
func (r *Registry) Renames() map[string]string { return r.renames }

// Merges returns how many candidates were merged into an existing entity.
func (r *Registry) Merges() int { return r.merges }

// Matcher returns a matcher over every alias in the registry.
func (r *Registry) Matcher() *Matcher {
	if r.matcher == nil {
		var all []Alias
		keys := make([]string, 0, len(r.aliases))
		for k := range r.aliases {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			all = append(all, r.aliases[k]...)
		}
		r.matcher = NewMatcher(all)
	}
	return r.matcher
}

// compatible reports whether an entity of type have may absorb a candidate of type want. A code
// ("identifier") may name an entity of any type (INC-7702 is an incident); clients are
// organizations.
func compatible(want, have string) bool {
	if want == have || want == "" || want == "identifier" {
		return true
	}
	org := func(t string) bool { return t == "client" || t == "organization" }
	return org(want) && org(have)
}

// Resolve maps a candidate to an entity key, creating or updating the entity, and returns the key
// and whether the candidate was merged into an entity that existed before.
//
// A candidate with a DocID is the entity that document describes: its key is the DocID, its ACL
// the entity's reach (Reaches), and an undocumented entity of a compatible type with the same
// name is adopted (see Renames) when every reader of it may read the document. A candidate without one is merged into the single compatible
// entity that reaches it (Reaches with c.ACL) and one of its names matches
// (see Matcher.FindWhole); among several, the one with the same Context wins; otherwise it becomes
// a new entity.
func (r *Registry) Resolve(c Candidate) (string, bool) {
	names := append([]string{c.Name}, c.Aliases...)
	if c.DocID != "" {
		key := c.DocID
		if e, ok := r.entities[key]; ok {
			e.Name, e.Type, e.DocID = c.Name, c.Type, c.DocID
			e.Aliases = mergeAliases(nil, c.Aliases, c.Name)
			r.SetReach(key, c.ACL)
			r.setAliases(key)
			return key, false
		}
		for _, n := range names {
			for _, k := range r.Matcher().FindWhole(n).Keys {
				old := r.entities[k]
				// A code found before its page (INC-2041 in a note, read before the incident's
				// page) is the page's subject too: left apart, every later mention of the code
				// named two entities and linked neither (outside tester). Only when every reader
				// of the texts that gave it may read the page (its reach within c.ACL): a
				// management contract does not take «NB-913» from a public note, whose readers
				// would lose the code's entity to a page they may not read, and get it back when
				// the page is deleted (F1). Written in one run, they stay apart as well: subjects
				// resolve before the names found in texts, which join no entity they do not
				// reach (lookup).
				if old != nil && old.DocID == "" && (compatible(c.Type, old.Type) || old.Type == "identifier") &&
					ariadne.ReadersWithin(r.reach[k], c.ACL) {
					r.renames[k] = key
					delete(r.entities, k)
					delete(r.aliases, k)
					r.matcher = nil
					c.Aliases = mergeAliases(c.Aliases, append([]string{old.Name}, old.Aliases...), c.Name)
				}
			}
		}
		r.entities[key] = &ariadne.Entity{Key: key, Name: c.Name, Type: c.Type, DocID: c.DocID,
			Aliases: mergeAliases(nil, c.Aliases, c.Name)}
		r.context[key] = c.Context
		r.SetReach(key, c.ACL)
		r.setAliases(key)
		return key, false
	}
	if key, ok := r.lookup(c, names); ok {
		for _, n := range names {
			r.AddAlias(key, Alias{Text: n})
		}
		r.merges++
		r.widenReach(key, c.ACL, false)
		return key, true
	}
	key := UndocumentedKey(c.Type, c.Name, c.Context)
	if _, ok := r.entities[key]; ok {
		for _, n := range names {
			r.AddAlias(key, Alias{Text: n})
		}
		r.merges++
		r.widenReach(key, c.ACL, false)
		return key, true
	}
	r.entities[key] = &ariadne.Entity{Key: key, Name: c.Name, Type: c.Type, Aliases: mergeAliases(nil, c.Aliases, c.Name)}
	r.context[key] = c.Context
	r.setAliases(key)
	r.widenReach(key, c.ACL, true)
	return key, false
}

// lookup finds the existing entity a candidate names.
func (r *Registry) lookup(c Candidate, names []string) (string, bool) {
	found := map[string]bool{}
	var keys []string
	for _, n := range names {
		for _, k := range r.Matcher().FindWhole(n).Keys {
			e := r.entities[k]
			if e != nil && compatible(c.Type, e.Type) && r.Reaches(k, c.ACL) && !found[k] {
				found[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return "", false
	}
	sort.Strings(keys)
	if c.Type == "person" {
		// Homonyms: only an entity of the same context (or one without any, when the candidate
		// has none) is the same person.
		var same []string
		for _, k := range keys {
			if ctx := r.context[k]; ctx == c.Context || (ctx == "" && r.entities[k].DocID != "" && len(keys) == 1) {
				same = append(same, k)
			}
		}
		if len(same) == 1 {
			return same[0], true
		}
		return "", false
	}
	if len(keys) == 1 {
		return keys[0], true
	}
	for _, k := range keys {
		if r.context[k] == c.Context && c.Context != "" {
			return k, true
		}
	}
	return "", false
}

func mergeAliases(base, more []string, name string) []string {
	out := slices.Clone(base)
	for _, a := range more {
		a = strings.TrimSpace(a)
		if a != "" && a != name && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
