package evaluation

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/extraction"
)

const variantTableMD = "# KB\n\nSome text.\n\n" +
	"| Canonical entity (doc) | Variant spelling | Documents where this spelling occurs |\n" +
	"|---|---|---|\n" +
	"| ООО «Альфа» (`clients/alfa`) | «Альфа» | `clients/alfa`, `notes/n1` |\n" +
	"|  | Alfa LLC | `notes/n1` |\n" +
	"| Company «Бета» | «Беты» | `notes/n1` |\n" +
	"| Иван Петров (`people/ivan`) | И. Петров | `notes/n1` |\n" +
	"|  | Ivan (first name only) | `notes/n1` |\n" +
	"\nAfter the table.\n"

func TestParseVariantTable(t *testing.T) {
	got, err := parseVariantTable(strings.NewReader(variantTableMD), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []VariantSpelling{
		{Canonical: "doc:clients/alfa", Form: "«Альфа»", Docs: []string{"clients/alfa", "notes/n1"}},
		{Canonical: "doc:clients/alfa", Form: "Alfa LLC", Docs: []string{"notes/n1"}},
		{Canonical: "Company «Бета»", Form: "«Беты»", Docs: []string{"notes/n1"}},
		{Canonical: "doc:people/ivan", Form: "И. Петров", Docs: []string{"notes/n1"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", got, want)
	}
	groups := VariantGroups(got)
	if !reflect.DeepEqual(groups["doc:clients/alfa"], []string{"«Альфа»", "Alfa LLC"}) || len(groups) != 3 {
		t.Errorf("groups = %v", groups)
	}
	if _, err := parseVariantTable(strings.NewReader("# no table\n| a | b |\n"), "x.md"); err == nil {
		t.Error("a file without the table parsed without an error")
	}
}

func TestScoreExtraction(t *testing.T) {
	vs, err := parseVariantTable(strings.NewReader(variantTableMD), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	alfa := ariadne.Chunk{ID: "clients/alfa#0", DocID: "clients/alfa", Text: "ООО «Альфа» — клиент."}
	note := ariadne.Chunk{ID: "notes/n1#0", DocID: "notes/n1", Text: "Alfa LLC и «Альфа» работают с «Беты». И. Петров ведёт."}
	facts := []extraction.Facts{
		{DocID: "clients/alfa", Mentions: []ariadne.Mention{{ChunkID: alfa.ID, EntityKey: "clients/alfa", Surface: "ООО «Альфа»"}},
			Relations: []ariadne.Relation{{Source: "clients/alfa", Type: "PARTNER_OF", Target: "organization:beta", ChunkIDs: []string{alfa.ID, note.ID}}}},
		{DocID: "notes/n1", Mentions: []ariadne.Mention{
			{ChunkID: note.ID, EntityKey: "clients/alfa", Surface: "Alfa LLC"},
			{ChunkID: note.ID, EntityKey: "organization:beta", Surface: "«беты»"}, // folded comparison
			{ChunkID: note.ID, EntityKey: "clients/alfa", Surface: "Петров"},      // a wrong link, overlapping part of the spelling
		}},
	}
	rep := ScoreExtraction("test", vs, []ariadne.Chunk{alfa, note}, facts)
	// Occurrences: «Альфа» in both chunks (the second without a mention), Alfa LLC, «Беты», И. Петров.
	wantOcc := []VariantOccurrence{
		{Canonical: "doc:clients/alfa", Form: "«Альфа»", ChunkID: alfa.ID, Start: 7, End: 21, Entity: "clients/alfa"},
		{Canonical: "doc:clients/alfa", Form: "Alfa LLC", ChunkID: note.ID, Start: 0, End: 8, Entity: "clients/alfa"},
		{Canonical: "doc:clients/alfa", Form: "«Альфа»", ChunkID: note.ID, Start: 12, End: 26},
		{Canonical: "Company «Бета»", Form: "«Беты»", ChunkID: note.ID, Start: 47, End: 59, Entity: "organization:beta"},
		{Canonical: "doc:people/ivan", Form: "И. Петров", ChunkID: note.ID, Start: 61, End: 77, Entity: "clients/alfa"},
	}
	if !reflect.DeepEqual(rep.Occurrences, wantOcc) {
		t.Fatalf("occurrences\n%+v\nwant\n%+v", rep.Occurrences, wantOcc)
	}
	for _, o := range rep.Occurrences {
		text := alfa.Text
		if o.ChunkID == note.ID {
			text = note.Text
		}
		if text[o.Start:o.End] != o.Form {
			t.Errorf("offsets %d–%d give %q, not %q", o.Start, o.End, text[o.Start:o.End], o.Form)
		}
	}
	if rep.Covered != 4 || rep.Documented != 4 || rep.Linked != 2 {
		t.Errorf("covered %d documented %d linked %d; want 4, 4, 2", rep.Covered, rep.Documented, rep.Linked)
	}
	// Pairs: 1–2 TP (Alfa LLC with «Альфа» in the client page); the note's «Альфа» (no mention)
	// misses both of them (2 FN); И. Петров shares clients/alfa with two spellings of Альфа (2 FP).
	p := rep.Pairwise
	if p.TP != 1 || p.FP != 2 || p.FN != 2 {
		t.Errorf("pairwise TP %d FP %d FN %d; want 1, 2, 2", p.TP, p.FP, p.FN)
	}
	if rep.Mentions != 4 || rep.MentionsPerChunk != 2 || rep.Entities != 2 || rep.Relations != 1 || rep.RelationsPerChunk != 1 {
		t.Errorf("mentions %d (%.2f per chunk), entities %d, relations %d (%.2f per chunk); want 4 (2), 2, 1 (1)",
			rep.Mentions, rep.MentionsPerChunk, rep.Entities, rep.Relations, rep.RelationsPerChunk)
	}
}
