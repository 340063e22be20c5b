package graph

import (
	"fmt"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

// TestWriteParamsOneRowPerRelation: two documents of a batch stating one relation give one row
// with both chunk ids and both chunks' groups; a relation that also cites a chunk outside the
// batch goes, merged, to the rows whose acl is recomputed from the stored chunks.
func TestWriteParamsOneRowPerRelation(t *testing.T) {
	pub := sameSentence("notes/a", []string{"all"})
	mgmt := sameSentence("notes/b", []string{"management", "all"})
	b, err := writeParams([]ariadne.DocumentGraph{pub, mgmt}, nil, nil, testLabeler{}, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(b.relations), "[map[acl:[all management] chunk_ids:[notes/a#0000 notes/b#0000] source:location:moscow target:person:sergey pakhomov type:MENTIONED_WITH]]"; got != want || len(b.fullRelations) != 0 {
		t.Errorf("relations %s, full %v\nwant %s", got, b.fullRelations, want)
	}
	mgmt.Relations[0].ChunkIDs = append(mgmt.Relations[0].ChunkIDs, "notes/c#0000")
	b, err = writeParams([]ariadne.DocumentGraph{pub, mgmt}, nil, nil, testLabeler{}, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(b.fullRelations), "[map[acl:[all management] chunk_ids:[notes/a#0000 notes/b#0000 notes/c#0000] source:location:moscow target:person:sergey pakhomov type:MENTIONED_WITH]]"; got != want || len(b.relations) != 0 {
		t.Errorf("full relations %s, relations %v\nwant %s", got, b.relations, want)
	}
}
