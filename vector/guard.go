package vector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// GuardConfig tunes an IndexGuard.
type GuardConfig struct {
	// Sample is how many objects each self-check searches for (Store.SelfCheck); default 8.
	Sample int
	// Every is how old a passed check may get before the next search starts another one in the
	// background; default 15 s. A Weaviate restarted between two searches is noticed within it.
	Every time.Duration
	// Repair runs Store.RepairIndex in the background when a check fails (the guard's process
	// must be allowed to write the class). Off, searches stay refused until an operator repairs
	// or re-indexes and a later check passes.
	Repair bool
	// RetryRepair is the wait before a failed or incomplete repair is tried again; default 1 min.
	RetryRepair time.Duration
	Log         *slog.Logger
}

// IndexGuard refuses searches while the vector index is known to have lost entries, instead of
// answering from partial evidence. Weaviate 1.29 restarted after kill -9 can keep every object
// and stored vector but lose HNSW entries: vector and hybrid searches then return the same few
// chunks for every question, and nothing fails (docs/reliability.md).
//
// The guard self-checks the index (Store.SelfCheck) before the first search, after any search
// that found Weaviate unavailable (it may come back restarted), and in the background once the
// last check is older than GuardConfig.Every. While a check has found lost entries, Search
// returns an error wrapping ariadne.ErrUnavailable (the API answers 503 `unavailable`), and with
// GuardConfig.Repair a background Store.RepairIndex writes the lost objects again; the next
// check that passes lets searches through. The refusal is retry.Permanent: retrying within one
// request cannot outlast a repair. It is safe for concurrent use.
type IndexGuard struct {
	store GuardedIndex
	cfg   GuardConfig

	mu        sync.Mutex
	state     guardState
	checkedAt time.Time
	detail    string        // what the last check found, or why it could not run
	checking  chan struct{} // closed when the running check ends; nil when none runs
	repairing bool
	repairAt  time.Time // no repair starts before this
}

type guardState int

const (
	guardUnknown guardState = iota
	guardHealthy
	guardDamaged
)

// GuardedIndex is what an IndexGuard needs of a Store.
type GuardedIndex interface {
	Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error)
	SelfCheck(ctx context.Context, n int) (IndexCheck, error)
	RepairIndex(ctx context.Context) (IndexRepair, error)
	Class() string
}

// NewIndexGuard wraps store's searches (a *Store).
func NewIndexGuard(store GuardedIndex, cfg GuardConfig) *IndexGuard {
	if cfg.Sample <= 0 {
		cfg.Sample = 8
	}
	if cfg.Every <= 0 {
		cfg.Every = 15 * time.Second
	}
	if cfg.RetryRepair <= 0 {
		cfg.RetryRepair = time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &IndexGuard{store: store, cfg: cfg}
}

// ErrIndexDamaged is wrapped (with ariadne.ErrUnavailable) by the errors of searches refused
// because the vector index lost entries.
var ErrIndexDamaged = errors.New("the vector index lost entries")

// Search is Store.Search behind the guard.
func (g *IndexGuard) Search(ctx context.Context, mode ariadne.SearchMode, q ariadne.SearchQuery) ([]ariadne.ScoredChunk, error) {
	if err := g.admit(ctx); err != nil {
		return nil, err
	}
	res, err := g.store.Search(ctx, mode, q)
	if errors.Is(err, ariadne.ErrUnavailable) {
		g.Invalidate()
	}
	return res, err
}

// Invalidate forgets the last check: the next search checks the index before it runs.
func (g *IndexGuard) Invalidate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == guardHealthy {
		g.state = guardUnknown
	}
}

// Status reports the guard's view for readiness: ok is false while the index is known to have
// lost entries; detail says what was found or that no check has run yet.
func (g *IndexGuard) Status() (ok bool, detail string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch g.state {
	case guardDamaged:
		d := g.detail
		if g.repairing {
			d += "; repair running"
		}
		return false, d
	case guardHealthy:
		return true, fmt.Sprintf("self-check %s ago: %s", time.Since(g.checkedAt).Round(time.Second), g.detail)
	}
	return true, "not checked since the last start or outage"
}

// Check runs a self-check now (or waits for the one running) and reports as Status does; err is
// set when the check could not run (Weaviate does not answer). Readiness probes call it, so a
// probe after a restart is also the guard's check.
func (g *IndexGuard) Check(ctx context.Context) (ok bool, detail string, err error) {
	if err := g.awaitCheck(ctx); err != nil {
		return false, "", err
	}
	ok, detail = g.Status()
	return ok, detail, nil
}

