package ingest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
)

// TestWriteLockWait: a write queued behind a running one waits at most Config.LockWait and then
// fails with ErrWriteBusy, writing nothing; a caller that gives up stops waiting at once; once
// the lock is free the write runs (an outside tester's small write waited 471 s behind a large
// one, after its client had gone).
func TestWriteLockWait(t *testing.T) {
	ctx := context.Background()
	p, st := memPipeline(t)
	p.lockWait = 50 * time.Millisecond
	doc := ariadne.Document{ID: "notes/small", Title: "Small", Type: "note", Lang: "en", ACL: []string{"all"},
		Body: "# Small\n\nA small note about the blue meeting room.\n"}
	release, err := p.lock(ctx) // a long write holds it
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = p.Upsert(ctx, []ariadne.Document{doc}, Options{})
	if !errors.Is(err, ErrWriteBusy) || !errors.Is(err, ariadne.ErrUnavailable) || time.Since(start) > 5*time.Second {
		t.Fatalf("queued write: %v after %s, want ErrWriteBusy after about 50ms", err, time.Since(start))
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	p.lockWait = 0
	if _, err = p.Delete(gone, []string{"notes/small"}, Options{}); !errors.Is(err, context.Canceled) || errors.Is(err, ErrWriteBusy) {
		t.Fatalf("a caller that gave up: %v, want context.Canceled, not busy", err)
	}
	if n := len(st.docs); n != 0 {
		t.Fatalf("%d documents written while the lock was held", n)
	}
	release()
	if sum, err := p.Upsert(ctx, []ariadne.Document{doc}, Options{}); err != nil || sum.DocsWritten != 1 {
		t.Fatalf("after the lock is free: %+v, %v", sum, err)
	}
}

// TestSyncNamesDeleted: a sync names each document it deletes as absent from its run, with its
// source, as a Delete does.
func TestSyncNamesDeleted(t *testing.T) {
	ctx := context.Background()
	p, _ := memPipeline(t)
	a := ariadne.Document{ID: "notes/a", Title: "A", Type: "note", Lang: "en", ACL: []string{"all"}, Body: "# A\n\nThe first note.\n"}
	b := ariadne.Document{ID: "notes/b", Title: "B", Type: "note", Lang: "en", ACL: []string{"all"}, Body: "# B\n\nThe second note.\n"}
	if _, err := p.Sync(ctx, []ariadne.Document{a, b}, Options{}); err != nil {
		t.Fatal(err)
	}
	sum, err := p.Sync(ctx, []ariadne.Document{a}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.DocsDeleted != 1 || len(sum.Deleted) != 1 || sum.Deleted[0] != (DeletedDoc{ID: "notes/b", Source: ariadne.DefaultSource}) {
		t.Errorf("deleted %d: %+v, want notes/b of source default", sum.DocsDeleted, sum.Deleted)
	}
}
