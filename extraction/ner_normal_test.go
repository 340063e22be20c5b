package extraction

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/lexicontest"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ner"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
)

// scripted is what the scripted sidecar recognizes: a surface, its label and its normal form
// ("" sends none, as English mentions and an older sidecar do).
type scripted struct{ surface, label, normal string }

// scriptedSidecar is an httptest double of the NER sidecar's POST /v1/ner: every occurrence of
// each scripted surface (longest first, not overlapping) becomes a mention with UTF-8 byte
// offsets, and "normal" when the script gives one. The real client (package ner) talks to it.
func scriptedSidecar(t *testing.T, script []scripted) *ner.Client {
	t.Helper()
	sorted := slices.Clone(script)
	slices.SortStableFunc(sorted, func(a, b scripted) int { return len(b.surface) - len(a.surface) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Texts []string `json:"texts"`
		}
		if r.URL.Path != "/v1/ner" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error": "bad request"}`, http.StatusBadRequest)
			return
		}
		results := make([][]map[string]any, len(req.Texts))
		for i, text := range req.Texts {
			results[i] = []map[string]any{}
			taken := make([]bool, len(text))
			for _, s := range sorted {
				for off := 0; ; {
					j := strings.Index(text[off:], s.surface)
					if j < 0 {
						break
					}
					start, end := off+j, off+j+len(s.surface)
					off = end
					if slices.Contains(taken[start:end], true) {
						continue
					}
					for k := start; k < end; k++ {
						taken[k] = true
					}
					m := map[string]any{"start": start, "end": end, "text": s.surface, "label": s.label, "source_label": s.label}
					if s.normal != "" {
						m["normal"] = s.normal
					}
					results[i] = append(results[i], m)
				}
			}
			slices.SortFunc(results[i], func(a, b map[string]any) int { return a["start"].(int) - b["start"].(int) })
		}
		json.NewEncoder(w).Encode(map[string]any{"results": results, "model": "scripted"})
	}))
	t.Cleanup(srv.Close)
	c, err := ner.New(ner.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A recognized name is grouped and named by its normal form (the nominative the sidecar gives for
// Russian names), so inflected places and surname-first persons name one entity, and a person
// joins the documented one of that name; the surfaces stay the mentions' and the entity's aliases.
func TestNERNormalFormsNameAndGroup(t *testing.T) {
	tests := []struct {
		name       string
		script     []scripted
		documented []resolution.Candidate // entities the registry knows before recognition
		notes      []Input
		key        string   // the entity every note mentions
		entName    string   // its name
		aliases    []string // some of its aliases
		mentions   map[string][]string
	}{
		{
			name:   "an inflected place and its nominative: one entity named by the nominative",
			script: []scripted{{"Мурманске", "LOC", "Мурманск"}, {"Мурманск", "LOC", "Мурманск"}},
			notes: []Input{note("notes/1", "ru", "Совещание прошло в Мурманске."),
				note("notes/2", "ru", "Мурманск принял делегацию."), note("notes/3", "ru", "Итоги подвели в Мурманске.")},
			key: "location:murmansk", entName: "Мурманск", aliases: []string{"Мурманске"},
			mentions: map[string][]string{"notes/1": {"Мурманске→location:murmansk"}, "notes/2": {"Мурманск→location:murmansk"},
				"notes/3": {"Мурманске→location:murmansk"}},
		},
		{
			name: "the normal form names the group even where every surface is inflected",
			script: []scripted{{"Самаре", "LOC", "Самара"}, {"Самарой", "LOC", "Самара"},
				{"Самару", "LOC", "Самару"}}, // a case the sidecar could not settle: normal is the surface
			notes: []Input{note("notes/1", "ru", "Офис открыли в Самаре."), note("notes/2", "ru", "Склад под Самарой."),
				note("notes/3", "ru", "Курьер уехал в Самару."), note("notes/4", "ru", "Встреча в Самаре.")},
			key: "location:samara", entName: "Самара", aliases: []string{"Самаре", "Самарой", "Самару"},
			mentions: map[string][]string{"notes/1": {"Самаре→location:samara"}, "notes/3": {"Самару→location:samara"}},
		},
		{
			name: "a person written surname first with a patronymic, and in the genitive: one person, First Last",
			script: []scripted{{"Кнутов Зорислав Игоревич", "PER", "Зорислав Кнутов"},
				{"Зорислава Кнутова", "PER", "Зорислав Кнутов"}},
			notes: []Input{note("notes/1", "ru", "Договор подписал Кнутов Зорислав Игоревич."),
				note("notes/2", "ru", "Отчёт ждут от Зорислава Кнутова.")},
			key: "person:zorislav knutov", entName: "Зорислав Кнутов", aliases: []string{"Кнутов Зорислав Игоревич", "Зорислава Кнутова"},
			mentions: map[string][]string{"notes/1": {"Кнутов Зорислав Игоревич→person:zorislav knutov"},
				"notes/2": {"Зорислава Кнутова→person:zorislav knutov"}},
		},
		{
			name:       "a surname-first person joins the documented person of that name",
			script:     []scripted{{"Кнутов Зорислав Игоревич", "PER", "Зорислав Кнутов"}},
			documented: []resolution.Candidate{{Name: "Зорислав Кнутов", Type: "person", DocID: "people/knutov"}},
			notes:      []Input{note("notes/1", "ru", "Договор подписал Кнутов Зорислав Игоревич.")},
			key:        "people/knutov", entName: "Зорислав Кнутов",
			mentions: map[string][]string{"notes/1": {"Кнутов Зорислав Игоревич→people/knutov"}},
		},
		{
			name: "a first name and patronymic alone is the person its document names in full with them",
			script: []scripted{{"Галиев Тимур Рашидович", "PER", "Тимур Галиев"},
				{"Тимура Рашидовича", "PER", "Тимур Рашидович"}},
			notes: []Input{note("notes/1", "ru", "Галиев Тимур Рашидович согласовал оплату. Тимура Рашидовича все знают.")},
			key:   "person:timur galiev", entName: "Тимур Галиев", aliases: []string{"Галиев Тимур Рашидович", "Тимура Рашидовича"},
			mentions: map[string][]string{"notes/1": {"Галиев Тимур Рашидович→person:timur galiev", "Тимура Рашидовича→person:timur galiev"}},
		},
		{
			name: "the same with a page for the person: both mentions are the page's",
			script: []scripted{{"Галиев Тимур Рашидович", "PER", "Тимур Галиев"},
				{"Тимура Рашидовича", "PER", "Тимур Рашидович"}},
			documented: []resolution.Candidate{{Name: "Тимур Галиев", Type: "person", DocID: "people/timur-galiev"}},
			notes:      []Input{note("notes/1", "ru", "Галиев Тимур Рашидович согласовал оплату. Тимура Рашидовича все знают.")},
			key:        "people/timur-galiev", entName: "Тимур Галиев",
			mentions: map[string][]string{"notes/1": {"Галиев Тимур Рашидович→people/timur-galiev", "Тимура Рашидовича→people/timur-galiev"}},
		},
		{
			name: "a first name and patronymic another document names in full is its own person; inside the full name it does not win",
			script: []scripted{{"Галиев Тимур Рашидович", "PER", "Тимур Галиев"},
				{"Тимура Рашидовича", "PER", "Тимур Рашидович"}},
			documented: []resolution.Candidate{{Name: "Тимур Галиев", Type: "person", DocID: "people/timur-galiev"}},
			notes: []Input{note("notes/1", "ru", "Галиев Тимур Рашидович согласовал оплату."),
				note("notes/2", "ru", "Тимура Рашидовича все знают.")},
			key: "person:timur rashidovich", entName: "Тимур Рашидович",
			mentions: map[string][]string{"notes/1": {"Галиев Тимур Рашидович→people/timur-galiev"},
				"notes/2": {"Тимура Рашидовича→person:timur rashidovich"}},
		},
		{
			name:   "a sidecar without normal forms: the most frequent surface, as before",
			script: []scripted{{"Мурманске", "LOC", ""}, {"Мурманск", "LOC", ""}},
			notes: []Input{note("notes/1", "ru", "Совещание прошло в Мурманске."),
				note("notes/2", "ru", "Мурманск принял делегацию."), note("notes/3", "ru", "Итоги подвели в Мурманске.")},
			key: "location:murmanske", entName: "Мурманске", aliases: []string{"Мурманск"},
			mentions: map[string][]string{"notes/2": {"Мурманск→location:murmanske"}},
		},
		{
			name:   "a quoted organization keeps its name as written",
			script: []scripted{{"ООО «Вертоград Холдинг»", "ORG", "ООО «Вертоград Холдинг»"}},
			notes:  []Input{note("notes/1", "ru", "Счёт выставило ООО «Вертоград Холдинг».")},
			key:    "organization:vertograd holding", entName: "ООО «Вертоград Холдинг»",
			mentions: map[string][]string{"notes/1": {"ООО «Вертоград Холдинг»→organization:vertograd holding"}},
		},
		{
			name:   "a normal form that cannot name an entity is not used",
			script: []scripted{{"Велтриксу", "ORG", "велтрикс"}}, // no capital letter
			notes:  []Input{note("notes/1", "ru", "Отчёт отправлен Велтриксу.")},
			key:    "organization:veltriksu", entName: "Велтриксу",
			mentions: map[string][]string{"notes/1": {"Велтриксу→organization:veltriksu"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := onto(t)
			reg := resolution.NewRegistry(o.Nicknames)
			for _, c := range tc.documented {
				reg.Resolve(c)
			}
			found, err := NewNER(scriptedSidecar(t, tc.script), o, NERConfig{}).Recognize(context.Background(), tc.notes, reg)
			if err != nil {
				t.Fatal(err)
			}
			e, ok := reg.Get(tc.key)
			if !ok {
				t.Fatalf("no entity %s; entities %+v", tc.key, reg.Entities())
			}
			if e.Name != tc.entName {
				t.Errorf("entity %s is named %q, want %q", tc.key, e.Name, tc.entName)
			}
			for _, a := range tc.aliases {
				if !slices.Contains(e.Aliases, a) {
					t.Errorf("entity %s aliases %q lack %q", tc.key, e.Aliases, a)
				}
			}
			if n := len(reg.Entities()) - len(tc.documented); tc.documented == nil && n != 1 {
				t.Errorf("%d entities, want 1: %+v", n, reg.Entities())
			}
			for _, in := range tc.notes {
				in.Recognized = found
				f, err := NewDictionary(o).Extract(context.Background(), in, reg)
				if err != nil {
					t.Fatal(err)
				}
				if want, ok := tc.mentions[in.Doc.ID]; ok && !slices.Equal(mentionList(f), want) {
					t.Errorf("%s mentions\n got  %q\n want %q", in.Doc.ID, mentionList(f), want)
				}
				// Each mention carries the name its surface stands for, when it differs (the graph
				// shows the entity's name to the chunk's readers by it).
				for _, m := range f.Mentions {
					want := ""
					for _, s := range tc.script {
						if s.surface == m.Surface && s.normal != s.surface && nameLikeSurface(s.normal) {
							want = s.normal
						}
					}
					if m.Name != want {
						t.Errorf("%s: mention «%s» has name %q, want %q", in.Doc.ID, m.Surface, m.Name, want)
					}
				}
			}
		})
	}
}

func TestPatronymKey(t *testing.T) {
	for _, tc := range []struct {
		surface string
		key     string
		full    bool
	}{
		{"Галиев Тимур Рашидович", "timur rashidovich", true},
		{"Тимуром Рашидовичем Галиевым", "timur rashidovich", true},
		{"Тимура Рашидовича", "timur rashidovich", false},
		{"Кнутова Зорислава Игоревна", "zorislav igorevn", true},
		{"Тимур Галиев", "", false},
		{"Рашидович", "", false}, // no first name before it
		{"Oliver Hartmann", "", false},
	} {
		key, full := patronymKey(tc.surface)
		if key != tc.key || full != tc.full {
			t.Errorf("patronymKey(%q) = %q, %v; want %q, %v", tc.surface, key, full, tc.key, tc.full)
		}
	}
}

// A name a public chunk gives names the entity, whatever restricted chunks spell: the public
// reader's view of it (and whether it sees the key or an opaque uid:) does not change when a
// management note that spells it otherwise is written — here first in id order, and as often.
func TestNERPublicSpellingNamesTheEntity(t *testing.T) {
	o := onto(t)
	secret := note("notes/board-secret", "en", "The board discussed buying Nordwind Logistics.")
	secret.Doc.ACL = []string{"management"}
	secret.Chunks[0].ACL = secret.Doc.ACL
	public := note("notes/public-news", "ru", "Нордвинд Логистикс открыла склад в Мурманске.")
	public.Doc.ACL = []string{ariadne.PublicGroup}
	public.Chunks[0].ACL = public.Doc.ACL
	script := []scripted{{"Nordwind Logistics", "ORG", ""}, {"Нордвинд Логистикс", "ORG", "Нордвинд Логистикс"}}
	if e := recognizedEntity(t, o, script, secret, public); e.Name != "Нордвинд Логистикс" {
		t.Errorf("the entity is named %q, want the public spelling «Нордвинд Логистикс»", e.Name)
	}
}

// recognizedEntity runs recognition with a scripted sidecar over inputs into a new registry and
// returns the one entity every recognized mention resolved to (fatal when there are several).
func recognizedEntity(t *testing.T, o *ontology.Ontology, script []scripted, inputs ...Input) ariadne.Entity {
	t.Helper()
	reg := resolution.NewRegistry(o.Nicknames)
	found, err := NewNER(scriptedSidecar(t, script), o, NERConfig{}).Recognize(context.Background(), inputs, reg)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, rs := range found {
		for _, r := range rs {
			keys[r.EntityKey] = true
		}
	}
	if len(keys) != 1 {
		t.Fatalf("%d entities (%v), want one", len(keys), keys)
	}
	var e ariadne.Entity
	for k := range keys {
		e, _ = reg.Get(k)
	}
	return e
}

// When public chunks give two spellings, the public mentions alone choose between them: a
// restricted note that writes one of them more often, or with a legal form, changes neither the
// entity's name nor its type for anyone (security audit, stop 58: an hr note flipped «Тимур
// Алиев» / "Timur Aliev" for anonymous callers as it was posted and deleted).
func TestNERRestrictedMentionsDoNotNameTheEntity(t *testing.T) {
	o := onto(t)
	publicNote := func(id, lang, text string) Input {
		in := note(id, lang, text)
		in.Doc.ACL = []string{ariadne.PublicGroup}
		in.Chunks[0].ACL = in.Doc.ACL
		return in
	}
	en := publicNote("notes/a-en", "en", "Nordwind Logistics opened a warehouse.")
	ru := publicNote("notes/b-ru", "ru", "Нордвинд Логистикс открыла склад.")
	hr := note("notes/0-hr", "ru", "ООО «Нордвинд Логистикс» уволило троих. Нордвинд Логистикс платит мало. Нордвинд Логистикс молчит.")
	hr.Doc.ACL = []string{"hr"}
	hr.Chunks[0].ACL = hr.Doc.ACL
	script := []scripted{{"Nordwind Logistics", "ORG", ""}, {"Нордвинд Логистикс", "ORG", "Нордвинд Логистикс"},
		{"ООО «Нордвинд Логистикс»", "ORG", ""}}
	alone, with := recognizedEntity(t, o, script, en, ru), recognizedEntity(t, o, script, hr, en, ru)
	if alone.Name != "Nordwind Logistics" || alone.Type != "organization" {
		t.Errorf("public notes alone: %q (%s), want Nordwind Logistics (organization)", alone.Name, alone.Type)
	}
	if with.Key != alone.Key || with.Name != alone.Name || with.Type != alone.Type {
		t.Errorf("with the hr note: %s %q (%s), want %s %q (%s) as without it", with.Key, with.Name, with.Type, alone.Key, alone.Name, alone.Type)
	}
}

// A recognized name that is only a legal form («LLC», «ООО») is no entity.
func TestNERDropsLoneLegalForms(t *testing.T) {
	o := onto(t)
	reg := resolution.NewRegistry(o.Nicknames)
	sidecar := scriptedSidecar(t, []scripted{{"LLC", "ORG", ""}, {"Polar Star LLC", "ORG", ""}})
	found, err := NewNER(sidecar, o, NERConfig{}).Recognize(context.Background(),
		[]Input{note("notes/1", "en", "Polar Star LLC signed. Every LLC must file a report.")}, reg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rs := range found {
		for _, r := range rs {
			got = append(got, r.Surface+"→"+r.EntityKey)
		}
	}
	if want := []string{"Polar Star LLC→organization:polar star"}; !slices.Equal(got, want) {
		t.Errorf("recognized %q, want %q", got, want)
	}
}

// A one-word name is a person when a name of several words the same readers may read has its word;
// a restricted note that writes the name in full changes neither its type nor its key for a
// public reader (security audit, stop 59: "Mr. Pemberton" was person:pemberton for everyone only
// while a [management] note named Rupert Pemberton, and topic:pemberton without it).
func TestNEROneWordPersonCountsOnlyReadableFullNames(t *testing.T) {
	o := onto(t)
	entityOf := func(inputs ...Input) string {
		reg := resolution.NewRegistry(o.Nicknames)
		rec := &lexiconRecognizer{labels: map[string]string{"Pemberton": "PERSON", "Rupert Pemberton": "PERSON"}}
		found, err := NewNER(rec, o, NERConfig{}).Recognize(context.Background(), inputs, reg)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range found["notes/depot#0"] {
			return r.EntityKey
		}
		return ""
	}
	depot := note("notes/depot", "en", "Mr. Pemberton inspected the Narvik depot.")
	secret := note("notes/secret", "en", "Rupert Pemberton approved the expansion.")
	secret.Doc.ACL, secret.Chunks[0].ACL = []string{"management"}, []string{"management"}
	public := note("notes/visit", "en", "Rupert Pemberton visited the depot.")
	if got := entityOf(depot); got != "topic:pemberton" {
		t.Errorf("the public note alone: %q, want topic:pemberton", got)
	}
	if got := entityOf(depot, secret); got != "topic:pemberton" {
		t.Errorf("with the management note: %q, want topic:pemberton as without it", got)
	}
	if got := entityOf(depot, public); got != "person:pemberton" {
		t.Errorf("with a public note naming him in full: %q, want person:pemberton", got)
	}
}

// With a lexicon, an organization recognized in English and one recognized in Russian that are
// the same name word for word (lexicon.SameName) are one entity, named and keyed by the name
// public notes give first whatever restricted notes say; a restricted note joins the public
// entity; without a lexicon they stay two.
func TestNERJoinsOrganizationsAcrossScripts(t *testing.T) {
	o := onto(t)
	lex := lexicontest.New(t,
		lexicontest.Entry{Head: "state", Body: "state\n   [steɪt] _n.\n   1) состояние\n   2) государство; _attr. государственный"},
		lexicontest.Entry{Head: "university", Body: "university\n   [↗ju:nɪ↗vɜ:sɪtɪ] _n. университет"},
	)
	script := []scripted{{"Kama State University", "ORG", ""},
		{"Камском государственном университете", "ORG", "Камский государственный университет"}}
	en := note("notes/b-en", "en", "Kama State University hosted the seminar.")
	ru := note("notes/c-ru", "ru", "Семинар прошёл в Камском государственном университете.")
	restrictedRU := note("notes/a-ru", "ru", "Смета: в Камском государственном университете.")
	restrictedRU.Doc.ACL, restrictedRU.Chunks[0].ACL = []string{"finance"}, []string{"finance"}
	keys := func(lex *lexicon.Lexicon, inputs ...Input) map[string]string {
		reg := resolution.NewRegistry(o.Nicknames)
		found, err := NewNER(scriptedSidecar(t, script), o, NERConfig{Lexicon: lex}).Recognize(context.Background(), inputs, reg)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for id, rs := range found {
			for _, r := range rs {
				out[id] = r.EntityKey
			}
		}
		return out
	}
	got := keys(lex, en, ru)
	if got["notes/b-en#0"] != "organization:kama state universiti" || got["notes/c-ru#0"] != got["notes/b-en#0"] {
		t.Errorf("with a lexicon: %v, want both notes on organization:kama state universiti", got)
	}
	if got := keys(nil, en, ru); got["notes/c-ru#0"] == got["notes/b-en#0"] {
		t.Errorf("without a lexicon: %v, want two entities", got)
	}
	// Groups resolve in the order of their first public mention: a finance note whose id sorts
	// first names nothing (security audit, stop 59: it made the public entity Russian-named).
	got = keys(lex, restrictedRU, en)
	if got["notes/b-en#0"] != "organization:kama state universiti" || got["notes/a-ru#0"] != got["notes/b-en#0"] {
		t.Errorf("a finance note first: %v, want both on the public entity, organization:kama state universiti", got)
	}
	if got := keys(lex, restrictedRU, en, ru); got["notes/b-en#0"] != "organization:kama state universiti" || got["notes/c-ru#0"] != got["notes/b-en#0"] {
		t.Errorf("a finance note first, then the public notes: %v, want them on organization:kama state universiti as without it", got)
	}
	restrictedRU.Doc.ID, restrictedRU.Chunks[0].ID, restrictedRU.Chunks[0].DocID = "notes/d-ru", "notes/d-ru#0", "notes/d-ru"
	got = keys(lex, en, restrictedRU)
	if got["notes/d-ru#0"] != got["notes/b-en#0"] || got["notes/b-en#0"] != "organization:kama state universiti" {
		t.Errorf("the public note resolved first: %v, want the finance note on the public entity", got)
	}
}

// With a gazetteer, a place recognized in English and the same place recognized in Russian are
// one entity, though no transliteration relates "Vienna" and «Вена», and it takes the
// gazetteer's names; without one they stay two. A place the gazetteer cannot choose (two
// Brests of close size) takes no names, nor does a name before "region" (the Leningrad region
// is no Saint Petersburg, though GeoNames lists the city's old name).
func TestNERJoinsPlacesByGazetteer(t *testing.T) {
	o := onto(t)
	g, err := lexicon.ReadGazetteer("places.tsv", strings.NewReader(
		"city\t2761369\tAT\t1691468\tVienna\tWien\tВена\n"+
			"city\t498817\tRU\t5351935\tSaint Petersburg\tLeningrad\tСанкт-Петербург\tЛенинград\n"+
			"city\t4791160\tUS\t16522\tVienna\n"+
			"city\t629634\tBY\t340141\tBrest\tБрест\n"+
			"city\t3030300\tFR\t139926\tBrest\tБрест\n"))
	if err != nil {
		t.Fatal(err)
	}
	script := []scripted{{"Vienna", "LOC", ""}, {"Вене", "LOC", "Вена"}, {"Brest", "LOC", ""}, {"Бресте", "LOC", "Брест"},
		{"Leningrad", "LOC", ""}, {"Санкт-Петербурге", "LOC", "Санкт-Петербург"}}
	en := note("notes/a-en", "en", "The orchestra played in Vienna and in Brest, then toured the Leningrad region.")
	ru := note("notes/b-ru", "ru", "Оркестр выступил в Вене, затем в Бресте и в Санкт-Петербурге.")
	run := func(lex *lexicon.Lexicon) (*resolution.Registry, map[string][]string) {
		reg := resolution.NewRegistry(o.Nicknames)
		found, err := NewNER(scriptedSidecar(t, script), o, NERConfig{Lexicon: lex}).Recognize(context.Background(), []Input{en, ru}, reg)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for id, rs := range found {
			for _, r := range rs {
				out[id] = append(out[id], r.EntityKey)
			}
		}
		return reg, out
	}
	reg, got := run((*lexicon.Lexicon)(nil).WithGazetteer(g))
	if want := map[string][]string{
		"notes/a-en#0": {"location:viena", "location:brest", "location:leningrad region"}, // the region, not the city
		"notes/b-ru#0": {"location:viena", "location:brest", "location:sankt peterburg"},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("with a gazetteer: %v, want %v", got, want)
	}
	if e, _ := reg.Get("location:viena"); e.Name != "Vienna" || !slices.Equal(e.Aliases, []string{"Вена"}) {
		t.Errorf("Vienna: name %q aliases %q, want Vienna with «Вена» (Wien is too short to be taken)", e.Name, e.Aliases)
	}
	if e, _ := reg.Get("location:leningrad region"); e.Name != "Leningrad region" || len(e.Aliases) != 0 {
		t.Errorf("the region: name %q aliases %q, want \"Leningrad region\" alone", e.Name, e.Aliases)
	}
	// The city resolved first, the region after: still apart.
	later := note("notes/c-en", "en", en.Chunks[0].Text)
	reg2 := resolution.NewRegistry(o.Nicknames)
	found, err := NewNER(scriptedSidecar(t, script), o, NERConfig{Lexicon: (*lexicon.Lexicon)(nil).WithGazetteer(g)}).Recognize(context.Background(), []Input{ru, later}, reg2)
	if err != nil {
		t.Fatal(err)
	}
	if rs := found["notes/c-en#0"]; len(rs) != 3 || rs[2].EntityKey != "location:leningrad region" {
		t.Errorf("the region after the city: %+v, want it on location:leningrad region", rs)
	}
	if _, got := run(nil); got["notes/b-ru#0"][0] == got["notes/a-en#0"][0] {
		t.Errorf("without a gazetteer: %v, want «Вена» apart from Vienna", got)
	}
	if n := NewNER(scriptedSidecar(t, script), o, NERConfig{Lexicon: (*lexicon.Lexicon)(nil).WithGazetteer(g)}).Name(); !strings.HasPrefix(n, "ner-v6+places:places.tsv/") {
		t.Errorf("Name %q: want the gazetteer named, so that adding one re-extracts", n)
	}
}
