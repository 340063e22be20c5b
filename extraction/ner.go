package extraction

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ner"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Recognizer finds named entities in texts: package ner's Client (the NER sidecar). Recognize
// returns one mention list per text, in order; lang is ner.Russian, ner.English or ner.Detect.
type Recognizer interface {
	Name() string
	Recognize(ctx context.Context, texts []string, lang string) ([][]ner.Mention, error)
}

// Recognized is a named entity that recognition found in a chunk, resolved to an entity.
type Recognized struct {
	Start, End int    // UTF-8 byte offsets in the chunk's text: Text[Start:End] == Surface
	Surface    string // as written («Казани», "Nordex")
	// Name is the recognizer's normal form of Surface when it differs and can name an entity
	// («Казань»; ner.Mention.Normal), "" otherwise.
	Name      string
	EntityKey string
}

// CoOccurrence is the relationship type between two entities named in one sentence of a chunk
// (ontology relation MENTIONED_WITH), stored from the smaller key to the larger.
const CoOccurrence = "MENTIONED_WITH"

// maxCoOccurring bounds the entities of one sentence that are paired: a longer list (a table row,
// an enumeration) states no relation between its members.
const maxCoOccurring = 8

// NERConfig tunes NER; zero values take the defaults.
type NERConfig struct {
	Batch   int // texts per Recognize call; default 64
	Workers int // concurrent Recognize calls; default 2
	// TypedPages: recognize in typed pages too (off by default: the dictionary describes them;
	// docs/evaluation.md measures both ways).
	TypedPages bool
	// Cache is how many chunks' recognition results are kept, by language and text (least
	// recently used go first), so that a chunk recognized once is not sent to the recognizer
	// again: an Upsert extracts the source's stored documents again with the new ones
	// (ingest.Pipeline.Upsert). 0 takes the default, 100 000; negative turns the cache off.
	Cache int
	// Lexicon, when set, joins a recognized organization named in one script to the one entity
	// named word for word the same in the other (lexicon.SameName: "Kama State University" and
	// «Камский государственный университет»); nil: names join by spelling only.
	Lexicon *lexicon.Lexicon
}

// defaultNERCache is NERConfig.Cache's default: about 100 000 chunks, a few tens of MB.
const defaultNERCache = 100_000

// NER finds entities in any text with a Recognizer and resolves them through the registry, so
// that untyped documents (notes, articles, dataset paragraphs) get entities too. Pages whose
// subject type the ontology relates by relation_rules (a project, a person, a client …) are the
// dictionary's: recognition skips them. Labels are typed
// by the ontology (ner_types: PER → person, ORG → organization, LOC → location, MISC → topic,
// nationalities dropped). Known names win: a recognized span that overlaps a name the registry
// already knows and the chunk's readers may see (resolution.Registry.Reaches; one inside a longer
// name they may not see counts) is left to the dictionary, and a recognized name that matches a documented entity
// joins it (resolution.Registry.ResolveRecognized).
//
// A mention is grouped and named by its normal form when the recognizer gives one (the sidecar's
// nominative of a Russian name: «Мурманск» for «в Мурманске», «Зорислав Кнутов» for «Кнутов
// Зорислав Игоревич»), else by its surface; the surfaces stay the mentions' own and the group's
// aliases.
//
// Resolution is deterministic: mentions are grouped in document-id, chunk and offset order
// (inflected and transliterated surfaces of one name form one group, whatever label each got),
// each group takes its most frequent name (normal form or surface; ties: the shorter, then the
// first) as its name and its most frequent type, and only then is it resolved into the registry.
// So a re-run on the same corpus gives the same keys.
type NER struct {
	rec        Recognizer
	onto       *ontology.Ontology
	batch      int
	workers    int
	typedPages bool
	cache      *lru.Cache[nerKey, []ner.Mention] // nil: off
	lex        *lexicon.Lexicon                  // NERConfig.Lexicon
}

// nerKey identifies a recognition result: the language asked for and the SHA-256 of the text.
type nerKey struct {
	lang    string
	readers string // ariadne.ReadersKey of the chunk's acl: a hit is faster than a miss, so an entry answers texts with the same readers only
	text    [sha256.Size]byte
}

// nerKeyOf keys the cache entry of a chunk's mentions.
func nerKeyOf(c *nerChunk) nerKey {
	return nerKey{c.lang, ariadne.ReadersKey(c.chunk.ACL), sha256.Sum256([]byte(c.chunk.Text))}
}

// NewNER returns the NER stage over rec.
func NewNER(rec Recognizer, o *ontology.Ontology, cfg NERConfig) *NER {
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	n := &NER{rec: rec, onto: o, batch: cfg.Batch, workers: cfg.Workers, typedPages: cfg.TypedPages, lex: cfg.Lexicon}
	if cfg.Cache == 0 {
		cfg.Cache = defaultNERCache
	}
	if cfg.Cache > 0 {
		n.cache, _ = lru.New[nerKey, []ner.Mention](cfg.Cache) // fails only for a size ≤ 0
	}
	return n
}

// Name identifies the stage, its rules' version (and whether it reads typed pages and which
// gazetteer names places) and the recognizer's models.
func (n *NER) Name() string {
	v := "ner-v6"
	if d := n.lex.Name(); d != "" {
		v += "+dict:" + d // common nouns opening a sentence (commonNounOpening): switching re-extracts
	}
	if n.typedPages {
		v += "+typed" // a different graph: switching re-extracts typed pages
	}
	if g := n.lex.Places(); g != nil {
		v += "+places:" + g.Name() // places take the gazetteer's names: switching re-extracts
	}
	return v + "/" + n.rec.Name()
}

