package ingest_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/graph"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/internal/testrig"
)

// A public text that names what only a management page defines is linked to that definition for
// management only (graph: a described entity exists for its document's readers;
// resolution.Registry.Reaches): an anonymous caller sees no entity typed by the page, no opaque
// key that betrays a hidden definition, no relation typed by it and no alias that ties two public
// spellings together — the tester's report of 2026-12-05. Made public, the page links them for all.
func TestIntegrationRestrictedDefinitionReach(t *testing.T) {
	r := testrig.New(t, "")
	ctx := context.Background()
	mgmt, public := []string{"management"}, []string{ariadne.PublicGroup}
	project := ariadne.Document{ID: "projects/polar-owl", Type: "project", Title: "Project Polar Owl", Lang: "en", ACL: mgmt,
		Aliases: []string{"Polar Owl", "Polyarnaya Sova"}, Body: "# Project Polar Owl\n\nPolar Owl is built for the board. Its budget is 48213977 USD.\n"}
	docs := []ariadne.Document{
		project,
		{ID: "people/tessa-walker", Type: "person", Title: "Tessa Walker", Lang: "en", ACL: public,
			Body: "# Tessa Walker\n\nTessa Walker likes Polar Owl.\n"},
		{ID: "notes/parking", Title: "Parking note", Lang: "en", ACL: public,
			Body: "A parcel for Polyarnaya Sova arrived at reception. Polar Owl stickers were found near the coffee machine.\n"},
	}
	if _, err := r.Pipe.Upsert(ctx, docs, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	seen := func(groups []string) []string {
		t.Helper()
		var out []string
		for _, q := range []string{"Polar Owl", "Polyarnaya Sova"} {
			cands, err := r.Graph.EntityCandidates(ctx, q, groups, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cands {
				out = append(out, q+" → "+c.Key+" ("+c.Type+") "+strings.Join(c.Aliases, "|"))
			}
		}
		edges, err := r.Graph.Edges(ctx, []string{"people/tessa-walker"}, groups, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range edges {
			out = append(out, e.From.Key+" "+e.Type+" "+e.To.Key)
		}
		slices.Sort(out)
		return out
	}
	for _, v := range seen(public) {
		if strings.Contains(v, "project") || strings.Contains(v, graph.UIDPrefix) || strings.Contains(v, "WORKS_ON") || strings.Contains(v, "Polar Owl|Polyarnaya Sova") {
			t.Errorf("anonymous caller sees %q, which only the management page states", v)
		}
	}
	if got := seen(append(public, "management")); !slices.Contains(got, "Polar Owl → projects/polar-owl (project) Polar Owl|Polyarnaya Sova") ||
		!slices.Contains(got, "people/tessa-walker WORKS_ON projects/polar-owl") {
		t.Errorf("management sees %q, want the project by its page's key and aliases, and Tessa WORKS_ON it", got)
	}
	// Made public, the page reaches every text: Tessa's page now relates her to the project.
	project.ACL = public
	if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{project}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := seen(public); !slices.Contains(got, "people/tessa-walker WORKS_ON projects/polar-owl") {
		t.Errorf("after the page was made public, anonymous sees %q, want Tessa WORKS_ON the project", got)
	}
}

// With recognition on, the public note's name becomes an entity of its own, keyed and typed by
// what the recognizer saw, while the management page keeps its person (the real NER sidecar).
func TestIntegrationRestrictedDefinitionReachNER(t *testing.T) {
	r := testrig.NewWithNER(t, "")
	ctx := context.Background()
	mgmt, public := []string{"management"}, []string{ariadne.PublicGroup}
	docs := []ariadne.Document{
		{ID: "people/zorislav-knutov", Type: "person", Title: "Zorislav Knutov", Lang: "en", ACL: mgmt,
			Aliases: []string{"Zorya Knutov"}, Body: "# Zorislav Knutov\n\nZorislav Knutov directs the board's acquisition project.\n"},
		{ID: "notes/reception", Title: "Reception note", Lang: "en", ACL: public,
			Body: "A parcel for Zorislav Knutov arrived at reception on Monday.\n"},
	}
	if _, err := r.Pipe.Upsert(ctx, docs, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	view := func(groups []string) []string {
		t.Helper()
		cands, err := r.Graph.EntityCandidates(ctx, "Zorislav Knutov", groups, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cands {
			out = append(out, c.Key+" ("+c.Type+") "+strings.Join(c.Aliases, "|"))
		}
		slices.Sort(out)
		return out
	}
	if got, want := view(public), []string{"person:zorislav knutov (person) "}; !slices.Equal(got, want) {
		t.Errorf("anonymous caller sees %q, want %q (the note's own entity: no opaque key, no alias from the page)", got, want)
	}
	if got := view(append(public, "management")); !slices.Contains(got, "people/zorislav-knutov (person) Zorya Knutov") {
		t.Errorf("management sees %q, want the page's person", got)
	}
	// The note's chunk names the page's person for management, and the recognizer's for everyone.
	mentioned := func(groups []string) []string { return documentMentions(t, r, "notes/reception", groups) }
	if got, want := mentioned(public), []string{"person:zorislav knutov"}; !slices.Equal(got, want) {
		t.Errorf("anonymous: the note mentions %q, want %q", got, want)
	}
	if got, want := mentioned(append(public, "management")), []string{"people/zorislav-knutov", "person:zorislav knutov"}; !slices.Equal(got, want) {
		t.Errorf("management: the note mentions %q, want %q", got, want)
	}
}

// /v1/sources' last_sync (graph.Store.Sources) is the latest write of a document the caller may
// read: a management-only write moves management's time and not an anonymous caller's (the
// tester watched restricted writes through it); re-posting a document unchanged moves neither.
func TestIntegrationSourcesLastChange(t *testing.T) {
	r := testrig.New(t, "")
	ctx := context.Background()
	mgmt, public := []string{"management"}, []string{ariadne.PublicGroup}
	last := func(groups []string) string {
		t.Helper()
		srcs, err := r.Graph.Sources(ctx, groups)
		if err != nil || len(srcs) != 1 {
			t.Fatalf("sources as %v: %v %v", groups, srcs, err)
		}
		return srcs[0].LastSync
	}
	note := ariadne.Document{ID: "notes/menu", Title: "Menu", Lang: "en", ACL: public, Body: "The canteen is closed on Friday.\n"}
	if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{note}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	anon := last(public)
	if anon == "" {
		t.Fatal("no last_sync after a public write")
	}
	secret := ariadne.Document{ID: "notes/board", Title: "Board", Lang: "en", ACL: mgmt, Body: "The board meets on Monday.\n"}
	if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{secret}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := last(public); got != anon {
		t.Errorf("anonymous last_sync moved %s → %s with a management-only write", anon, got)
	}
	both := last(append(public, "management"))
	if both <= anon {
		t.Errorf("management last_sync %s, want after the public write's %s", both, anon)
	}
	if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{note, secret}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if got, gotBoth := last(public), last(append(public, "management")); got != anon || gotBoth != both {
		t.Errorf("unchanged re-post moved last_sync: anonymous %s → %s, management %s → %s", anon, got, both, gotBoth)
	}
}

// What a write reports (POST /v1/documents shows Summary.Docs) is the same for a public note that
// names what only a management page defines as for one that names an unknown code: the hidden
// link management sees is not counted (the tester posted probe notes and compared the counts).
func TestIntegrationWriteCountsHideDefinitions(t *testing.T) {
	r := testrig.New(t, "")
	ctx := context.Background()
	contract := ariadne.Document{ID: "contracts/ctr-2025-07", Type: "contract", Title: "Договор CTR-2025-07", Lang: "ru",
		ACL: []string{"management"}, Body: "# Договор CTR-2025-07\n\nШтраф 2% от месячной стоимости.\n"}
	if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{contract}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	counts := func(id, code string) ingest.DocCounts {
		t.Helper()
		note := ariadne.Document{ID: id, Title: "Заметка", Lang: "ru", ACL: []string{ariadne.PublicGroup},
			Body: "Обсуждали договор " + code + " на встрече с Анной Лебедевой в понедельник.\n"}
		sum, err := r.Pipe.Upsert(ctx, []ariadne.Document{note}, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := sum.Docs[id]
		c.Extracted = false
		return c
	}
	known, unknown := counts("notes/probe-known", "CTR-2025-07"), counts("notes/probe-unknown", "CTR-2099-02")
	if known != unknown {
		t.Errorf("a note naming a management-only contract reports %+v, one naming an unknown code %+v: the counts tell the writer the contract exists", known, unknown)
	}
	// Management still sees the link.
	ids, err := r.Graph.DocumentChunkIDs(ctx, []string{"notes/probe-known"}, []string{ariadne.PublicGroup, "management"})
	if err != nil {
		t.Fatal(err)
	}
	byChunk, err := r.Graph.EntitiesOfChunks(ctx, ids, []string{ariadne.PublicGroup, "management"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, ks := range byChunk {
		keys = append(keys, ks...)
	}
	if !slices.Contains(keys, "contracts/ctr-2025-07") {
		t.Errorf("management: the note mentions %q, want the contract among them", keys)
	}
}

// With recognition on (the real NER sidecar), what a public note naming a management contract's
// code gives its readers is what a note naming an unknown code gives (F1, the tester's probe):
// the codes «CTR-2026» and «NB-913» as identifiers, not one topic «CTR-2026-NB-913» recognition
// made of the hidden alias; the write reports the same counts; and a note written before the
// contract keeps its entities when the contract is written after it, in another source (the
// contract adopted the note's «NB-913»). Management still sees the link to the contract.
func TestIntegrationWriteCountsHideDefinitionsNER(t *testing.T) {
	r := testrig.NewWithNER(t, "")
	ctx := context.Background()
	public, both := []string{ariadne.PublicGroup}, []string{ariadne.PublicGroup, "management"}
	title := "Contract CTR-2026-NB-913 — Nordlicht Bank, audit services"
	contract := ariadne.Document{ID: "audit/contracts/ctr-2026-nb-913", Type: "contract", Title: title, Lang: "en",
		ACL: []string{"management"}, Body: "# " + title + "\n\nThe penalty is 2% of the monthly fee.\n"}
	post := func(id, code string) ingest.DocCounts {
		t.Helper()
		note := ariadne.Document{ID: id, Title: "Note", Lang: "en", ACL: public,
			Body: "Yesterday the team discussed " + code + " with Nordlicht Bank.\n"}
		sum, err := r.Pipe.Upsert(ctx, []ariadne.Document{note}, ingest.Options{Source: "notes"})
		if err != nil {
			t.Fatal(err)
		}
		c := sum.Docs[id]
		c.Extracted = false
		return c
	}
	mentioned := func(id string, groups []string) []string { return documentMentions(t, r, id, groups) }
	candidates := func(q string) []string { return entityCandidates(t, r, q, public) }
	before := post("notes/before", "CTR-2026-NB-913")
	wantBefore := []string{"identifier:ktr 2026", "identifier:nb 913", "organization:nordlicht bank"}
	if got := mentioned("notes/before", public); !slices.Equal(got, wantBefore) {
		t.Fatalf("before the contract, the note mentions %q, want %q", got, wantBefore)
	}
	if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{contract}, ingest.Options{Source: "audit"}); err != nil {
		t.Fatal(err)
	}
	if got := mentioned("notes/before", public); !slices.Equal(got, wantBefore) {
		t.Errorf("after the management contract was written, the public note mentions %q, want %q as before", got, wantBefore)
	}
	known, unknown := post("notes/probe-known", "CTR-2026-NB-913"), post("notes/probe-unknown", "CTR-2026-NB-914")
	if known != unknown || known != before {
		t.Errorf("a note naming a management-only contract reports %+v, one naming an unknown code %+v, one written before the contract %+v: the counts tell the writer the contract exists",
			known, unknown, before)
	}
	// The three notes' codes, whichever is asked for (the search is by words, not exact).
	codes := []string{"identifier:ktr 2026 (identifier)", "identifier:nb 913 (identifier)", "identifier:nb 914 (identifier)"}
	for _, q := range []string{"CTR-2026-NB-913", "CTR-2026-NB-914"} {
		if got := candidates(q); !slices.Equal(got, codes) {
			t.Errorf("anonymous entities for %s: %q, want %q (those of unknown codes)", q, got, codes)
		}
	}
	if got := mentioned("notes/probe-known", both); !slices.Contains(got, contract.ID) {
		t.Errorf("management: the note mentions %q, want the contract among them", got)
	}
}

// A name only recognition in a management note gives («Восточной Гавани», an organization the
// sidecar finds there) is no entity for a public note that writes it but where recognition finds
// nothing: the public note is not linked to it, an anonymous caller finds no such entity, and a
// writer's counts for the note are those of a note naming nothing known — whether the notes come
// in one sync or, as a new user's did, through two sources (the README trial of stop 49).
func TestIntegrationRecognizedNameReach(t *testing.T) {
	r := testrig.NewWithNER(t, "")
	ctx := context.Background()
	secret := ariadne.Document{ID: "mgmt/budget", Title: "Бюджет", Lang: "ru", ACL: []string{"management"},
		Body: "Бюджет «Восточной Гавани» сокращён, сказал Зорислав Кнутов.\n"}
	public := func(id string) ariadne.Document {
		return ariadne.Document{ID: id, Title: "Заметка", Lang: "ru", ACL: []string{ariadne.PublicGroup},
			Body: "Стенд проекта «Восточная Гавань» перенесён в новый дата-центр.\n"}
	}
	if _, err := r.Pipe.Upsert(ctx, []ariadne.Document{public("notes/p1")}, ingest.Options{Source: "notes"}); err != nil {
		t.Fatal(err)
	}
	before := ingest.DocCounts{}
	if sum, err := r.Pipe.Upsert(ctx, []ariadne.Document{secret}, ingest.Options{Source: "mgmt"}); err != nil {
		t.Fatal(err)
	} else if _, ok := sum.Docs["mgmt/budget"]; !ok {
		t.Fatalf("the management note was not written: %+v", sum)
	}
	sum, err := r.Pipe.Upsert(ctx, []ariadne.Document{public("notes/p2")}, ingest.Options{Source: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	after := sum.Docs["notes/p2"]
	before.Chunks, after.Extracted = after.Chunks, false
	if after != before {
		t.Errorf("the public note's counts %+v, want %+v (nothing known to its readers)", after, before)
	}
	for _, groups := range [][]string{{ariadne.PublicGroup}} {
		cands, err := r.Graph.EntityCandidates(ctx, "Восточная Гавань", groups, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			if strings.Contains(c.Name, "Гавань") || strings.Contains(c.Name, "Гавани") {
				t.Errorf("an anonymous caller finds %s «%s», which only the management note gives", c.Key, c.Name)
			}
		}
	}
	mgmt := []string{ariadne.PublicGroup, "management"}
	cands, err := r.Graph.EntityCandidates(ctx, "Восточная Гавань", mgmt, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cands, func(c ariadne.EntityCandidate) bool { return strings.Contains(c.Name, "Гаван") }) {
		t.Errorf("management finds %+v, want the organization its note names", cands)
	}
}

// documentMentions returns the keys of the entities the chunks of document id mention, as groups
// may see them, sorted (with repeats: one per chunk that mentions the entity).
func documentMentions(t *testing.T, r *testrig.Rig, id string, groups []string) []string {
	t.Helper()
	ctx := context.Background()
	ids, err := r.Graph.DocumentChunkIDs(ctx, []string{id}, groups)
	if err != nil {
		t.Fatal(err)
	}
	byChunk, err := r.Graph.EntitiesOfChunks(ctx, ids, groups)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, keys := range byChunk {
		out = append(out, keys...)
	}
	slices.Sort(out)
	return out
}

// entityCandidates returns the entities the fulltext index proposes for q, as groups may see
// them, as "key (type)", sorted.
func entityCandidates(t *testing.T, r *testrig.Rig, q string, groups []string) []string {
	t.Helper()
	cands, err := r.Graph.EntityCandidates(context.Background(), q, groups, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cands {
		out = append(out, c.Key+" ("+c.Type+")")
	}
	slices.Sort(out)
	return out
}