// awaitCheck starts a self-check unless one is running and waits for it. The error, wrapping
// ariadne.ErrUnavailable, says the check could not run (Weaviate does not answer) or ctx ended
// first; nil means the guard now knows the index's state.
func (g *IndexGuard) awaitCheck(ctx context.Context) error {
	g.mu.Lock()
	if g.checking == nil {
		g.startCheckLocked()
	}
	done := g.checking
	g.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("vector: waiting for the index self-check: %w", errors.Join(ariadne.ErrUnavailable, ctx.Err()))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == guardUnknown {
		return fmt.Errorf("vector: index self-check: %s: %w", g.detail, ariadne.ErrUnavailable)
	}
	return nil
}

// admit lets a search through, checking the index first when the guard does not know its state.
func (g *IndexGuard) admit(ctx context.Context) error {
	for {
		g.mu.Lock()
		switch {
		case g.state == guardHealthy:
			if time.Since(g.checkedAt) > g.cfg.Every && g.checking == nil {
				g.startCheckLocked()
			}
			g.mu.Unlock()
			return nil
		case g.state == guardDamaged:
			switch {
			case g.checking != nil || g.repairing:
			case g.cfg.Repair && time.Now().After(g.repairAt):
				g.startRepairLocked()
			case !g.cfg.Repair && time.Since(g.checkedAt) > g.cfg.Every:
				g.startCheckLocked() // an operator may have repaired or re-indexed it
			}
			// Not retried by the caller's backoff: a repair outlasts a retry window.
			err := retry.Permanent(fmt.Errorf("vector: %s; searches are refused until a self-check passes: %w",
				g.detail, errors.Join(ariadne.ErrUnavailable, ErrIndexDamaged)))
			g.mu.Unlock()
			return err
		}
		g.mu.Unlock()
		// Unknown: wait for a check (ours or another search's), then decide again.
		if err := g.awaitCheck(ctx); err != nil {
			return err
		}
	}
}

// startCheckLocked runs one self-check in the background; g.mu is held.
func (g *IndexGuard) startCheckLocked() {
	done := make(chan struct{})
	g.checking = done
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		ic, err := g.store.SelfCheck(ctx, g.cfg.Sample)
		cancel()
		g.mu.Lock()
		defer g.mu.Unlock()
		defer close(done)
		g.checking = nil
		switch {
		case err != nil:
			g.state, g.detail = guardUnknown, err.Error()
		case ic.OK() && g.repairing:
			// The sample may be repaired already while other objects are still being rewritten.
		case ic.OK():
			if g.state == guardDamaged {
				g.cfg.Log.Info("vector index self-check passed again; searches resume", "class", g.store.Class(), "sampled", ic.Sampled)
			}
			g.state, g.checkedAt, g.detail = guardHealthy, time.Now(), ic.Describe(g.store.Class())
		default:
			if g.state != guardDamaged {
				g.cfg.Log.Error("vector index lost entries; refusing searches", "class", g.store.Class(),
					"lost", len(ic.Lost), "sampled", ic.Sampled, "repair", g.cfg.Repair)
			}
			g.state, g.checkedAt, g.detail = guardDamaged, time.Now(), ic.Describe(g.store.Class())
			if g.cfg.Repair && !g.repairing {
				g.startRepairLocked()
			}
		}
	}()
}

// startRepairLocked runs Store.RepairIndex in the background, then a check; g.mu is held.
func (g *IndexGuard) startRepairLocked() {
	if !g.cfg.Repair {
		return
	}
	g.repairing = true
	go func() {
		start := time.Now()
		rep, err := g.store.RepairIndex(context.Background())
		g.mu.Lock()
		defer g.mu.Unlock()
		g.repairing = false
		if err != nil || !rep.OK() {
			g.repairAt = time.Now().Add(g.cfg.RetryRepair)
			g.cfg.Log.Error("vector index repair did not finish; trying again later", "class", g.store.Class(), "error", err,
				"scanned", rep.Scanned, "lost", len(rep.Lost), "repaired", rep.Repaired, "retry_in", g.cfg.RetryRepair)
			return
		}
		g.cfg.Log.Info("vector index repaired", "class", g.store.Class(), "scanned", rep.Scanned, "lost", len(rep.Lost),
			"repaired", rep.Repaired, "took", time.Since(start).Round(time.Millisecond))
		if g.checking == nil {
			g.startCheckLocked()
		}
	}()
}
