package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Writer leases serialize Ariadne's writers across processes. ingest.Pipeline already lets one
// write operation run at a time inside a process; two processes on one namespace — two
// cmd/extract runs, an extract run beside the API, two API replicas — did not, and the
// concurrent-writer tests showed what that costs (docs/reliability.md, "Concurrent writers"):
// two syncs of overlapping folders ended in neither folder's state, and documents posted to four
// replicas at once resolved one subject into two entities, because each writer planned against
// a graph the other was changing. A lease is one (:WriteLock {id: 'ingest'}) node per namespace
// (unique by constraint) holding an owner and an expiry; the holder renews it every TTL/3, so a
// writer that dies (kill -9) blocks the others for at most WriteLeaseTTL.
//
// The acquiring statement writes the node (SET l.claimed) before it reads the owner: that takes
// the node's write lock first, so two writers cannot both read "no owner" and both win (the first
// version read before locking, and the update-vs-delete test still saw a mix).

// WriteLeaseTTL is how long a lease outlives its last renewal.
const WriteLeaseTTL = 30 * time.Second

const (
	writeLockSchema  = `CREATE CONSTRAINT write_lock_id IF NOT EXISTS FOR (l:WriteLock) REQUIRE l.id IS UNIQUE`
	acquireLeaseCyph = `
MERGE (l:WriteLock {id: 'ingest'})
SET l.claimed = timestamp()
WITH l
WHERE l.owner IS NULL OR l.owner = $owner OR l.expires < timestamp()
SET l.owner = $owner, l.expires = timestamp() + $ttl
RETURN count(l) AS got`
	releaseLeaseCyph = `MATCH (l:WriteLock {id: 'ingest'}) WHERE l.owner = $owner SET l.owner = null, l.expires = 0`
)

// LockWrites waits until this caller holds the namespace's writer lease (polling every 200 ms)
// and returns the function that releases it. ctx bounds the wait; the error wraps
// ariadne.ErrUnavailable when Neo4j cannot be reached. The lease is renewed in the background
// until release is called.
func (s *Store) LockWrites(ctx context.Context) (release func(), err error) {
	if _, err := s.run(ctx, writeLockSchema, nil); err != nil {
		return nil, translate("write lease schema", err)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	owner := hex.EncodeToString(b[:])
	params := map[string]any{"owner": owner, "ttl": WriteLeaseTTL.Milliseconds()}
	acquire := func(ctx context.Context) (bool, error) {
		got, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			rec, err := single(ctx, tx, s.cy(acquireLeaseCyph), params)
			if err != nil {
				return nil, err
			}
			return count(rec, "got")
		})
		if err != nil {
			return false, err
		}
		return got.(int) == 1, nil
	}
	for {
		ok, err := acquire(ctx)
		if err != nil {
			return nil, translate("acquire write lease", err)
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			return nil, translate("wait for the write lease", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(WriteLeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WriteLeaseTTL/3)
				_, _ = acquire(rctx) // a failed renewal lets the lease expire: the next writer waits at most the TTL
				cancel()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_, _ = s.run(rctx, releaseLeaseCyph, map[string]any{"owner": owner}) // if Neo4j is down, the lease expires
		})
	}, nil
}

// dropWriteLocks removes the namespace's lease node and its constraint (DropNamespace).
func (s *Store) dropWriteLocks(ctx context.Context) error {
	if _, err := s.run(ctx, `MATCH (l:WriteLock) DELETE l`, nil); err != nil {
		return translate("drop write lease", err)
	}
	if _, err := s.run(ctx, `DROP CONSTRAINT write_lock_id IF EXISTS`, nil); err != nil {
		return translate("drop write lease", err)
	}
	return nil
}
