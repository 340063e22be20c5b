package ingest

import (
	"cmp"
	"slices"

	"github.com/ariadne-graphrag/ariadne"
)

// What a full sync refuses to do on bad input: a sync brings a source in line with its folder, and
// a folder can be wrong in ways that look like deletions. The rules here are pure (they read the
// stored states and the run's input); index applies them before anything is written, dry runs
// included.

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
