package agent

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Term coverage shared by the extractive generators (TermExtractive scores with it alone; the
// evidence model of Extractive uses it as features).

// questionTerms are a question's search terms (textnorm.SearchTerms, each once, sorted) and, when
// a bilingual lexicon is given, the match keys of each term's translations into the other language
// (lexicon.Key), so that a sentence in the other language states the term when it has one of them:
// dictionary-based query translation (Pirkola 1998's structured queries: a term and its
// translations count as one term).
//
// With a lexicon, a term also counts as stated by a word of the other script with the same
// cognate skeleton (textnorm.CognateForm: «офис» and "office", «менеджер» and "manager"): the
// loanwords a dictionary lacks.
//
// With linked entities (withLinked), the terms of the words that name an entity count as stated
// by a text that names the same entity by any of its names or spellings the caller may see —
// «КамБерега» by "Kamsky Bereg Bank" — found by the resolver's matcher that linked it: the
// knowledge base's own bilingual aliases, where a dictionary knows no names.
//
// A hyphenated compound of words counts as its words only («аккаунт-менеджер» as «аккаунт» and
// «менеджер»): SearchTerms' joined term for it would count the words twice and be stated only by
// a text that hyphenates them alike, not by "account manager" or «аккаунт-менеджером». Codes with
// a digit (INC-845) keep it.
type questionTerms struct {
	terms []string
	tr    map[string][]string // term → translations' match keys; empty without a lexicon
	cog   map[string]cognate  // term → its cognate skeleton and script; empty without a lexicon
	ents  []entityTerms       // linked entities with the terms of their words in the question
	lex   *lexicon.Lexicon    // for the text's words translated back (stated); nil without a lexicon
	ru    map[string]bool     // terms of Russian (Cyrillic) question words: derivationOf applies to them
	syn   map[string][]string // term of a Russian word → its synonyms' match keys (Lexicon.SynonymsOf the word as written)
	acr   map[string]string   // term → the lower-case letters of the acronym it is ("ceo" for CEO; see acronymLetters)
	scope textScope           // whose cached text analyses stated reads and fills (newQuestionTerms)
	// memo, when set (memoized), keeps what stated found for each text, for every term of the
	// questionTerms memoized was called on; its subsets (only) share it. Not safe for
	// concurrent use.
	memo *statedMemo
}

// statedMemo is stated's cache: full is the questionTerms it was made for (without a memo),
// byText what full.stated returned for each text.
type statedMemo struct {
	full   questionTerms
	byText map[string]map[string]bool
}

// memoized returns q with a memo: stated then computes each text once for q's terms, and for a
// subset of them (only) reads the same result — a term's being stated does not depend on the
// other terms. For one goroutine's many calls over the same texts (planChain scores dozens of
// paths through the same sentences and pages).
func (q questionTerms) memoized() questionTerms {
	full := q
	full.memo = nil
	q.memo = &statedMemo{full: full, byText: map[string]map[string]bool{}}
	return q
}

// entityTerms is a linked entity: the question terms of the words that name it, and the matcher
// that finds it.
type entityTerms struct {
	key   string
	terms []string
	names *resolution.Matcher
}

// withLinked returns q with the linked entities whose names its stated also recognises; entities
// without a matcher or whose words give no question term are left out.
func (q questionTerms) withLinked(linked []Linked) questionTerms {
	q.ents = nil
	for _, l := range linked {
		if l.names == nil {
			continue
		}
		var ts []string
		for _, t := range textnorm.SearchTerms(l.Surface) {
			if slices.Contains(q.terms, t) && !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
		if len(ts) > 0 {
			q.ents = append(q.ents, entityTerms{key: l.Key, terms: ts, names: l.names})
		}
	}
	return q
}

// codeSpans returns the byte ranges of the question's codes: whitespace-delimited fields (less
// the punctuation around them) of letters and digits joined by '-', '_', '.' or '/' with a digit
// in them (INC-2207, CTR-2024-117, v1.2.3). Their words are parts of a name, not dictionary words.
func codeSpans(question string) [][2]int {
	var out [][2]int
	for _, loc := range fieldRE.FindAllStringIndex(question, -1) {
		f := question[loc[0]:loc[1]]
		start := strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
		end := strings.LastIndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
		if start < 0 {
			continue
		}
		_, size := utf8.DecodeRuneInString(f[end:])
		core := f[start : end+size]
		if strings.ContainsAny(core, "-_./") && strings.IndexFunc(core, unicode.IsDigit) >= 0 && strings.IndexFunc(core, unicode.IsLetter) >= 0 {
			out = append(out, [2]int{loc[0] + start, loc[0] + end + size})
		}
	}
	return out
}

// fieldRE is a run of characters other than white space.
var fieldRE = regexp.MustCompile(`\S+`)

// cognate is a question term's cognate skeleton and whether it comes from a Cyrillic word.
type cognate struct {
	form     string
	cyrillic bool
}

// newQuestionTerms analyzes a question for a caller whose analyses scope keeps (callerScope: the
// texts stated reads are cached for that caller's groups only; the zero scope caches none); lex
// may be nil (no translations). One question is analyzed by several stages (the retrieval step,
// the evidence ranker, the chain planner, the generator: 0.1–0.2 ms each with the dictionary,
// BenchmarkQuestionTerms), so recent analyses are kept by question, lexicon and scope; a
// questionTerms is never changed once built (its methods return modified copies).
func newQuestionTerms(question string, lex *lexicon.Lexicon, scope textScope) questionTerms {
	k := questionKey{question, lex, scope}
	if scope != "" {
		if q, ok := questionTermsCache.Get(k); ok {
			return q
		}
	}
	q := analyzeQuestion(question, lex)
	q.scope = scope
	if scope != "" {
		questionTermsCache.Add(k, q)
	}
	return q
}

// questionKey keys questionTermsCache.
type questionKey struct {
	question string
	lex      *lexicon.Lexicon
	scope    textScope
}

// questionTermsCache holds the analyses of the last questionCacheSize questions; safe for
// concurrent use.
var questionTermsCache, _ = lru.New[questionKey, questionTerms](questionCacheSize)

const questionCacheSize = 256

// analyzeQuestion is newQuestionTerms without the cache.
func analyzeQuestion(question string, lex *lexicon.Lexicon) questionTerms {
	q := questionTerms{terms: dedupeStrings(textnorm.SearchTerms(question)), ru: map[string]bool{}, acr: map[string]string{}}
	for t := range compoundTerms(question, q.terms) { // a compound of words counts as its words
		q.terms = slices.DeleteFunc(q.terms, func(u string) bool { return u == t })
	}
	q.terms = slices.DeleteFunc(q.terms, func(u string) bool { return namingTerms[u] || frameTerms[u] })
	if lex != nil {
		q.tr, q.cog, q.lex = map[string][]string{}, map[string]cognate{}, lex
	}
	codes := codeSpans(question)
	for _, w := range textnorm.Words(question) {
		ts := textnorm.SearchTerms(w.Text)
		if len(ts) == 0 {
			continue
		}
		t := ts[len(ts)-1]
		if hasCyrillic(w.Text) {
			q.ru[t] = true
			if lex != nil {
				for _, k := range lex.SynonymsOf(w.Text) {
					if q.syn == nil {
						q.syn = map[string][]string{}
					}
					if !slices.Contains(q.syn[t], k) {
						q.syn[t] = append(q.syn[t], k)
					}
				}
			}
		}
		inCode := slices.ContainsFunc(codes, func(c [2]int) bool { return w.Start >= c[0] && w.End <= c[1] })
		if a := acronymLetters(w.Text); a != "" && !inCode {
			q.acr[t] = a
		}
		if lex == nil || inCode {
			continue // a code's letters are no word: "INC" of INC-2207 is not "ink", whose translations match "Mets"
		}
		q.cog[t] = cognate{form: textnorm.CognateForm(t), cyrillic: hasCyrillic(w.Text)}
		for _, k := range lex.Translate(w.Text) {
			if !slices.Contains(q.tr[t], k) {
				q.tr[t] = append(q.tr[t], k)
			}
		}
	}
	return q
}

// namingTerms are the terms of the words by which a question asks for a name («Как называется…»,
// «Назовите…», «Как назвали…», "What is … called?" — terms are phonetic Latin: "called" is
// "kaled"): the answer states the name, rarely the verb.
var namingTerms = map[string]bool{"naziva": true, "nazva": true, "nazov": true, "kaled": true}

// frameTerms are the terms of the verbs that frame a question about an event or a place without
// saying anything the answer states: "When did INC-2057 happen?" is answered by «On 2025-04-02
// INC-2057 stopped the pipeline», «Где находится Бореал Агро?» by «агрохолдинг из Тамбова»
// (outside tester: both refused for the missing verb). «случиться» gives "sluch", apart from
// «случай» ("slucha"), a noun with a meaning, which stays a term.
var frameTerms = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`happen happened happens happening occur occurs occurred occurring located situated
		headquartered произошёл произошла произошло произошли произойдёт случился случилась случилось случились
		находится находятся находился находилась находились расположен расположена расположено расположены
		базируется базируются`) {
		for _, t := range textnorm.SearchTerms(w) {
			m[t] = true
		}
	}
	return m
}()

