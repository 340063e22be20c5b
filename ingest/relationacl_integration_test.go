package ingest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// TestIntegrationNERRelationACL is an outside tester's repro, through the pipeline with the real
// NER sidecar: a public note and a management-only note say the same sentence, so recognition
// relates the same two entities in both. The relation's acl is the union of its chunks' groups
// whether the notes are synced together (one write batch) or posted one at a time in either
// order, and after the public note is deleted it is management's alone. Before the fix a sync of
// both gave the relation acl [management] with both chunk ids: anonymous callers did not see a
// relation a public chunk states.
func TestIntegrationNERRelationACL(t *testing.T) {
	ctx := context.Background()
	const sentence = "Sergey Pakhomov moved to Moscow."
	pub := noteDocs("a", "en", []string{sentence}, nil)[0]
	mgmt := noteDocs("b", "en", []string{sentence}, []string{"management"})[0]
	for _, tc := range []struct {
		name  string
		write func(p *ingest.Pipeline) error
	}{
		{"one sync", func(p *ingest.Pipeline) error {
			_, err := p.Sync(ctx, []ariadne.Document{pub, mgmt}, ingest.Options{})
			return err
		}},
		{"public posted first", func(p *ingest.Pipeline) error { return upsertEach(ctx, p, pub, mgmt) }},
		{"restricted posted first", func(p *ingest.Pipeline) error { return upsertEach(ctx, p, mgmt, pub) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testrig.NewWithNER(t, "")
			if err := tc.write(r.Pipe); err != nil {
				t.Fatal(err)
			}
			if got, want := relationACLs(t, r), "[all management] [a/1 b/1]"; got != want {
				t.Errorf("relation acl and chunks' documents %q, want %q", got, want)
			}
			if _, err := r.Pipe.Delete(ctx, []string{pub.ID}, ingest.Options{}); err != nil {
				t.Fatal(err)
			}
			if got, want := relationACLs(t, r), "[management] [b/1]"; got != want {
				t.Errorf("after deleting the public note: relation acl and chunks' documents %q, want %q", got, want)
			}
		})
	}
}

func upsertEach(ctx context.Context, p *ingest.Pipeline, docs ...ariadne.Document) error {
	for _, d := range docs {
		if _, err := p.Upsert(ctx, []ariadne.Document{d}, ingest.Options{}); err != nil {
			return err
		}
	}
	return nil
}

// relationACLs lists each MENTIONED_WITH relation's sorted acl and the sorted documents of its
// chunks; it fails the test unless there is exactly one.
func relationACLs(t *testing.T, r *testrig.Rig) string {
	t.Helper()
	rows, err := r.Graph.QueryReadOnly(context.Background(), `
MATCH (:Entity)-[x:MENTIONED_WITH]->(:Entity)
RETURN x.acl AS acl, [id IN x.chunk_ids | split(id, '#')[0]] AS docs`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("MENTIONED_WITH relations: %v, want one", rows)
	}
	sorted := func(v any) []string {
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		slices.Sort(out)
		return out
	}
	return strings.TrimSpace(fmt.Sprint(sorted(rows[0]["acl"]), " ", sorted(rows[0]["docs"])))
}
