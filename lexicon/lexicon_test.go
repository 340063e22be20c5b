package lexicon

import (
	"slices"
	"strings"
	"testing"
)

// entries are invented in the layout of Mueller's dictionary: a headword line, a transcription,
// labels, numbered senses, examples mixing both languages.
var entries = []struct{ head, body string }{
	{"00-databaseinfo", "00-databaseinfo\n   a test dictionary"},
	{"harbour", "harbour\n   [↗hɑ:bɜ]\n   1. _n.\n      1) гавань, порт; inner harbour внутренняя гавань\n      2) убежище, приют\n   2. _v. _уст. укрывать (from)"},
	{"harbourmaster", "harbourmaster\n   [↗hɑ:bɜ↗mɑ:stɜ] _n. начальник порта"},
	{"lantern", "lantern\n   [↗læntɜn] _n.\n   1) фонарь; magic lantern волшебный фонарь\n   2) _архит. световой фонарь {см. тж. 1}"},
	{"sail", "sail\n   [sɛɪl]\n   1. _n. парус\n   2. _v.\n      а) плыть;\n      б) отплывать, отправляться (в плавание)"},
	{"sailing", "sailing\n   [↗sɛɪlɪŋ] _n. плавание, мореплавание"},
	{"ship-yard", "ship-yard\n   = shipyard"},
	{"port", "port\n   _I [pɘ:t] _n. порт, гавань"},
}

func dictd(t *testing.T) (index, dict string) {
	t.Helper()
	var ib, db strings.Builder
	for _, e := range entries {
		off := db.Len()
		db.WriteString(e.body + "\n")
		ib.WriteString(e.head + "\t" + enc(off) + "\t" + enc(len(e.body)) + "\n")
	}
	return ib.String(), db.String()
}

func enc(n int) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	if n == 0 {
		return "A"
	}
	var out []byte
	for ; n > 0; n /= 64 {
		out = append([]byte{digits[n%64]}, out...)
	}
	return string(out)
}

func keys(t *testing.T, words ...string) []string {
	t.Helper()
	var out []string
	for _, w := range words {
		k, _ := Key(w)
		if k == "" {
			t.Fatalf("no key for %q", w)
		}
		out = append(out, k)
	}
	return out
}

func TestTranslations(t *testing.T) {
	tests := []struct {
		entry string
		want  []string
	}{
		{entries[1].body, []string{"гавань", "порт", "убежище", "приют", "укрывать"}},
		{entries[3].body, []string{"фонарь", "световой фонарь"}},
		{entries[4].body, []string{"парус", "плыть", "отплывать", "отправляться"}},
		{entries[6].body, nil}, // a cross-reference, not a translation
		{"headword only", nil},
	}
	for _, tc := range tests {
		if got := Translations(tc.entry); !slices.Equal(got, tc.want) {
			t.Errorf("Translations(%q) = %q, want %q", tc.entry, got, tc.want)
		}
	}
}

