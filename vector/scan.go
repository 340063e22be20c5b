package vector

import (
	"context"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// scan reads every object of the class with fields — which must include _additional { id }, the
// cursor — page objects per GraphQL query in Weaviate's id order (its cursor API), and calls each
// with every page. An absent class has no page. op names the call in errors, which wrap
// ariadne.ErrUnavailable when Weaviate does not answer; an error from each ends the scan.
func (s *Store) scan(ctx context.Context, op string, page int, fields []graphql.Field, each func(hits []map[string]any) error) error {
	return s.scanClass(ctx, s.class, op, page, fields, each)
}

// scanClass is scan over another class of the store (the unit vectors' class).
func (s *Store) scanClass(ctx context.Context, class, op string, page int, fields []graphql.Field, each func(hits []map[string]any) error) error {
	after := ""
	for {
		q := s.client.GraphQL().Get().WithClassName(class).WithFields(fields...).WithLimit(page).
			WithConsistencyLevel(s.placement.Consistency)
		if after != "" {
			q = q.WithAfter(after)
		}
		resp, err := q.Do(ctx)
		if err != nil {
			if isNotFound(err) {
				return nil
			}
			return s.wrap(ctx, op, err)
		}
		if len(resp.Errors) > 0 && noClass(resp.Errors[0].Message) {
			return nil
		}
		if err := gqlErrors(op, resp.Errors); err != nil {
			return err
		}
		hits := hitsOf(resp, class)
		if len(hits) == 0 {
			return nil
		}
		if err := each(hits); err != nil {
			return err
		}
		if len(hits) < page {
			return nil
		}
		add, _ := hits[len(hits)-1]["_additional"].(map[string]any)
		after = str(add["id"])
	}
}

// vectorOf returns the vector of an object's _additional fields (nil when it has none).
func vectorOf(add map[string]any) []float32 {
	raw, _ := add["vector"].([]any)
	if len(raw) == 0 {
		return nil
	}
	vec := make([]float32, len(raw))
	for i, x := range raw {
		f, _ := number(x)
		vec[i] = float32(f)
	}
	return vec
}
