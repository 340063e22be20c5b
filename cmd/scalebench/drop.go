package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ariadne-graphrag/ariadne/internal/setup"
)

// dropCmd deletes what --keep left: Neo4j namespaces and Weaviate classes, named in pairs.
type dropCmd struct {
	Pairs []string `arg:"" help:"NAMESPACE:CLASS pairs, e.g. Scale10k:ScaleBench10k."`

	setup.Stores `embed:""`
}

func (d dropCmd) Run(ctx context.Context, out io.Writer) error {
	for _, p := range d.Pairs {
		ns, class, ok := strings.Cut(p, ":")
		if !ok || ns == "" || class == "" {
			return fmt.Errorf("%q: want NAMESPACE:CLASS", p)
		}
		st := d.Stores
		st.Neo4jNamespace, st.WeaviateClass = ns, class
		gs, err := st.OpenGraph(ctx)
		if err != nil {
			return err
		}
		err = gs.DropNamespace(ctx)
		gs.Close(context.WithoutCancel(ctx))
		if err != nil {
			return fmt.Errorf("drop namespace %s: %w", ns, err)
		}
		vs, err := st.OpenVector(ctx)
		if err != nil {
			return err
		}
		if err := vs.DropClass(ctx); err != nil {
			return fmt.Errorf("drop class %s: %w", class, err)
		}
		fmt.Fprintf(out, "dropped namespace %s and class %s\n", ns, class)
	}
	return nil
}
