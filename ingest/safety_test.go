package ingest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// TestKeptByUnread: an unreadable file keeps the stored document of its source stored from its
// path, or with the id its front matter gave; not a document the run was given, not another
// source's, not an id only claimed.
func TestKeptByUnread(t *testing.T) {
	states := map[string]ariadne.DocState{
		"notes/a":     {ContentHash: "a", Path: "notes/a.md"},
		"notes/b":     {ContentHash: "b", Path: "notes/b.md"},
		"notes/moved": {ContentHash: "m", Path: "old/moved.md"},
		"wiki/c":      {ContentHash: "c", Path: "notes/c.md", Source: "wiki"},
		"notes/given": {ContentHash: "g", Path: "notes/given.md"},
		"notes/stub":  {Path: ""}, // claimed, never written
		"api/json":    {ContentHash: "j"},
	}
	for _, tc := range []struct {
		name   string
		unread []UnreadFile
		want   map[string]string
	}{
		{"none", nil, map[string]string{}},
		{"by path", []UnreadFile{{Path: "notes/a.md"}}, map[string]string{"notes/a": "notes/a.md"}},
		{"by id, at another path", []UnreadFile{{Path: "new/moved.md", ID: "notes/moved"}}, map[string]string{"notes/moved": "new/moved.md"}},
		{"path and id name two documents", []UnreadFile{{Path: "notes/a.md", ID: "notes/b"}},
			map[string]string{"notes/a": "notes/a.md", "notes/b": "notes/a.md"}},
		{"another source's document", []UnreadFile{{Path: "notes/c.md", ID: "wiki/c"}}, map[string]string{}},
		{"a given document", []UnreadFile{{Path: "notes/given.md", ID: "notes/given"}}, map[string]string{}},
		{"an id only claimed", []UnreadFile{{Path: "x.md", ID: "notes/stub"}}, map[string]string{}},
		{"a new file", []UnreadFile{{Path: "notes/new.md", ID: "notes/new"}}, map[string]string{}},
		{"no path stored (a JSON document)", []UnreadFile{{Path: ""}}, map[string]string{}},
	} {
		got := keptByUnread(ariadne.DefaultSource, states, map[string]bool{"notes/given": true}, tc.unread)
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: kept %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSyncKeepsUnreadFiles: a sync whose folder has a document's file broken keeps the stored
// document as it was — not deleted, not rewritten — and says so (Summary.Kept); once the file is
// fixed the next sync writes it. A dry run plans the same.
func TestSyncKeepsUnreadFiles(t *testing.T) {
	ctx := context.Background()
	p, st := memPipeline(t)
	client := ariadne.Document{ID: "clients/orion", Title: "Orion Freight", Type: "client", Lang: "en", ACL: []string{"all"},
		Body: "# Orion Freight\n\nOrion Freight is a logistics client.\n", Path: "clients/orion.md"}
	note := ariadne.Document{ID: "notes/call", Title: "Call notes", Type: "note", Lang: "en", ACL: []string{"all"},
		Body: "# Call notes\n\nWe called Orion Freight about the delivery dates.\n", Path: "notes/call.md"}
	if _, err := p.Sync(ctx, []ariadne.Document{client, note}, Options{}); err != nil {
		t.Fatal(err)
	}
	before := st.docs["clients/orion"]
	unread := []UnreadFile{{Path: "clients/orion.md"}}
	for _, dry := range []bool{true, false} {
		sum, err := p.Sync(ctx, []ariadne.Document{note}, Options{Unread: unread, DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		if sum.DocsDeleted != 0 || !slices.Equal(sum.Kept, []Kept{{DocID: "clients/orion", File: "clients/orion.md"}}) || sum.Writes() != 0 {
			t.Errorf("dry run %v: deleted %d, kept %v, writes %d; want the client kept, nothing written", dry, sum.DocsDeleted, sum.Kept, sum.Writes())
		}
	}
	if got := st.docs["clients/orion"]; got.GraphHash != before.GraphHash || got.Doc.ContentHash() != before.Doc.ContentHash() {
		t.Errorf("the kept document changed: %+v", got)
	}
	// The note still links the client its page defines: the kept page took part in resolution.
	if !slices.ContainsFunc(st.docs["notes/call"].Entities, func(e ariadne.Entity) bool { return e.DocID == "clients/orion" }) {
		t.Errorf("the note lost its link to the kept client page: %+v", st.docs["notes/call"].Entities)
	}
	// Without the unread file the same folder deletes it (the file is gone, not broken).
	if sum, err := p.Sync(ctx, []ariadne.Document{note}, Options{}); err != nil || sum.DocsDeleted != 1 {
		t.Fatalf("sync without the file: %+v %v", sum, err)
	}
}

// TestDeletesAll: a plan deletes all of a source when every written document of it is deleted;
// other sources, ids only claimed and a source with nothing stored do not count.
func TestDeletesAll(t *testing.T) {
	states := map[string]ariadne.DocState{
		"d/a":    {ContentHash: "a"},
		"d/b":    {ContentHash: "b"},
		"d/stub": {},
		"w/c":    {ContentHash: "c", Source: "wiki"},
	}
	for _, tc := range []struct {
		name    string
		source  string
		deleted []string
		want    int
	}{
		{"all of default", "", []string{"d/a", "d/b"}, 2},
		{"all, and a claimed id", "", []string{"d/a", "d/b", "d/stub"}, 2},
		{"one kept", "", []string{"d/a"}, 0},
		{"nothing", "", nil, 0},
		{"wiki", "wiki", []string{"w/c"}, 1},
		{"a source with nothing stored", "crm", nil, 0},
	} {
		plan := Plan{Deleted: map[string][]string{}}
		for _, id := range tc.deleted {
			plan.Deleted[id] = nil
		}
		if got := deletesAll(sourceOf(tc.source), states, plan); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSyncRefusesDeleteAll: with Options.RefuseDeleteAll, a sync of an empty folder (or of one
// whose only file is new) over a source with stored documents fails with a *DeleteAllError and
// writes nothing, a dry run too; without it the source is emptied, and a sync that keeps one
// document, or one of an empty source, is not refused.
func TestSyncRefusesDeleteAll(t *testing.T) {
	ctx := context.Background()
	p, st := memPipeline(t)
	doc := func(id string) ariadne.Document {
		return ariadne.Document{ID: id, Title: id, Lang: "en", ACL: []string{"all"}, Body: "Text of " + id + ".\n", Path: id + ".md"}
	}
	if _, err := p.Sync(ctx, []ariadne.Document{doc("notes/a"), doc("notes/b")}, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, given := range [][]ariadne.Document{nil, {doc("notes/new")}} {
		for _, dry := range []bool{true, false} {
			sum, err := p.Sync(ctx, given, Options{RefuseDeleteAll: true, DryRun: dry})
			var del *DeleteAllError
			if !errors.As(err, &del) || del.Documents != 2 || del.Source != ariadne.DefaultSource || !errors.Is(err, ariadne.ErrInvalid) {
				t.Fatalf("given %d, dry run %v: %v, want a DeleteAllError of 2 documents", len(given), dry, err)
			}
			if sum.Writes() != 0 || len(st.docs) != 2 {
				t.Fatalf("a refused sync wrote %d; the store holds %d documents", sum.Writes(), len(st.docs))
			}
		}
	}
	if sum, err := p.Sync(ctx, []ariadne.Document{doc("notes/a")}, Options{RefuseDeleteAll: true}); err != nil || sum.DocsDeleted != 1 {
		t.Fatalf("a sync that keeps one document: %+v %v", sum, err)
	}
	if sum, err := p.Sync(ctx, nil, Options{}); err != nil || sum.DocsDeleted != 1 || len(st.docs) != 0 {
		t.Fatalf("emptying the source on purpose: %+v %v", sum, err)
	}
	if _, err := p.Sync(ctx, nil, Options{RefuseDeleteAll: true}); err != nil {
		t.Fatalf("an empty folder over an empty source: %v", err)
	}
}

// TestOlderVersions: a given document with a lower version than its stored one is refused; the
// same or a higher version, a new document, an id only claimed and another source's document
// (a conflict, reported as such) are not.
func TestOlderVersions(t *testing.T) {
	states := map[string]ariadne.DocState{
		"d/v3":   {ContentHash: "x", Version: 3},
		"d/v0":   {ContentHash: "x"},
		"d/stub": {Version: 0},
		"w/v3":   {ContentHash: "x", Version: 3, Source: "wiki"},
	}
	doc := func(id string, v int) ariadne.Document {
		return ariadne.Document{ID: id, Version: v, Path: id + ".md", Body: "b"}
	}
	got := olderVersions(ariadne.DefaultSource, []ariadne.Document{doc("d/v3", 1), doc("d/v3", 3), doc("d/v3", 4), doc("d/v0", 0),
		doc("d/new", 0), doc("d/stub", 0), doc("w/v3", 1), doc("d/v3", 0)}, states)
	want := []Refusal{{DocID: "d/v3", File: "d/v3.md", Given: 1, Stored: 3}, {DocID: "d/v3", File: "d/v3.md", Given: 0, Stored: 3}}
	if !slices.Equal(got, want) {
		t.Errorf("refused %+v, want %+v", got, want)
	}
	if r := want[0].Reason(); r != "version 1 is older than the stored version 3; the stored document is kept as it was (give the file version 4 or higher to replace it)" {
		t.Errorf("reason %q", r)
	}
}

// TestSyncRefusesOlderVersion: a sync whose folder brings a document back to a lower version
// keeps the stored one as it was (not rewritten, not deleted) and reports the refusal, a dry run
// too; the same version edited in place is written, and so is a higher one.
func TestSyncRefusesOlderVersion(t *testing.T) {
	ctx := context.Background()
	p, st := memPipeline(t)
	doc := func(v int, body string) ariadne.Document {
		return ariadne.Document{ID: "notes/pier", Title: "Pier", Lang: "en", ACL: []string{"all"}, Version: v, Body: body, Path: "notes/pier.md"}
	}
	other := ariadne.Document{ID: "notes/gate", Title: "Gate", Lang: "en", ACL: []string{"all"}, Body: "The gate.\n", Path: "notes/gate.md"}
	v3 := doc(3, "The pier opens at six.\n")
	if _, err := p.Sync(ctx, []ariadne.Document{v3, other}, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		sum, err := p.Sync(ctx, []ariadne.Document{doc(1, "The pier opens at five.\n"), other}, Options{DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		want := []Refusal{{DocID: "notes/pier", File: "notes/pier.md", Given: 1, Stored: 3}}
		if !slices.Equal(sum.Refused, want) || sum.DocsWritten != 0 || sum.DocsDeleted != 0 || sum.Writes() != 0 {
			t.Errorf("dry run %v: refused %+v, written %d, deleted %d, writes %d; want the refusal and nothing written", dry, sum.Refused, sum.DocsWritten, sum.DocsDeleted, sum.Writes())
		}
	}
	if got := st.docs["notes/pier"].Doc; got.ContentHash() != v3.ContentHash() {
		t.Fatalf("the stored version 3 was replaced by %+v", got)
	}
	for _, d := range []ariadne.Document{doc(3, "The pier opens at seven.\n"), doc(4, "The pier opens at eight.\n")} {
		sum, err := p.Sync(ctx, []ariadne.Document{d, other}, Options{})
		if err != nil || len(sum.Refused) != 0 || sum.DocsWritten != 1 || st.docs["notes/pier"].Doc.ContentHash() != d.ContentHash() {
			t.Fatalf("version %d: %+v %v", d.Version, sum, err)
		}
	}
}

// TestRecognitionRefusal: with recognition down, a run over a source some of whose stored
// documents were extracted with it is refused, naming the source and the counts; not when
// recognition is up (or off: no reason), not for a source extracted without it, not for documents
// the run deletes.
func TestRecognitionRefusal(t *testing.T) {
	states := map[string]ariadne.DocState{
		"d/a":  {ContentHash: "a", Extractor: "dictionary-v1+ner-v1/x"},
		"d/b":  {ContentHash: "b", Extractor: "dictionary-v1"},
		"w/c":  {ContentHash: "c", Extractor: "dictionary-v1", Source: "wiki"},
		"o/d":  {ContentHash: "d", Extractor: "dictionary-v1+ner-v1/x", Source: "ops"},
		"o/st": {Source: "ops"}, // claimed only
	}
	down := "the NER sidecar at http://127.0.0.1:1 does not answer"
	for _, tc := range []struct {
		name    string
		down    string
		gone    map[string]bool
		sources []string
		want    *RecognitionError
	}{
		{"default", down, nil, []string{"default"}, &RecognitionError{Source: "default", Recognized: 1, Documents: 2, Reason: down}},
		{"recognition up", "", nil, []string{"default"}, nil},
		{"a source without recognition", down, nil, []string{"wiki"}, nil},
		{"a new source", down, nil, []string{"crm"}, nil},
		{"the recognized document is deleted", down, map[string]bool{"d/a": true}, []string{"default"}, nil},
		{"every source", down, nil, nil, &RecognitionError{Source: "default", Recognized: 1, Documents: 2, Reason: down}},
		{"ops", down, nil, []string{"wiki", "ops"}, &RecognitionError{Source: "ops", Recognized: 1, Documents: 1, Reason: down}},
	} {
		err := recognitionRefusal(tc.down, states, tc.gone, tc.sources...)
		var got *RecognitionError
		errors.As(err, &got)
		switch {
		case tc.want == nil && err != nil, tc.want != nil && (got == nil || *got != *tc.want):
			t.Errorf("%s: %v, want %+v", tc.name, err, tc.want)
		case tc.want != nil && !errors.Is(err, ariadne.ErrUnavailable):
			t.Errorf("%s: %v is not ErrUnavailable", tc.name, err)
		}
	}
}

// namedRecognizer recognizes nothing; a run with it records that recognition ran.
type namedRecognizer struct{}

func (namedRecognizer) Name() string { return "ner-test" }
func (namedRecognizer) Recognize(context.Context, []extraction.Input, *resolution.Registry) (map[string][]extraction.Recognized, error) {
	return map[string][]extraction.Recognized{}, nil
}

// TestSyncRefusedWithoutRecognition: a source indexed with recognition is neither synced nor
// deleted from by a pipeline whose recognition is down (Config.RecognitionDown) — a dry run is
// refused too, and nothing is written; a new source is indexed without it; a pipeline with
// recognition off on purpose (no RecognitionDown) rebuilds the source without it.
func TestSyncRefusedWithoutRecognition(t *testing.T) {
	ctx := context.Background()
	with, st := memPipeline(t)
	with.ner = namedRecognizer{}
	doc := func(id string) ariadne.Document {
		return ariadne.Document{ID: id, Title: id, Lang: "en", ACL: []string{"all"}, Body: "Text of " + id + ".\n", Path: id + ".md"}
	}
	corpus := []ariadne.Document{doc("notes/a"), doc("notes/b")}
	if _, err := with.Sync(ctx, corpus, Options{}); err != nil {
		t.Fatal(err)
	}
	down := "the NER sidecar at http://127.0.0.1:1 does not answer"
	without, err := New(Config{Chunker: with.chunker, Embedder: fixedEmbedder{}, Extractor: with.extractor, Ontology: with.onto,
		Graph: st, Vectors: st, RecognitionDown: down, Logger: with.log})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, sum Summary, err error, recognized int) {
		t.Helper()
		want := RecognitionError{Source: ariadne.DefaultSource, Recognized: recognized, Documents: recognized, Reason: down}
		var got *RecognitionError
		if !errors.As(err, &got) || *got != want || sum.Writes() != 0 {
			t.Errorf("%s: %v (writes %d), want %+v and nothing written", what, err, sum.Writes(), want)
		}
	}
	for _, dry := range []bool{true, false} {
		sum, err := without.Sync(ctx, corpus, Options{DryRun: dry})
		check("sync", sum, err, 2)
		sum, err = without.Delete(ctx, []string{"notes/a"}, Options{DryRun: dry})
		check("delete", sum, err, 1) // the document left would be extracted again
	}
	check("CheckRecognition", Summary{}, without.CheckRecognition(ctx), 2)
	if len(st.docs) != 2 || st.extractors["notes/a"] != "dictionary-v1+ner-test" {
		t.Fatalf("refused runs changed the store: %d documents, extractor %q", len(st.docs), st.extractors["notes/a"])
	}
	if sum, err := without.Sync(ctx, []ariadne.Document{doc("wiki/c")}, Options{Source: "wiki"}); err != nil || sum.DocsWritten != 1 {
		t.Fatalf("a new source without recognition: %+v %v", sum, err)
	}
	off, err := New(Config{Chunker: with.chunker, Embedder: fixedEmbedder{}, Extractor: with.extractor, Ontology: with.onto,
		Graph: st, Vectors: st, Logger: with.log})
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := off.Sync(ctx, corpus, Options{}); err != nil || sum.DocsRelinked != 2 || st.extractors["notes/a"] != "dictionary-v1" {
		t.Fatalf("rebuilding without recognition on purpose: %+v %v (extractor %q)", sum, err, st.extractors["notes/a"])
	}
}

// TestDeleteNamesSourcesAndUnknownIDs: Delete reports each document it removes with its own
// source — not the run's Options.Source — and the ids no stored document has, once each.
func TestDeleteNamesSourcesAndUnknownIDs(t *testing.T) {
	ctx := context.Background()
	p, st := memPipeline(t)
	doc := func(id string) ariadne.Document {
		return ariadne.Document{ID: id, Title: id, Lang: "en", ACL: []string{"all"}, Body: "Text of " + id + ".\n"}
	}
	if _, err := p.Upsert(ctx, []ariadne.Document{doc("api/kickoff")}, Options{Source: "api"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Upsert(ctx, []ariadne.Document{doc("notes/a")}, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		sum, err := p.Delete(ctx, []string{"no/such", "api/kickoff", "notes/a", "api/kickoff", "no/such"}, Options{DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		want := []DeletedDoc{{ID: "api/kickoff", Source: "api"}, {ID: "notes/a", Source: ariadne.DefaultSource}}
		if !slices.Equal(sum.Deleted, want) || !slices.Equal(sum.NotFound, []string{"no/such"}) || sum.DocsDeleted != 2 {
			t.Errorf("dry run %v: deleted %+v, not found %v, count %d", dry, sum.Deleted, sum.NotFound, sum.DocsDeleted)
		}
	}
	if len(st.docs) != 0 {
		t.Errorf("left %d documents", len(st.docs))
	}
}
