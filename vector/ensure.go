package vector

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// sampledCheck is how many objects CheckIndex searches for when it is not told to check all.
const sampledCheck = 32

// CheckIndex self-checks the class's vector index and repairs what Weaviate lost (SelfCheck,
// RepairIndex) before anything relies on it: a sync re-writes only changed documents, so HNSW
// entries lost in a crash stay lost under unchanged ones, and an evaluation on such an index
// measures retrieval over part of the corpus. full searches every chunk by its own vector (one
// search per chunk: about 1 s for 450 e5 chunks on 2 cores); otherwise a random sample of 32 is
// checked and a failed sample starts the full repair. dryRun checks and logs, and repairs
// nothing. It returns the repair's figures (zero when nothing was repaired) and an error when
// Weaviate does not answer or lost chunks are still not found after being written again.
func (s *Store) CheckIndex(ctx context.Context, full, dryRun bool, log *slog.Logger) (IndexRepair, error) {
	if !full || dryRun {
		n := sampledCheck
		if full {
			n = maxQueryResults
		}
		ic, err := s.SelfCheck(ctx, n)
		if err != nil {
			return IndexRepair{}, err
		}
		switch {
		case ic.OK():
			log.Info("vector index self-check passed", "class", s.class, "sampled", ic.Sampled)
			return IndexRepair{}, nil
		case dryRun:
			log.Warn("the vector index lost entries; a run without --dry-run repairs them", "class", s.class,
				"sampled", ic.Sampled, "lost", len(ic.Lost))
			return IndexRepair{}, nil
		}
		log.Warn("the vector index lost entries; repairing it", "class", s.class, "sampled", ic.Sampled, "lost", len(ic.Lost))
	}
	start := time.Now()
	rep, err := s.RepairIndex(ctx)
	if err != nil {
		return rep, fmt.Errorf("vector index repair (Weaviate): %w", err)
	}
	level := slog.LevelInfo
	if len(rep.Lost) > 0 {
		level = slog.LevelWarn
	}
	log.Log(ctx, level, "vector index checked", "class", s.class, "scanned", rep.Scanned, "lost", len(rep.Lost), "repaired", rep.Repaired,
		"took", time.Since(start).Round(time.Millisecond))
	if !rep.OK() {
		return rep, fmt.Errorf("vector index repair (Weaviate): %d of %d lost chunks still not found by their own vector: re-index (--reindex)", len(rep.Lost)-rep.Repaired, len(rep.Lost))
	}
	return rep, nil
}
