package extraction

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// Input is one document with its chunks and the key of the entity it describes ("" when none).
type Input struct {
	Doc        ariadne.Document
	Chunks     []ariadne.Chunk
	SubjectKey string
	// Recognized holds, by chunk id, the entities recognition found and resolved (NER.Recognize);
	// nil when recognition is off. The dictionary extractor adds them where no known name
	// overlaps, and relates the entities named in one sentence (CoOccurrence).
	Recognized map[string][]Recognized
}

// Facts is what an extractor states about one document: which chunks mention which entities and
// which relations its chunks support. Entity keys are resolved through the registry.
type Facts struct {
	DocID     string
	Mentions  []ariadne.Mention  // sorted by chunk id, then entity key
	Relations []ariadne.Relation // sorted by source, type, target; ChunkIDs sorted
}

// relationSet accumulates relations with their supporting chunks.
type relationSet map[[3]string]map[string]bool

func (rs relationSet) add(src, typ, dst, chunkID string) {
	k := [3]string{src, typ, dst}
	if rs[k] == nil {
		rs[k] = map[string]bool{}
	}
	rs[k][chunkID] = true
}

func (rs relationSet) list() []ariadne.Relation {
	out := make([]ariadne.Relation, 0, len(rs))
	for k, chunks := range rs {
		ids := make([]string, 0, len(chunks))
		for id := range chunks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		out = append(out, ariadne.Relation{Source: k[0], Type: k[1], Target: k[2], ChunkIDs: ids})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Target < b.Target
	})
	return out
}

func sortMentions(ms []ariadne.Mention) []ariadne.Mention {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].ChunkID != ms[j].ChunkID {
			return ms[i].ChunkID < ms[j].ChunkID
		}
		if ms[i].EntityKey != ms[j].EntityKey {
			return ms[i].EntityKey < ms[j].EntityKey
		}
		if ms[i].Surface != ms[j].Surface {
			return ms[i].Surface < ms[j].Surface
		}
		return ms[i].Name > ms[j].Name // a mention that carries its name is the one kept
	})
	return slices.CompactFunc(ms, func(a, b ariadne.Mention) bool {
		return a.ChunkID == b.ChunkID && a.EntityKey == b.EntityKey && a.Surface == b.Surface
	})
}

// Dictionary is the offline extractor: known names found in chunk text (resolution.Matcher),
// relations from the document's subject to each mentioned entity typed by the ontology.
type Dictionary struct{ onto *ontology.Ontology }

// NewDictionary returns the offline extractor.
func NewDictionary(o *ontology.Ontology) *Dictionary { return &Dictionary{onto: o} }

// Name identifies the extractor and its rules' version.
func (d *Dictionary) Name() string { return "dictionary-v1" }

