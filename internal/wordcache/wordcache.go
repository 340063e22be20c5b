// Package wordcache memoizes pure per-word functions of text analysis (stemming, folding,
// transliteration), which the answer path and indexing call for the same words many times.
package wordcache

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Cache maps a word to a value computed once, for at most Max distinct words (later words are
// computed every time); safe for concurrent use. The zero value is not usable: use New.
type Cache[V any] struct {
	m   sync.Map
	n   atomic.Int64
	max int64
}

// New returns a cache of at most max words.
func New[V any](max int) *Cache[V] { return &Cache[V]{max: int64(max)} }

// Get returns the value of word, computing it with f the first time (f must be a pure function
// of the word). Words with a digit (dates, amounts, ids: many, and rarely repeated) are computed
// every time and not kept.
func (c *Cache[V]) Get(word string, f func(string) V) V {
	if strings.ContainsAny(word, "0123456789") {
		return f(word)
	}
	if v, ok := c.m.Load(word); ok {
		return v.(V)
	}
	v := f(word)
	if c.n.Load() < c.max {
		if _, loaded := c.m.LoadOrStore(word, v); !loaded {
			c.n.Add(1)
		}
	}
	return v
}
