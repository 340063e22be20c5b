package textnorm

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  Ёлка  и\tЕЛЬ\n", "елка и ель"},
		{"«Западный ветер» — “quoted” „низ“", `"западный ветер" - "quoted" "низ"`},
		{"it’s `code`", "it's 'code'"},
		{"ﬁle Ｆｕｌｌ", "file full"}, // NFKC: ligature and full-width letters
		{"soft\u00adhyphen zero\u200bwidth", "softhyphen zerowidth"},
		{"0무ﾮ", "0무ㄾ"},   // a halfwidth jamo is widened, not composed into the syllable (뭁)
		{"ㄱㅏ ㉮", "ㄱㅏ ㉮"}, // compatibility and circled jamo stay themselves
	}
	for _, tc := range tests {
		if got := FoldString(tc.in); got != tc.want {
			t.Errorf("FoldString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIndexMapsBackToOriginalOffsets(t *testing.T) {
	tests := []struct {
		hay, needle string
		want        string // the original substring the offsets must cover
		ok          bool
	}{
		{"Отпуск — 28  календарных\nдней.", "отпуск - 28 календарных дней", "Отпуск — 28  календарных\nдней", true},
		{"Клиент «Западного ветра» с 2021", `"западного ветра"`, "«Западного ветра»", true},
		{"Версия Ёжик 2", "ежик", "Ёжик", true},
		{"нет такого", "другое", "", false},
		{"emoji 🚀 launch", "🚀 launch", "🚀 launch", true},
		{"0무ﾮ", "무", "무", true}, // found by FuzzIndex: NFKC had composed 무 and ﾮ into one syllable
	}
	for _, tc := range tests {
		s, e, ok := Index(tc.hay, tc.needle)
		if ok != tc.ok {
			t.Fatalf("Index(%q, %q) ok=%v, want %v", tc.hay, tc.needle, ok, tc.ok)
		}
		if ok && tc.hay[s:e] != tc.want {
			t.Errorf("Index(%q, %q) covers %q, want %q", tc.hay, tc.needle, tc.hay[s:e], tc.want)
		}
	}
}

func TestLatinCollidesSpellingVariants(t *testing.T) {
	groups := [][]string{
		{"Дмитрий", "Dmitry", "Dmitrii", "Dmitriy"},
		{"Наталья", "Natalya", "Natalia"},
		{"Хайруллин", "Khairullin"},
		{"Максим", "Maxim"},
		{"Воробьёва", "Vorobyeva"},
		{"Королёва", "Koroleva", "КОРОЛЕВА"},
		{"Логистик", "Logistic", "logistik"},
		{"впн", "VPN"},
		{"Горводоканал", "GorVodoKanal"},
		{"Западный", "Zapadny"},
		{"Юлия", "Yulia", "Julia"},
	}
	for _, g := range groups {
		want := Latin(g[0])
		for _, w := range g[1:] {
			if got := Latin(w); got != want {
				t.Errorf("Latin(%q) = %q, want %q (= Latin(%q))", w, got, want, g[0])
			}
		}
	}
}

func TestKeyAndCompactKey(t *testing.T) {
	tests := []struct {
		names   []string
		compact bool
	}{
		{[]string{"ООО «Омега-Логистик»", "Omega Logistic LLC", "омега логистик", "Омега Логистик"}, false},
		{[]string{"ООО «ЭкоЛиния»", "EkoLinia", "Эко-Линия"}, true},
		{[]string{"АО «Банк Донской Причал»", "Bank Donskoy Prichal JSC"}, false},
		{[]string{"Zapadny Veter", "Западный ветер", "ООО «Западный ветер»"}, false},
	}
	for _, tc := range tests {
		key := Key
		if tc.compact {
			key = CompactKey
		}
		want := key(tc.names[0])
		for _, n := range tc.names[1:] {
			if got := key(n); got != want {
				t.Errorf("key(%q) = %q, want %q (= key(%q))", n, got, want, tc.names[0])
			}
		}
	}
	if got := KeyTokens("INC-7702"); !slices.Equal(got, []string{"ink", "7702"}) {
		t.Errorf("a legal form joined into a code is part of it: KeyTokens(INC-7702) = %v", got)
	}
	if got := KeyTokens("ООО"); !slices.Equal(got, []string{"o"}) { // "ooo" with the run collapsed
		t.Errorf("a lone legal form is kept as the name: got %v", got)
	}
}

func TestInflectedOnly(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"redis", "redis", true},
		{"redis", "redisa", true},   // «редиса»
		{"redis", "redisom", true},  // «редисом»
		{"tver", "tveri", true},     // «Твери»
		{"tver", "tverdi", false},   // «твёрдый»: tver + di
		{"redis", "rediska", false}, // «редиска», a radish
		{"donskoi", "donskogo", true},
		{"tver", "moskva", false},
	} {
		if got := InflectedOnly(tc.a, tc.b); got != tc.want {
			t.Errorf("InflectedOnly(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestTokenMatch(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"donskoi", "donskogo", true},   // Донской ~ Донского
		{"bereg", "berega", true},       // Берег ~ Берега
		{"ekolinia", "ekolini", true},   // ЭкоЛиния ~ ЭкоЛинии
		{"maks", "maksim", true},        // Max ~ Maxim
		{"teploset", "teploseti", true}, // теплосеть ~ теплосети
		{"kb", "kb", true},
		{"kb", "kbb", false}, // short words must be equal
		{"data", "dan", false},
		{"platforma", "platformennaia", false}, // a different word, not an ending
		{"veter", "vetra", true},               // fleeting vowel: ветер ~ ветра
		{"ogon", "ogni", true},                 // огонь ~ огни
		{"sever", "svet", false},
		{"sokolov", "sokolova", true},
		{"kafka", "kafki", true},       // Kafka ~ Кафки: both endings are inflections
		{"keikloak", "keiklok", true},  // a spelling variant: a long stem, one letter apart
		{"keikloak", "keikloke", true}, // «в кейклоке»: the variant, inflected
		{"keikloke", "keikloak", true},
		{"valenti", "valenoso", false}, // a stem of 6 (valent) is not the other name
		{"valenti", "valens", false},   // the tails (ti, s) are not endings
		{"valenti", "valenus", false},
		{"taroko", "tarkoni", false},  // its o is not a fleeting vowel (a vowel follows)
		{"mobile", "mobilnoi", false}, // an English word against a Russian adjective's ending
	}
	for _, tc := range tests {
		if got := TokenMatch(tc.a, tc.b); got != tc.want {
			t.Errorf("TokenMatch(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestAcronym(t *testing.T) {
	tests := []struct{ name, acronym string }{
		{"Сосновский машиностроительный завод", "СМЗ"},
		{"Sosnovsky Machine Works", "SMW"},
		{"АО «Сосновский машиностроительный завод»", "СМЗ"},
	}
	for _, tc := range tests {
		if got, want := Acronym(tc.name), Latin(tc.acronym); got != want {
			t.Errorf("Acronym(%q) = %q, want %q", tc.name, got, want)
		}
	}
	if got := Acronym("Redis"); got != "" {
		t.Errorf("Acronym of one word = %q, want empty", got)
	}
}

func TestWords(t *testing.T) {
	toks := Words("А. Морозова, SMW и «Омега-TMS» v2.4")
	var got []string
	for _, tk := range toks {
		got = append(got, tk.Text)
	}
	want := []string{"А", "Морозова", "SMW", "и", "Омега", "TMS", "v2", "4"}
	if !slices.Equal(got, want) {
		t.Fatalf("Words = %v, want %v", got, want)
	}
	if !toks[0].Upper || !toks[2].AllUpper || toks[3].Upper || toks[1].AllUpper {
		t.Errorf("case flags wrong: %+v", toks[:4])
	}
}

func TestSearchTerms(t *testing.T) {
	tests := []struct {
		a, b string // must share every term of a
	}{
		{"отпуска", "отпуск"},
		{"впн", "VPN"},
		{"в редисе", "Redis"},
		{"договор DOG-2031-042", "Договора DOG-2031-042"},
	}
	for _, tc := range tests {
		ta, tb := SearchTerms(tc.a), SearchTerms(tc.b)
		for _, x := range ta {
			if !slices.Contains(tb, x) {
				t.Errorf("SearchTerms(%q) = %v does not cover %q from SearchTerms(%q) = %v", tc.b, tb, x, tc.a, ta)
			}
		}
	}
	if got := SearchTerms("DOG-2031-042"); !slices.Equal(got, []string{"dog2031042", "dog", "2031", "042"}) {
		t.Errorf("code terms = %v", got)
	}
	if got := SearchTerms("и в the of"); len(got) != 0 {
		t.Errorf("function words kept: %v", got)
	}
}

// TestSearchTermsPronounForms: every case form of the interrogative, personal, demonstrative and
// determiner pronouns is a function word, as their nominative is ("кто" and "whom" were; "кем"
// and "кому" were content terms that no answer sentence states). Possessives keep their meaning
// in idioms («записал на свой счёт») and stay terms.
func TestSearchTermsPronounForms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Кем работает Томас Пикетти?", []string{"rabota", "tomas", "piket"}},
		{"С кем объединялись норманны?", []string{"obedinia", "norman"}},
		{"Для кого был написан отчёт?", []string{"napisa", "otchet"}},
		{"К чему крепятся статоры?", []string{"krep", "stator"}},
		{"Кто такие Миланович и Стиглиц?", []string{"milanovich", "stiglits"}},
		{"всем этим нами ими собой", nil},
		{"who did it themselves", nil},
		{"записал на свой счёт", []string{"zapisa", "svo", "schet"}},
		{"Назовите одну из причин", []string{"nazov", "prichin"}},
		{"как они сами себя назвали", []string{"nazva"}},
		{"в других странах снова", []string{"stran"}},
		{"самый крупный город, каждый год", []string{"krupn", "gorod", "god"}},
		{"некоторые очень старые", []string{"star"}},
		{"встреча с другом", []string{"vstrech", "drug"}},
		{"Что показывают нам потерянные хлоропласты? К нему оно шло.", []string{"pokaziva", "poteria", "hloroplast", "shlo"}},
		{"the US mine", []string{"us", "mine"}},
		{"What's the company's policy? I don't know, we'll see; they've won", []string{"kompani", "polisi", "knov", "se", "von"}},
		{"Из-за чего сбой? Из-под земли кто-то какой-либо кое-что, всё-таки во-первых", []string{"sbo", "zeml", "vopervih", "perv"}},
		{"svc-ledger ERR-7713", []string{"svkledger", "svk", "ledger", "er7713", "er", "7713"}},
	}
	for _, tc := range tests {
		if got := SearchTerms(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("SearchTerms(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestLatinKeepsOtherScriptsValid(t *testing.T) {
	for _, w := range []string{"第二十四届冬季奥林匹克运动会", "Ελληνικά", "naïve", "Zürich"} {
		got := Latin(w)
		if !utf8.ValidString(got) || got == "" {
			t.Errorf("Latin(%q) = %q, not valid UTF-8", w, got)
		}
	}
	if got := Latin("Zürich"); got != "zurich" { // diacritics dropped, "ch" kept
		t.Errorf("Latin(Zürich) = %q", got)
	}
}

func TestStrictTokenMatch(t *testing.T) {
	tests := []struct {
		alias, text string
		want        bool
	}{
		{"route", "route", true},
		{"route", "routes", true},     // plural
		{"Network", "Networks", true}, // plural
		{"Networks", "Network", true}, // the alias's plural dropped
		{"Class", "Classes", true},    // -es plural
		{"Roman", "Romania", false},   // another word, not a form of it
		{"Roman", "Romantic", false},
		{"Roman", "Romance", false},
		{"Cappy", "Capital", false},
		{"Brazil", "Brazilian", false}, // a demonym is not its country
		{"Baker", "Bakers", true},
		{"Bake", "Baker", false},
		{"Dave", "Davies", false},
		{"Box", "Boxes", true}, // phonetic "boks" has 4 letters
		{"Tom", "Toms", false}, // words shorter than 4 letters must be equal
	}
	for _, tt := range tests {
		a, b := KeyTokens(tt.alias), KeyTokens(tt.text)
		if len(a) != 1 || len(b) != 1 {
			t.Fatalf("%q / %q: want one key token each, got %v / %v", tt.alias, tt.text, a, b)
		}
		if got := StrictTokenMatch(a[0], b[0]); got != tt.want {
			t.Errorf("StrictTokenMatch(%q → %s, %q → %s) = %v, want %v", tt.alias, a[0], tt.text, b[0], got, tt.want)
		}
	}
}
