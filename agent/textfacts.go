package agent

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// textFactsSize is how many texts (chunks, sentences, table rows) keep their analyses between
// questions. Questions about one knowledge base read the same pages again and again (a person's,
// a client's), and analysing a text — its search terms, the dictionary keys of its words, their
// cognate skeletons and back-translations, the instruction check — is most of what choosing the
// evidence costs (the multi-hop chain reads dozens of pages: planChain). An entry holds the text
// and its word lists: a few KiB for a chunk, a few hundred bytes for a sentence, so the cache
// stays within some 10–40 MiB.
const textFactsSize = 16384

// textFacts are the analyses of one text that do not depend on the question: what
// questionTerms.stated compares the question's terms with. Each list is computed on first use;
// safe for concurrent use.
type textFacts struct {
	terms []string        // textnorm.SearchTerms
	have  map[string]bool // terms as a set
	keys  func() map[string]bool
	cogs  [2]func() []string // by "is Cyrillic": textCognates of the words of that script
	back  [2]func() []string // by "is Cyrillic": backKeys of the words of that script
}

type textFactsKey struct {
	lex  *lexicon.Lexicon // backKeys translate with it
	text string
}

var (
	textFactsCache, _ = lru.New[textFactsKey, *textFacts](textFactsSize)
	plantedCache, _   = lru.New[string, bool](textFactsSize)
)

// factsOf returns text's analyses with lex (nil: none), from the cache when another question
// (or an earlier step of this one) analysed it.
func factsOf(text string, lex *lexicon.Lexicon) *textFacts {
	k := textFactsKey{lex: lex, text: text}
	if f, ok := textFactsCache.Get(k); ok {
		return f
	}
	terms := textnorm.SearchTerms(text)
	f := &textFacts{terms: terms, have: toSet(terms), keys: sync.OnceValue(func() map[string]bool { return lexicon.Keys(text) })}
	for i, cyrillic := range []bool{false, true} {
		f.cogs[i] = sync.OnceValue(func() []string { return textCognates(text, cyrillic) })
		f.back[i] = sync.OnceValue(func() []string { return backKeys(lex, text, cyrillic) })
	}
	textFactsCache.Add(k, f)
	return f
}

// scriptIndex is the index of a script's list in textFacts.
func scriptIndex(cyrillic bool) int {
	if cyrillic {
		return 1
	}
	return 0
}

// planted reports whether a unit of document text is addressed to a model rather than to readers
// (injectionRE or InstructionLike): the extractive generators never quote it, so the page that
// states the fact can be the answer instead of the note that tells the system what to say. The
// verdict is kept per text (plantedCache): the check is a long regular expression over every
// candidate sentence of every question.
func planted(u string) bool {
	if v, ok := plantedCache.Get(u); ok {
		return v
	}
	v := injectionRE.MatchString(u) || InstructionLike(u)
	plantedCache.Add(u, v)
	return v
}
