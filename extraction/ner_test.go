package extraction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/ner"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// lexiconRecognizer is a hand-written Recognizer: it labels every occurrence of the surfaces it
// knows, longest first, as the sidecar would (byte offsets, coarse and source labels). It is safe
// for the NER stage's concurrent requests (mu guards calls).
type lexiconRecognizer struct {
	labels map[string]string // surface → label
	mu     sync.Mutex
	calls  [][]string
	fail   error
}

func (l *lexiconRecognizer) Name() string { return "lexicon" }

func (l *lexiconRecognizer) Recognize(_ context.Context, texts []string, lang string) ([][]ner.Mention, error) {
	if l.fail != nil {
		return nil, l.fail
	}
	l.mu.Lock()
	l.calls = append(l.calls, append([]string{lang}, texts...))
	l.mu.Unlock()
	surfaces := make([]string, 0, len(l.labels))
	for s := range l.labels {
		surfaces = append(surfaces, s)
	}
	slices.SortFunc(surfaces, func(a, b string) int { return len(b) - len(a) })
	out := make([][]ner.Mention, len(texts))
	for i, t := range texts {
		out[i] = []ner.Mention{}
		taken := make([]bool, len(t))
		for _, s := range surfaces {
			for off := 0; ; {
				j := strings.Index(t[off:], s)
				if j < 0 {
					break
				}
				start, end := off+j, off+j+len(s)
				if !slices.Contains(taken[start:end], true) {
					src := l.labels[s]
					coarse := map[string]string{"PERSON": "PER", "GPE": "LOC", "FAC": "LOC", "NORP": "MISC", "EVENT": "MISC"}[src]
					if coarse == "" {
						coarse = src
					}
					out[i] = append(out[i], ner.Mention{Start: start, End: end, Text: s, Label: coarse, SourceLabel: src})
					for k := start; k < end; k++ {
						taken[k] = true
					}
				}
				off = end
			}
		}
		slices.SortFunc(out[i], func(a, b ner.Mention) int { return a.Start - b.Start })
	}
	return out, nil
}

func note(id, lang, text string) Input {
	return Input{Doc: ariadne.Document{ID: id, Type: "note", Lang: lang, Title: id},
		Chunks: []ariadne.Chunk{{ID: id + "#0", DocID: id, Text: text, Lang: lang}}}
}

// runNER resolves recognition over docs (and a typed client page the registry already knows),
// then extracts every document with the dictionary extractor.
func runNER(t *testing.T, rec Recognizer, docs []Input) (*resolution.Registry, map[string]Facts) {
	t.Helper()
	o := onto(t)
	reg := resolution.NewRegistry(o.Nicknames)
	reg.Resolve(resolution.Candidate{Name: "ООО «Омега-Логистик»", Type: "client", DocID: "clients/omega"})
	n := NewNER(rec, o, NERConfig{Batch: 3})
	found, err := n.Recognize(context.Background(), docs, reg)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDictionary(o)
	facts := map[string]Facts{}
	for _, in := range docs {
		in.Recognized = found
		f, err := d.Extract(context.Background(), in, reg)
		if err != nil {
			t.Fatal(err)
		}
		facts[in.Doc.ID] = f
	}
	return reg, facts
}

func mentionList(f Facts) []string {
	var out []string
	for _, m := range f.Mentions {
		out = append(out, m.Surface+"→"+m.EntityKey)
	}
	return out
}

func relationList(f Facts) []string {
	var out []string
	for _, r := range f.Relations {
		out = append(out, fmt.Sprintf("%s-%s->%s %v", r.Source, r.Type, r.Target, r.ChunkIDs))
	}
	return out
}

var notesLexicon = map[string]string{
	"Veltrix": "ORG", "Велтрикса": "PER", "ООО «Велтрикс»": "ORG", "Велтрикс": "LOC",
	"Самаре": "LOC", "Самару": "LOC", "Самарой": "LOC", "Олег Кравцов": "PER", "Омега-Логистик": "ORG",
	"Нижний": "LOC", // a piece of a longer name: recognizers cut names short
}

func notes() []Input {
	return []Input{
		note("notes/1", "ru", "Компания Veltrix открыла офис в Самаре."),
		note("notes/2", "ru", "В Самаре прошла встреча с представителями Велтрикса. Олег Кравцов приехал позже."),
		note("notes/3", "ru", "Договор с ООО «Велтрикс» подписали в Самару отправленным курьером."),
		note("notes/4", "ru", "Склад «Велтрикс» под Самарой работает с Омега-Логистик."),
	}
}