// compoundTerms returns the joined terms among terms of the question's hyphenated compounds of
// two or more words («аккаунт-менеджер» gives "akauntmenedzher" besides "akaunt" and "menedzher";
// textnorm.SearchTerms). Compounds with a digit are codes (INC-845, PRJ-0287), whose parts stated
// apart are not the code, and are left out.
func compoundTerms(question string, terms []string) map[string]bool {
	words := textnorm.Words(question)
	out := map[string]bool{}
	for _, t := range terms {
		if strings.ContainsFunc(t, unicode.IsDigit) {
			continue
		}
		for i := range words {
			var joined strings.Builder
			parts := 0 // words that give a term
			for j := i; j < len(words) && joined.Len() < len(t); j++ {
				if j > i && question[words[j-1].End:words[j].Start] != "-" {
					break // not one hyphenated compound
				}
				joined.WriteString(textnorm.Latin(words[j].Text))
				if len(textnorm.SearchTerms(words[j].Text)) > 0 {
					parts++
				}
				if j > i && parts > 1 && joined.String() == t {
					out[t] = true
				}
			}
		}
	}
	return out
}

// only returns the same question terms restricted to keep.
func (q questionTerms) only(keep func(string) bool) questionTerms {
	out := questionTerms{tr: q.tr, cog: q.cog, ents: q.ents, lex: q.lex, ru: q.ru, acr: q.acr, memo: q.memo}
	for _, t := range q.terms {
		if keep(t) {
			out.terms = append(out.terms, t)
		}
	}
	return out
}

