package agent

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// textFactsBudget bounds the memory of the texts (chunks, sentences, table rows) that keep their
// analyses between questions, in bytes as textCost estimates them. Questions about one knowledge
// base read the same pages again and again (a person's, a client's), and analysing a text — its
// search terms, the dictionary keys of its words, their cognate skeletons and back-translations,
// the instruction check — is most of what choosing the evidence costs (the multi-hop chain reads
// dozens of pages: planChain). 64 MiB holds about 2 500 chunks of 1.5 KB or 10 000 sentences
// with every analysis done; one multi-hop question reads some 100 chunks and 1 000 sentences.
const textFactsBudget = 64 << 20

// textCost estimates the heap an entry holds with every analysis done: the text, its terms and the
// word lists derived from them — some 6 KB for a sentence of 270 bytes, 26 KB for a chunk of
// 1.5 KB. TestTextFactsCost keeps it honest (a cache estimated at 7 MiB held 9 MiB of heap).
func textCost(text string) int { return 2048 + 16*len(text) }

// textFacts are the analyses of one text that do not depend on the question: what
// questionTerms.stated compares the question's terms with, and whether the text is planted. Each is
// computed on first use; safe for concurrent use.
type textFacts struct {
	lex     *lexicon.Lexicon // back translates with it
	search  func() searchTerms
	keys    func() map[string]bool
	cogs    [2]func() []string // by "is Cyrillic": textCognates of the words of that script
	back    [2]func() []string // by "is Cyrillic": backKeys of the words of that script
	planted func() bool
}

// searchTerms are a text's textnorm.SearchTerms as a list and as a set.
type searchTerms struct {
	terms []string
	have  map[string]bool
}

// textScope names who may observe that a text's analysis is cached: a cache hit answers faster
// than a miss, so an entry made while serving one caller must answer only lookups of callers who
// may read the same (stop 60 audit: a writer posting a public copy of a guessed management text
// learned from the anonymous answer's speed, 1 ms against 3, that a management query had read it).
// callerScope keys by the caller's groups, readersScope by the readers of the chunk a text comes
// from. The zero scope caches nothing across calls.
type textScope string

// callerScope is the scope of the analyses made for a caller holding groups: only callers with the
// same groups — who may read the same chunks — share them.
func callerScope(groups []string) textScope {
	if len(groups) == 0 {
		return ""
	}
	return textScope("caller\x1e" + ariadne.GroupsKey(groups))
}

// readersScope is the scope of the analyses of a chunk's text and units: only texts of chunks with
// the same readers (ariadne.ReadersKey of acl) share them.
func readersScope(acl []string) textScope {
	return textScope("readers\x1e" + ariadne.ReadersKey(acl))
}

// factsCache is an LRU of textFacts by scope and text, bounded by the summed textCost of its
// entries.
type factsCache struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[string, *textFacts]
	cost   int
	budget int
}

func newFactsCache(budget int) *factsCache {
	c := &factsCache{budget: budget}
	c.lru, _ = simplelru.NewLRU[string, *textFacts](1<<30, func(key string, _ *textFacts) { c.cost -= textCost(key) })
	return c
}

var textFactsCache = newFactsCache(textFactsBudget)

// get returns text's facts made with lex; anyLex: made with any lexicon (planted does not read it).
// A text cached with another lexicon (planted's, made with none, before the first stated) is
// replaced by facts for lex that keep its lexicon-free analyses. Entries answer lookups of their
// own scope only; the zero scope neither reads nor fills the cache.
func (c *factsCache) get(scope textScope, text string, lex *lexicon.Lexicon, anyLex bool) *textFacts {
	if scope == "" {
		return newTextFacts(text, lex)
	}
	key := string(scope) + "\x00" + text
	c.mu.Lock()
	f, ok := c.lru.Get(key)
	c.mu.Unlock()
	if ok && (anyLex || f.lex == lex) {
		return f
	}
	if ok {
		f = f.withLexicon(text, lex)
	} else {
		f = newTextFacts(text, lex)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lru.Contains(key) {
		c.cost += textCost(key)
	}
	c.lru.Add(key, f)
	for c.cost > c.budget && c.lru.Len() > 1 {
		c.lru.RemoveOldest()
	}
	return f
}

func newTextFacts(text string, lex *lexicon.Lexicon) *textFacts {
	f := &textFacts{
		search: sync.OnceValue(func() searchTerms {
			terms := textnorm.SearchTerms(text)
			return searchTerms{terms, toSet(terms)}
		}),
		planted: sync.OnceValue(func() bool { return injectionRE.MatchString(text) || InstructionLike(text) }),
	}
	for i, cyrillic := range []bool{false, true} {
		f.cogs[i] = sync.OnceValue(func() []string { return textCognates(text, cyrillic) })
	}
	return f.withLexicon(text, lex)
}

// withLexicon returns a copy of f whose lexicon-bound analyses (keys, back) are made with lex; the
// others are shared with f.
func (f *textFacts) withLexicon(text string, lex *lexicon.Lexicon) *textFacts {
	g := *f
	g.lex = lex
	g.keys = sync.OnceValue(func() map[string]bool { return lex.TextKeys(text) })
	for i, cyrillic := range []bool{false, true} {
		g.back[i] = sync.OnceValue(func() []string { return backKeys(lex, text, cyrillic) })
	}
	return &g
}

// factsOf returns text's analyses with lex (nil: none), from the cache when another question in
// scope (or an earlier step of this one) analysed it.
func factsOf(scope textScope, text string, lex *lexicon.Lexicon) *textFacts {
	return textFactsCache.get(scope, text, lex, false)
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
// verdict is kept with the text's facts, for the readers of u's chunk (acl, readersScope): the
// check is a long regular expression (about 0.1 ms a sentence) over every candidate sentence of
// every question.
func planted(u string, acl []string) bool {
	return textFactsCache.get(readersScope(acl), u, nil, true).planted()
}
