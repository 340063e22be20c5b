package graph

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestRowsCypher(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cols []string
		want string
	}{
		{"UNWIND $ids AS id RETURN id", []string{"id"}, "CALL () {\nUNWIND $ids AS id RETURN id\n}\nRETURN collect([`id`]) AS rows"},
		{"MATCH (n) RETURN n.key AS raw, type(r) AS type", []string{"raw", "type"},
			"CALL () {\nMATCH (n) RETURN n.key AS raw, type(r) AS type\n}\nRETURN collect([`raw`, `type`]) AS rows"},
	} {
		if got := rowsCypher(tc.in, tc.cols); got != tc.want {
			t.Errorf("rowsCypher(%q, %v) = %q, want %q", tc.in, tc.cols, got, tc.want)
		}
	}
}

// readRows gives the records the statement alone would give: the same rows in the same order
// and the same values (lists, nulls, maps), none for no rows, and the statement's own error.
func TestIntegrationReadRows(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	const q = `UNWIND range($n, 1, -1) AS i
RETURN i, toString(i) AS s, CASE WHEN i % 2 = 0 THEN null ELSE [i, i * 2] END AS list, {k: i} AS m`
	cols := []string{"i", "s", "list", "m"}
	for _, n := range []int{0, 1, 5000} {
		want, err := s.read(ctx, q, map[string]any{"n": n})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.readRows(ctx, q, cols, map[string]any{"n": n})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Records) != n || len(want.Records) != n {
			t.Fatalf("n=%d: readRows gave %d records, read %d", n, len(got.Records), len(want.Records))
		}
		for i := range want.Records {
			for _, c := range cols {
				w, g := get(want.Records[i], c), get(got.Records[i], c)
				if !reflect.DeepEqual(w, g) {
					t.Fatalf("n=%d record %d column %s: readRows %v, read %v", n, i, c, g, w)
				}
			}
		}
		if n == 5000 && (get(got.Records[0], "i") != int64(5000) || get(got.Records[0], "list") != nil ||
			!reflect.DeepEqual(get(got.Records[4999], "list"), []any{int64(1), int64(2)})) {
			t.Fatalf("first record %v, last %v", got.Records[0].Values, got.Records[4999].Values)
		}
	}
	if _, err := s.readRows(ctx, "RETURN 1 / $zero AS x", []string{"x"}, map[string]any{"zero": 0}); err == nil {
		t.Fatal("a failing statement gave no error")
	}
	if _, err := s.readRows(ctx, "RETURN 1 AS x", []string{"x", "y"}, nil); err == nil || errors.Is(err, ariadne.ErrInvalid) {
		t.Fatalf("a column the statement does not return: %v, want the server's error", err)
	}
}
