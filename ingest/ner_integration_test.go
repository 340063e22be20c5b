package ingest_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// Eight one-sentence notes each (written for this test): the same foreign-named company in
// other cases, scripts and with a legal form, and the same city in other cases.
var (
	notesRU = []string{
		"Компания Veltrix открыла офис в Самаре.",
		"В Самаре прошла встреча с представителями Велтрикса.",
		"Договор с ООО «Велтрикс» подписали в Самаре в марте.",
		"Инженеры Veltrix приехали в Самару на неделю.",
		"Руководство «Велтрикс» довольно результатами пилота в Самаре.",
		"Склад Велтрикса под Самарой расширят к осени.",
		"Из Самары отправили оборудование для Veltrix.",
		"Отчёт Велтриксу о работе в Самаре отправлен вчера.",
	}
	notesEN = []string{
		"Brightwater Analytics opened an office in Leeds last spring.",
		"A delegation from Brightwater Analytics Ltd visited Leeds on Monday.",
		"The contract with Brightwater Analytics was signed in Leeds.",
		"Engineers at Brightwater Analytics moved their lab to Leeds.",
		"Brightwater Analytics' warehouse near Leeds will grow by autumn.",
		"Leeds city council met the board of Brightwater Analytics.",
		"Shipments from Leeds to Brightwater Analytics resumed in May.",
		"Our report to BRIGHTWATER ANALYTICS about the pilot in Leeds is due.",
	}
)

func noteDocs(prefix, lang string, texts []string, acl []string) []ariadne.Document {
	if acl == nil {
		acl = []string{ariadne.PublicGroup}
	}
	var out []ariadne.Document
	for i, t := range texts {
		out = append(out, ariadne.Document{ID: fmt.Sprintf("%s/%d", prefix, i+1), Title: fmt.Sprintf("Note %d", i+1),
			Type: "note", Lang: lang, ACL: acl, Body: t + "\n"})
	}
	return out
}