// Extract finds, in every chunk, the names the registry knows. A surface that several entities
// share is attributed to the one this document describes, or to the one recognition resolved at
// that place, or dropped as ambiguous. With recognition on (in.Recognized not nil), the
// recognized entities that no known name overlaps are mentions too, and the entities named in
// one sentence are related (CoOccurrence) — in documents without a subject, or whose subject's
// type has no relation_rules in the ontology (an article, a note): where the ontology types the
// relations of a page (a project, a person), those typed relations are what the page states.
func (d *Dictionary) Extract(_ context.Context, in Input, reg *resolution.Registry) (Facts, error) {
	m := reg.Matcher()
	subj, hasSubj := reg.Get(in.SubjectKey)
	rels := relationSet{}
	var mentions []ariadne.Mention
	relate := func(key, chunkID string) {
		if !hasSubj || key == in.SubjectKey {
			return
		}
		if e, ok := reg.Get(key); ok {
			relateDir(rels, d.onto, in.SubjectKey, subj.Type, key, e.Type, chunkID)
		}
	}
	for _, ch := range in.Chunks {
		recognized := in.Recognized[ch.ID]
		acl := chunkACL(in.Doc, ch)
		var spans, hidden []keyedSpan
		matches := m.Find(ch.Text)
		for i := 0; i < len(matches); i++ {
			match := matches[i]
			reach := reachable(reg, match.Keys, acl)
			if h := hiddenDefinition(reg, match.Keys, reach); h != "" {
				// The defined entity is linked too; the graph shows the link only to callers
				// who may read its definition (graph: e.acl of a described entity).
				start, end := fullName(ch.Text, match, reg, h)
				hidden = append(hidden, keyedSpan{start, end, h})
				mentions = append(mentions, ariadne.Mention{ChunkID: ch.ID, EntityKey: h, Surface: ch.Text[start:end]})
				relate(h, ch.ID)
			}
			if match.Keys = reach; len(match.Keys) == 0 {
				// The names inside it that the chunk's readers may see are found as any other
				// («CTR-2025-07», the code a public note writes, inside «договор CTR-2025-07», a
				// name only the management page defines): the note's readers get their entity,
				// whether or not a hidden page defines the longer name.
				inner := m.FindIf(ch.Text[match.Start:match.End], func(k string) bool { return reg.Reaches(k, acl) })
				for j := range inner {
					inner[j].Start += match.Start
					inner[j].End += match.Start
					inner[j].Surface = ch.Text[inner[j].Start:inner[j].End]
				}
				matches = slices.Insert(matches, i+1, inner...)
				continue
			}
			if insideRecognized(reg, recognized, match) {
				continue // recognition's longer span names someone else: it is the mention
			}
			key := pick(match, in.SubjectKey)
			if key == "" {
				key = recognizedAt(recognized, match)
			}
			if key == "" {
				key = restrictedDefinition(reg, match.Keys)
			}
			if key == "" {
				continue
			}
			start, end := fullName(ch.Text, match, reg, key)
			spans = append(spans, keyedSpan{start, end, key})
			mentions = append(mentions, ariadne.Mention{ChunkID: ch.ID, EntityKey: key, Surface: ch.Text[start:end],
				Name: recognizedName(recognized, key, start, end)})
			relate(key, ch.ID)
		}
		known := len(spans)
		for _, r := range recognized {
			if overlapsKeyed(spans[:known], r.Start, r.End) {
				continue // the known name wins
			}
			spans = append(spans, keyedSpan{r.Start, r.End, r.EntityKey})
			mentions = append(mentions, ariadne.Mention{ChunkID: ch.ID, EntityKey: r.EntityKey, Surface: r.Surface, Name: r.Name})
			relate(r.EntityKey, ch.ID)
		}
		if in.Recognized != nil && !(hasSubj && len(d.onto.RelationRules[subj.Type]) > 0) { // see NER.typedPage
			coOccurrences(rels, ch.Text, ch.ID, in.SubjectKey, append(spans, hidden...))
		}
	}
	return Facts{DocID: in.Doc.ID, Mentions: sortMentions(mentions), Relations: rels.list()}, nil
}

// fullName widens a match to the entity's whole name when the chunk writes it exactly around
// the match: the matcher's surface leaves out a legal form and quotes («Велтрикс» in «ООО
// «Велтрикс»»), and an undocumented entity's name is only visible to callers who may read a
// chunk whose surface is its name (graph: name_acl).
func fullName(text string, m resolution.Match, reg *resolution.Registry, key string) (int, int) {
	e, ok := reg.Get(key)
	if !ok || e.Name == m.Surface || len(e.Name) <= len(m.Surface) {
		return m.Start, m.End
	}
	from := max(0, m.Start-len(e.Name))
	to := min(len(text), m.End+len(e.Name))
	for off := from; off < to; {
		i := strings.Index(text[off:to], e.Name)
		if i < 0 {
			break
		}
		start := off + i
		if end := start + len(e.Name); start <= m.Start && m.End <= end {
			return start, end
		}
		off = start + 1
	}
	return m.Start, m.End
}

// chunkACL is who may read a chunk: its own ACL, else its document's.
func chunkACL(d ariadne.Document, ch ariadne.Chunk) []string {
	if len(ch.ACL) > 0 {
		return ch.ACL
	}
	return d.ACL
}