func TestNERNotesResolveToOneEntityEach(t *testing.T) {
	rec := &lexiconRecognizer{labels: notesLexicon}
	reg, facts := runNER(t, rec, notes())
	// Every note names the company and the city once, in another form: one entity for each. The
	// company got three labels (ORG twice, PER, LOC); ORG is the most frequent. The most frequent
	// surface names it («Veltrix»: once each, the shortest, then the first).
	company, city := "organization:veltriks", "location:samare"
	want := map[string][]string{
		"notes/1": {"Самаре→" + city, "Veltrix→" + company},
		"notes/2": {"Самаре→" + city, "Велтрикса→" + company, "Олег Кравцов→person:oleg kravtsov"},
		// Known names win where they overlap a recognized span: the client page's name, and the
		// names recognition gave entities, which the dictionary then finds as words.
		"notes/3": {"Самару→" + city, "Велтрикс→" + company},
		"notes/4": {"Омега-Логистик→clients/omega", "Самарой→" + city, "Велтрикс→" + company},
	}
	for id, w := range want {
		if got := mentionList(facts[id]); !slices.Equal(got, w) {
			t.Errorf("%s mentions\n got  %q\n want %q", id, got, w)
		}
	}
	if e, ok := reg.Get(company); !ok || e.Name != "Veltrix" || e.Type != "organization" {
		t.Errorf("company entity %+v, %v", e, ok)
	}
	if e, ok := reg.Get(city); !ok || e.Name != "Самаре" || e.Type != "location" {
		t.Errorf("city entity %+v, %v", e, ok) // «Самаре» twice: the most frequent surface
	}
	// One sentence, one relation per pair; notes/2's person is in the next sentence.
	wantRels := map[string][]string{
		"notes/1": {city + "-MENTIONED_WITH->" + company + " [notes/1#0]"},
		"notes/2": {city + "-MENTIONED_WITH->" + company + " [notes/2#0]"},
		"notes/4": {"clients/omega-MENTIONED_WITH->" + city + " [notes/4#0]", "clients/omega-MENTIONED_WITH->" + company + " [notes/4#0]",
			city + "-MENTIONED_WITH->" + company + " [notes/4#0]"},
	}
	for id, w := range wantRels {
		if got := relationList(facts[id]); !slices.Equal(got, w) {
			t.Errorf("%s relations\n got  %q\n want %q", id, got, w)
		}
	}
	// Chunks of one language go together, Batch texts per call.
	sizes := []int{}
	for _, c := range rec.calls {
		if c[0] != "ru" {
			t.Errorf("call in %q", c[0])
		}
		sizes = append(sizes, len(c)-1)
	}
	if slices.Sort(sizes); !slices.Equal(sizes, []int{1, 3}) {
		t.Errorf("calls %q", rec.calls)
	}
}

func TestNERIsDeterministic(t *testing.T) {
	_, a := runNER(t, &lexiconRecognizer{labels: notesLexicon}, notes())
	rev := notes()
	slices.Reverse(rev)
	_, b := runNER(t, &lexiconRecognizer{labels: notesLexicon}, rev)
	for id := range a {
		if !slices.Equal(mentionList(a[id]), mentionList(b[id])) || !slices.Equal(relationList(a[id]), relationList(b[id])) {
			t.Errorf("%s differs with the documents in another order:\n %q\n %q", id, mentionList(a[id]), mentionList(b[id]))
		}
	}
}

func TestNERSubjectRelationsAndLabels(t *testing.T) {
	o := onto(t)
	reg := resolution.NewRegistry(o.Nicknames)
	subj, _ := reg.Resolve(resolution.Candidate{Name: "Dune", Type: "topic", DocID: "wiki/dune"})
	in := Input{Doc: ariadne.Document{ID: "wiki/dune", Type: "article", Lang: "en", Title: "Dune"},
		SubjectKey: subj, Chunks: []ariadne.Chunk{{ID: "wiki/dune#0", DocID: "wiki/dune", Lang: "en",
			Text: "Dune is a novel by Frank Herbert, an American writer born in Tacoma. It won the Hugo Award.\nlower case paris"}}}
	rec := &lexiconRecognizer{labels: map[string]string{"Dune": "WORK_OF_ART", "Frank Herbert": "PERSON", "American": "NORP",
		"Tacoma": "GPE", "Hugo Award": "EVENT", "paris": "GPE"}}
	f := recognizeAndExtract(t, NewNER(rec, o, NERConfig{}), o, in, reg)
	// NORP is dropped by the ontology, a lower-case surface is not a name, the subject's own name
	// is the dictionary's.
	wantM := []string{"Tacoma→location:takoma", "Frank Herbert→person:frank herbert", "Hugo Award→topic:hugo avard", "Dune→wiki/dune"}
	if got := mentionList(f); !slices.Equal(got, wantM) {
		t.Errorf("mentions\n got  %q\n want %q", got, wantM)
	}
	wantR := []string{
		"location:takoma-MENTIONED_WITH->person:frank herbert [wiki/dune#0]",
		"wiki/dune-RELATED_TO->location:takoma [wiki/dune#0]",
		"wiki/dune-RELATED_TO->person:frank herbert [wiki/dune#0]",
		"wiki/dune-RELATED_TO->topic:hugo avard [wiki/dune#0]",
	}
	if got := relationList(f); !slices.Equal(got, wantR) {
		t.Errorf("relations\n got  %q\n want %q", got, wantR)
	}
}

