// Package resolution decides when two surface forms name the same entity, and keeps the registry
// of resolved entities.
//
// Names are compared on their phonetic Latin word forms (package textnorm: NFKC, case folding,
// ё→е, quotes and punctuation dropped, legal forms removed, Cyrillic transliterated), word by
// word up to inflectional endings («Волжского Утёса» ~ «Волжский Утёс»), or as one compact string
// («Тер-Пласт» ~ "TerPlast"). Person names also match by initials («А. Морозова») and common
// short forms of first names («Лена Орлова»). Capitalized names only match capitalized text, and
// nicknames that are ordinary lower-case words only match when quoted, so common words do not
// become entity mentions.
package resolution

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Alias is one surface form under which an entity may appear.
type Alias struct {
	Text       string // the form as written, e.g. «Тер Пласт», "А. Морозова"
	EntityKey  string
	EntityType string
	// QuotedOnly restricts matching to occurrences inside quotes: for nicknames that are ordinary
	// words («эксплуатация»).
	QuotedOnly bool
}

// entry is a compiled Alias.
type entry struct {
	Alias
	tokens      []string // textnorm.KeyTokens
	latin       []bool   // whether each token is written in Latin script
	compact     string   // tokens joined
	upper       bool     // the first word is capitalized
	acronym     bool     // a single all-caps word of at most 4 letters: must match case exactly
	initialOnly bool     // the first token is a single letter (an initial)
	initialLast bool     // the last token is a single letter (an initial after a surname: «Полунин А.»)
	texts       []string // each token's word as the alias writes it (KeyWords)
}

// Matcher finds known entity names in text. Build it with NewMatcher; it is immutable and safe for
// concurrent use.
type Matcher struct {
	byPrefix map[string][]*entry
	seen     map[string]bool
	// firsts memoizes, per text word form, the entries of its prefix bucket whose first word can
	// match it (firstWord). A bucket holds every name sharing three letters — hundreds in a large
	// registry — and Find tried each of them at every word of the text: ingestion of 100 000
	// chunks spent minutes there. Words repeat, so each form's bucket is filtered once.
	firsts sync.Map // string → *firstCandidates
	cached atomic.Int64
}

// maxFirsts bounds the memoized word forms of one matcher (about 100 bytes each).
const maxFirsts = 1 << 20

// Match is one occurrence of a known name in a text.
type Match struct {
	Start, End int      // byte offsets of the surface in the text
	Surface    string   // text[Start:End]
	Keys       []string // entity keys the surface may refer to (more than one: ambiguous)
	Types      []string // entity type of each key
}

func prefixOf(s string) string {
	if len(s) > 3 {
		return s[:3]
	}
	return s
}

// NewMatcher compiles aliases. Aliases without a letter are ignored.
func NewMatcher(aliases []Alias) *Matcher {
	m := &Matcher{byPrefix: map[string][]*entry{}, seen: map[string]bool{}}
	for _, a := range aliases {
		m.add(a)
	}
	return m
}

// add compiles one more alias into m. Only the registry calls it, on a matcher it owns.
func (m *Matcher) add(a Alias) {
	kw := textnorm.KeyWords(a.Text)
	if len(kw) == 0 || !hasLetter(a.Text) {
		return
	}
	toks := make([]string, len(kw))
	latin := make([]bool, len(kw))
	texts := make([]string, len(kw))
	for i, w := range kw {
		toks[i], latin[i], texts[i] = textnorm.Latin(w.Text), !hasCyrillic(w.Text), w.Text
	}
	id := a.EntityKey + "\x00" + strings.Join(toks, " ") + "\x00" + boolKey(a.QuotedOnly)
	words := textnorm.Words(a.Text)
	e := &entry{Alias: a, tokens: toks, latin: latin, compact: strings.Join(toks, ""), texts: texts}
	if len(words) > 0 {
		first := words[0]
		if len(words) > 1 && isLegalFormWord(first.Text) {
			first = words[1]
		}
		e.upper = first.Upper
		e.acronym = len(words) == 1 && first.AllUpper && utf8.RuneCountInString(first.Text) <= 4
		e.initialOnly = len(words) > 1 && utf8.RuneCountInString(first.Text) == 1
		e.initialLast = len(words) > 1 && utf8.RuneCountInString(words[len(words)-1].Text) == 1
		id += "\x00" + boolKey(e.upper) + boolKey(e.acronym)
	}
	if m.seen[id] {
		return
	}
	m.seen[id] = true
	m.firsts.Clear() // a new entry may match words already filtered
	m.cached.Store(0)
	m.byPrefix[prefixOf(toks[0])] = append(m.byPrefix[prefixOf(toks[0])], e)
	if c := prefixOf(e.compact); c != prefixOf(toks[0]) {
		m.byPrefix[c] = append(m.byPrefix[c], e)
	}
}

