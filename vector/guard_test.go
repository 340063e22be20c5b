package vector

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// fakeIndex scripts a vector index: down (every call unavailable), lost (self-checks find lost
// entries until a repair runs), and counts calls.
type fakeIndex struct {
	mu                       sync.Mutex
	down                     bool
	lost                     bool
	repairFixes              bool
	searches, checks, repair int
	repairGate               chan struct{} // when set, RepairIndex waits for it
}

var errDown = errors.New("connection refused")

func (f *fakeIndex) Search(context.Context, ariadne.SearchMode, ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches++
	if f.down {
		return nil, errors.Join(ariadne.ErrUnavailable, errDown)
	}
	return []ariadne.ScoredChunk{{Chunk: ariadne.Chunk{ID: "doc#0"}}}, nil
}

func (f *fakeIndex) SelfCheck(context.Context, int) (IndexCheck, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks++
	if f.down {
		return IndexCheck{}, errors.Join(ariadne.ErrUnavailable, errDown)
	}
	if f.lost {
		return IndexCheck{Sampled: 8, Lost: []string{"doc#0", "doc#1"}}, nil
	}
	return IndexCheck{Sampled: 8}, nil
}

func (f *fakeIndex) RepairIndex(context.Context) (IndexRepair, error) {
	f.mu.Lock()
	gate := f.repairGate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.repair++
	if f.repairFixes {
		f.lost = false
		return IndexRepair{Scanned: 45, Lost: []string{"doc#0", "doc#1"}, Repaired: 2}, nil
	}
	return IndexRepair{Scanned: 45, Lost: []string{"doc#0", "doc#1"}}, nil
}

func (f *fakeIndex) Class() string { return "Chunk" }

func (f *fakeIndex) set(fn func(*fakeIndex)) { f.mu.Lock(); fn(f); f.mu.Unlock() }

func (f *fakeIndex) counts() (searches, checks, repairs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.searches, f.checks, f.repair
}

func quietGuard(f *fakeIndex, cfg GuardConfig) *IndexGuard {
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	return NewIndexGuard(f, cfg)
}

func search(g *IndexGuard) error {
	_, err := g.Search(context.Background(), ariadne.SearchHybrid, ariadne.SearchQuery{})
	return err
}

// eventually polls cond for up to 2 s (the guard's repairs and checks run in the background).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within 2 s", what)
}

func TestIndexGuardHealthyChecksOnceThenSearches(t *testing.T) {
	f := &fakeIndex{}
	g := quietGuard(f, GuardConfig{Every: time.Hour})
	for range 3 {
		if err := search(g); err != nil {
			t.Fatal(err)
		}
	}
	if s, c, r := f.counts(); s != 3 || c != 1 || r != 0 {
		t.Fatalf("searches %d, checks %d, repairs %d; want 3, 1, 0", s, c, r)
	}
	if ok, detail := g.Status(); !ok || detail != "self-check 0s ago: the sampled chunks are found by their own vectors" {
		t.Fatalf("status %v %q", ok, detail)
	}
}

func TestIndexGuardRefusesDamagedIndexAndRepairs(t *testing.T) {
	gate := make(chan struct{})
	f := &fakeIndex{lost: true, repairFixes: true, repairGate: gate}
	g := quietGuard(f, GuardConfig{Every: time.Hour, Repair: true})
	err := search(g)
	if !errors.Is(err, ariadne.ErrUnavailable) || !errors.Is(err, ErrIndexDamaged) {
		t.Fatalf("search on a damaged index: %v; want unavailable and ErrIndexDamaged", err)
	}
	if retry.Transient(err) {
		t.Fatal("the refusal is retried within the request; a repair outlasts any retry window")
	}
	if s, _, _ := f.counts(); s != 0 {
		t.Fatalf("%d searches reached the damaged index", s)
	}
	if ok, detail := g.Status(); ok || detail != "the vector index of class Chunk lost entries: 2 of 8 sampled chunks are not found by their own vector (Weaviate restarted after a crash?); answers would use partial evidence: repair it (cmd/extract --repair-index; the API repairs in the background unless ARIADNE_VECTOR_INDEX_REPAIR=false); repair running" {
		t.Fatalf("status %v %q", ok, detail)
	}
	// A check passing while the repair still runs does not let searches through.
	f.set(func(f *fakeIndex) { f.lost = false })
	if _, _, err := g.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := search(g); !errors.Is(err, ErrIndexDamaged) {
		t.Fatalf("search during the repair: %v", err)
	}
	close(gate)
	eventually(t, "searches resume after the repair", func() bool { return search(g) == nil })
	if _, _, r := f.counts(); r != 1 {
		t.Fatalf("%d repairs, want 1", r)
	}
}

func TestIndexGuardWithoutRepairRechecks(t *testing.T) {
	f := &fakeIndex{lost: true}
	g := quietGuard(f, GuardConfig{Every: 20 * time.Millisecond})
	if err := search(g); !errors.Is(err, ErrIndexDamaged) {
		t.Fatalf("got %v", err)
	}
	f.set(func(f *fakeIndex) { f.lost = false }) // an operator re-indexed
	time.Sleep(30 * time.Millisecond)
	_ = search(g) // starts the re-check
	eventually(t, "searches resume after an operator's repair", func() bool { return search(g) == nil })
	if _, _, r := f.counts(); r != 0 {
		t.Fatalf("%d repairs with repair off", r)
	}
}

func TestIndexGuardChecksAfterAnOutage(t *testing.T) {
	f := &fakeIndex{}
	g := quietGuard(f, GuardConfig{Every: time.Hour, Repair: true, RetryRepair: time.Hour})
	if err := search(g); err != nil {
		t.Fatal(err)
	}
	f.set(func(f *fakeIndex) { f.down = true })
	if err := search(g); !errors.Is(err, ariadne.ErrUnavailable) || errors.Is(err, ErrIndexDamaged) {
		t.Fatalf("search while down: %v", err)
	}
	// Still down: the check cannot run, the search fails as unavailable without reaching Weaviate.
	before, _, _ := f.counts()
	if err := search(g); !errors.Is(err, ariadne.ErrUnavailable) || errors.Is(err, ErrIndexDamaged) {
		t.Fatalf("search while down: %v", err)
	}
	if after, _, _ := f.counts(); after != before {
		t.Fatalf("a search reached Weaviate before the check passed")
	}
	// Back, restarted with lost entries: refused while the repair runs (held by the gate, else
	// the fake's instant repair and the check after it can pass before the search is decided),
	// then repaired.
	gate := make(chan struct{})
	f.set(func(f *fakeIndex) { f.down, f.lost, f.repairFixes, f.repairGate = false, true, true, gate })
	if err := search(g); !errors.Is(err, ErrIndexDamaged) {
		t.Fatalf("search after the restart: %v", err)
	}
	close(gate)
	eventually(t, "searches resume after the repair", func() bool { return search(g) == nil })
}

func TestIndexGuardFailedRepairWaitsBeforeRetrying(t *testing.T) {
	f := &fakeIndex{lost: true}
	g := quietGuard(f, GuardConfig{Every: time.Hour, Repair: true, RetryRepair: time.Hour})
	_ = search(g)
	eventually(t, "first repair", func() bool { _, _, r := f.counts(); return r == 1 })
	time.Sleep(20 * time.Millisecond)
	for range 5 {
		if err := search(g); !errors.Is(err, ErrIndexDamaged) {
			t.Fatalf("got %v", err)
		}
	}
	if _, _, r := f.counts(); r != 1 {
		t.Fatalf("%d repairs within the retry wait, want 1", r)
	}
}