// reachable returns the keys of entities a text readable by acl may be linked to
// (resolution.Registry.Reaches), in order.
func reachable(reg *resolution.Registry, keys []string, acl []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if reg.Reaches(k, acl) {
			out = append(out, k)
		}
	}
	return out
}

// hiddenDefinition returns the one entity a document defines among the keys a name matches that
// the chunk's readers do not all reach (keys less reach), or "" when there is none or several.
func hiddenDefinition(reg *resolution.Registry, keys, reach []string) string {
	found := ""
	for _, k := range keys {
		if slices.Contains(reach, k) {
			continue
		}
		if e, ok := reg.Get(k); !ok || e.DocID == "" || found != "" {
			return ""
		}
		found = k
	}
	return found
}

// restrictedDefinition chooses, among the entities a name matches, the one a restricted document
// defines when every other is undocumented: the undocumented ones are then the names that
// recognition found in chunks the definition does not reach (ResolveRecognized), and a chunk
// the definition does reach means the defined entity. "" otherwise.
func restrictedDefinition(reg *resolution.Registry, keys []string) string {
	found := ""
	for _, k := range keys {
		e, ok := reg.Get(k)
		switch {
		case !ok:
			return ""
		case e.DocID == "":
			continue
		case found != "" || len(reg.Reach(k)) == 0:
			return ""
		default:
			found = k
		}
	}
	return found
}

// insideRecognized reports whether the match lies inside a longer span recognition resolved to
// an entity the match does not name, and every entity the match names is one no page describes
// (a name recognition itself added): «Тимур Рашидович», the name of the note's second mention,
// inside «Галиев Тимур Рашидович», which recognition resolved to the person's page. A name a page
// defines still wins over recognition (Extract).
func insideRecognized(reg *resolution.Registry, recognized []Recognized, m resolution.Match) bool {
	for _, k := range m.Keys {
		if e, ok := reg.Get(k); !ok || e.DocID != "" {
			return false
		}
	}
	for _, r := range recognized {
		if r.Start <= m.Start && m.End <= r.End && r.End-r.Start > m.End-m.Start && !slices.Contains(m.Keys, r.EntityKey) {
			return true
		}
	}
	return false
}

// recognizedName is the normal form recognition gave the mention of key at exactly [start, end)
// (Recognized.Name): a known name the dictionary finds where recognition found it too keeps it.
func recognizedName(recognized []Recognized, key string, start, end int) string {
	for _, r := range recognized {
		if r.EntityKey == key && r.Start == start && r.End == end {
			return r.Name
		}
	}
	return ""
}

// recognizedAt returns the key recognition resolved for the span of an ambiguous match, when it is
// one of the match's keys; "" otherwise.
func recognizedAt(recognized []Recognized, m resolution.Match) string {
	for _, r := range recognized {
		if r.Start < m.End && m.Start < r.End && slices.Contains(m.Keys, r.EntityKey) {
			return r.EntityKey
		}
	}
	return ""
}

func overlapsKeyed(spans []keyedSpan, start, end int) bool {
	for _, s := range spans {
		if start < s.end && s.start < end {
			return true
		}
	}
	return false
}

// pick chooses the entity a match refers to: the only one, or the document's own subject among
// several; "" when it stays ambiguous.
func pick(m resolution.Match, subject string) string {
	if len(m.Keys) == 1 {
		return m.Keys[0]
	}
	if slices.Contains(m.Keys, subject) {
		return subject
	}
	return ""
}

// relateDir adds the relation the ontology states between a page's subject and an entity its
// chunk names, in the direction the relation type means (Ontology.RelationDir).
func relateDir(rels relationSet, o *ontology.Ontology, subjKey, subjType, key, typ, chunkID string) {
	rel, inverse := o.RelationDir(subjType, typ)
	if inverse {
		rels.add(key, rel, subjKey, chunkID)
		return
	}
	rels.add(subjKey, rel, key, chunkID)
}
