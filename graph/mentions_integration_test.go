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
	cases := []struct {
		groups      []string
		per, expand int
		want        string
	}{
		{[]string{"all"}, 3, 0, "org:big 2000 [b#0000 b#0001 b#0002]; org:small 5 [b#0000 b#0500 b#1000]"},
		{[]string{"all"}, 3, 10, "org:big 11 []; org:small 5 [b#0000 b#0500 b#1000]"},
		{[]string{"all"}, 10, 5, "org:big 6 []; org:small 5 [b#0000 b#0500 b#1000 b#1500 b#2000]"},
		{[]string{"all", "hr"}, 10, 10, "org:big 11 []; org:small 6 [a#0 b#0000 b#0500 b#1000 b#1500 b#2000]"},
	}
	check := func(path string) {
		t.Helper()
		// one row per entity, whichever way it is counted
		plain, uids := splitKeys([]string{"org:big", "org:small"})
		res, err := s.readRows(ctx, entityMentionsCypher, []string{"raw", "mentions", "chunks"}, map[string]any{"keys": plain, "uids": uids,
			"groups": []string{"all"}, "per": 3, "cap": 11, "expand": 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != 2 {
			t.Errorf("%s: %d rows for 2 entities", path, len(res.Records))
		}
		for _, tc := range cases {
			got, err := s.EntityMentions(ctx, []string{"org:big", "org:small"}, tc.groups, tc.per, tc.expand)
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, k := range []string{"org:big", "org:small"} {
				parts = append(parts, fmt.Sprintf("%s %d %v", k, got[k].Mentions, got[k].ChunkIDs))
			}
			if s := parts[0] + "; " + parts[1]; s != tc.want {
				t.Errorf("%s, groups %v, per %d, expand %d: %s\nwant %s", path, tc.groups, tc.per, tc.expand, s, tc.want)
			}
		}
	}
	// Entities written by hand have no mention counts: each mention's chunk is read.
	check("counted one by one")
	// A refresh writes the counts per chunk ACL; the same figures come from them.
	if err := s.RefreshAll(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := s.run(ctx, `MATCH (e:Entity) RETURN e.key AS key, e.first_acls AS acls, e.first_counts AS counts ORDER BY key`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lists []string
	for _, r := range res.Records {
		lists = append(lists, fmt.Sprintf("%s %v %v", str(get(r, "key")), get(r, "acls"), get(r, "counts")))
	}
	if got, want := fmt.Sprint(lists), "[org:big [all|] [2005] org:small [all| hr|] [5 1]]"; got != want {
		t.Fatalf("mention counts after a refresh: %s, want %s", got, want)
	}
	check("from the counts")
	// A chunk whose groups were changed by hand (its ACL's first chunk no longer has that ACL)
	// hides its ACL's count: the lists never show more than the chunks allow.
	if _, err := s.run(ctx, `MATCH (c:Chunk {id: 'a#0'}) SET c.acl = ['all']`, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.EntityMentions(ctx, []string{"org:small"}, []string{"hr"}, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := got["org:small"]; ok && (m.Mentions != 0 || len(m.ChunkIDs) != 0) {
		t.Errorf("after the hand edit, hr sees org:small with %d mentions %v, want none", m.Mentions, m.ChunkIDs)
	}
}
