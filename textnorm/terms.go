package textnorm

import (
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne/internal/wordcache"
	"github.com/kljensen/snowball/russian"
)

// SearchTerms analyzes text for Ariadne's BM25 field: each word is folded, Russian words are
// stemmed (Snowball), and every word is put into its phonetic Latin form, so that «отпуска» and
// «отпуск», «впн» and "VPN", «редисе» and "Redis" share a term. Latin words are not stemmed (the
// English stemmer would turn "Redis" into "redi" and break the cross-script match). Codes written
// with hyphens (PRJ-2031-042, ERR-7713, svc-ledger) also yield one joined term ("prj2031042") so
// that an exact code outranks its parts.
func SearchTerms(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:()[]{}<>«»\"“”„|!?`*", r)
	}) {
		words := Words(f)
		if len(words) > 1 && hasDigitOrHyphenCode(f) && !allStopwords(words) {
			var joined strings.Builder
			for _, w := range words {
				joined.WriteString(Latin(w.Text))
			}
			out = append(out, joined.String())
		}
		for _, w := range words {
			if t := term(w.Text); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// allStopwords reports whether every word is a function word: a compound preposition or pronoun
// («из-за», «из-под», «кто-то», «какой-либо») joins into no term of its own.
func allStopwords(words []Token) bool {
	for _, w := range words {
		if !IsStopword(FoldString(w.Text)) {
			return false
		}
	}
	return true
}

// term is one word's search term, or "" for a function word. It is a pure function of the word
// and the hot loop of every text analysis (Snowball stemming, folding, transliteration: the
// answer path analyzes the same sentences' words many times), so terms are kept for the first
// 50 000 distinct words without digits (internal/wordcache; measured with lexicon.Key's cache
// in docs/evaluation.md, "Stop 52").
func term(word string) string { return termCache.Get(word, analyzeTerm) }

var termCache = wordcache.New[string](50_000)

// analyzeTerm is term without the cache.
func analyzeTerm(word string) string {
	folded := FoldString(word)
	if IsStopword(folded) {
		return ""
	}
	if isCyrillicWord(folded) {
		if st := russian.Stem(folded, false); st != "" {
			folded = st
		}
	}
	return Latin(folded)
}

func isCyrillicWord(w string) bool {
	for _, r := range w {
		if unicode.Is(unicode.Cyrillic, r) {
			return true
		}
	}
	return false
}

// hasDigitOrHyphenCode reports whether a whitespace-delimited field looks like a code: letters
// and digits joined by '-', '.', '_' or '/'.
func hasDigitOrHyphenCode(f string) bool {
	return strings.ContainsAny(f, "-_./") && strings.IndexFunc(f, unicode.IsLetter) >= 0
}

// IsStopword reports whether a folded word is a Russian or English function word (prepositions,
// conjunctions, pronouns, auxiliaries): no lexical signal. Interrogative, personal, demonstrative
// and determiner pronouns are listed in every case form («кто», «кого», «кому», «кем», «ком»;
// «один», «одну»; «другой», «других»; «сам», «сами»), and so are the Russian counterparts of
// the English list's determiners and adverbs («самый» for "most", «некоторый» for "some",
// «каждый» for "each", «очень», «снова», «слишком»); possessives only in the few forms the
// list always had («мой», «моя», «свою»), since idioms give them meaning («на свой счёт»).
// «другом» stays a term: it is also «друг» ("friend"); "us" and "mine" stay terms too (the US,
// a coal mine). A hyphenated compound of function words («из-за», «из-под», «кто-то»,
// «какой-либо», «кое-что») gives no term; the particles «либо», «нибудь», «кое» and «таки» are
// function words. The pieces an apostrophe leaves of English contractions ("what's" → "s",
// "don't" → "don", "t"; "we'll", "they've", "I'd", "I'm") are function words, as NLTK's list
// has them ("won" stays a term: it is also the past of "win").
func IsStopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

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
которое которые которой которого которых сколько каков какова каково каковы чей чья чьё чье чьи
каким какого какому какими нужно надо почему зачем ли
кого кому кем ком чему чём мной мною тебе тобой тобою нём нем ею нею нами вами ими ними собой собою
эта этому этим этих этими та те тому теми ту такая такое такие такого такому таким таких такими
такую таком весь вся всё всему всем всеми всей всём чьего чьей чьему чьим чьих чьими чью чьём
либо кое таки
одна одно одни одну одной одного одному одним одних одними одном одною той тех нему оно нам
другая другое другие другую другого другому другим других другими
сама само сами самого самому самим самих самой саму самом самими
самый самая самое самые самым самых самыми самую
некоторый некоторая некоторое некоторые некоторого некоторому некоторым некоторых некоторыми некоторую некоторой некотором
каждый каждая каждое каждые каждого каждому каждым каждых каждыми каждую каждой каждом
очень снова слишком
the a an and or but if then else of to in on at by for with from as is are was were be been
being am do does did doing have has had having it its this that these those there here what which
who whom whose when where why how all any both each few more most other some such no nor not
only own same so than too very can will just should now i me my we our you your he him his she
her they them their into over under again further once about against between through during
before after above below up down out off many much often does did myself ourselves yourself
yourselves himself herself itself themselves yours hers ours theirs
s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn couldn wouldn shouldn mustn needn mightn shan`) {
		m[w] = struct{}{}
	}
	return m
}()
