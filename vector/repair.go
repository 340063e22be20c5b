package vector

import (
	"context"
	"fmt"
	"time"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"golang.org/x/sync/errgroup"

	"github.com/ariadne-graphrag/ariadne/retry"
)

// IndexRepair is the result of RepairIndex.
type IndexRepair struct {
	Scanned  int      // objects with a vector that were searched for
	Lost     []string // chunk ids the vector index did not return for their own vector
	Repaired int      // of those, found by their own vector after being written again
}

// OK reports whether the index holds every object after the repair.
func (r IndexRepair) OK() bool { return r.Repaired == len(r.Lost) }

// repairWorkers is how many self-searches RepairIndex runs at a time.
const repairWorkers = 4

// RepairIndex makes the vector index whole again after Weaviate lost HNSW entries (SelfCheck):
// it reads every object of the class with its vector (a cursor, 200 at a time), searches each by
// its own vector (findsItself, repairWorkers at a time), and writes every object not found again — read
// with its properties and vector, deleted, created under the same id — which inserts it into the
// HNSW graph anew (an update that leaves the vector equal may not). Then it searches for it
// again: Repaired counts those now found. The properties and vector written are the stored ones,
// so the object's content and the content digest are unchanged. It costs one vector search per
// object (about 10 ms each for 10 000 768-dimensional objects on 2 cores) plus four requests per
// lost one. Between the delete and the create the object is absent; callers run it while
// searches are held back (IndexGuard) or before a sync writes. Errors wrap
// ariadne.ErrUnavailable when Weaviate does not answer; what was repaired before stays repaired.
func (s *Store) RepairIndex(ctx context.Context) (IndexRepair, error) {
	ctx = withRetryAfter(ctx)
	var out IndexRepair
	fields := []graphql.Field{{Name: "chunk_id"}, {Name: "_additional", Fields: []graphql.Field{{Name: "id"}, {Name: "vector"}}}}
	err := s.scan(ctx, "index repair", 200, fields, func(hits []map[string]any) error {
		type object struct {
			id, chunkID string
			vec         []float32
		}
		var page []object
		for _, h := range hits {
			add, _ := h["_additional"].(map[string]any)
			o := object{id: str(add["id"]), chunkID: str(h["chunk_id"]), vec: vectorOf(add)}
			if o.id != "" && len(o.vec) > 0 {
				page = append(page, o)
			}
		}
		out.Scanned += len(page)
		lost := make([]bool, len(page))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(repairWorkers)
		for i, o := range page {
			g.Go(func() error {
				found, err := s.findsItself(gctx, o.id, o.vec)
				lost[i] = !found
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i, o := range page {
			if !lost[i] {
				continue
			}
			out.Lost = append(out.Lost, o.chunkID)
			if err := s.rewrite(ctx, o.id); err != nil {
				return err
			}
			found, err := s.findsItself(ctx, o.id, o.vec)
			if err != nil {
				return err
			}
			if found {
				out.Repaired++
			}
		}
		return nil
	})
	return out, err
}

// rewrite deletes the object id and creates it again with its stored properties and vector.
func (s *Store) rewrite(ctx context.Context, id string) error {
	objs, err := s.client.Data().ObjectsGetter().WithClassName(s.class).WithID(id).WithVector().
		WithConsistencyLevel(s.placement.Consistency).Do(ctx)
	if err != nil {
		return s.wrap(ctx, "index repair: read object", err)
	}
	if len(objs) != 1 || len(objs[0].Vector) == 0 {
		return fmt.Errorf("vector: index repair: object %s: read %d objects without its vector", id, len(objs))
	}
	o := objs[0]
	del := s.client.Data().Deleter().WithClassName(s.class).WithID(id)
	if s.placement.Consistency != "" {
		del = del.WithConsistencyLevel(s.placement.Consistency)
	}
	if err := del.Do(ctx); err != nil {
		return s.wrap(ctx, "index repair: delete object", err)
	}
	// The object exists only in memory now: create it again with retries (and without the
	// caller's cancellation) rather than lose it to one failed request.
	create := func(ctx context.Context) error {
		cr := s.client.Data().Creator().WithClassName(s.class).WithID(id).WithProperties(o.Properties).WithVector(o.Vector)
		if s.placement.Consistency != "" {
			cr = cr.WithConsistencyLevel(s.placement.Consistency)
		}
		if _, err := cr.Do(ctx); err != nil {
			return s.wrap(ctx, "index repair: create object "+id+" again", err)
		}
		return nil
	}
	if err := retry.Do(context.WithoutCancel(ctx), retry.Policy{MaxAttempts: 8, MaxElapsed: 2 * time.Minute}, create, nil); err != nil {
		chunkID := ""
		if props, ok := o.Properties.(map[string]any); ok {
			chunkID = str(props["chunk_id"])
		}
		return fmt.Errorf("vector: index repair deleted object %s (chunk %s) and could not create it again: sync its source again (cmd/extract writes chunks missing from Weaviate anew): %w",
			id, chunkID, err)
	}
	return nil
}