// Health checks the recognizer when it can be checked (the sidecar client's /health); nil
// otherwise. The error wraps ariadne.ErrUnavailable when the sidecar does not answer.
func (n *NER) Health(ctx context.Context) error {
	if h, ok := n.rec.(interface{ Health(context.Context) error }); ok {
		return h.Health(ctx)
	}
	return nil
}

// nerChunk is one chunk sent to the recognizer.
type nerChunk struct {
	doc   int // index into the sorted inputs
	chunk ariadne.Chunk
	lang  string
	found []ner.Mention
}

// Recognize runs entity recognition over every chunk of docs (batched, Workers calls at a time),
// resolves the mentions into reg, and returns the resolved mentions by chunk id, in text order.
// The map is non-nil (empty when nothing was found). Errors are the recognizer's, wrapped:
// ariadne.ErrUnavailable when the sidecar is down.
func (n *NER) Recognize(ctx context.Context, docs []Input, reg *resolution.Registry) (map[string][]Recognized, error) {
	docs = slices.DeleteFunc(slices.Clone(docs), func(in Input) bool { return n.typedPage(in, reg) })
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].Doc.ID < docs[j].Doc.ID })
	var chunks []*nerChunk
	for i, in := range docs {
		for _, ch := range in.Chunks {
			lang := ch.Lang
			if lang == "" {
				lang = in.Doc.Lang
			}
			if lang != ner.Russian && lang != ner.English {
				lang = ner.Detect
			}
			chunks = append(chunks, &nerChunk{doc: i, chunk: ch, lang: lang})
		}
	}
	if err := n.recognize(ctx, chunks); err != nil {
		return nil, err
	}
	return n.resolve(docs, chunks, reg), nil
}

// typedPage reports whether a document describes an entity whose type the ontology relates by
// relation_rules (a client, project, person, team … page): the dictionary extractor's typed
// relations are what such a page states, and recognition leaves it alone.
func (n *NER) typedPage(in Input, reg *resolution.Registry) bool {
	if n.typedPages {
		return false
	}
	s, ok := reg.Get(in.SubjectKey)
	return ok && len(n.onto.RelationRules[s.Type]) > 0
}