// stated returns the question terms text states: among its own search terms, as the same word
// with another ending (inflectionOf: «Светловой» and "Svetlova", "manager" and "managers"), for a
// Russian question word as a word of the same root with another suffix (derivationOf:
// «классифицирует» and «классификация»), or
// (lexicon) as a translation among its words' match keys.
func (q questionTerms) stated(text string) map[string]bool {
	if q.memo != nil {
		all, ok := q.memo.byText[text]
		if !ok {
			all = q.memo.full.stated(text)
			q.memo.byText[text] = all
		}
		out := map[string]bool{}
		for _, t := range q.terms {
			if all[t] {
				out[t] = true
			}
		}
		return out
	}
	f := factsOf(q.scope, text, q.lex)
	st := f.search()
	terms, have := st.terms, st.have
	out := map[string]bool{}
	for _, t := range q.terms {
		if have[t] || slices.ContainsFunc(terms, func(u string) bool { return inflectionOf(t, u) }) {
			out[t] = true
			continue
		}
		if q.ru[t] && slices.ContainsFunc(terms, func(u string) bool { return derivationOf(t, u) }) {
			out[t] = true
			continue
		}
		if !q.ru[t] && slices.ContainsFunc(terms, func(u string) bool { return irregularFormOf(t, u) }) {
			out[t] = true
			continue
		}
		if q.ru[t] && slices.ContainsFunc(q.syn[t], func(u string) bool { return have[u] }) {
			out[t] = true
			continue
		}
		if tr := q.tr[t]; len(tr) > 0 {
			keys := f.keys()
			if slices.ContainsFunc(tr, func(k string) bool { return keys[k] || keys[agentVerb(k)] }) {
				out[t] = true
				continue
			}
		}
		if c, ok := q.cog[t]; ok {
			other := scriptIndex(!c.cyrillic)
			if slices.ContainsFunc(f.cogs[other](), func(u string) bool { return textnorm.CognateMatch(c.form, u) }) {
				out[t] = true
				continue
			}
			// The dictionary read the other way: a word of the text whose translation is the
			// term («отделений» is none of "branches"' translations' keys in the Russian →
			// English direction, but «отделение» is one of "branches"' own).
			if slices.ContainsFunc(f.back[other](), func(k string) bool { return k == t || inflectionOf(t, k) }) {
				out[t] = true
			}
		}
	}
	for t, a := range q.acr {
		if !out[t] && slices.Contains(q.terms, t) && spellsAcronym(text, a) {
			out[t] = true
		}
	}
	q.statedEntities(text, out)
	return out
}

