package graph

import (
	"context"
	"fmt"
	"testing"
)

// TestIntegrationEntityMentionsCountAndList: mentions are counted up to the cap (one past the hub
// bound, or MentionCountCap without one), a hub's chunks are not listed, the listed chunks are the
// first by id over all readable mentions, and a restricted chunk is neither counted nor listed.
func TestIntegrationEntityMentionsCountAndList(t *testing.T) {
	ctx := context.Background()
	s := openNamespaced(t, "em")
	if err := s.EnsureSchema(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run(ctx, `
CREATE (big:Entity {key: 'org:big', name: 'Big', type: 'Organization', uid: 'u1', acl: ['all'], name_acl: ['all']}),
       (small:Entity {key: 'org:small', name: 'Small', type: 'Organization', uid: 'u2', acl: ['all', 'hr'], name_acl: ['all']})
CREATE (:Chunk {id: 'a#0', acl: ['hr']})-[:MENTIONS {surfaces: ['Small']}]->(small)
WITH big, small
UNWIND range(0, 2004) AS i
CREATE (c:Chunk {id: 'b#' + right('000' + toString(i), 4), acl: ['all']})-[:MENTIONS {surfaces: ['Big']}]->(big)
FOREACH (_ IN CASE WHEN i % 500 = 0 THEN [1] ELSE [] END | CREATE (c)-[:MENTIONS {surfaces: ['Small']}]->(small))`, nil); err != nil {
		t.Fatal(err)
	}
	if MentionCountCap != 2000 {
		t.Fatalf("MentionCountCap is %d; the first row expects 2000", MentionCountCap)
	}
	for _, tc := range []struct {
		per, expand int
		want        string
	}{
		{3, 0, "org:big 2000 [b#0000 b#0001 b#0002]; org:small 5 [b#0000 b#0500 b#1000]"},
		{3, 10, "org:big 11 []; org:small 5 [b#0000 b#0500 b#1000]"},
		{10, 5, "org:big 6 []; org:small 5 [b#0000 b#0500 b#1000 b#1500 b#2000]"},
	} {
		got, err := s.EntityMentions(ctx, []string{"org:big", "org:small"}, []string{"all"}, tc.per, tc.expand)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, k := range []string{"org:big", "org:small"} {
			parts = append(parts, fmt.Sprintf("%s %d %v", k, got[k].Mentions, got[k].ChunkIDs))
		}
		if s := parts[0] + "; " + parts[1]; s != tc.want {
			t.Errorf("per %d, expand %d: %s\nwant %s", tc.per, tc.expand, s, tc.want)
		}
	}
}
