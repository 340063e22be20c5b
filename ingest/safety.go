package ingest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
)

// What a full sync refuses to do on bad input: a sync brings a source in line with its folder, and
// a folder can be wrong in ways that look like deletions or downgrades — a broken file, an empty
// or unmounted folder, an old copy of a file. The rules here are pure (they read the stored states and the run's input); index
// applies them before anything is written, dry runs included.

// UnreadFile is a file of a synced folder that could not be read as a document (malformed front
// matter, an empty acl, a duplicate id …). A sync keeps, as they are, the stored documents of the
// source that file may hold: the one stored from Path, and the one with ID when the front matter
// gave one (Options.Unread).
type UnreadFile struct {
	Path string
	ID   string
}

// Kept is a stored document a sync kept as it was because the folder's file for it could not be
// read.
type Kept struct {
	DocID string
	File  string // the folder's file that holds it now
}

// keptByUnread returns the stored documents of source that unread files hold — stored from one of
// their paths, or with the id one of them gives — by id, with the file's path. Documents the run
// was given (given) are not kept: they are written or left as they are anyway.
func keptByUnread(source string, states map[string]ariadne.DocState, given map[string]bool, unread []UnreadFile) map[string]string {
	keep := map[string]string{}
	byPath := map[string]bool{}
	for _, u := range unread {
		byPath[u.Path] = true
		if st, ok := states[u.ID]; u.ID != "" && ok && !given[u.ID] && isStored(st, source) {
			keep[u.ID] = u.Path
		}
	}
	for id, st := range states {
		if _, done := keep[id]; !done && st.Path != "" && byPath[st.Path] && !given[id] && isStored(st, source) {
			keep[id] = st.Path
		}
	}
	return keep
}

// Refusal is a file of a synced folder whose document has a lower version than the stored one:
// the sync keeps the stored document as it was, as it keeps one whose file cannot be read (POST
// /v1/documents answers such a write 409 version_conflict).
type Refusal struct {
	DocID         string
	File          string // the file's path in the folder
	Given, Stored int    // its version and the stored one
}

// Reason says why the file was refused and how to replace the stored document.
func (r Refusal) Reason() string {
	return fmt.Sprintf("version %d is older than the stored version %d; the stored document is kept as it was (give the file version %d or higher to replace it)",
		r.Given, r.Stored, r.Stored+1)
}

// olderVersions returns the given documents of source whose version is lower than their stored
// document's, in the order given. The same version with other content is not refused, as POST
// /v1/documents refuses it: a folder is its source's one writer, and editing a file in place
// without raising its version is an ordinary edit.
func olderVersions(source string, docs []ariadne.Document, states map[string]ariadne.DocState) []Refusal {
	var out []Refusal
	for _, d := range docs {
		if st, ok := states[d.ID]; ok && isStored(st, source) && d.Version < st.Version {
			out = append(out, Refusal{DocID: d.ID, File: d.Path, Given: d.Version, Stored: st.Version})
		}
	}
	return out
}

// isStored reports whether a state is a written document of source (not an id only claimed by a
// run that never wrote it).
func isStored(st ariadne.DocState, source string) bool {
	return st.ContentHash != "" && sourceOf(st.Source) == source
}

// sortedKept lists keep (id → file) by id.
func sortedKept(keep map[string]string) []Kept {
	out := make([]Kept, 0, len(keep))
	for id, f := range keep {
		out = append(out, Kept{DocID: id, File: f})
	}
	slices.SortFunc(out, func(a, b Kept) int { return cmp.Compare(a.DocID, b.DocID) })
	return out
}

// DeleteAllError is a sync refused because it would delete every stored document of its source
// (Options.RefuseDeleteAll): the folder holds none of them — empty, unmounted, the wrong one, or
// only files that cannot be read and hold nothing stored. Nothing was written.
type DeleteAllError struct {
	Source    string
	Documents int // stored documents of the source, all of which the sync would delete
}

func (e *DeleteAllError) Error() string {
	return fmt.Sprintf("this sync would delete every document of source %q (%d): the folder holds none of them; nothing was written",
		e.Source, e.Documents)
}

// Unwrap makes a DeleteAllError an ariadne.ErrInvalid.
func (e *DeleteAllError) Unwrap() error { return ariadne.ErrInvalid }

// deletesAll returns how many stored documents of source the plan deletes when it deletes every
// one of them, and 0 otherwise (and for a source with none).
func deletesAll(source string, states map[string]ariadne.DocState, plan Plan) int {
	n := 0
	for id, st := range states {
		if !isStored(st, source) {
			continue
		}
		if _, gone := plan.Deleted[id]; !gone {
			return 0
		}
		n++
	}
	return n
}

// RecognitionError is a run refused because entity recognition is unavailable
// (Config.RecognitionDown) while stored documents of its source were extracted with it: the run
// would extract them again without it and drop every entity it recognized there. Nothing was
// written.
type RecognitionError struct {
	Source                string
	Recognized, Documents int    // stored documents of the source extracted with recognition, and all of them
	Reason                string // why recognition is unavailable (Config.RecognitionDown)
}

func (e *RecognitionError) Error() string {
	return fmt.Sprintf("source %q was indexed with entity recognition (%d of its %d documents), but %s: this run would extract them again without it and drop the entities it recognized, so nothing was written",
		e.Source, e.Recognized, e.Documents, e.Reason)
}

// Unwrap makes a RecognitionError an ariadne.ErrUnavailable.
func (e *RecognitionError) Unwrap() error { return ariadne.ErrUnavailable }

// recognizedWith reports whether a stored document's extractor (DocState.Extractor, as
// extractorName records it: the extractor, then "+" and the recognizer) ran entity recognition.
func recognizedWith(extractor string) bool { return strings.Contains(extractor, "+") }

// recognitionRefusal returns the *RecognitionError of a run over sources (every source when none
// is named) while recognition is unavailable (down, Config.RecognitionDown; "": available, or not
// asked for) and stored documents of one of them were extracted with it; gone are documents the
// run deletes, which lose nothing. Sources are checked in name order.
func recognitionRefusal(down string, states map[string]ariadne.DocState, gone map[string]bool, sources ...string) error {
	if down == "" {
		return nil
	}
	type count struct{ recognized, docs int }
	by := map[string]*count{}
	for id, st := range states {
		src := sourceOf(st.Source)
		if st.ContentHash == "" || gone[id] || len(sources) > 0 && !slices.Contains(sources, src) {
			continue
		}
		c := by[src]
		if c == nil {
			c = &count{}
			by[src] = c
		}
		c.docs++
		if recognizedWith(st.Extractor) {
			c.recognized++
		}
	}
	for _, src := range slices.Sorted(maps.Keys(by)) {
		if c := by[src]; c.recognized > 0 {
			return &RecognitionError{Source: src, Recognized: c.recognized, Documents: c.docs, Reason: down}
		}
	}
	return nil
}

// CheckRecognition returns a *RecognitionError when recognition is unavailable
// (Config.RecognitionDown) and stored documents of one of sources — of any source when none is
// named — were extracted with it; Sync, Upsert and Delete check their own sources. cmd/extract
// calls it before --reindex drops every source.
func (p *Pipeline) CheckRecognition(ctx context.Context, sources ...string) error {
	if p.recognitionDown == "" {
		return nil
	}
	states, err := p.graph.DocumentStates(ctx)
	if err != nil {
		return neo4jErr(err)
	}
	return recognitionRefusal(p.recognitionDown, states, nil, sources...)
}