func TestReadDictd(t *testing.T) {
	index, dict := dictd(t)
	l, err := ReadDictd("mini", strings.NewReader(index), strings.NewReader(dict))
	if err != nil {
		t.Fatal(err)
	}
	if en, ru := l.Size(); en != 6 || ru == 0 {
		t.Fatalf("Size() = %d, %d; want 6 English headwords", en, ru)
	}
	tests := []struct {
		word string
		want []string
	}{
		// English → Russian, by headword, in dictionary order, each key once.
		{"harbour", keys(t, "гавань", "порт", "убежище", "приют", "укрывать")},
		// an inflected form falls back to the headwords of its stem
		{"harbours", keys(t, "гавань", "порт", "убежище", "приют", "укрывать")},
		{"lanterns", keys(t, "фонарь", "световой")},
		// Russian → English: any inflected form, entries that give the word alone first
		{"гавани", keys(t, "harbour", "port")},
		{"порта", keys(t, "port", "harbour", "harbourmaster")},
		{"плавании", keys(t, "sailing")},
		{"фонарём", keys(t, "lantern")},
		{"кит", nil},
		{"the", nil},
	}
	for _, tc := range tests {
		if got := l.Translate(tc.word); !slices.Equal(got, tc.want) {
			t.Errorf("Translate(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestReadDictdErrors(t *testing.T) {
	for _, index := range []string{"harbour\tA\n", "harbour\tA\tZZZZ\n", "harbour\t!\tB\n"} {
		if _, err := ReadDictd("bad", strings.NewReader(index), strings.NewReader("harbour\n гавань\n")); err == nil {
			t.Errorf("ReadDictd(%q): no error", index)
		}
	}
	if _, err := Load(t.TempDir() + "/none"); err == nil || !strings.Contains(err.Error(), "deploy/local.sh install lexicon") {
		t.Errorf("Load of a missing dictionary: %v", err)
	}
}

func TestNilLexicon(t *testing.T) {
	var l *Lexicon
	if l.Translate("harbour") != nil || l.Name() != "" {
		t.Error("a nil lexicon translates")
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"отпуска", "отпуск", true},
		{"founded", "found", true},
		{"Клиент", "client", true}, // a loanword meets its source
		{"harbour", "гавань", false},
	}
	for _, tc := range tests {
		ka, _ := Key(tc.a)
		kb, _ := Key(tc.b)
		if (ka == kb) != tc.same {
			t.Errorf("Key(%q) = %q, Key(%q) = %q; same = %v, want %v", tc.a, ka, tc.b, kb, ka == kb, tc.same)
		}
	}
	if k, _ := Key("2024"); k != "" {
		t.Errorf("Key of a number = %q", k)
	}
}

func TestGloss(t *testing.T) {
	index, dict := dictd(t)
	l, err := ReadDictd("mini", strings.NewReader(index), strings.NewReader(dict))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ text, want string }{
		{"Where is the harbour lantern?", "гавань фонарь"},
		{"Где фонарь гавани Ньюхейвен?", "lantern harbour Ньюхейвен"},
		{"Порт 7", "harbour 7"}, // the longer entry wins a tie of ranks
	}
	for _, tc := range tests {
		if got := l.GlossText(tc.text); got != tc.want {
			t.Errorf("GlossText(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// An entry's sections — homonyms and parts of speech — each keep their usual translations: "lead"
// the metal has as many senses as MaxTranslations allows, and the verb «вести, руководить» of the
// second homonym still gets in.
func TestTranslationSections(t *testing.T) {
	entry := "lead\n   _I  [lɛd]\n      1. _n.\n         1) свинец\n         2) грифель\n         3) _мор. лот\n" +
		"         4) грузило, отвес\n         5) пломба\n         6) _pl. свинцовые полосы; плоская крыша\n" +
		"      2. _v.\n         1) _тех. освинцовывать, покрывать свинцом\n" +
		"   _II [li:d]\n      1. _n.\n         1) руководство; инициатива\n         2) пример, указания\n" +
		"      2. _v.\n         1) вести; he led us мы шли за ним\n         2) руководить, командовать"
	secs := TranslationSections(entry)
	want := [][]string{
		{"свинец", "грифель", "лот", "грузило", "отвес", "пломба", "свинцовые полосы", "плоская крыша"},
		{"освинцовывать", "покрывать свинцом"},
		{"руководство", "инициатива", "пример", "указания"},
		{"вести", "руководить", "командовать"},
	}
	if len(secs) != len(want) {
		t.Fatalf("sections = %q, want %q", secs, want)
	}
	for i := range want {
		if !slices.Equal(secs[i], want[i]) {
			t.Errorf("section %d = %q, want %q", i, secs[i], want[i])
		}
	}
	// In the lexicon the metal's senses fill the cap, and each later section's first two
	// translations come after them.
	index := "lead\tA\t" + enc(len(entry)) + "\n"
	l, err := ReadDictd("lead", strings.NewReader(index), strings.NewReader(entry+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	first := keys(t, "свинец", "грифель", "лот", "грузило", "отвес", "пломба", "свинцовые", "полосы", "плоская", "крыша")
	// «освинцовывать, покрывать» fill the cap; «свинцом» is the verb section's second translation.
	wantAll := append(first, keys(t, "освинцовывать", "покрывать", "свинцом", "руководство", "инициатива", "вести", "руководить")...)
	for _, w := range []string{"lead", "leads"} {
		if got := l.Translate(w); !slices.Equal(got, wantAll) {
			t.Errorf("Translate(%q) = %q, want %q", w, got, wantAll)
		}
	}
	if got := l.Translate("руководить"); !slices.Equal(got, []string{"lead"}) {
		t.Errorf("Translate(руководить) = %q, want [lead]", got)
	}
}

// An entry that only refers an inflected form to its headword ("led … от lead") gives the form the
// headword's translations, and a text with the form states the headword's key.
func TestIrregularForms(t *testing.T) {
	entries := []struct{ head, body string }{
		{"lead", "lead\n   [li:d]\n   _v.\n      1) вести\n      2) руководить"},
		{"led", "led\n   [lɛd] _p. и _p-p. от lead II, 2"},
		{"went", "went\n   [wɛnt] _p. от go 1"}, // no entry for go: nothing
	}
	l := readEntries(t, "forms", entries)
	if got, want := l.Translate("led"), keys(t, "вести", "руководить"); !slices.Equal(got, want) {
		t.Errorf("Translate(led) = %q, want %q", got, want)
	}
	if got := l.Translate("went"); got != nil {
		t.Errorf("Translate(went) = %q, want nothing", got)
	}
	got := l.TextKeys("He has led the team since 2021.")
	if !got["lead"] || !got["led"] || !got["team"] {
		t.Errorf("TextKeys = %v, want lead, led and team among them", got)
	}
	if got := (*Lexicon)(nil).TextKeys("has led"); !got["led"] || got["lead"] {
		t.Errorf("nil lexicon TextKeys = %v, want Keys", got)
	}
}

// A headword the stopword list holds for its function-word use ("own" in "its own") is still a
// content word of the dictionary: «владеть» translates to it, and "owns", "owned" in a text state
// it; the bare "own" of a text states nothing.
func TestStopwordHeadword(t *testing.T) {
	entries := []struct{ head, body string }{
		{"own", "own\n   [ɜʊn]\n   1. _a. свой собственный\n   2. _v.\n      1) владеть; иметь, обладать"},
	}
	l := readEntries(t, "own", entries)
	k, _ := Key("owns")
	if tr := l.Translate("владеет"); !slices.Contains(tr, k) {
		t.Errorf("Translate(владеет) = %q, want %q (owns) among them", tr, k)
	}
	if got := l.TextKeys("It is owned by the team."); !got[k] {
		t.Errorf("TextKeys(owned) = %v, want %q", got, k)
	}
	if got := l.TextKeys("The team has its own library."); got[k] {
		t.Errorf("TextKeys(its own) = %v, want no %q", got, k)
	}
}

// readEntries reads entries as a dictd dictionary named name.
func readEntries(t *testing.T, name string, entries []struct{ head, body string }) *Lexicon {
	t.Helper()
	var ib, db strings.Builder
	for _, e := range entries {
		ib.WriteString(e.head + "\t" + enc(db.Len()) + "\t" + enc(len(e.body)) + "\n")
		db.WriteString(e.body + "\n")
	}
	l, err := ReadDictd(name, strings.NewReader(ib.String()), strings.NewReader(db.String()))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A count is written in the genitive plural, whose fleeting vowel the dictionary's nominative
// lacks: «12 ошибок» translates as «ошибка», «1 100 коек» as «койка»; a key the dictionary knows
// is never replaced.
func TestTranslateGenitivePlural(t *testing.T) {
	var index, dict strings.Builder
	for _, e := range []struct{ head, body string }{
		{"mistake", "mistake\n   _n. ошибка"},
		{"bunk", "bunk\n   _n. койка"},
		{"fool", "fool\n   _n. дурак"},
	} {
		index.WriteString(e.head + "\t" + enc(dict.Len()) + "\t" + enc(len(e.body)) + "\n")
		dict.WriteString(e.body + "\n")
	}
	l, err := ReadDictd("mini", strings.NewReader(index.String()), strings.NewReader(dict.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ word, want string }{
		{"ошибок", "mistak"}, // «12 ошибок»
		{"ошибки", "mistak"}, // Snowball's key is the nominative's already
		{"коек", "bunk"},     // «1 100 коек»: e after a vowel is «й»
		{"дураков", "fol"},   // no fleeting vowel (keys write "oo" as "o")
		{"досок", ""},        // not in the dictionary in any form
	} {
		got := ""
		if tr := l.Translate(tc.word); len(tr) > 0 {
			got = tr[0]
		}
		if got != tc.want {
			t.Errorf("Translate(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	// A text's keys hold the dictionary's form too, so a translation of "bunks" finds «коек».
	if keys := l.TextKeys("В больнице 1 100 коек."); !keys["koek"] || !keys["koik"] {
		t.Errorf("TextKeys = %v, want koek and koik", keys)
	}
	for _, tc := range []struct{ key, want string }{
		{"oshibok", "oshibk"}, // «ошибок» / «ошибка»
		{"lozhek", "lozhk"},   // «ложек» / «ложка»
		{"koek", "koik"},      // «коек» / «койка»: e after a vowel is «й»
		{"chaek", "chaik"},    // «чаек» / «чайка»
		{"okon", ""},          // «окон»: three letters would remain
		{"polk", ""},          // no vowel before the last consonant
		{"okna", ""},          // ends in a vowel
	} {
		if got := fleetingKey(tc.key); got != tc.want {
			t.Errorf("fleetingKey(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