func TestNERCache(t *testing.T) {
	// sent counts the texts the recognizer received.
	sent := func(rec *lexiconRecognizer) int {
		n := 0
		for _, c := range rec.calls {
			n += len(c) - 1
		}
		return n
	}
	changed := notes()
	changed[1] = note("notes/2", "ru", "В Самаре прошла вторая встреча с представителями Велтрикса.")
	// The same texts in chunks management alone may read: a cache hit is faster than a miss, so an
	// entry answers texts with the same readers only (stop 60 audit).
	restricted := notes()
	for i := range restricted {
		restricted[i].Chunks[0].ACL = []string{"management"}
	}
	tests := []struct {
		name  string
		cache int
		again []Input
		want  int // texts sent by the second Recognize
	}{
		{"the same chunks again: none sent", 0, notes(), 0},
		{"one chunk changed: only it is sent", 0, changed, 1},
		{"cache off: all sent", -1, notes(), 4},
		{"other readers: all sent", 0, restricted, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &lexiconRecognizer{labels: notesLexicon}
			n := NewNER(rec, onto(t), NERConfig{Batch: 3, Cache: tc.cache})
			first, err := n.Recognize(context.Background(), notes(), resolution.NewRegistry(nil))
			if err != nil || sent(rec) != 4 {
				t.Fatalf("first run: %d texts sent, err %v", sent(rec), err)
			}
			second, err := n.Recognize(context.Background(), tc.again, resolution.NewRegistry(nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := sent(rec) - 4; got != tc.want {
				t.Errorf("second run sent %d texts, want %d", got, tc.want)
			}
			if tc.want != 1 && len(tc.again[0].Chunks[0].ACL) == 0 && fmt.Sprint(first) != fmt.Sprint(second) {
				t.Errorf("a cached result differs:\n%v\n%v", first, second)
			}
		})
	}
}

func TestNERUnavailable(t *testing.T) {
	rec := &lexiconRecognizer{fail: fmt.Errorf("ner: connection refused: %w", ariadne.ErrUnavailable)}
	_, err := NewNER(rec, onto(t), NERConfig{}).Recognize(context.Background(), notes(), resolution.NewRegistry(nil))
	if !errors.Is(err, ariadne.ErrUnavailable) || !strings.Contains(err.Error(), "entity recognition (lexicon)") {
		t.Errorf("err = %v", err)
	}
}

func TestSentenceEnds(t *testing.T) {
	tests := []struct {
		text string
		want []int
	}{
		{"One. Two! Three", []int{4, 9, 15}},
		{"v1.2 is out\nnext", []int{11, 16}},
		{"Конец… Начало", []int{len("Конец…"), len("Конец… Начало")}},
	}
	for _, tc := range tests {
		if got := sentenceEnds(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("sentenceEnds(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestCoOccurrenceSkipsLongLists(t *testing.T) {
	var names []string
	var spans []keyedSpan
	text := ""
	for i := range maxCoOccurring + 1 {
		name := fmt.Sprintf("N%d", i)
		spans = append(spans, keyedSpan{len(text), len(text) + len(name), "k" + name})
		names = append(names, name)
		text += name + ", "
	}
	rels := relationSet{}
	coOccurrences(rels, text, "c#0", "", spans)
	if len(rels) != 0 {
		t.Errorf("a list of %d names gave %d relations", len(names), len(rels))
	}
	coOccurrences(rels, text, "c#0", "kN0", spans) // the subject does not count: 8 left
	if len(rels) != 28 {
		t.Errorf("8 names gave %d relations, want 28", len(rels))
	}
}

func TestDictionarySurfaceIsTheWholeNameWhenWritten(t *testing.T) {
	o := onto(t)
	reg := resolution.NewRegistry(o.Nicknames)
	for _, c := range Discover(ariadne.Document{ID: "n", Body: "Договор с ООО «Велтрикс» подписан."}) {
		reg.Resolve(c)
	}
	in := note("notes/x", "ru", "Договор с ООО «Велтрикс» подписан; «Велтрикс» доволен, Велтриксу пишут.")
	f, err := NewDictionary(o).Extract(context.Background(), in, reg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Велтрикс→organization:veltriks", "Велтриксу→organization:veltriks", "ООО «Велтрикс»→organization:veltriks"}
	if got := mentionList(f); !slices.Equal(got, want) {
		t.Errorf("mentions\n got  %q\n want %q", got, want)
	}
}

func TestNERLeavesPagesTheOntologyTypes(t *testing.T) {
	o := onto(t)
	reg := resolution.NewRegistry(o.Nicknames)
	subj, _ := reg.Resolve(resolution.Candidate{Name: "Orion Portal", Type: "project", DocID: "projects/orion"})
	in := Input{Doc: ariadne.Document{ID: "projects/orion", Type: "project", Lang: "en", Title: "Orion Portal"},
		SubjectKey: subj, Chunks: []ariadne.Chunk{{ID: "projects/orion#0", DocID: "projects/orion", Lang: "en",
			Text: "Orion Portal is built by Dana Reyes for Kestrel Bank in Oslo."}}}
	rec := &lexiconRecognizer{labels: map[string]string{"Dana Reyes": "PERSON", "Kestrel Bank": "ORG", "Oslo": "GPE"}}
	found, err := NewNER(rec, o, NERConfig{}).Recognize(context.Background(), []Input{in}, reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.calls) != 0 || len(found) != 0 || len(reg.Entities()) != 1 {
		t.Errorf("a project page went to recognition: calls %q, found %v, entities %v", rec.calls, found, reg.Entities())
	}
	in.Recognized = found
	f, err := NewDictionary(o).Extract(context.Background(), in, reg)
	if err != nil {
		t.Fatal(err)
	}
	if got := mentionList(f); !slices.Equal(got, []string{"Orion Portal→projects/orion"}) || len(f.Relations) != 0 {
		t.Errorf("mentions %q, relations %q", got, relationList(f))
	}
}

// Typed pages are the dictionary's unless NERConfig.TypedPages: then a client page's chunks are
// recognized too, and what they name relates to the page's subject by the ontology's rules.
func TestNERTypedPages(t *testing.T) {
	o := onto(t)
	rec := &lexiconRecognizer{labels: map[string]string{"Олег Кравцов": "PER"}}
	for _, typed := range []bool{false, true} {
		reg := resolution.NewRegistry(o.Nicknames)
		subj, _ := reg.Resolve(resolution.Candidate{Name: "ООО «Омега-Логистик»", Type: "client", DocID: "clients/omega"})
		in := Input{Doc: ariadne.Document{ID: "clients/omega", Type: "client", Lang: "ru", Title: "ООО «Омега-Логистик»"}, SubjectKey: subj,
			Chunks: []ariadne.Chunk{{ID: "clients/omega#0", DocID: "clients/omega", Lang: "ru", Text: "Контактное лицо клиента — Олег Кравцов."}}}
		n := NewNER(rec, o, NERConfig{TypedPages: typed})
		f := recognizeAndExtract(t, n, o, in, reg)
		got := strings.Join(relationList(f), "; ")
		want := "" // the dictionary knows no Кравцов
		if typed {
			want = "clients/omega-CONTACT->person:oleg kravtsov@clients/omega [clients/omega#0]"
		}
		if got != want {
			t.Errorf("TypedPages=%v: relations %q, want %q", typed, got, want)
		}
		if strings.Contains(n.Name(), "+typed") != typed {
			t.Errorf("TypedPages=%v: name %q", typed, n.Name())
		}
	}
}

// A Latin name recognition calls a person only in one word is a topic (ontology
// ner_one_word_person): a project page that names it relates to it by the default relation, not
// as its staff, while a person some mention names in full stays a person, and so do a one-word
// mention of her surname (an entity of its own, as before) and a one-word Cyrillic name.
func TestNEROneWordPersonIsATopic(t *testing.T) {
	o := onto(t)
	rec := &lexiconRecognizer{labels: map[string]string{"Quarrel": "PERSON", "Dana Reyes": "PERSON", "Reyes": "PERSON", "Гордеев": "PER"}}
	reg := resolution.NewRegistry(o.Nicknames)
	subj, _ := reg.Resolve(resolution.Candidate{Name: "Orion Portal", Type: "project", DocID: "projects/orion"})
	notes := []Input{
		note("notes/retro", "en", "We will replace Quarrel in Orion Portal. Dana Reyes agreed."),
		note("notes/sync", "en", "Dana Reyes was out; Reyes owns the migration."),
		note("notes/later", "en", "Reyes owns the migration."),
		note("notes/plan", "ru", "Миграцию проверит Гордеев."),
	}
	found, err := NewNER(rec, o, NERConfig{}).Recognize(context.Background(), notes, reg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range reg.Entities() {
		got = append(got, e.Key)
	}
	slices.Sort(got)
	if want := []string{"person:dana reies", "person:gordev", "person:reies", "projects/orion", "topic:kuarel"}; !slices.Equal(got, want) {
		t.Errorf("entities %q, want %q", got, want)
	}
	// In the note that names her in full, "Reyes" is Dana Reyes (namedInFull); in another, the
	// surname of a person named in several words is a person of its own, not a topic.
	var sync, later []string
	for _, r := range found["notes/sync#0"] {
		sync = append(sync, r.Surface+"→"+r.EntityKey)
	}
	for _, r := range found["notes/later#0"] {
		later = append(later, r.Surface+"→"+r.EntityKey)
	}
	if want := []string{"Dana Reyes→person:dana reies", "Reyes→person:dana reies"}; !slices.Equal(sync, want) {
		t.Errorf("notes/sync mentions %q, want %q", sync, want)
	}
	if want := []string{"Reyes→person:reies"}; !slices.Equal(later, want) {
		t.Errorf("notes/later mentions %q, want %q", later, want)
	}

	page := Input{Doc: ariadne.Document{ID: "projects/orion", Type: "project", Lang: "en", Title: "Orion Portal"}, SubjectKey: subj,
		Chunks: []ariadne.Chunk{{ID: "projects/orion#0", DocID: "projects/orion", Lang: "en", Text: "Orion Portal caches in Quarrel; Dana Reyes leads it."}}}
	page.Recognized = found
	f, err := NewDictionary(o).Extract(context.Background(), page, reg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"projects/orion-RELATED_TO->topic:kuarel [projects/orion#0]", "projects/orion-STAFFED_BY->person:dana reies [projects/orion#0]"}
	if got := relationList(f); !slices.Equal(got, want) {
		t.Errorf("relations\n got  %q\n want %q", got, want)
	}
}

// A surname or a first name alone that a small recognizer tags as a place or an organization is
// the person the same document names in full with that word (a trial: «Петрова напомнила» and
// "Petrova says" made a place Petrova beside the editor-in-chief); in a document that names no
// such person it keeps its type, and a place the document's persons are not named by stays one.
func TestNEROneWordPlaceOrOrganizationNamedInFull(t *testing.T) {
	o := onto(t)
	rec := &lexiconRecognizer{labels: map[string]string{"Nina Orlova": "PERSON", "Orlova": "GPE", "Nina": "ORG",
		"Oslo": "GPE", "Нина Орлова": "PER", "Орловой": "LOC"}}
	reg := resolution.NewRegistry(o.Nicknames)
	notes := []Input{
		note("notes/interview", "en", "We talked to Nina Orlova in Oslo. \"We are small,\" Orlova says."),
		note("notes/mail", "en", "To: Nina Orlova\n\nNina, the proofs are ready."),
		note("notes/minutes", "ru", "Присутствовали: Нина Орлова. Эскизы пришлют Орловой."),
		note("notes/other", "en", "Orlova is a village near Oslo."),
	}
	found, err := NewNER(rec, o, NERConfig{}).Recognize(context.Background(), notes, reg)
	if err != nil {
		t.Fatal(err)
	}
	mentions := func(chunk string) []string {
		var out []string
		for _, r := range found[chunk] {
			out = append(out, r.Surface+"→"+r.EntityKey)
		}
		return out
	}
	for chunk, want := range map[string][]string{
		"notes/interview#0": {"Nina Orlova→person:nina orlova", "Oslo→location:oslo", "Orlova→person:nina orlova"},
		"notes/mail#0":      {"Nina Orlova→person:nina orlova", "Nina→person:nina orlova"},
		"notes/minutes#0":   {"Нина Орлова→person:nina orlova", "Орловой→person:nina orlova"},
		"notes/other#0":     {"Orlova→location:orlova", "Oslo→location:oslo"},
	} {
		if got := mentions(chunk); !slices.Equal(got, want) {
			t.Errorf("%s mentions %q, want %q", chunk, got, want)
		}
	}
}

// recognizeAndExtract runs recognition over one document, then the dictionary extractor with
// what it found.
func recognizeAndExtract(t *testing.T, n *NER, o *ontology.Ontology, in Input, reg *resolution.Registry) Facts {
	t.Helper()
	found, err := n.Recognize(context.Background(), []Input{in}, reg)
	if err != nil {
		t.Fatal(err)
	}
	in.Recognized = found
	f, err := NewDictionary(o).Extract(context.Background(), in, reg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestTableCellsAsSentences(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no table | here", "no table | here"},
		{"| Name | Role |\n|---|:--:|\n| Anna Petrova | CTO |\ntext | after",
			". Name . Role .\n          \n. Anna Petrova . CTO .\ntext | after"},
		{"  | a |\r\n  |---|\r\n", "  . a .\r\n       \r\n"},
	} {
		got := tableCellsAsSentences(tc.in)
		if got != tc.want || len(got) != len(tc.in) {
			t.Errorf("tableCellsAsSentences(%q) = %q, want %q (same length)", tc.in, got, tc.want)
		}
	}
}

// TestNERReadsTableRowsAsSentences: the recognizer gets table rows with full stops for cell bars,
// a mention across a cell bar is dropped, and the others keep the chunk's own surface.
func TestNERReadsTableRowsAsSentences(t *testing.T) {
	text := "| Owner | Vendor |\n|---|---|\n| Олег Кравцов | Veltrix |"
	rec := &lexiconRecognizer{labels: map[string]string{"Олег Кравцов . Veltrix": "ORG", "Veltrix": "ORG", "Owner": "ORG"}}
	n := NewNER(rec, onto(t), NERConfig{})
	found, err := n.Recognize(context.Background(), []Input{note("notes/t", "ru", text)}, resolution.NewRegistry(nil))
	if err != nil {
		t.Fatal(err)
	}
	if sent := rec.calls[0][1]; sent != tableCellsAsSentences(text) {
		t.Errorf("sent %q, want the rows as sentences", sent)
	}
	var got []string
	for _, r := range found["notes/t#0"] {
		got = append(got, r.Surface+"@"+text[r.Start:r.End])
	}
	// "Owner" is what the scripted recognizer labels (a real model reads it as a sentence and does
	// not); the span across the bar is gone.
	if want := []string{"Owner@Owner"}; !slices.Equal(got, want) {
		t.Errorf("recognized %q, want %q", got, want)
	}
}

// TestCoOccurrenceNeedsTwoPlaces: one word linked to two homonyms relates them to nothing; named
// apart in the sentence as well, they are related.
func TestCoOccurrenceNeedsTwoPlaces(t *testing.T) {
	text := "Про проект Kestrel она говорить отказалась."
	one := []keyedSpan{{20, 27, "organization:kestrel"}, {20, 27, "projects/kestrel"}}
	rels := relationSet{}
	coOccurrences(rels, text, "c#0", "", one)
	if len(rels) != 0 {
		t.Errorf("one span, two keys: %d relations, want 0", len(rels))
	}
	text = "Kestrel и проект Kestrel."
	two := []keyedSpan{{0, 7, "organization:kestrel"}, {0, 7, "projects/kestrel"}, {24, 31, "projects/kestrel"}}
	coOccurrences(rels, text, "c#0", "", two)
	if len(rels) != 1 {
		t.Errorf("named apart too: %d relations, want 1", len(rels))
	}
}

// What recognition and extraction give a public note's readers does not depend on a document
// they may not read (F1, the tester's probe): «CTR-2026» and «NB-913», codes the note writes, are
// the identifiers of a note naming an unknown code whether or not a management-only contract
// defines «CTR-2026-NB-913» (and its parts) as its aliases. Recognition took the whole code as
// one topic of its own when the contract existed, since the longest known name there was the
// hidden alias and the readable codes inside it were not left to the dictionary.
func TestNERReadableNamesInsideHiddenName(t *testing.T) {
	o := onto(t)
	mgmt, public := []string{"management"}, []string{ariadne.PublicGroup}
	title := "Contract CTR-2026-NB-913 — Nordlicht Bank, audit services"
	contract := ariadne.Document{ID: "audit/contracts/ctr-2026-nb-913", Type: "contract", Title: title, Lang: "en", ACL: mgmt,
		Body: "# " + title + "\n\nThe penalty is 2% of the monthly fee.\n"}
	rec := &lexiconRecognizer{labels: map[string]string{"CTR-2026-NB-913": "MISC", "CTR-2026-NB-914": "MISC", "Nordlicht Bank": "ORG"}}
	// seen is what the note's readers get: its mentions and relations of entities that reach them
	// (resolution.Registry.Reaches; the graph hides the others), with the registry built as
	// ingest.Pipeline.buildRegistry builds it (subjects first, then discovered names).
	seen := func(withContract bool, code string) []string {
		t.Helper()
		text := "Yesterday the team discussed " + code + " with Nordlicht Bank."
		n := note("notes/probe", "en", text)
		n.Doc.ACL, n.Doc.Body = public, text
		docs := []ariadne.Document{n.Doc}
		if withContract {
			docs = []ariadne.Document{contract, n.Doc}
		}
		reg := resolution.NewRegistry(o.Nicknames)
		for _, d := range docs {
			if info, ok := Subject(d, o, nil); ok {
				info.ACL = d.ACL
				reg.Resolve(info.Candidate)
			}
		}
		for _, d := range docs {
			for _, c := range Discover(d) {
				c.ACL = d.ACL
				reg.Resolve(c)
			}
		}
		f := recognizeAndExtract(t, NewNER(rec, o, NERConfig{Cache: -1}), o, n, reg)
		var out []string
		for _, m := range f.Mentions {
			if reg.Reaches(m.EntityKey, public) {
				out = append(out, m.EntityKey+" «"+m.Surface+"»")
			}
		}
		for _, r := range f.Relations {
			if reg.Reaches(r.Source, public) && reg.Reaches(r.Target, public) {
				out = append(out, r.Source+" "+r.Type+" "+r.Target)
			}
		}
		return out
	}
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"CTR-2026-NB-913", []string{"identifier:ktr 2026 «CTR-2026»", "identifier:nb 913 «NB-913»", "organization:nordlicht bank «Nordlicht Bank»",
			"identifier:ktr 2026 MENTIONED_WITH identifier:nb 913", "identifier:ktr 2026 MENTIONED_WITH organization:nordlicht bank",
			"identifier:nb 913 MENTIONED_WITH organization:nordlicht bank"}},
		{"CTR-2026-NB-914", []string{"identifier:ktr 2026 «CTR-2026»", "identifier:nb 914 «NB-914»", "organization:nordlicht bank «Nordlicht Bank»",
			"identifier:ktr 2026 MENTIONED_WITH identifier:nb 914", "identifier:ktr 2026 MENTIONED_WITH organization:nordlicht bank",
			"identifier:nb 914 MENTIONED_WITH organization:nordlicht bank"}},
	} {
		for _, withContract := range []bool{false, true} {
			if got := seen(withContract, tc.code); !slices.Equal(got, tc.want) {
				t.Errorf("public note naming %s, management contract written %v: readers get %q, want %q", tc.code, withContract, got, tc.want)
			}
		}
	}
}

// A person's name in one word is the person its document names in full with that word — when
// the document names one such person, in a chunk every reader of the short mention may read — and
// the one word names neither the entity nor an alias of it.
func TestNEROneWordNameIsTheDocumentsFullName(t *testing.T) {
	tests := []struct {
		name   string
		chunks []ariadne.Chunk // of one note, notes/1
		want   []string        // the note's mentions, surface→key
		names  map[string]string
	}{
		{
			name:   "a first name in an e-mail's greeting",
			chunks: []ariadne.Chunk{{Text: "To: Denis Kovalev. Hi Denis, the trucks are late. Dear Denis, they are."}},
			want:   []string{"Denis Kovalev→person:denis kovalev", "Denis→person:denis kovalev", "Dear Denis→person:denis kovalev"},
			names:  map[string]string{"person:denis kovalev": "Denis Kovalev"},
		},
		{
			name:   "an inflected surname before the full name",
			chunks: []ariadne.Chunk{{Text: "Отчёт отправили Ковалёву. Денис Ковалёв ответил в тот же день."}},
			want:   []string{"Ковалёву→person:denis kovalev", "Денис Ковалёв→person:denis kovalev"},
			names:  map[string]string{"person:denis kovalev": "Денис Ковалёв"},
		},
		{
			name:   "two persons share the first name: the one word is its own",
			chunks: []ariadne.Chunk{{Text: "Anna Petrova met Anna Lind. Anna signed."}},
			want:   []string{"Anna Petrova→person:ana petrova", "Anna Lind→person:ana lind", "Anna→person:ana"},
		},
		{
			name:   "a surname after a title: the title names no one",
			chunks: []ariadne.Chunk{{Text: "Павел Кузнецов осмотрел пса. Д-р Кузнецов назначил лечение; Dr. Kuznetsov agreed."}},
			want:   []string{"Павел Кузнецов→person:pavel kuznetsov", "Д-р Кузнецов→person:pavel kuznetsov", "Dr. Kuznetsov→person:pavel kuznetsov"},
		},
		{
			name:   "a first name after a documented person's full name: the documented person",
			chunks: []ariadne.Chunk{{Text: "Кому: Лев Тихомиров. Лев, привет! Правки приложены."}},
			want:   []string{"Лев→people/lev-tikhomirov"},
		},
		{
			name: "the full name only in a restricted chunk: a public one word is its own",
			chunks: []ariadne.Chunk{{Text: "Dear Denis, the trucks are late."},
				{Text: "Denis Kovalev approved the penalty.", ACL: []string{"management"}}},
			want: []string{"Dear Denis→topic:denis", "Denis Kovalev→person:denis kovalev"}, // a topic, as without the restricted chunk
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := onto(t)
			rec := &lexiconRecognizer{labels: map[string]string{"Denis Kovalev": "PERSON", "Denis": "PERSON", "Dear Denis": "PERSON",
				"Anna Petrova": "PERSON", "Anna Lind": "PERSON", "Anna": "PERSON", "Денис Ковалёв": "PER", "Ковалёву": "PER",
				"Лев Тихомиров": "PER", "Лев": "PER", "Павел Кузнецов": "PER", "Д-р Кузнецов": "PER", "Dr. Kuznetsov": "PERSON"}}
			in := Input{Doc: ariadne.Document{ID: "notes/1", Type: "note", Lang: "en", Title: "notes/1"}}
			for i, c := range tc.chunks {
				c.ID, c.DocID, c.Lang = fmt.Sprintf("notes/1#%d", i), "notes/1", "en"
				if strings.ContainsAny(c.Text, "абвгдеёжзийклмнопрстуфхцчшщыэюя") {
					c.Lang = "ru"
				}
				in.Chunks = append(in.Chunks, c)
			}
			reg := resolution.NewRegistry(o.Nicknames)
			reg.Resolve(resolution.Candidate{Name: "Лев Тихомиров", Type: "person", DocID: "people/lev-tikhomirov"})
			found, err := NewNER(rec, o, NERConfig{}).Recognize(context.Background(), []Input{in}, reg)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range in.Chunks {
				for _, r := range found[c.ID] {
					got = append(got, r.Surface+"→"+r.EntityKey)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("mentions\n got  %q\n want %q", got, tc.want)
			}
			for k, name := range tc.names {
				e, ok := reg.Get(k)
				if !ok {
					t.Fatalf("no entity %s", k)
				}
				if e.Name != name || slices.ContainsFunc(e.Aliases, func(a string) bool { return !severalWords(a) }) {
					t.Errorf("entity %s named %q with aliases %q, want %q and no one-word alias", k, e.Name, e.Aliases, name)
				}
			}
		})
	}
}

// A possessive ending and the next line's field label are not part of a recognized name.
func TestNERTrimsPossessivesAndFieldLabels(t *testing.T) {
	text := "От: Арсений Полунин\nКому: Лев Тихомиров\nТема: правки\n\nThe costs of Ingrid Holmsen's visit and the Jensens' car."
	got := trimmedSpans(text, []ner.Mention{
		{Start: strings.Index(text, "Лев"), End: strings.Index(text, ": правки"), Label: "PER"},
		{Start: strings.Index(text, "Арсений"), End: strings.Index(text, "\nКому"), Label: "PER", Normal: "Арсений Полунин"},
		{Start: strings.Index(text, "Ingrid"), End: strings.Index(text, " visit"), Label: "PER"},
		{Start: strings.Index(text, "Jensens"), End: strings.Index(text, " car"), Label: "PER"},
		{Start: strings.Index(text, "'s visit"), End: strings.Index(text, " visit"), Label: "PER"},
	})
	var spans []string
	for _, m := range got {
		spans = append(spans, m.Text+"|"+m.Normal)
	}
	want := []string{"Лев Тихомиров|", "Арсений Полунин|Арсений Полунин", "Ingrid Holmsen|", "Jensens|"}
	if !slices.Equal(spans, want) {
		t.Errorf("spans %q, want %q", spans, want)
	}
}

// A name's head noun corrects what a small recognizer guessed: a lab is no person, a glacier no
// person or organization; a person stays a person.
func TestNERHeadNounTypes(t *testing.T) {
	o := onto(t)
	rec := &lexiconRecognizer{labels: map[string]string{"Biozoo Labs": "PERSON", "Aktru Glacier": "PERSON", "Garabashi Glacier": "ORG",
		"Клиника Айболит": "PER", "Anna Lake": "PERSON", "Lake Baikal": "PERSON", "Volga Herald": "PERSON", "Galina Petrova": "ORG"}}
	reg := resolution.NewRegistry(o.Nicknames)
	in := note("notes/1", "en", "Biozoo Labs makes vaccines. Aktru Glacier and Garabashi Glacier melt. Anna Lake and Lake Baikal. Volga Herald wrote to Galina Petrova.")
	ru := note("notes/2", "ru", "Клиника Айболит открылась.")
	found, err := NewNER(rec, o, NERConfig{}).Recognize(context.Background(), []Input{in, ru}, reg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range []string{"notes/1#0", "notes/2#0"} {
		for _, r := range found[id] {
			got = append(got, r.Surface+"→"+r.EntityKey)
		}
	}
	want := []string{"Biozoo Labs→organization:biozo labs", "Aktru Glacier→location:aktru glasier", "Garabashi Glacier→location:garabashi glasier",
		"Anna Lake→person:ana lake", "Lake Baikal→person:lake baikal", "Volga Herald→organization:volga herald", "Galina Petrova→person:galina petrova", "Клиника Айболит→organization:klinika aibolit"}
	if !slices.Equal(got, want) {
		t.Errorf("mentions\n got  %q\n want %q", got, want)
	}
}

// What a small recognizer reads wrongly from a name's context is corrected (outside tester, stop
// 60): a river's or a region's name is a place, a person's name with a Russian-style surname no
// organization, a street no entity, a name after a greeting or a title a person (trial 71: "Dear
// Dmitry" was an organization); everything else is as recognized.
func TestNERRelabelsFromContext(t *testing.T) {
	text := "Galina Petrova of Okhta Bank met museums in the Volga region; Anna Volga came. " +
		"Типография на улице Декабристов, 12, в Казани; ООО «Петрова» и Kama Petrov Motors, IBM Petrov. " +
		"It cost EUR 640,000 for 12 MW; Turbine K-17 failed; 3M Company. " +
		"Nina Orlova and Dmitry Sokolov flew via Pavlovsky Posad to Veliky Ustyug, then Bolshoy Kamensky. " +
		"Dear Dmitry, Госпожа Тан asked Dr. Hale."
	at := func(s, label string) ner.Mention {
		i := strings.Index(text, s)
		return ner.Mention{Start: i, End: i + len(s), Text: s, Label: label, SourceLabel: map[string]string{"PER": "PERSON"}[label]}
	}
	got := relabelled(text, []ner.Mention{
		at("Galina Petrova", "ORG"), at("Okhta Bank", "ORG"), at("Volga", "PER"), at("Anna Volga", "PER"),
		at("Декабристов", "LOC"), at("Казани", "LOC"), at("ООО «Петрова»", "ORG"), at("Kama Petrov Motors", "ORG"),
		at("IBM Petrov", "ORG"), at("EUR 640,000", "ORG"), at("MW", "ORG"), at("Turbine K-17", "PER"), at("3M Company", "ORG"),
		at("Nina Orlova", "LOC"), at("Dmitry Sokolov", "LOC"), at("Pavlovsky Posad", "LOC"), at("Veliky Ustyug", "LOC"),
		at("Bolshoy Kamensky", "LOC"), at("Dear Dmitry", "ORG"), at("Госпожа Тан", "LOC"), at("Dr. Hale", "PER"),
	})
	var labels []string
	for _, m := range got {
		labels = append(labels, m.Text+"|"+m.Label+"|"+m.SourceLabel)
	}
	want := []string{"Galina Petrova|PER|PER", "Okhta Bank|ORG|", "Volga|LOC|LOC", "Anna Volga|PER|PERSON", "Казани|LOC|",
		"ООО «Петрова»|ORG|", "Kama Petrov Motors|ORG|", "IBM Petrov|ORG|", "3M Company|ORG|",
		"Nina Orlova|PER|PER", "Dmitry Sokolov|PER|PER", "Pavlovsky Posad|LOC|", "Veliky Ustyug|LOC|", "Bolshoy Kamensky|LOC|",
		"Dear Dmitry|PER|PER", "Госпожа Тан|PER|PER", "Dr. Hale|PER|PERSON"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels\n got  %q\n want %q", labels, want)
	}
}