// recognize fills found for every chunk: from the cache, or one call per batch of the other
// chunks of one language and one set of readers (whose results are then cached, here and in the
// recognizer's cache, for those readers only: ner.WithCacheScope).
func (n *NER) recognize(ctx context.Context, chunks []*nerChunk) error {
	type group struct{ lang, readers string }
	var batches [][]*nerChunk
	byGroup := map[group][]*nerChunk{}
	var groups []group
	for _, c := range chunks {
		if n.cache != nil {
			if found, ok := n.cache.Get(nerKeyOf(c)); ok {
				c.found = found
				continue
			}
		}
		g := group{c.lang, ariadne.ReadersKey(c.chunk.ACL)}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], c)
	}
	for _, g := range groups {
		cs := byGroup[g]
		for i := 0; i < len(cs); i += n.batch {
			batches = append(batches, cs[i:min(i+n.batch, len(cs))])
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(batches))
	sem := make(chan struct{}, n.workers)
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			texts := make([]string, len(b))
			for j, c := range b {
				texts[j] = tableCellsAsSentences(c.chunk.Text)
			}
			got, err := n.rec.Recognize(ner.WithCacheScope(ctx, ariadne.ReadersKey(b[0].chunk.ACL)), texts, b[0].lang)
			if err != nil {
				errs[i] = err
				cancel()
				return
			}
			for j, c := range b {
				got[j] = relabelled(c.chunk.Text, trimmedSpans(c.chunk.Text, withinCells(c.chunk.Text, got[j])))
				c.found = got[j]
				if n.cache != nil {
					n.cache.Add(nerKeyOf(c), got[j])
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("extraction: entity recognition (%s): %w", n.rec.Name(), firstError(errs))
	}
	return nil
}

// tableCellsAsSentences returns text with its Markdown table rows read as sentences, at the same
// byte offsets: each row's cell bars become full stops and the header's separator row (|---|:--|)
// blanks. A model reads a row as one run of words otherwise, and the small English one labels
// most single-word cells as names ("Status" ORG, "Name" PER, "CTO" ORG, "Client" LOC — an outside
// tester's junk entities); read as sentences it keeps the names ("Anna Petrova", "Kong Inc.").
func tableCellsAsSentences(text string) string {
	if !strings.Contains(text, "|") {
		return text
	}
	b := []byte(text)
	for start := 0; start < len(b); {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		line := b[start:end]
		if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '|' {
			separator := len(bytes.Trim(t, "|-: \t\r")) == 0
			for k, ch := range line {
				switch {
				case separator && ch != '\r':
					line[k] = ' '
				case ch == '|':
					line[k] = '.'
				}
			}
		}
		start = end + 1
	}
	return string(b)
}

// withinCells keeps the mentions that lie within one table cell of text (no cell bar inside the
// span) and gives each its surface as text writes it (recognition read tableCellsAsSentences'
// copy, whose bars are full stops).
func withinCells(text string, found []ner.Mention) []ner.Mention {
	out := found[:0:0]
	for _, m := range found {
		if m.Start < 0 || m.End > len(text) || m.Start >= m.End || strings.Contains(text[m.Start:m.End], "|") {
			continue
		}
		m.Text = text[m.Start:m.End]
		out = append(out, m)
	}
	return out
}

// trimmedSpans cuts from each mention of text what a small model reads into a name beyond it: an
// English possessive ending ("Ingrid Holmsen's" is Ingrid Holmsen) and, across a line break, the
// label of the next line's field ("Кому: Лев Тихомиров\nТема: правки" gave «Лев Тихомиров Тема»).
// A cut mention loses its normal form, which was the whole span's; one with nothing left is
// dropped.
func trimmedSpans(text string, found []ner.Mention) []ner.Mention {
	out := found[:0:0]
	for _, m := range found {
		span := text[m.Start:m.End]
		if nl := strings.LastIndexByte(span, '\n'); nl >= 0 && strings.HasPrefix(strings.TrimLeft(text[m.End:], " \t"), ":") {
			m.End = m.Start + len(strings.TrimRight(span[:nl], " \t\r"))
			m.Normal = ""
		}
		for _, suffix := range []string{"'s", "’s", "'", "’"} {
			if t := text[m.Start:m.End]; strings.HasSuffix(t, suffix) && !cyrillic(t) {
				m.End -= len(suffix)
				m.Normal = ""
				break
			}
		}
		if m.End <= m.Start {
			continue
		}
		m.Text = text[m.Start:m.End]
		out = append(out, m)
	}
	return out
}

// geoNounRE is a common noun after a one-word name that makes it a place ("the Volga region", "the
// Kama river", «Самарская область» is written the other way): lower case, English.
var geoNounRE = regexp.MustCompile(`^\s+(?:region|river|valley|basin|delta|district|area|oblast|krai|coast|lowland|highlands?|steppe)\b`)

// adminNounRE is the noun of a region after a place's name: "the Leningrad region", "Sverdlovsk
// Oblast" (a Russian region is a mention of its own: «Ленинградской области»). A small English
// model recognizes the name without the noun; the region is named with it (regionName).
var adminNounRE = regexp.MustCompile(`^\s+((?i:region|district|oblast|krai|province|county|governorate))\b`)

// regionName is a place's name with the region noun that follows it in the text (after: the text
// after the mention), "Leningrad" + " region" → "Leningrad region": the region is not the city
// the name alone names (GeoNames lists «Ленинград» among Saint Petersburg's names, and the
// Kaluga region is no Kaluga). name itself when no such noun follows.
func regionName(name, after string) string {
	if loc := adminNounRE.FindStringSubmatchIndex(after); loc != nil {
		return name + " " + after[loc[2]:loc[3]]
	}
	return name
}

// streetRE is the Russian word for a street (or an avenue, a lane, a square, …) before a name, in
// any case: «на улице Декабристов», «ул. Ленина», «проспекте Мира».
var streetRE = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:улиц[аеуы]|улицей|ул\.|проспект[аеу]?|просп\.|пр-т|переул(?:ок|ке|ка)|пер\.|бульвар[аеу]?|б-р|шоссе|площад(?:ь|и)|пл\.|набережн(?:ая|ой|ую))\s+$`)

// slavicSurnameRE is a Russian-style surname written in Latin or Cyrillic letters ("Petrova",
// "Kuznetsov", «Сидоренко»).
var slavicSurnameRE = regexp.MustCompile(`^(?:\p{Lu}\p{Ll}+(?:ova|eva|yova|ina|yna|ov|ev|yov|in|yn|sky|skiy|skaya|ski|enko|chuk)|\p{Lu}\p{Ll}+(?:ова|ева|ёва|ина|ына|ов|ев|ёв|ин|ын|ский|ская|енко|чук))$`)

// adjectiveRE is a word with an adjective's ending, the first word of two-word place names
// ("Nizhny Novgorod", "Staraya Russa", «Старый Оскол», "Pavlovsky Posad"); of the Latin endings
// in -y only -ny, -ky, -vy, -iy, -yy and -oy, since "Dmitry", "Arkady" and "Sergey" are names.
var adjectiveRE = regexp.MustCompile(`(?:aya|oye|iye|yye|ny|ky|vy|iy|yy|oy|ая|яя|ый|ий|ой|ое|ее|ые|ие)$`)

// amountOrUnitRE is a sum of money or a unit of measure a small recognizer takes for a name
// ("EUR 640,000", "$2 million", "MW", "kV"): no entity.
var amountOrUnitRE = regexp.MustCompile(`^(?:(?:EUR|USD|RUB|GBP|NOK|SEK|DKK|CHF|€|\$|£|₽)\s*[\d.,  ]+(?:\s*(?:million|billion|m|bn|k|млн|млрд|тыс\.?))?|[\d.,  ]+\s*(?:EUR|USD|RUB|GBP|€|\$|£|₽|евро|долларов|рублей)|[kMGT]?(?:W|Wh|V|A|Hz)|km|kg|MW|GW|kW|kV|MWh|GWh)$`)

// relabelled corrects what a small recognizer reads wrongly from a name's context (outside testers,
// stop 60): a one-word "person" before a place noun is a place ("Volga" of "the Volga region"); an
// "organization" of two words, a capitalized first and a Russian-style surname ("Galina Petrova"),
// is a person unless its head noun names an organization (headType), and so is such a "place"
// ("Vera Ilyina") unless its first word is an adjective ("Veliky Ustyug"); a Russian street name
// («на улице Декабристов») is an address, a sum of money or a unit ("EUR 640,000", "MW") a
// quantity, and a "person" with a digit ("Turbine K-17") a thing: none is an entity, and they are
// dropped. A name after a title or a greeting ("Dear Dmitry", "Dr. Hale", «Госпожа Тан») is a
// person whatever the label.
func relabelled(text string, found []ner.Mention) []ner.Mention {
	out := found[:0:0]
	for _, m := range found {
		name := text[m.Start:m.End]
		ws := textnorm.Words(name)
		switch {
		case m.Label == "LOC" && streetRE.MatchString(text[:m.Start]),
			amountOrUnitRE.MatchString(strings.TrimSpace(name)),
			m.Label == "PER" && strings.IndexFunc(name, unicode.IsDigit) >= 0:
			continue
		case m.Label == "PER" && len(ws) == 1 && geoNounRE.MatchString(text[m.End:]):
			m.Label, m.SourceLabel = "LOC", "LOC" // the model's own label (PERSON) would type it otherwise
		case m.Label == "ORG" && len(ws) == 2 && headType(name) == "" && !hasLegalForm(name) &&
			unicode.IsUpper([]rune(ws[0].Text)[0]) && strings.ToUpper(ws[0].Text) != ws[0].Text && slavicSurnameRE.MatchString(ws[1].Text),
			m.Label == "LOC" && len(ws) == 2 && headType(name) == "" && unicode.IsUpper([]rune(ws[0].Text)[0]) &&
				!adjectiveRE.MatchString(ws[0].Text) && slavicSurnameRE.MatchString(ws[1].Text):
			m.Label, m.SourceLabel = "PER", "PER"
		case m.Label != "PER" && withoutHonorific(name) != name:
			m.Label, m.SourceLabel = "PER", "PER" // "Dear Dmitry" (ORG to a small model), "Dr. Hale": an addressee, a person
		}
		out = append(out, m)
	}
	return out
}

// firstError returns the first error that is not a cancellation caused by another batch's failure.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if first == nil || errors.Is(first, context.Canceled) {
			first = err
		}
	}
	return first
}

// group is the mentions of one name across the run, before it is resolved into the registry.
type group struct {
	names     map[string]int // each mention's name: its normal form, or its surface without one
	nameOrder []string       // names in first-seen order
	surfaces  map[string]int
	types     map[string]int
	order     []string // surfaces in first-seen order
	context   string
	acl       []string // who may read some chunk of the group (ariadne.WiderACL of theirs; nil: everyone)
	// regionOf: some mention is followed by the noun of a region (adminNounRE): "Leningrad
	// region" names the region, not the city; it takes no city's names from the gazetteer, and
	// its surfaces without the noun are no aliases of it.
	regionOf bool
	// public is the same of the mentions in chunks everyone may read only: what names and types
	// the entity comes from it when it has any mention (see basis).
	public *group
}

func newGroup(ctx string, acl []string) *group {
	return &group{names: map[string]int{}, surfaces: map[string]int{}, types: map[string]int{}, context: ctx, acl: slices.Clone(acl)}
}

// count adds one mention's name, surface and type.
func (g *group) count(name, surface, typ string) {
	if g.names[name] == 0 {
		g.nameOrder = append(g.nameOrder, name)
	}
	g.names[name]++
	if g.surfaces[surface] == 0 {
		g.order = append(g.order, surface)
	}
	g.surfaces[surface]++
	g.types[typ]++
}

// basis is what names and types the entity of g: the mentions in chunks everyone may read when
// there are any, else all of them. The entity's name and type (and with the name whether a
// caller sees its key or an opaque uid:) must not change for public readers when a restricted
// document spells it otherwise (an outside tester watched the key flip as a management note was
// posted and deleted), spells a public spelling more often (security audit, stop 58: an hr
// note flipped «Тимур Алиев» / "Timur Aliev"), or gives it a legal form.
func (g *group) basis() *group {
	if g.public != nil {
		return g.public
	}
	return g
}

// cyrillic reports whether a surface has a Cyrillic letter.
func cyrillic(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0
}

// severalWords reports whether a name has two words or more (textnorm.Words: «Анна-Мария» is two).
func severalWords(name string) bool { return len(textnorm.Words(name)) >= 2 }

// wordOf reports whether a one-word name is one of words (textnorm.KeyTokens) up to inflection
// (textnorm.TokenMatch: «Садыкова» is a word of «Евгений Садыков»).
func wordOf(name string, words []string) bool {
	t := textnorm.KeyTokens(name)
	return len(t) == 1 && slices.ContainsFunc(words, func(w string) bool { return textnorm.TokenMatch(t[0], w) })
}

// crossScript finds, for a recognized organization's name, the one entity of the registry named
// word for word the same in the other script (lexicon.SameName) that every reader of the name's
// mentions may be linked to (resolution.Registry.Reaches): a restricted note's Russian name does
// not join a public English one to a public reader's entity, while a public page's entity is
// there for the restricted note. Off without a lexicon.
type crossScript struct {
	lex   *lexicon.Lexicon
	reg   *resolution.Registry
	names []crossName
	seen  map[string]bool // entity keys whose names are in names
}

type crossName struct {
	key, name string
	cyrillic  bool
	words     int // lexicon.ContentWords
}

// orgLike are the entity types crossScript joins: names of organizations are made of words a
// dictionary translates; people's and places' names are transliterated, which spelling already
// joins.
var orgLike = map[string]bool{"organization": true, "client": true}

func newCrossScript(lex *lexicon.Lexicon, reg *resolution.Registry) *crossScript {
	x := &crossScript{lex: lex, reg: reg, seen: map[string]bool{}}
	if lex == nil {
		return x
	}
	for _, e := range reg.Entities() {
		x.add(e.Key)
	}
	return x
}

// add makes the names of the entity key (an organization) candidates of later finds.
func (x *crossScript) add(key string) {
	if x.lex == nil || key == "" || x.seen[key] {
		return
	}
	e, ok := x.reg.Get(key)
	if !ok || !orgLike[e.Type] {
		return
	}
	x.seen[key] = true
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		if lexicon.ContentWords(n) >= 2 {
			x.names = append(x.names, crossName{key: key, name: n, cyrillic: cyrillic(n), words: lexicon.ContentWords(n)})
		}
	}
}

// find returns the name, in the other script, of the one entity named like name (see crossScript),
// "" when none or several are.
func (x *crossScript) find(name, typ string, acl []string) string {
	if x.lex == nil || !orgLike[typ] {
		return ""
	}
	cyr, words := cyrillic(name), lexicon.ContentWords(name)
	if words < 2 {
		return ""
	}
	key, other := "", ""
	for _, c := range x.names {
		if c.cyrillic == cyr || c.words != words || c.key == key || !x.reg.Reaches(c.key, acl) || !x.lex.SameName(name, c.name) {
			continue
		}
		if key != "" {
			return "" // two entities: not this function's call
		}
		key, other = c.key, c.name
	}
	return other
}

// knownPrefix marks, in a personName's key, the key of an entity the registry knew before
// recognition (a documented person the dictionary's names find) rather than a group's.
const knownPrefix = "\x00known:"

// personName is a name of a person in several words in a document, recognized or a documented
// person's: its group key (or knownPrefix and the entity key), its words (textnorm.KeyTokens) and
// the acl of a chunk that names it.
type personName struct {
	key    string
	tokens []string
	acl    []string
}

// namedInFull returns the group key of the one person of persons (a document's names of people
// in several words) that has name's one word among its words up to inflection (textnorm.TokenMatch:
// «Денису» of «Денис Ковалёв») and is named in a chunk every reader of acl may read; "" when none
// or several persons have it ("Anna" where the note names Anna Petrova and Anna Lind).
func namedInFull(name string, acl []string, persons []personName) string {
	t := textnorm.KeyTokens(name)
	if len(t) != 1 {
		return ""
	}
	found := ""
	for _, p := range persons {
		if len(p.tokens) < 2 || !ariadne.ReadersWithin(acl, p.acl) ||
			!slices.ContainsFunc(p.tokens, func(w string) bool { return textnorm.TokenMatch(t[0], w) }) {
			continue
		}
		if found != "" && found != p.key {
			return ""
		}
		found = p.key
	}
	return found
}

// mentionName is what a mention names: the recognizer's normal form of it (ner.Mention.Normal)
// when there is one that can name an entity, else its surface.
func mentionName(m ner.Mention) string {
	name := m.Text
	if m.Normal != "" && m.Normal != m.Text && nameLikeSurface(m.Normal) {
		name = m.Normal
	}
	if m.Label == "PER" {
		name = withoutHonorific(name)
	}
	return name
}

// honorificRE is a title or a greeting before a person's name: "Dr.", "Mrs", "Prof.", «Д-р»,
// «г-жа», «проф.», "Dear", «Уважаемый».
var honorificRE = regexp.MustCompile(`^(?i:dr|mr|mrs|ms|miss|prof|sir|dame|dear|д-р|др|г-н|г-жа|проф|доктор|профессор|господин|госпожа|уважаем(?:ый|ая)|дорог(?:ой|ая))\.?\s+`)

// withoutHonorific returns a person's name without the title before it («Д-р Кузнецов» is
// Кузнецов), or the name as it is when nothing that can name someone would be left.
func withoutHonorific(name string) string {
	if rest := honorificRE.ReplaceAllString(name, ""); rest != name && nameLikeSurface(rest) {
		return rest
	}
	return name
}

// mostFrequent returns the most frequent of order's strings by count (ties: the shorter, then the
// first).
func mostFrequent(order []string, count map[string]int) string {
	best := order[0]
	for _, s := range order[1:] {
		if c, b := count[s], count[best]; c > b || c == b && utf8.RuneCountInString(s) < utf8.RuneCountInString(best) {
			best = s
		}
	}
	return best
}

// resolve groups and resolves the recognized mentions (see NER).
func (n *NER) resolve(docs []Input, chunks []*nerChunk, reg *resolution.Registry) map[string][]Recognized {
	known := reg.Matcher() // the names known before recognition: the dictionary's
	scratch := resolution.NewRegistry(nil)
	type pending struct {
		chunkID string
		m       ner.Mention
		group   string
	}
	var found []pending
	groups := map[string]*group{}
	var groupOrder []string
	var publicOrder []string // the groups with a mention everyone may read, by the first such mention
	add := func(c *nerChunk, m ner.Mention, k, name, typ, ctx string, acl []string) {
		g := groups[k]
		if g == nil {
			g = newGroup(ctx, acl)
			groups[k] = g
			groupOrder = append(groupOrder, k)
		} else {
			g.acl = ariadne.WiderACL(g.acl, acl)
		}
		g.count(name, m.Text, typ)
		g.regionOf = g.regionOf || typ == "location" && adminNounRE.MatchString(c.chunk.Text[m.End:])
		if ariadne.ReadersWithin(nil, acl) { // a chunk everyone may read
			if g.public == nil {
				g.public = newGroup(ctx, nil)
				publicOrder = append(publicOrder, k)
			}
			g.public.count(name, m.Text, typ)
		}
		found = append(found, pending{chunkID: c.chunk.ID, m: m, group: k})
	}
	// A first name and patronymic alone («Тимура Рашидовича все знают») is the person the same
	// document named in full with them («Галиев Тимур Рашидович согласовал»): such mentions wait
	// until every full name is grouped, then join the group of the document's full name with the
	// same first name and patronymic, if there is one.
	type addressed struct {
		c             *nerChunk
		m             ner.Mention
		name, typ     string
		ctx, patronym string
		acl           []string
	}
	var waiting []addressed
	fullNames := map[int]map[string]string{} // document → first name and patronymic → group
	// A person's name in one word («Dear Denis», «Reyes owns it») is the person the same document
	// names in several words with that word («To: Denis Kovalev», «Dana Reyes was out»), when it
	// names exactly one such person where every reader of the short mention may read it: such
	// mentions wait for every full name too (within-document name coreference). So do one-word
	// places and organizations: a small recognizer tags a surname or a first name alone as one
	// («Петрова напомнила», "Petrova says", "Marina, the proofs…", a signature "Lidia" — a
	// trial's editor-in-chief was a place named Petrova beside her own entity); one the document
	// names no person with keeps its type.
	var short []addressed
	docPersons := map[int][]personName{} // document → its names of people in several words
	for _, c := range chunks {
		in := docs[c.doc]
		acl := chunkACL(in.Doc, c.chunk)
		// The known names the chunk's readers may see (Registry.Reaches) are the dictionary's. A
		// name only some reader may not see defined is recognized as any other name (the
		// dictionary does not link it here), but the readable names inside it stay the
		// dictionary's, as Dictionary.Extract finds them (Matcher.FindIf): «CTR-2026» and
		// «NB-913» inside «CTR-2026-NB-913», an alias only a management contract defines. Were
		// only the longest name taken, recognition would make the whole code one entity of its
		// own for a public note, and the note's readers would get another entity when the hidden
		// contract exists than when it does not (F1).
		var taken [][2]int
		for _, m := range known.FindIf(c.chunk.Text, func(k string) bool { return reg.Reaches(k, acl) }) {
			taken = append(taken, [2]int{m.Start, m.End})
			if len(m.Keys) == 1 && m.Types[0] == "person" && severalWords(m.Surface) {
				// A documented person named in full: a one-word mention of the document may be them.
				k := knownPrefix + m.Keys[0]
				docPersons[c.doc] = append(docPersons[c.doc], personName{k, textnorm.KeyTokens(m.Surface), acl})
			}
		}
		context := ""
		if s, ok := reg.Get(in.SubjectKey); ok && (s.Type == "client" || s.Type == "organization") {
			context = s.Key
		}
		for _, m := range c.found {
			typ := n.onto.EntityTypeOfNER(m.Label, m.SourceLabel)
			if typ == "" || !n.onto.HasEntityType(typ) || !nameLikeSurface(m.Text) || overlaps(taken, m.Start, m.End) || onlyLegalForms(m.Text) ||
				(m.Label == "ORG" || m.Label == "LOC") && n.commonNounOpening(c.chunk.Text, m) {
				continue
			}
			ctx := ""
			if typ == "person" {
				ctx = context
			}
			name := mentionName(m)
			if typ == "location" {
				name = regionName(name, c.chunk.Text[m.End:])
			}
			if typ == "person" {
				if p, full := patronymKey(m.Text); p != "" && !full {
					waiting = append(waiting, addressed{c, m, name, typ, ctx, p, acl})
					continue
				}
				if !severalWords(name) && !severalWords(withoutHonorific(m.Text)) {
					short = append(short, addressed{c: c, m: m, name: name, typ: typ, ctx: ctx, acl: acl})
					continue
				}
			} else if (m.Label == "LOC" || m.Label == "ORG") && !severalWords(name) && !severalWords(m.Text) {
				short = append(short, addressed{c: c, m: m, name: name, typ: typ, ctx: ctx, acl: acl})
				continue
			}
			k, _ := scratch.ResolveRecognized(resolution.Candidate{Name: name, Type: typ, Context: ctx})
			if k == "" {
				continue
			}
			if p, full := patronymKey(m.Text); typ == "person" && full {
				if fullNames[c.doc] == nil {
					fullNames[c.doc] = map[string]string{}
				}
				if _, ok := fullNames[c.doc][p]; !ok {
					fullNames[c.doc][p] = k
				}
			}
			if typ == "person" {
				docPersons[c.doc] = append(docPersons[c.doc], personName{k, textnorm.KeyTokens(name), acl})
			}
			add(c, m, k, name, typ, ctx, acl)
		}
	}
	for _, w := range waiting {
		k, ok := fullNames[w.c.doc][w.patronym]
		if !ok {
			if k, _ = scratch.ResolveRecognized(resolution.Candidate{Name: w.name, Type: w.typ, Context: w.ctx}); k == "" {
				continue
			}
		}
		add(w.c, w.m, k, w.name, w.typ, w.ctx, w.acl)
	}
	for _, w := range short {
		if k := namedInFull(w.name, w.acl, docPersons[w.c.doc]); k != "" {
			// The mention is the full name's; the one word names neither the entity nor an alias
			// of it (another document's "Denis" may be another Denis).
			found = append(found, pending{chunkID: w.c.chunk.ID, m: w.m, group: k})
			continue
		}
		if k, _ := scratch.ResolveRecognized(resolution.Candidate{Name: w.name, Type: w.typ, Context: w.ctx}); k != "" {
			add(w.c, w.m, k, w.name, w.typ, w.ctx, w.acl)
		}
	}
	// The words of the run's names of people in several words: "Reyes" after "Dana Reyes" is a
	// person's surname, not a one-word guess (see ner_one_word_person below). Each with the acl
	// of the mentions that name it (the group's basis): a name only a restricted note writes in
	// full does not make a public one-word name a person (security audit: «Mr. Pemberton» was a
	// person for everyone only while a [management] note named Rupert Pemberton).
	type wordsOf struct {
		words []string
		acl   []string
	}
	var personWords []wordsOf
	for _, k := range groupOrder {
		if g := groups[k].basis(); g.types["person"] > 0 {
			for _, name := range append(slices.Clone(g.nameOrder), g.order...) {
				if name = withoutHonorific(name); severalWords(name) { // "Dear Denis" is one word's
					personWords = append(personWords, wordsOf{textnorm.KeyTokens(name), g.acl})
				}
			}
		}
	}
	// readableWords are the words of personWords every reader of acl may read (once per acl).
	readable := map[string][]string{}
	readableWords := func(acl []string) []string {
		k := strings.Join(acl, "\x1f")
		if out, ok := readable[k]; ok {
			return out
		}
		var out []string
		for _, w := range personWords {
			if ariadne.ReadersWithin(acl, w.acl) {
				out = append(out, w.words...)
			}
		}
		readable[k] = out
		return out
	}
	xs := newCrossScript(n.lex, reg)
	final := map[string]string{}
	for _, p := range found {
		if key, ok := strings.CutPrefix(p.group, knownPrefix); ok {
			final[p.group] = key // a one-word name of a documented person (namedInFull)
		}
	}
	// Groups resolve in the order of their first mention everyone may read, then those only
	// restricted chunks mention: the first of two that join (crossScript, a shared alias) names
	// and keys the entity, and which one that is must not depend on a restricted document's id
	// (security audit, stop 59: a [management] note whose id sorted first made a public
	// organization Russian-named and Russian-keyed).
	resolveOrder := slices.Clone(publicOrder)
	for _, k := range groupOrder {
		if groups[k].public == nil {
			resolveOrder = append(resolveOrder, k)
		}
	}
	for _, k := range resolveOrder {
		g, b := groups[k], groups[k].basis()
		name := mostFrequent(b.nameOrder, b.names)
		var aliases []string // the other names, then the surfaces as written
		for _, s := range append(slices.Clone(g.nameOrder), g.order...) {
			if g.regionOf && !slices.Contains(g.nameOrder, s) {
				continue // "Leningrad" of "the Leningrad region" would find the city
			}
			if s != name && !slices.Contains(aliases, s) {
				aliases = append(aliases, s)
			}
		}
		typ := ""
		for t, c := range b.types {
			if typ == "" || c > b.types[typ] || c == b.types[typ] && t < typ {
				typ = t
			}
		}
		if b.types["organization"] > 0 && slices.ContainsFunc(b.order, hasLegalForm) {
			typ = "organization" // "Veltrix Ltd", «ООО «Велтрикс»»: a legal form names an organization
		}
		if h := headType(name); h != "" && h != typ && (typ == "person" || typ == "organization") && n.onto.HasEntityType(h) {
			typ = h // "Biozoo Labs" is no person, "Aktru Glacier" no person or organization
		}
		if one := n.onto.NEROneWordPerson; typ == "person" && one != "" && !slices.ContainsFunc(b.order, cyrillic) &&
			!slices.ContainsFunc(b.nameOrder, severalWords) && !slices.ContainsFunc(b.order, func(s string) bool { return severalWords(withoutHonorific(s)) }) &&
			!slices.ContainsFunc(b.nameOrder, func(name string) bool { return wordOf(name, readableWords(g.acl)) }) {
			typ = one // "Redis", "Kestrelwave": a person only by a small model's guess (ontology: ner_one_word_person)
		}
		ctx := b.context
		if typ != "person" {
			ctx = ""
		}
		if other := xs.find(name, typ, g.acl); other != "" {
			aliases = append(aliases, other) // the entity's name in the other script: one entity
		}
		if typ == "location" && !g.regionOf {
			// A place the gazetteer knows takes its English and Russian names: "Vienna" and «Вена»,
			// which no transliteration relates, then resolve to one entity, and each finds the
			// other's mentions. Public reference data: nothing of a chunk the reader may not read.
			if p, ok := n.lex.Places().Find(append([]string{name}, aliases...)...); ok {
				aliases = append(aliases, p.Names...)
			}
		}
		final[k], _ = reg.ResolveRecognized(resolution.Candidate{Name: name, Type: typ, Aliases: aliases, Context: ctx, ACL: g.acl})
		xs.add(final[k])
	}
	out := map[string][]Recognized{}
	slices.SortStableFunc(found, func(a, b pending) int { // chunk order, then text order
		return cmp.Or(cmp.Compare(a.chunkID, b.chunkID), cmp.Compare(a.m.Start, b.m.Start))
	})
	for _, p := range found {
		if key := final[p.group]; key != "" {
			r := Recognized{Start: p.m.Start, End: p.m.End, Surface: p.m.Text, EntityKey: key}
			if name := mentionName(p.m); name != p.m.Text {
				r.Name = name
			}
			out[p.chunkID] = append(out[p.chunkID], r)
		}
	}
	return out
}

// patronymRE is a Russian patronymic in any case: «Рашидович», «Игоревны», «Ильичом».
var patronymRE = regexp.MustCompile(`^[А-ЯЁ][а-яё]+(?:ович|евич|ич|овн|евн|ичн|иничн)(?:а|у|ем|ом|е|ы|ой|ою|ею|ем)?$`)

// patronymKey returns, for a person's name written with a patronymic, the search terms of its
// first name (the word before the patronymic) and its patronymic, joined, and whether the name
// has more words than those two (a surname: «Галиев Тимур Рашидович», «Тимуром Рашидовичем
// Галиевым»); "" when the name has no word before a patronymic.
func patronymKey(surface string) (string, bool) {
	words := textnorm.Words(surface)
	for i := 1; i < len(words); i++ {
		if !patronymRE.MatchString(words[i].Text) {
			continue
		}
		first, patr := textnorm.SearchTerms(words[i-1].Text), textnorm.SearchTerms(words[i].Text)
		if len(first) != 1 || len(patr) != 1 {
			return "", false
		}
		return first[0] + " " + patr[0], len(words) > 2
	}
	return "", false
}

// onlyLegalForms reports whether every word of a recognized name is a legal form: a lone "LLC"
// or «ООО» that spaCy tags as an organization names no one, and as an entity it would match every
// chunk that writes one.
func onlyLegalForms(name string) bool {
	words := textnorm.Words(name)
	for _, w := range words {
		if !textnorm.IsLegalForm(w.Text) {
			return false
		}
	}
	return len(words) > 0
}

// headHints are head nouns that say what kind of thing a name of several words names, whatever
// a small recognizer labelled it: the last word of an English name, the first of a Russian one.
var headHints = func() map[string]string {
	m := map[string]string{}
	// English surnames that are such nouns (Lake, Rivers, Banks, Bay) are left out.
	for _, w := range strings.Fields("labs laboratory laboratories clinic clinics hospital university institute foundation " +
		"company corporation agency academy college holdings society association ministry " +
		"theatre theater museum bank publishers herald gazette tribune chronicle courier " +
		"лаборатория клиника больница университет институт фонд компания корпорация агентство академия колледж " +
		"школа банк ассоциация министерство театр музей издательство типография газета") {
		m[w] = "organization"
	}
	for _, w := range strings.Fields("glacier glaciers peninsula ocean strait mountains " +
		"ледник озеро река залив остров острова полуостров долина море океан пролив хребет") {
		m[w] = "location"
	}
	return m
}()

// headType returns the entity type a name of several words states by its head noun (headHints:
// "Biozoo Labs" an organization, "Aktru Glacier" and «озеро Байкал» places), or "".
func headType(name string) string {
	ws := textnorm.Words(name)
	if len(ws) < 2 {
		return ""
	}
	head := ws[len(ws)-1].Text
	if cyrillic(name) {
		head = ws[0].Text
	}
	return headHints[strings.ToLower(head)]
}

// hasLegalForm reports whether a name is written with an organization's legal form (ООО, Ltd, …).
func hasLegalForm(name string) bool {
	for _, w := range textnorm.Words(name) {
		if textnorm.IsLegalForm(w.Text) {
			return true
		}
	}
	return false
}

// commonNounOpening reports whether a mention is one word that opens its sentence (or a line,
// after a list marker) and is, in lower case, a word the bilingual dictionary translates and the
// gazetteer knows no place by: «Комитет обсудил инциденты …», "Council approved …" — a capital
// only because the sentence begins there, which a small recognizer takes for an organization's
// name (trial 77's chain of hops ran through an organization «Комитет»). A place that is also a
// word («Орёл») is the gazetteer's; without a lexicon nothing is a common noun.
func (n *NER) commonNounOpening(text string, m ner.Mention) bool {
	if n.lex == nil || len(strings.Fields(m.Text)) != 1 || m.Start > len(text) {
		return false
	}
	before := strings.TrimRight(text[:m.Start], " \t-*#>0123456789")
	if before != "" {
		r, _ := utf8.DecodeLastRuneInString(before)
		if !strings.ContainsRune(".!?…\n", r) {
			return false
		}
	}
	if _, named, _ := n.lex.Places().Lookup(m.Text); named {
		return false
	}
	return len(n.lex.Translate(strings.ToLower(m.Text))) > 0
}

// nameLikeSurface reports whether a recognized surface can name an entity: a letter in upper
// case (recognizers tag lower-case words in lists and headings too), at most 8 words and 80
// characters, and more than one letter.
func nameLikeSurface(s string) bool {
	if utf8.RuneCountInString(s) > 80 || len(strings.Fields(s)) > 8 {
		return false
	}
	letters, upper := 0, false
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			upper = upper || unicode.IsUpper(r)
		}
	}
	return letters > 1 && upper
}

func overlaps(spans [][2]int, start, end int) bool {
	for _, s := range spans {
		if start < s[1] && s[0] < end {
			return true
		}
	}
	return false
}

// sentenceEnds returns the byte offsets where the sentences of text end: after '.', '!', '?' or
// '…' followed by white space, and at line breaks; the last is len(text).
func sentenceEnds(text string) []int {
	var ends []int
	for i, r := range text {
		size := utf8.RuneLen(r)
		switch {
		case r == '\n':
			ends = append(ends, i)
		case strings.ContainsRune(".!?…", r):
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			if i+size < len(text) && unicode.IsSpace(next) {
				ends = append(ends, i+size)
			}
		}
	}
	return append(ends, len(text))
}

// coOccurrences adds a CoOccurrence relation, with chunkID as provenance, between every two
// distinct entities (other than skip, the document's subject, which has its own relations) that
// mentions place in one sentence of text, at places that do not overlap: one word linked to two
// homonyms (a public organization and a restricted project both called "Kestrel") names one
// thing, and relates the two to nothing (outside tester). A sentence naming more than
// maxCoOccurring entities adds none.
func coOccurrences(rels relationSet, text, chunkID, skip string, spans []keyedSpan) {
	ends := sentenceEnds(text)
	bySentence := map[int][]string{}
	at := map[string][]keyedSpan{}
	for _, s := range spans {
		if s.key == skip {
			continue
		}
		i := sort.SearchInts(ends, s.start+1)
		if !slices.Contains(bySentence[i], s.key) {
			bySentence[i] = append(bySentence[i], s.key)
		}
		at[s.key] = append(at[s.key], s)
	}
	apart := func(a, b string) bool {
		for _, x := range at[a] {
			for _, y := range at[b] {
				if x.end <= y.start || y.end <= x.start {
					return true
				}
			}
		}
		return false
	}
	for _, keys := range bySentence {
		if len(keys) < 2 || len(keys) > maxCoOccurring {
			continue
		}
		sort.Strings(keys)
		for a := range keys {
			for b := a + 1; b < len(keys); b++ {
				if apart(keys[a], keys[b]) {
					rels.add(keys[a], CoOccurrence, keys[b], chunkID)
				}
			}
		}
	}
}

// keyedSpan is a mention's place in a chunk.
type keyedSpan struct {
	start, end int
	key        string
}
