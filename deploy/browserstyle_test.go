package deploy

import (
	"os"
	"regexp"
	"testing"

	"github.com/ariadne-graphrag/ariadne/ontology"
)

// TestBrowserStyleHasEveryEntityLabel: neo4j/browser-style.grass styles every entity label of the
// default ontology (and the analyst page takes its colours from it), so no type shows in
// Browser's default grey; Location and Topic, the recognizer's types, once had none.
func TestBrowserStyleHasEveryEntityLabel(t *testing.T) {
	raw, err := os.ReadFile("neo4j/browser-style.grass")
	if err != nil {
		t.Fatal(err)
	}
	styled := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^node\.(\w+)\s*\{[^}]*\bcolor:\s*#[0-9A-Fa-f]{6}`).FindAllStringSubmatch(string(raw), -1) {
		styled[m[1]] = true
	}
	o, err := ontology.Default()
	if err != nil {
		t.Fatal(err)
	}
	for typ, et := range o.EntityTypes {
		if !styled[et.Label] {
			t.Errorf("entity type %s: no node.%s colour in browser-style.grass", typ, et.Label)
		}
	}
}
