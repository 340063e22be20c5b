package vector

import (
	"errors"
	"testing"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/ariadne-graphrag/ariadne"
)

func TestPlacementValidate(t *testing.T) {
	for _, tc := range []struct {
		p  Placement
		ok bool
	}{
		{Placement{}, true},
		{Placement{ReplicationFactor: 3, Shards: 2, Consistency: "QUORUM"}, true},
		{Placement{Consistency: "ONE"}, true},
		{Placement{Consistency: "ALL"}, true},
		{Placement{Consistency: "quorum"}, false},
		{Placement{ReplicationFactor: -1}, false},
		{Placement{Shards: -2}, false},
	} {
		err := tc.p.validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ariadne.ErrInvalid)) {
			t.Errorf("%+v: validate = %v, want ok=%v (or ErrInvalid)", tc.p, err, tc.ok)
		}
	}
}

func TestPlacementApply(t *testing.T) {
	var single models.Class
	Placement{Consistency: "QUORUM"}.apply(&single)
	if single.ReplicationConfig != nil || single.ShardingConfig != nil {
		t.Errorf("zero placement set %+v / %+v; want Weaviate's defaults", single.ReplicationConfig, single.ShardingConfig)
	}
	var cl models.Class
	Placement{ReplicationFactor: 3, Shards: 2}.apply(&cl)
	if rc := cl.ReplicationConfig; rc == nil || rc.Factor != 3 || !rc.AsyncEnabled || rc.DeletionStrategy != "DeleteOnConflict" {
		t.Errorf("replicationConfig = %+v, want factor 3, async replication, DeleteOnConflict", cl.ReplicationConfig)
	}
	var one models.Class
	Placement{ReplicationFactor: 1}.apply(&one)
	if rc := one.ReplicationConfig; rc == nil || rc.Factor != 1 || rc.AsyncEnabled || rc.DeletionStrategy != "" {
		t.Errorf("factor 1: replicationConfig = %+v, want factor 1 only", rc)
	}
	if m, _ := cl.ShardingConfig.(map[string]any); m["desiredCount"] != 2 {
		t.Errorf("shardingConfig = %v, want desiredCount 2", cl.ShardingConfig)
	}
}

func TestPlacementCheck(t *testing.T) {
	three := &models.Class{ReplicationConfig: &models.ReplicationConfig{Factor: 3}}
	plain := &models.Class{}
	for _, tc := range []struct {
		name   string
		factor int
		cls    *models.Class
		ok     bool
	}{
		{"not configured, replicated class", 0, three, true},
		{"same factor", 3, three, true},
		{"other factor", 2, three, false},
		{"factor 1 on a class without replicationConfig", 1, plain, true},
		{"factor 3 on a single-replica class", 3, plain, false},
	} {
		err := Placement{ReplicationFactor: tc.factor}.check("C", tc.cls)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ariadne.ErrMismatch)) {
			t.Errorf("%s: check = %v, want ok=%v (or ErrMismatch)", tc.name, err, tc.ok)
		}
	}
}