// acronymLetters returns the lower-case letters of a word that is an acronym — three to six
// letters, all capitals ("CEO", "NDA", «ООО») — else "". Two letters ("HR", "IT") would take
// any two words with those initials.
func acronymLetters(w string) string {
	n := 0
	for _, r := range w {
		if !unicode.IsUpper(r) {
			return ""
		}
		n++
	}
	if n < 3 || n > 6 {
		return ""
	}
	return strings.ToLower(w)
}

// spellsAcronym reports whether text has consecutive words whose initials spell the acronym's
// letters: a text that writes "chief executive officer" states the question's CEO, "the
// non-disclosure agreement" its NDA (same script; an acronym's expansion in the other language
// is the dictionary's business). Each word of the expansion has three letters or more, so
// function words do not spell one ("a", "of").
func spellsAcronym(text, letters string) bool {
	want := []rune(letters)
	words := textnorm.Words(text)
	for i := 0; i+len(want) <= len(words); i++ {
		ok := true
		for j, r := range want {
			w := []rune(strings.ToLower(words[i+j].Text))
			if len(w) < 3 || w[0] != r {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// statedEntities adds to out the terms of the linked entities text names (withLinked).
func (q questionTerms) statedEntities(text string, out map[string]bool) {
	if len(q.ents) == 0 {
		return
	}
	todo := false
	for _, e := range q.ents {
		for _, t := range e.terms {
			if !out[t] && slices.Contains(q.terms, t) {
				todo = true
			}
		}
	}
	if !todo {
		return
	}
	found := map[*resolution.Matcher]map[string]bool{} // entity keys each matcher finds in text
	for _, e := range q.ents {
		keys, ok := found[e.names]
		if !ok {
			keys = map[string]bool{}
			for _, m := range e.names.Find(text) {
				for _, k := range m.Keys {
					keys[k] = true
				}
			}
			found[e.names] = keys
		}
		if !keys[e.key] {
			continue
		}
		for _, t := range e.terms {
			if slices.Contains(q.terms, t) {
				out[t] = true
			}
		}
	}
}

// backTranslations is how many of a word's translations backKeys takes (the dictionary lists the
// usual ones first; the tail holds rare senses and idioms).
var backTranslations = 8

// backKeys returns the match keys of the translations of text's words in one script (cyrillic or
// not), never nil.
func backKeys(lex *lexicon.Lexicon, text string, cyrillic bool) []string {
	out := []string{}
	if lex == nil {
		return out
	}
	for _, w := range textnorm.Words(text) {
		if hasCyrillic(w.Text) != cyrillic {
			continue
		}
		tr := lex.Translate(w.Text)
		out = append(out, tr[:min(len(tr), backTranslations)]...)
	}
	return out
}

// textCognates returns the cognate skeletons of the words of text in one script (cyrillic or
// not), never nil; only those words are analyzed, as only they can be cognates of a term from the
// other script.
func textCognates(text string, cyrillic bool) []string {
	out := []string{}
	for _, w := range textnorm.Words(text) {
		if hasCyrillic(w.Text) != cyrillic {
			continue
		}
		if ts := textnorm.SearchTerms(w.Text); len(ts) > 0 {
			out = append(out, textnorm.CognateForm(ts[len(ts)-1]))
		}
	}
	return out
}

// agentVerb returns the verb of an English agent noun's match key ("leader" → "lead", "owner" →
// "own"): the key without its final "er", for keys of 5 letters or more; "" for any other key. A
// translation that is an agent noun is then stated by its verb («руководитель» by "the team
// lead", "leads").
func agentVerb(key string) string {
	if len(key) < 5 || !strings.HasSuffix(key, "er") {
		return ""
	}
	return key[:len(key)-2]
}

// inflectionOf reports whether two search terms are one word with different endings: one is a
// prefix of the other, the shorter has at least 5 letters and the longer adds at most 2. Russian
// terms are stems and English ones are not (textnorm.SearchTerms), so a name in Latin letters
// ("svetlova") meets its Russian stem ("svetlov"), and an English plural its singular.
//
// A Russian stem whose last syllable has a fleeting vowel («суперкубок», «блокировок»,
// «владелец») matches the forms that drop it («суперкубка», «блокировки», «владельца»): the term
// without that vowel (fleeting) is compared the same way. So is a verb stem with a consonant
// alternation at its end undone («подтверждать» → «подтвердать», alternants), which meets the
// other aspect («подтвердить»).
func inflectionOf(a, b string) bool {
	if prefixInflection(a, b) {
		return true
	}
	// Neither rule below changes a term's first letter: most pairs end here, without building
	// the variants (stated calls this for every question term and word of every unit).
	if a == "" || b == "" || a[0] != b[0] {
		return false
	}
	if f, ok := fleeting(a); ok && (f == b || prefixInflection(f, b)) {
		return true
	}
	if f, ok := fleeting(b); ok && (f == a || prefixInflection(a, f)) {
		return true
	}
	for _, v := range alternants(a) {
		if v == b || prefixInflection(v, b) {
			return true
		}
	}
	for _, v := range alternants(b) {
		if v == a || prefixInflection(a, v) {
			return true
		}
	}
	return false
}

// stemAlternations are the consonant alternations of Russian verb stems between aspects and in
// participles, in Latin transliteration (the form with the alternation → the plain stem):
// подтверждать / подтвердить, освещать / осветить, отвечать / ответить, выражать / выразить,
// брошен / бросить, установлен / установить.
var stemAlternations = [][2]string{
	{"zhd", "d"}, {"shch", "t"}, {"shch", "st"}, {"ch", "t"}, {"ch", "k"}, {"zh", "z"}, {"zh", "g"},
	{"zh", "d"}, {"sh", "s"}, {"sh", "kh"}, {"vl", "v"}, {"pl", "p"}, {"bl", "b"}, {"ml", "m"}, {"fl", "f"},
}

// alternants returns t with one consonant alternation of its last syllable undone
// (stemAlternations): the alternating consonants followed by nothing, a vowel, or a participle's
// "en"/"enn" (and a vowel) — "podtverzhda" → "podtverda", "ustanovlen" → "ustanoven".
func alternants(t string) []string {
	var out []string
	for _, alt := range stemAlternations {
		i := strings.LastIndex(t, alt[0])
		if i < 1 {
			continue
		}
		rest := t[i+len(alt[0]):]
		ending := strings.TrimPrefix(strings.TrimPrefix(rest, "enn"), "en")
		if strings.TrimRight(ending, "aeiouy") == "" && len(rest) <= 4 {
			out = append(out, t[:i]+alt[1]+rest)
		}
	}
	return out
}

// derivationOf reports whether two terms (Latin forms of Snowball stems) are words of one root
// with different derivational suffixes — a noun and its verb or adjective, which Snowball stems
// apart: «классифицирует» / «классификация» (klasifitsir / klasifikats), «маршрутизация» /
// «маршрутизируются», «преступность» / «преступление», «афроамериканцы» / «афроамериканский».
// They must share their first seven letters, and those must be at least 0.6 of the shorter term,
// so «спутник» / «спутница» (six) do not match. Both bounds were set before measuring, not fitted.
// stated applies it to terms of Russian question words only: English words are not stemmed, and
// seven shared letters join unrelated ones ("university" / "universe", "community" /
// "communication").
func derivationOf(a, b string) bool {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 7 && float64(n) >= 0.6*float64(min(len(a), len(b)))
}

func prefixInflection(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 5 && len(b)-len(a) <= 2 && len(b) > len(a) && strings.HasPrefix(b, a)
}

// fleeting returns the term without the fleeting vowel of its last syllable — an o or e between
// a consonant and a final one or two consonants (Latin transliteration of a Russian stem:
// "superkubok" → "superkubk", "vladelets" → "vladelts") — when at least five letters remain.
func fleeting(t string) (string, bool) {
	consonant := func(c byte) bool { return c >= 'a' && c <= 'z' && !strings.ContainsRune("aeiouy", rune(c)) }
	n := len(t)
	for k := 1; k <= 2; k++ {
		i := n - k - 1 // the vowel's index
		if i < 1 || n-1 < 5 {
			return "", false
		}
		tail := t[i+1:]
		ok := true
		for j := 0; j < len(tail); j++ {
			ok = ok && consonant(tail[j])
		}
		if ok && (t[i] == 'o' || t[i] == 'e') && consonant(t[i-1]) {
			return t[:i] + tail, true
		}
	}
	return "", false
}

// termIDF returns the IDF of each question term over the fragments, log(1 + (N+1)/(df+1)) with N
// fragments and df of them stating the term (in text, title or section, in either language with a
// lexicon), and the sum over the terms (0 when there are none).
func termIDF(q questionTerms, frags []Fragment) (map[string]float64, float64) {
	idf := map[string]float64{}
	var total float64
	if len(q.terms) == 0 {
		return idf, 0
	}
	df := map[string]int{}
	for _, f := range frags {
		for t := range q.stated(f.Chunk.ContextText()) {
			df[t]++
		}
	}
	for _, t := range q.terms {
		idf[t] = idfOf(len(frags), df[t])
		total += idf[t]
	}
	return idf, total
}

// idfOf is termIDF's weight of a term df of n fragments state; idfOf(n, 0), its largest, marks a
// term no fragment states.
func idfOf(n, df int) float64 {
	return math.Log(1 + float64(n+1)/float64(df+1))
}

// contextTerms returns the question terms a fragment's title or section states.
func contextTerms(q questionTerms, f Fragment) map[string]bool {
	return q.stated(f.Chunk.Title + " " + f.Chunk.HeadingPath())
}

// unitContext returns the context terms of one unit of f: those of its fragment (ctxTerms,
// contextTerms) and, for a table row, those its table's header states (headers: tableHeaders of
// the fragment's text). The second result is false for a header row itself, which is no claim.
func unitContext(q questionTerms, ctxTerms map[string]bool, headers map[string]string, unit string) (map[string]bool, bool) {
	h, ok := headers[unit]
	if !ok {
		return ctxTerms, true
	}
	if h == unit {
		return nil, false
	}
	out := maps.Clone(ctxTerms)
	if out == nil {
		out = map[string]bool{}
	}
	for t := range q.stated(h) {
		out[t] = true
	}
	return out, true
}

// termCover returns which question terms a unit covers — 1 when the unit states the term, 0.5
// when only its chunk's title or section (ctxTerms) does — and the IDF-weighted share they make of
// total, in [0, 1] (summed in term order, so the float result does not depend on map order).
func termCover(q questionTerms, unit string, ctxTerms map[string]bool, idf map[string]float64, total float64) (map[string]float64, float64) {
	ut := q.stated(unit)
	covered := map[string]float64{}
	for _, t := range q.terms {
		switch {
		case ut[t]:
			covered[t] = 1
		case ctxTerms[t]:
			covered[t] = 0.5
		}
	}
	var cov float64
	for _, t := range sortedKeys(covered) {
		cov += covered[t] * idf[t]
	}
	if total > 0 {
		cov /= total
	}
	return covered, cov
}

// quoted is a unit chosen as a claim: its text quoted verbatim from its fragment.
type quoted struct {
	frag Fragment
	text string
}

// quoteClaims encodes chosen units as an answer in the contract (ParseOutput): one claim per unit,
// citing the unit itself as its quote.
func quoteClaims(chosen []quoted) (string, error) {
	type claim struct {
		Text      string           `json:"text"`
		Citations []OutputCitation `json:"citations"`
	}
	claims := make([]claim, 0, len(chosen))
	for _, u := range chosen {
		claims = append(claims, claim{Text: u.text, Citations: []OutputCitation{{Fragment: u.frag.N, ChunkID: u.frag.Chunk.ID, Quote: u.text}}})
	}
	raw, err := json.Marshal(map[string]any{"status": "answer", "claims": claims})
	if err != nil {
		return "", fmt.Errorf("extractive: %w", err)
	}
	return string(raw), nil
}
