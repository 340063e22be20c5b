package vector

import (
	"fmt"
	"slices"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/data/replication"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ariadne-graphrag/ariadne"
)

// Placement says how the chunk class is spread over a Weaviate cluster. The zero value is a
// single node's behaviour: Weaviate's defaults (one replica, one shard per node at creation) and
// no consistency level sent with requests.
type Placement struct {
	// ReplicationFactor is how many nodes hold each shard (replicationConfig.factor), set when the
	// class is created; 0 leaves Weaviate's default (1). It must not exceed the cluster's nodes.
	ReplicationFactor int
	// Shards is the class's shardingConfig.desiredCount at creation; 0 leaves Weaviate's default
	// (one shard per node of the cluster at that moment).
	Shards int
	// Consistency is the consistency level sent with batch writes, batch deletes and GraphQL Get
	// (searches, chunk listings): "ONE", "QUORUM" or "ALL"; "" sends none (the server's default
	// applies). With factor 3, QUORUM (2 of 3) for both reads and writes means every read
	// overlaps the replicas of every acknowledged write, and either keeps working with one node
	// down; ALL would fail with one node down, ONE could read a replica that missed a write.
	// Aggregate counts (Count) take no consistency level in Weaviate's GraphQL.
	Consistency string
}

// consistencyLevels are the levels Weaviate accepts ("" for none).
var consistencyLevels = []string{"", replication.ConsistencyLevel.ONE, replication.ConsistencyLevel.QUORUM, replication.ConsistencyLevel.ALL}

// validate reports every invalid field at once, as ErrInvalid.
func (p Placement) validate() error {
	var bad []string
	if p.ReplicationFactor < 0 {
		bad = append(bad, fmt.Sprintf("replication factor %d < 0", p.ReplicationFactor))
	}
	if p.Shards < 0 {
		bad = append(bad, fmt.Sprintf("shards %d < 0", p.Shards))
	}
	if !slices.Contains(consistencyLevels, p.Consistency) {
		bad = append(bad, fmt.Sprintf("consistency level %q (want ONE, QUORUM or ALL, or empty)", p.Consistency))
	}
	if len(bad) > 0 {
		return fmt.Errorf("vector: %v: %w", bad, ariadne.ErrInvalid)
	}
	return nil
}

// apply sets the replication and sharding settings of a class about to be created.
func (p Placement) apply(cls *models.Class) {
	if p.ReplicationFactor > 0 {
		cls.ReplicationConfig = &models.ReplicationConfig{Factor: int64(p.ReplicationFactor)}
	}
	if p.ReplicationFactor > 1 {
		// A replica that missed writes while its node was down is not repaired by searches (they
		// read one replica per shard, measured in TestIntegrationWeaviateCluster): async
		// replication compares the replicas' hash trees in the background and copies what is
		// missing (about 30 s after the node's return with Weaviate's defaults), and
		// DeleteOnConflict makes a delete win over a stale replica's copy, so a deleted chunk does
		// not come back. (TimeBasedResolution did not propagate such a delete within 3 minutes in
		// the same test on 1.29.0.) The cost: a chunk deleted and then written again under the
		// same id can be deleted again by conflict resolution while a replica still holds the
		// tombstone.
		cls.ReplicationConfig.AsyncEnabled = true
		cls.ReplicationConfig.DeletionStrategy = models.ReplicationConfigDeletionStrategyDeleteOnConflict
	}
	if p.Shards > 0 {
		cls.ShardingConfig = map[string]any{"desiredCount": p.Shards}
	}
}

// check compares an existing class with the configured replication factor: a class created with
// another factor is ErrMismatch (Ariadne never changes the placement of a class it did not create
// with these settings; re-create it, or change it with Weaviate's own tools). A factor of 0 is not
// compared.
func (p Placement) check(class string, cls *models.Class) error {
	if p.ReplicationFactor == 0 {
		return nil
	}
	have := int64(1)
	if cls.ReplicationConfig != nil && cls.ReplicationConfig.Factor > 0 {
		have = cls.ReplicationConfig.Factor
	}
	if have != int64(p.ReplicationFactor) {
		return fmt.Errorf("vector: class %s has replication factor %d, configured %d (ARIADNE_WEAVIATE_REPLICATION_FACTOR); use another class or re-create it: %w",
			class, have, p.ReplicationFactor, ariadne.ErrMismatch)
	}
	return nil
}