func boolKey(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func isLegalFormWord(w string) bool { return textnorm.IsLegalForm(w) }

// word is a token of the scanned text with its phonetic form.
type word struct {
	textnorm.Token
	lat string
}

// Find returns the non-overlapping known names in text, leftmost-longest first, in text order.
func (m *Matcher) Find(text string) []Match { return m.FindIf(text, nil) }

// FindIf is Find over the names of the entities keep accepts (nil: all): a shorter name inside a
// longer one that keep rejects is found. Extraction uses it for the names a chunk's readers may
// see inside a name only a restricted page defines («CTR-2025-07» inside «договор CTR-2025-07»).
func (m *Matcher) FindIf(text string, keep func(key string) bool) []Match {
	var words []word
	for _, t := range textnorm.Words(text) {
		if l := textnorm.Latin(t.Text); l != "" {
			words = append(words, word{Token: t, lat: l})
		}
	}
	var out []Match
	for i := 0; i < len(words); {
		best, bestLen := m.longestAt(text, words, i, keep)
		if bestLen == 0 {
			i++
			continue
		}
		last := words[i+bestLen-1]
		match := Match{Start: words[i].Start, End: last.End, Surface: text[words[i].Start:last.End]}
		seenKey := map[string]bool{}
		for _, e := range best {
			if !seenKey[e.EntityKey] {
				seenKey[e.EntityKey] = true
				match.Keys = append(match.Keys, e.EntityKey)
				match.Types = append(match.Types, e.EntityType)
			}
		}
		out = append(out, match)
		i += bestLen
	}
	return out
}

// FindWhole returns the entity keys whose aliases match the whole of name (ignoring legal forms,
// quotes and punctuation), with their types; nil when none does.
func (m *Matcher) FindWhole(name string) Match {
	words := []word{}
	for _, t := range textnorm.Words(name) {
		if l := textnorm.Latin(t.Text); l != "" {
			words = append(words, word{Token: t, lat: l})
		}
	}
	// Drop legal forms around the name, as the aliases' own keys do — not a word hyphenated to
	// its neighbour: the INC of INC-2041 is a code's prefix, not "Inc." (outside tester: the code
	// found in a note before its incident's page stayed an entity of its own).
	for len(words) > 1 && isLegalFormWord(words[0].Text) && name[words[0].End:words[1].Start] != "-" {
		words = words[1:]
	}
	for n := len(words); n > 1 && isLegalFormWord(words[n-1].Text) && name[words[n-2].End:words[n-1].Start] != "-"; n = len(words) {
		words = words[:n-1]
	}
	if len(words) == 0 {
		return Match{}
	}
	var res Match
	seen := map[string]bool{}
	for _, e := range m.candidates(words[0].lat) {
		if n := e.matchAt(name, words, 0, false); n == len(words) && !seen[e.EntityKey] {
			seen[e.EntityKey] = true
			res.Keys = append(res.Keys, e.EntityKey)
			res.Types = append(res.Types, e.EntityType)
		}
	}
	if len(res.Keys) > 0 {
		res.Start, res.End = words[0].Start, words[len(words)-1].End
		res.Surface = name[res.Start:res.End]
	}
	return res
}

func (m *Matcher) candidates(lat string) []*entry {
	out := m.byPrefix[prefixOf(lat)]
	if len(lat) < 3 || len(lat) > 4 {
		return out
	}
	// A short name inflected after a two-letter stem («Анны», «Анной»: an+i, an+oi) is filed
	// under another third letter than its nominative («Анна»: ana); tokenMatch decides
	// (textnorm.ShortNameInflected).
	for _, v := range "aeiouy" {
		if p := lat[:2] + string(v); p != prefixOf(lat) {
			out = append(slices.Clip(out), m.byPrefix[p]...)
		}
	}
	return out
}

// firstWord returns the candidates of w that can match at it — w matches the entry's first token
// (wordMatch's rule for its first word) or begins its compact form (compactMatch's) — filed by
// what the next word must begin with, memoized per word form and script.
func (m *Matcher) firstWord(w word) *firstCandidates {
	key := w.lat
	if hasCyrillic(w.Text) { // tokenMatch's rule depends on the word's script
		key = "\x01" + key
	}
	if v, ok := m.firsts.Load(key); ok {
		return v.(*firstCandidates)
	}
	fc := &firstCandidates{}
	file := func(k string, e *entry) {
		if fc.byNext == nil {
			fc.byNext = map[string][]*entry{}
		}
		fc.byNext[k] = append(fc.byNext[k], e)
	}
	for _, e := range m.candidates(w.lat) {
		first := e.firstTokenMatches(w)
		if first && len(e.tokens) == 1 || e.compact == w.lat && len(e.tokens) > 1 {
			fc.always = append(fc.always, e) // matches at this word alone
			continue
		}
		if first {
			file(prefix2(e.tokens[1]), e)
		}
		if rest, ok := strings.CutPrefix(e.compact, w.lat); ok && rest != "" {
			if !first || prefix2(rest) != prefix2(e.tokens[1]) {
				file(prefix2(rest), e)
			}
			if fc.byNext1 == nil {
				fc.byNext1 = map[string][]*entry{}
			}
			fc.byNext1[rest[:1]] = append(fc.byNext1[rest[:1]], e)
		}
	}
	if m.cached.Load() < maxFirsts {
		if v, loaded := m.firsts.LoadOrStore(key, fc); loaded {
			return v.(*firstCandidates)
		}
		m.cached.Add(1)
	}
	return fc
}

// candidatesAt are the entries worth trying at word i: those that match there alone, and those
// filed under what word i+1 begins with.
func (fc *firstCandidates) candidatesAt(words []word, i int) []*entry {
	if i+1 >= len(words) || fc.byNext == nil {
		return fc.always
	}
	next := words[i+1].lat
	out := append(slices.Clip(fc.always), fc.byNext[prefix2(next)]...)
	if len(next) == 1 {
		out = append(out, fc.byNext1[next]...)
	}
	return out
}

// firstCandidates are the entries that can match at a word. An entry with two or more tokens
// matches word by word only if the next word matches its second token, and every rule of that
// (equal initials, tokenMatch's shared stem of at least two letters) keeps the first two letters;
// it matches compactly (compactMatch) only if the next word is a piece of the rest of its compact
// form, or the rest up to an ending, which again keeps the rest's first two letters — or its
// first letter, when the next word is one letter. So entries are filed under those prefixes
// (byNext; byNext1 for one-letter next words) and only the next word's file is tried. always
// holds the entries that match at the word alone (one token; or the word is the compact form).
// An entry may be filed twice; Find keeps each key once.
type firstCandidates struct {
	always          []*entry
	byNext, byNext1 map[string][]*entry
}

// prefix2 is the first two bytes of a phonetic Latin token (ASCII), or the token if shorter.
func prefix2(t string) string {
	if len(t) > 2 {
		return t[:2]
	}
	return t
}

// firstTokenMatches is wordMatch's rule for the entry's first token against w.
func (e *entry) firstTokenMatches(w word) bool {
	if t := e.tokens[0]; len(t) == 1 || len(w.lat) == 1 {
		return t == w.lat
	}
	ok, _ := e.tokenMatch(0, e.tokens[0], w)
	return ok
}

// longestAt returns the entries that match the longest span starting at word i, and its length
// in words.
func (m *Matcher) longestAt(text string, words []word, i int, keep func(string) bool) ([]*entry, int) {
	var best []*entry
	bestLen := 0
	for _, e := range m.firstWord(words[i]).candidatesAt(words, i) {
		if keep != nil && !keep(e.EntityKey) {
			continue
		}
		n := e.matchAt(text, words, i, true)
		switch {
		case n > bestLen:
			best, bestLen = []*entry{e}, n
		case n == bestLen && n > 0:
			best = append(best, e)
		}
	}
	sort.SliceStable(best, func(a, b int) bool { return best[a].EntityKey < best[b].EntityKey })
	return best, bestLen
}

// matchAt returns how many words starting at i the entry covers (0: no match). inText applies the
// rules for running text: case, adjacency, quotes.
func (e *entry) matchAt(text string, words []word, i int, inText bool) int {
	n := e.wordMatch(words, i)
	if n == 0 {
		n = e.compactMatch(words, i)
	}
	if n == 0 {
		return 0
	}
	if !inText {
		return n
	}
	first := words[i]
	if e.acronym && !first.AllUpper {
		return 0
	}
	// Capitalization matters for one-word names (Redpanda the product, not a common word). It is a
	// convention of the alias's own script: «редис» for Redis is slang, written in lower case —
	// and so are its inflections («редиса», «редисом»), but no other word that merely starts
	// like it (a trial's «твёрдый», hardcover, was a mention of Tver: tver + di).
	if e.upper && len(e.tokens) == 1 && !first.Upper &&
		(!crossScript(e.Text, first.Text) || n != 1 || !textnorm.InflectedOnly(e.tokens[0], first.lat)) {
		return 0
	}
	if inAddress(text, first.Start, words[i+n-1].End) {
		return 0
	}
	if e.initialOnly && (!first.Upper || !followedByDot(text, first.End)) {
		return 0
	}
	if last := words[i+n-1]; e.initialLast && (!last.Upper || !followedByDot(text, last.End)) {
		return 0
	}
	// A one-word name read across scripts is a transliteration, the weakest evidence of a name:
	// inside a hyphenated compound it is a common word's part («дата-центр» is not the Data
	// team, «Альфа-версия» not Alfa). The same name as written («SAP-интеграция») still matches.
	if len(e.tokens) == 1 && n == 1 && crossScript(e.Text, first.Text) && InCompound(text, first.Start, first.End) {
		return 0
	}
	for k := i; k < i+n-1; k++ {
		if !adjacent(text, words[k].End, words[k+1].Start) {
			return 0
		}
	}
	if e.QuotedOnly && !quoted(text, first.Start, words[i+n-1].End) {
		return 0
	}
	if len(e.tokens) == 1 && n == 1 && e.latin[0] && i+1 < len(words) && longerName(text, first, words[i+1]) {
		return 0
	}
	return n
}

// notNamePart are capitalized English words that follow a name without extending it: months and
// weekdays ("Helix Monday"), and the pronoun "I".
var notNamePart = map[string]bool{"January": true, "February": true, "March": true, "April": true, "May": true, "June": true,
	"July": true, "August": true, "September": true, "October": true, "November": true, "December": true, "Monday": true,
	"Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true, "Saturday": true, "Sunday": true, "I": true}

// longerName reports whether a one-word Latin name (w) is the first word of a longer proper name
// in running text: the next word, on the same line and after a space only, is a capitalized
// Latin word that is no legal form, month or weekday ("Helix Offshore Lifting" is not the
// company called "Helix", "Moscow State University" not Moscow: outside tester, stop 60). A
// Markdown heading's words are capitalized anyway ("# Kafka Upgrade Plan"): there it does not
// apply.
func longerName(text string, w, next word) bool {
	if text[w.End:next.Start] != " " || !next.Upper || hasCyrillic(next.Text) || next.AllUpper && len(next.Text) > 1 ||
		isLegalFormWord(next.Text) || notNamePart[next.Text] {
		return false
	}
	line := text[strings.LastIndexByte(text[:w.Start], '\n')+1:]
	return !strings.HasPrefix(strings.TrimLeft(line, " \t"), "#")
}

// wordMatch matches the alias word by word (same number of words).
func (e *entry) wordMatch(words []word, i int) int {
	if i+len(e.tokens) > len(words) {
		return 0
	}
	loose := 0
	for k, t := range e.tokens {
		w := words[i+k]
		if len(t) == 1 || len(w.lat) == 1 { // initials must be equal
			if t != w.lat {
				return 0
			}
			continue
		}
		if humpPrefix(e.texts[k], w.Text) {
			return 0 // «Северо» of «Северо-Западном» is not «СевероВет»
		}
		ok, longer := e.tokenMatch(k, t, w)
		if !ok {
			return 0
		}
		if longer {
			loose++
		}
	}
	if loose == len(e.tokens) {
		return 0 // every word only a longer form: no word of the name is as written
	}
	return len(e.tokens)
}

// compactMatch matches the alias's letters against a different number of words ("TerPlast" ~
// «Тер-Пласт», "Blue Harbor" ~ "BlueHarbor"): every word but the last must be an exact piece;
// the last must equal the rest, or match it up to an ending when the rest lies within the alias's
// last word (so "Ромашка" does not match "romashka lms" as if "lms" were an ending).
func (e *entry) compactMatch(words []word, i int) int {
	lastStart := len(e.compact) - len(e.tokens[len(e.tokens)-1])
	rest, pos := e.compact, 0
	for k := i; k < len(words) && k-i < 6; k++ {
		w := words[k].lat
		n := k - i + 1
		sameShape := n == len(e.tokens) // the word-by-word rule already tried this shape
		if !sameShape && (rest == w || (pos >= lastStart && len(rest) >= 4 && e.lastTokenMatch(rest, words[k]))) {
			return n
		}
		if !strings.HasPrefix(rest, w) || len(rest) <= len(w) {
			return 0
		}
		rest, pos = rest[len(w):], pos+len(w)
	}
	return 0
}

// tokenMatch compares alias token k (or its remainder t) with a text word: anything involving
// Cyrillic by Russian inflection (textnorm.TokenMatch); Latin against Latin by English plural
// endings (textnorm.StrictTokenMatch), so the one-word name "Roman" does not match "Romania" or
// "Romantic". A word of a longer name may also be a longer form ("Max Fedotov" ~ "Maxim
// Fedotov"); longer reports such a match, which wordMatch accepts only when another word of the
// name matches as written.
func (e *entry) tokenMatch(k int, t string, w word) (ok, longer bool) {
	if !e.latin[k] || hasCyrillic(w.Text) {
		// A short name inflected in its last letter («Анны Светловой» for «Анна Светлова») when
		// the name has another word that matches, or is written with a capital.
		// A noun of a three-letter stem inflected («Соляному пути» for «Соляной путь», «азиатского
		// тура» for «Азиатский тур») likewise, in a name of several words.
		return textnorm.TokenMatch(t, w.lat) || w.Upper && len(e.tokens) > 1 && textnorm.ShortNameInflected(t, w.lat) ||
			len(e.tokens) > 1 && t == e.tokens[k] && textnorm.ShortStemInflected(e.texts[k], w.lat), false
	}
	if textnorm.StrictTokenMatch(t, w.lat) {
		return true, false
	}
	if len(e.tokens) > 1 && textnorm.TokenMatch(t, w.lat) {
		return true, true
	}
	return false, false
}

// lastTokenMatch is tokenMatch for the remainder t of the alias's last token.
func (e *entry) lastTokenMatch(t string, w word) bool {
	ok, _ := e.tokenMatch(len(e.tokens)-1, t, w)
	return ok
}

// humpPrefix reports whether word is the part of a CamelCase alias word before one of its inner
// capitals («Северо» of «СевероВет», "North" of "NorthVet"): the rest is another word of the name,
// not an ending, so the word alone names something else.
func humpPrefix(alias, word string) bool {
	a, w := []rune(alias), []rune(word)
	if len(w) == 0 || len(w) >= len(a) || !unicode.IsUpper(a[len(w)]) || unicode.IsUpper(a[len(w)-1]) {
		return false
	}
	return strings.EqualFold(string(a[:len(w)]), word)
}

// adjacent reports whether the gap between two words is at most 3 bytes of spaces, hyphens,
// quotes, dots or slashes (no line break), i.e. the words belong to one name.
func adjacent(text string, end, start int) bool {
	gap := text[end:start]
	if len(gap) > 4 {
		return false
	}
	for _, r := range gap {
		if r == '\n' || !(unicode.IsSpace(r) || strings.ContainsRune("-‐‑–.«»\"“”„'’/", r)) {
			return false
		}
	}
	return true
}

// InCompound reports whether text[start:end] is joined by a hyphen to a letter on either side
// (one part of a hyphenated compound word).
func InCompound(text string, start, end int) bool {
	if r, n := utf8.DecodeLastRuneInString(text[:start]); isHyphen(r) {
		if l, _ := utf8.DecodeLastRuneInString(text[:start-n]); unicode.IsLetter(l) {
			return true
		}
	}
	if r, n := utf8.DecodeRuneInString(text[end:]); isHyphen(r) {
		if l, _ := utf8.DecodeRuneInString(text[end+n:]); unicode.IsLetter(l) {
			return true
		}
	}
	return false
}

func isHyphen(r rune) bool { return r == '-' || r == '‐' || r == '‑' }

// crossScript reports whether an alias in Latin script is being matched against Cyrillic text.
func crossScript(alias, text string) bool {
	return !hasCyrillic(alias) && hasCyrillic(text)
}

func hasCyrillic(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cyrillic, r) {
			return true
		}
	}
	return false
}

// inAddress reports whether text[start:end] is part of an e-mail address or a URL (the run of
// non-space characters around it has an @, "://" or starts with "www."): «m.petrova@kalinov-most.example»
// names no publisher, whatever its domain spells.
func inAddress(text string, start, end int) bool {
	from := strings.LastIndexAny(text[:start], " \t\n<>()[]«»\"'") + 1
	to := len(text)
	if k := strings.IndexAny(text[end:], " \t\n<>()[]«»\"'"); k >= 0 {
		to = end + k
	}
	run := text[from:to]
	return strings.Contains(run, "@") || strings.Contains(run, "://") || strings.HasPrefix(strings.ToLower(run), "www.")
}

func followedByDot(text string, end int) bool { return end < len(text) && text[end] == '.' }

// quoted reports whether text[start:end] is enclosed in quote marks.
func quoted(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	return strings.ContainsRune("«\"“„'`", before) && strings.ContainsRune("»\"”“'`", after)
}