// mentioned returns, per entity key, its type and the documents whose chunks mention it.
func mentioned(t *testing.T, r *testrig.Rig) map[string][]string {
	t.Helper()
	rows, err := r.Graph.QueryReadOnly(context.Background(),
		`MATCH (d:Document)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(e:Entity)
		 RETURN e.key AS key, e.type AS type, collect(DISTINCT d.id) AS docs ORDER BY key`, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, row := range rows {
		var docs []string
		for _, d := range row["docs"].([]any) {
			docs = append(docs, d.(string))
		}
		sort.Strings(docs)
		out[row["key"].(string)+" "+row["type"].(string)] = docs
	}
	return out
}

// TestIntegrationNERNotes: notes posted one at a time (as POST /v1/documents does, through
// Upsert) with the real NER sidecar give exactly one entity for the company and one for the
// city, each mentioned by every note; a second run writes nothing. The Russian city is keyed and
// named by its nominative («Самара»), which the sidecar gives for «Самаре», «Самарой», «Самары».
func TestIntegrationNERNotes(t *testing.T) {
	for _, tc := range []struct {
		lang, company, city string
		notes               []string
	}{
		{"ru", "organization:veltriks organization", "location:samara location", notesRU},
		{"en", "organization:brightvater analitiks organization", "location:leds location", notesEN},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			r := testrig.NewWithNER(t, "")
			docs := noteDocs("notes-"+tc.lang, tc.lang, tc.notes, nil)
			for _, d := range docs {
				if _, err := r.Pipe.Upsert(context.Background(), []ariadne.Document{d}, ingest.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			var ids []string
			for _, d := range docs {
				ids = append(ids, d.ID)
			}
			sort.Strings(ids)
			got := mentioned(t, r)
			want := map[string][]string{tc.company: ids, tc.city: ids}
			if len(got) != 2 || !slices.Equal(got[tc.company], ids) || !slices.Equal(got[tc.city], ids) {
				t.Errorf("entities and the notes that mention them:\n got  %v\n want %v", got, want)
			}
			// Every note relates the two in its one sentence.
			rows, err := r.Graph.QueryReadOnly(context.Background(),
				`MATCH (:Entity)-[x:MENTIONED_WITH]->(:Entity) RETURN size(x.chunk_ids) AS n`, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0]["n"].(int64) != int64(len(docs)) {
				t.Errorf("MENTIONED_WITH relations: %v, want one with %d chunks", rows, len(docs))
			}
			// Syncing the notes as a corpus names the entities from all of them at once (the
			// most frequent normal form or surface); a second sync writes nothing.
			for run := range 2 {
				sum, err := r.Pipe.Sync(context.Background(), docs, ingest.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if run == 1 && sum.Writes() != 0 {
					t.Errorf("a re-run of the same notes wrote %d objects: %+v", sum.Writes(), sum.Graph)
				}
			}
			if got := mentioned(t, r); len(got) != 2 || !slices.Equal(got[tc.company], ids) || !slices.Equal(got[tc.city], ids) {
				t.Errorf("after syncing the notes as a corpus:\n got  %v\n want %v", got, want)
			}
		})
	}
}

// TestIntegrationNEREntityACL: an entity that NER found only in a restricted note is invisible
// to other callers — not linked, not in any chunk's entities, not readable by key — and visible
// to the group that may read the note; an entity public notes also name shows public callers only
// what public chunks say.
func TestIntegrationNEREntityACL(t *testing.T) {
	r := testrig.NewWithNER(t, "")
	ctx := context.Background()
	docs := append(noteDocs("pub", "ru", []string{"Компания Veltrix открыла офис в Самаре."}, nil),
		noteDocs("mgmt", "ru", []string{"Компания Veltrix тайно ведёт переговоры с Оливером Хартманном в Тольятти."}, []string{"management"})...)
	if _, err := r.Pipe.Sync(ctx, docs, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	// What NER found in the restricted note alone: a person and a city (keys as resolved).
	var secret []string
	all := mentioned(t, r)
	for k, docs := range all {
		if slices.Equal(docs, []string{"mgmt/1"}) {
			secret = append(secret, k[:strings.LastIndex(k, " ")])
		}
	}
	sort.Strings(secret)
	if len(secret) != 2 || !strings.HasPrefix(secret[0], "location:") || !strings.HasPrefix(secret[1], "person:") {
		t.Fatalf("entities only the restricted note mentions: %q; want a location and a person (all: %v)", secret, all)
	}
	public := []string{ariadne.PublicGroup}
	for _, q := range []string{"Тольятти", "Оливер Хартманн", "Хартманн"} {
		cands, err := r.Graph.EntityCandidates(ctx, q, public, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			if c.Type == "person" || c.Type == "location" && c.Name != "Самара" {
				t.Errorf("public caller linked %q to %+v", q, c)
			}
		}
		mgmt, err := r.Graph.EntityCandidates(ctx, q, []string{"management"}, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(mgmt) == 0 {
			t.Errorf("management found nothing for %q", q)
		}
	}
	for _, k := range secret {
		if e, err := r.Graph.Entity(ctx, k, public); err == nil {
			t.Errorf("public caller read %s: %+v", k, e)
		}
		if _, err := r.Graph.Entity(ctx, k, []string{"management"}); err != nil {
			t.Errorf("management cannot read %s: %v", k, err)
		}
	}
	chunks, err := r.Graph.DocumentChunkIDs(ctx, []string{"pub/1", "mgmt/1"}, []string{"management", ariadne.PublicGroup})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := r.Graph.EntitiesOfChunks(ctx, chunks, public)
	if err != nil {
		t.Fatal(err)
	}
	for id, keys := range ents {
		for _, k := range keys {
			if slices.Contains(secret, k) {
				t.Errorf("public caller sees %s in chunk %s", k, id)
			}
		}
	}
	// The company both notes name: public callers see it through the public note's surface.
	if !slices.Equal(all["organization:veltriks organization"], []string{"mgmt/1", "pub/1"}) {
		t.Errorf("the company: %v", all)
	}
	e, err := r.Graph.Entity(ctx, "organization:veltriks", public)
	if err != nil || e.Name != "Veltrix" {
		t.Errorf("public view of the company: %+v, %v", e, err)
	}
	// The other names a multi-hop chain matches hop sentences with: the caller's view only.
	aliases, err := r.Graph.EntityAliases(ctx, append([]string{"organization:veltriks"}, secret...), public)
	if err != nil {
		t.Fatal(err)
	}
	if len(aliases) != 1 || !slices.Equal(aliases["organization:veltriks"], e.Aliases) {
		t.Errorf("public aliases %v; want only the company's, as its public view gives them (%v)", aliases, e.Aliases)
	}
	if aliases, err = r.Graph.EntityAliases(ctx, secret, []string{"management"}); err != nil || len(aliases) != 2 {
		t.Errorf("management aliases of %v: %v, %v", secret, aliases, err)
	}
	// Its relation to the secret city is management's only.
	edges, err := r.Graph.Edges(ctx, []string{"organization:veltriks"}, public, nil, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, ed := range edges {
		if ed.To.Type == "person" || ed.From.Type == "person" || ed.To.Name == "Тольятти" || ed.From.Name == "Тольятти" {
			t.Errorf("public caller sees edge %+v", ed)
		}
	}
}

// TestIntegrationNERNormalForms: with the real sidecar and stores, a Russian place written only in
// oblique cases is one entity keyed and named by its nominative, which its readers see (no chunk
// writes «Мурманск»: the mentions' names give it), its surfaces kept as aliases and on the
// mentions; a person written surname first with a patronymic («Кнутов Зорислав Игоревич») is the
// documented «Зорислав Кнутов», not a new entity.
func TestIntegrationNERNormalForms(t *testing.T) {
	r := testrig.NewWithNER(t, "")
	ctx := context.Background()
	person := ariadne.Document{ID: "people/zorislav-knutov", Type: "person", Lang: "ru", Title: "Зорислав Кнутов",
		ACL: []string{ariadne.PublicGroup}, Body: "# Зорислав Кнутов\n\nЗорислав Кнутов отвечает за закупки.\n"}
	notes := noteDocs("normal", "ru", []string{
		"Вчера в Мурманске Кнутов Зорислав Игоревич подписал договор поставки.",
		"В Мурманске ждут новую партию оборудования.",
		"Из Мурманска отправили отчёт о закупках.",
	}, nil)
	if _, err := r.Pipe.Sync(ctx, append([]ariadne.Document{person}, notes...), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	got := mentioned(t, r)
	city := "location:murmansk location"
	if want := []string{"normal/1", "normal/2", "normal/3"}; !slices.Equal(got[city], want) {
		t.Errorf("the city: %s mentioned by %v, want %v (all: %v)", city, got[city], want, got)
	}
	if want := []string{"normal/1", "people/zorislav-knutov"}; !slices.Equal(got["people/zorislav-knutov person"], want) {
		t.Errorf("the documented person is mentioned by %v, want %v (all: %v)", got["people/zorislav-knutov person"], want, got)
	}
	for k := range got {
		if strings.HasPrefix(k, "person:") || strings.HasPrefix(k, "location:") && k != city {
			t.Errorf("an entity of its own for a recognized name: %s (all: %v)", k, got)
		}
	}
	e, err := r.Graph.Entity(ctx, "location:murmansk", []string{ariadne.PublicGroup})
	if err != nil {
		t.Fatal(err)
	}
	if e.Key != "location:murmansk" || e.Name != "Мурманск" || !slices.Contains(e.Aliases, "Мурманске") || !slices.Contains(e.Aliases, "Мурманска") {
		t.Errorf("the city entity as a public caller sees it: %s %q, aliases %q; want location:murmansk «Мурманск» with «Мурманске» and «Мурманска»", e.Key, e.Name, e.Aliases)
	}
	// The mentions keep the surfaces as written.
	if surfaces, want := mentionSurfaces(t, r, "normal/1"), []string{"location:murmansk «Мурманске»", "people/zorislav-knutov «Кнутов Зорислав Игоревич»"}; !slices.Equal(surfaces, want) {
		t.Errorf("note 1's mentions: %q, want %q", surfaces, want)
	}
}

// TestIntegrationNERPatronymic: with the real sidecar and stores, a person written surname first
// at the start of a sentence, which slovnet tags without the surname («Тимур Рашидович»), and
// then by first name and patronymic alone («Тимура Рашидовича»), is the documented «Тимур Галиев»
// both times: no «Тимур Рашидович» of its own.
func TestIntegrationNERPatronymic(t *testing.T) {
	r := testrig.NewWithNER(t, "")
	ctx := context.Background()
	person := ariadne.Document{ID: "people/timur-galiev", Type: "person", Lang: "ru", Title: "Тимур Галиев",
		ACL: []string{ariadne.PublicGroup}, Body: "# Тимур Галиев\n\nТимур Галиев — руководитель проектов.\n"}
	notes := noteDocs("patr", "ru", []string{
		"Вчера мы обсудили поставки.\n\nГалиев Тимур Рашидович согласовал оплату. Тимура Рашидовича все знают.",
	}, nil)
	if _, err := r.Pipe.Sync(ctx, append([]ariadne.Document{person}, notes...), ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	got := mentioned(t, r)
	if want := []string{"patr/1", "people/timur-galiev"}; !slices.Equal(got["people/timur-galiev person"], want) {
		t.Errorf("the documented person is mentioned by %v, want %v (all: %v)", got["people/timur-galiev person"], want, got)
	}
	for k := range got {
		if strings.HasPrefix(k, "person:") {
			t.Errorf("a person of its own for a recognized name: %s (all: %v)", k, got)
		}
	}
	if surfaces, want := mentionSurfaces(t, r, "patr/1"), []string{"people/timur-galiev «Галиев Тимур Рашидович»",
		"people/timur-galiev «Тимура Рашидовича»"}; !slices.Equal(surfaces, want) {
		t.Errorf("the note's mentions: %q, want %q", surfaces, want)
	}
}

// mentionSurfaces returns the surfaces a document's chunks mention entities by, as "key «surface»",
// by key, then surface.
func mentionSurfaces(t *testing.T, r *testrig.Rig, docID string) []string {
	t.Helper()
	rows, err := r.Graph.QueryReadOnly(context.Background(), `MATCH (d:Document {id: $doc})-[:HAS_CHUNK]->(:Chunk)-[m:MENTIONS]->(e:Entity)
		RETURN e.key AS key, m.surfaces AS surfaces ORDER BY key`, map[string]any{"doc": docID})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, row := range rows {
		for _, s := range row["surfaces"].([]any) {
			out = append(out, row["key"].(string)+" «"+s.(string)+"»")
		}
	}
	slices.Sort(out)
	return out
}

// TestIntegrationNERTable: a note's Markdown table, with the real sidecar, gives the person its
// row names and no entity for column names or single-word cells (an outside tester's "Prospect"
// and "CTO" organizations; read as one run of words, the small English model labelled "Name" a
// person, "Status" and "CTO" organizations and "Client" a place).
func TestIntegrationNERTable(t *testing.T) {
	r := testrig.NewWithNER(t, "")
	ctx := context.Background()
	notes := noteDocs("table", "en", []string{
		"Accounts we track this quarter.\n\n| Name | Role | Status |\n|---|---|---|\n| Anna Petrova | CTO | Prospect |\n| Mark Dalton | Client | Active |",
	}, nil)
	if _, err := r.Pipe.Sync(ctx, notes, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range mentioned(t, r) {
		got = append(got, k)
	}
	slices.Sort(got)
	if want := []string{"person:ana petrova person", "person:mark dalton person"}; !slices.Equal(got, want) {
		t.Errorf("entities %q, want %q", got, want)
	}
}
