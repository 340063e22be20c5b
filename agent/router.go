package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// Decision is the router's choice with the evidence for it, as it appears in the trace.
type Decision struct {
	Route      ariadne.Route  `json:"route"`
	Classifier string         `json:"classifier"` // "rules", "llm:<model>", "forced"
	Reasons    []string       `json:"reasons"`
	Features   map[string]int `json:"features,omitempty"`
}

// Linked is an entity the question names, as linked for routing and retrieval.
type Linked struct {
	Key     string `json:"key"`     // as the caller sees it (an opaque uid:… when its own is hidden)
	Name    string `json:"name"`    // as the caller may see it
	Type    string `json:"type"`    // entity type from the ontology
	Surface string `json:"surface"` // the words of the question that name it
	// LatinName: the entity's canonical name is in Latin script (a Cyrillic surface for it is a
	// transliteration or slang: «редис» for Redis).
	LatinName bool `json:"latin_name"`
	// Partial: the question names the entity by one distinctive word of its name ("the Lipetsky
	// plant"), not by a whole name or alias. Routers do not count it.
	Partial bool `json:"partial,omitempty"`
	// names finds this entity in other texts by any of the names and spellings the caller may see
	// (the matcher entity linking confirmed it with); nil when the entity was not linked by Link.
	names *resolution.Matcher
}

// RuleRouter is the default, deterministic and explainable classifier. It scores two families of
// features and explains the decision by listing the features that fired:
//
//   - multi-hop wording: a relative clause («который», «чей», "whose", "of the … that", "sells
//     the beer line that was …" — not when it is the whole question, "What is the team that owns
//     X?" —, "the city where", "the publisher with which", "the country X is from"), a
//     possessive question ("which client's"), nested relational frames ("the spouse of the
//     director of X", "X's director", or one frame inside another question: "What did the author
//     of X study?"), a role held for a named entity inside
//     a question about its holder («В каком офисе сидит аккаунт-менеджер «X»?», "Where does the
//     Helios tech lead sit?", "the engineer named in contract X", "the chain's project"; asking
//     the role itself, «Кто руководитель проекта «X»?», is one hop), a person picked out by
//     what they did («тот, кто …»), a relative «где/куда/откуда» after a noun, a scenario followed by a question
//     (two or more sentences), a subordinate clause of time («, когда …», "After the …"), an
//     anaphoric second question («и кто руководит этой командой», "…, and what is her
//     position"), a comparison of named things ("Who was born first, A or B?", «X и Y в одном
//     городе?»), kin two relations away ("the paternal grandfather of X", «отцом жены X»), a
//     participial phrase with a named agent («мессенджера, основанного Павлом Дуровым»), and
//     several linked entities of different types;
//   - lexical signals that need exact matching: codes and ids (PRJ-2031-042, INC-7702, ERR-7713),
//     technical identifiers (svc-ledger, max_conn_lifetime, CamelCase such as DataHub,
//     versions such as 2.4.0), vowel-less Cyrillic acronyms («впн») and Cyrillic spellings of
//     Latin-named things («редис» for Redis).
//
// Multi-hop wording of weight 3 or more routes to multi_hop; otherwise any lexical signal routes
// to hybrid; otherwise the question is simple.
type RuleRouter struct{}

// rolesRU and rolesEN are nouns (Russian stems) that name a role an entity holds for another
// entity: whoever fills it usually has a page of their own, so a question about them is a hop
// away from the entity the question names.
const (
	rolesRU = `аккаунт-менеджер|менеджер|руководител|тимлид|техлид|владел|автор|создател|основател|директор|начальник|заместител|куратор|архитектор|координатор|администратор|спонсор|заказчик|подрядчик|разработчик|режиссёр|режиссер|композитор|продюсер|сценарист|исполнител|тренер`
	// kinRU: kin and spouses, in full (their stems begin other words: «муж» and «мужчина»).
	kinRU = `жена|жены|жене|жену|женой|муж|мужа|мужу|мужем|отец|отца|отцу|отцом|мать|матери|матерью|сын|сына|сыну|сыном|дочь|дочери|дочерью|брат|брата|брату|братом|сестра|сестры|сестре|сестру|сестрой|супруг|супруга|супруги|супругу|супругой|супругом|вдова|вдовы|вдову|вдовой`
	// genitiveRU: a lowercase word with a genitive-looking ending (or another oblique case that
	// ends the same way), the dependent of a role noun.
	genitiveRU = `[а-яё]+(?:ого|его|ой|ей|ых|их|ов|ев|а|я|ы|и)`
	// thingsEN: nouns for things that have pages of their own, possessed by another ("the
	// chain's project").
	thingsEN = `project|team|service|system|product|platform|cluster|database|office|department|company|contract|vendor|supplier|partner`
	rolesEN  = `manager|lead|leader|head|owner|author|creator|founder|director|chief|ceo|cto|cfo|president|chair|deputy|supervisor|boss|sponsor|maintainer|architect|commander|coordinator|representative|administrator|assignee|contractor|developer|customer|client`
)

var (
	// codeRE: codes in either script (INC-2207, ВБ-2023-04), numbers of documents with a slash
	// (NMT-2024/0093, 118/ПТУ-2025, 23-11/045: outside tester, stop 61 — "NMT-2024/0094" was read
	// as NMT-2024, which the evidence about NMT-2024/0093 held, and answered), letters between
	// numbers (BCT-2024-NS-03: trial 76, two codes before), found with textnorm.FindBounded:
	// RE2's \b knows ASCII letters only.
	codeRE = regexp.MustCompile(`(?:[0-9]+/)?(?:[A-ZА-ЯЁ][A-ZА-ЯЁ0-9]{0,7}-)+[0-9]{2,}(?:[-/](?:[A-ZА-ЯЁ][A-ZА-ЯЁ0-9]{0,7}-)*[0-9]+)*|[0-9]{2,}-[0-9]{2,}/[0-9]{2,}`)
	// identRE: `code spans`, snake_case, kebab-case with a digit, CamelCase, versions (2.4.0).
	identRE = regexp.MustCompile("`[^`]+`|\\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\\b|\\b[a-z][a-z]*[0-9][a-z0-9]*(?:-[a-z0-9]+)+\\b|\\b[a-z][a-z0-9]*(?:-[a-z0-9]*[0-9][a-z0-9]*)+\\b|\\b[A-Z][a-z]+[A-Z][A-Za-z]+\\b|\\b\\d+\\.\\d+\\.\\d+\\b")
	// kebabRE: lower-case hyphenated words; technical only when they name a linked entity
	// (svc-ledger), since "six-hour" and "anti-fraud" are ordinary English.
	kebabRE    = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b`)
	relativeRU = regexp.MustCompile(`(?i)(?:^|[\s,(])(котор(?:ый|ая|ое|ые|ого|ому|ой|ую|ым|ыми|ых|ом)|чей|чья|чьё|чье|чьи|чьего|чьей)(?:[\s,.?!)]|$)`)
	relativeEN = regexp.MustCompile(`(?i)\bwhose\b|\b(?:of|for|from|to|by|in|on|with|under) the [a-z][a-z -]{0,40}? (?:that|which|who)\b|\bwhich \w+'s?\b|\bwhich \w+s' `)
	anaphoraRU = regexp.MustCompile(`(?i)\sи\s+(?:кто|что|какой|какая|какое|какие|где|когда|почему|как|сколько)(?:[\s,]+[^?]*?)?[\s,]+(?:этой|этого|этому|этот|эта|эту|этим|этих|его|её|ее|их)(?:[\s,.?!]|$)`)
	anaphoraEN = regexp.MustCompile(`(?i),?\s+and\s+(?:(?:in|at|on|for|from|to|with|by)\s+)?(?:who|what|which|where|when|why|how)\b[^?]*\b(?:her|his|its|their|that|this|them|he|she)\b`)
	// locativeEN: "the city where …", "the country in which …" — a place named through another fact.
	locativeEN = regexp.MustCompile(`(?i)\bthe [a-z][a-z -]{0,40}? (?:where|(?:in|on|at|from|to|by|under|for|with) (?:which|whom))\b`)
	// reducedRelEN: a relative clause without its pronoun, "the country Signmark is from", or a
	// participle, "the country containing X", "the film directed by X".
	// A participle with its agent, "the client hit by the outage", picks a thing out by an event
	// whatever follows (irregular participles listed).
	reducedRelEN = regexp.MustCompile(`\b[Tt]he [a-z]+ (?:[A-Z][\w.'-]*\s+)+(?:is|was|are|were)\b|\b[Tt]he (?:[a-z]+ ){1,3}?(?:[a-z]+ing|[a-z]+ed (?:by|in|at|on|from|after)) (?:the )?["«A-Z]|` +
		`\b[Tt]he (?:[a-z]+ ){1,3}?(?:[a-z]+ed|hit|run|built|written|led|made|held|sent|caught|bought|sold|taken|given|chosen|known|seen|kept|paid|struck|won|broken|driven|stolen|shut|hurt|found|brought|taught|drawn|grown|thrown|begun|done) by (?:the |a |an )?[a-zA-Z"«]`)
	// thatClauseEN: "the country that produced X" anywhere but right after "What is", where the
	// clause is the whole question ("What is the team that owns X?" is one hop).
	thatClauseEN = regexp.MustCompile(`\b[Tt]he (?:[a-z]+ ){0,2}[a-z]+ (?:that|which|who|whom) [a-zA-Z]`)
	copulaThatEN = regexp.MustCompile(`^(?i:who|what|which)\s+(?:is|are|was|were)\s+the (?:[a-z]+ ){0,2}[a-z]+ (?:that|which|who|whom) `)
	// ofChainEN: "the spouse of the director of X", two frames in a row.
	ofChainEN = regexp.MustCompile(`\bthe (?:[a-z]+ ){1,3}?of the (?:[a-z]+ ){1,3}?of\b`)
	// ofFrameEN and possessiveEN are relational frames, each one hop from a named thing: "the
	// author of Brand", "the first president of X", "the director of film X" (one lowercase noun
	// may say what the name is), "Big Eye's director".
	ofFrameEN    = regexp.MustCompile(`\bthe (?:[a-z]+ ){1,3}?of (?:the )?(?:[a-z]+ )?(?:["«A-Z]|[0-9]+-[a-z])`)
	possessiveEN = regexp.MustCompile(`\b[A-Z][\w.-]*(?:'s|’s|s') [a-z]+`)
	// contractionEN: "What's", "It's" — a verb, not a possessive.
	contractionEN = regexp.MustCompile(`^(?i:what|who|where|when|how|why|which|it|that|there|here|let|he|she)(?:'s|’s)`)
	// copulaLookupEN: "Who is the CEO of X?" asks the frame itself, one hop.
	copulaLookupEN = regexp.MustCompile(`^(?i:who|what|which|where|when)\s+(?:is|are|was|were)\s+(?:the (?:[a-z]+ ){1,3}?of\b|(?:[A-Z][\w.-]*\s+){0,3}[A-Z][\w.-]*(?:'s|’s|s') )`)
	// kinWordRU and frameTailRU: a kin noun (kinRU) and what must follow it for a frame — the
	// same as after a role noun; matched at every kin word, so «отцом жены Пушкина» is two frames.
	kinWordRU   = longest(regexp.MustCompile(`(?i)(?:^|[\s«"(-])(` + kinRU + `)`))
	frameTailRU = regexp.MustCompile(`^\s*(?:[«"A-ZА-ЯЁ]|[a-z]|` + genitiveRU + `\s+[«"A-ZА-ЯЁa-zа-яё0-9])`)
	// participleRU: a participial phrase after its noun, with a named agent (a capitalised word in
	// the instrumental) — «мессенджера, основанного Павлом Дуровым», «романа, написанного
	// Толстым»: the thing is picked out by another entity's act («, получившим Государственную
	// премию» has an object, not an agent).
	// activeParticipleRU: an active participle after a comma opens a participial clause, up to the
	// sentence's end («типографией, напечатавшей афиши к «Соляному пути»», «команду, владеющую
	// сервисом Alpha»); activeClauseNames decides whether it is a hop (outside tester, stop 60).
	activeParticipleRU = regexp.MustCompile(`,\s*[а-яё]{3,}(?:вш|ющ|ящ|ущ|ащ)(?:ий|ая|ее|ие|его|ей|ему|им|ую|ем|их|ими|ою)(?:[^а-яё]([^?!.]*)|$)`)
	// adjectiveEndingRU ends a Russian adjective or participle in any case: «Государственную».
	adjectiveEndingRU = regexp.MustCompile(`(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ого|его|ому|ему|ым|им|ую|юю|ых|их|ыми|ими|ей)$`)
	participleRU      = regexp.MustCompile(`,\s*[а-яё]+(?:нн|вш|ющ|ящ|ем|им)(?:ый|ого|ому|ым|ом|ая|ой|ую|ое|ые|ых|ыми|ий|его|ему|им|ем|ее|ие|их|ими)\s+[«"]?[А-ЯЁA-Z][а-яё]*(?:ом|ем|ой|ей|ым|им|ами|ями)(?:[\s,.?!»"]|$)`)
	// spatialOfEN: "to the west of Portugal", "the rest of Europe" — a place or part, not a relation.
	spatialOfEN = regexp.MustCompile(`^the (?:north|south|east|west|northeast|northwest|southeast|southwest|north-east|north-west|south-east|south-west|center|centre|middle|rest|edge|coast|heart|outskirts) of\b`)
	// anyFrameEN: "the composer of the score for X" — a frame whatever follows it.
	anyFrameEN = regexp.MustCompile(`\bthe (?:[a-z]+ ){1,3}?of\b`)
	// roleFrameRU: a noun naming a role one entity holds for another (a manager, a lead, an
	// owner, an author, a customer) followed by whom it is held for — a name, a quoted name, a
	// Latin word, or a genitive-looking word with more after it: «аккаунт-менеджер «КамТранса»»,
	// «руководитель команды интеграции», «автор фреймворка Tern» (not «… руководитель команды?»,
	// a role in general). It is a hop unless the question asks the role itself (asksRoleRU).
	roleFrameRU = regexp.MustCompile(`(?:^|[\s«"(-])((?i:` + rolesRU + `)[а-яё]*)\s+(?:[«"A-ZА-ЯЁ]|[a-z]|` + genitiveRU + `\s+[«"A-ZА-ЯЁa-zа-яё0-9])`)
	// clientFrameRU: «клиент» is a role only before a genitive, «клиент проекта «Клюква»» ("the
	// client of"); before a name it is the thing's kind, «клиент «Меридиан»» ("client X").
	clientFrameRU = regexp.MustCompile(`(?:^|[\s«"(-])((?i:клиент)[а-яё]*)\s+` + genitiveRU + `\s+[«"A-ZА-ЯЁa-zа-яё0-9]`)
	// roleFrameEN: the same frame as an English compound, "the GrainFlow tech lead", "the Acme
	// account manager" (the "X of Y" and "Y's X" forms are ofFrameEN and possessiveEN).
	roleFrameEN = regexp.MustCompile(`\b[Tt]he (?:[A-Z][\w.-]*\s+){1,3}(?:[a-z]+\s+)?(?:` + rolesEN + `)s?\b`)
	// roleOfEN: a role held for a described thing, "the owner of the leave policy", "the lead of
	// our data team" (ofFrameEN takes the named ones, "the author of Brand").
	roleOfEN = regexp.MustCompile(`\b[Tt]he (?:[a-z]+\s+)?(?:` + rolesEN + `)s? of (?:the|our|this|that|their|its) [a-z]`)
	// participleEN: a thing or person picked out by a fact about it, "the technical lead named in
	// contract X", "the engineer responsible for Y".
	participleEN = regexp.MustCompile(`\b[Tt]he (?:[a-z-]+ ){0,2}[a-z-]+ (?:named|mentioned|listed|cited|quoted|responsible for|assigned to|in charge of)\b`)
	// lowerPossessiveEN: "the Lekar chain's project", "the team's lead": a possessive whose owner is
	// itself a described thing (possessiveEN takes the capitalised names).
	lowerPossessiveEN = regexp.MustCompile(`\bthe (?:[A-Z][\w-]*\s+)*[a-z]+(?:'s|’s) (?:[a-z]+ )?(?:` + rolesEN + `|` + thingsEN + `)s?\b`)
	// eventAfterFrameEN: a question that ends in the frame's filler's own event ("Where was the
	// director of film X born?", "When was the capital of X founded?") asks about that filler,
	// not the frame: copulaLookupEN does not hold.
	eventAfterFrameEN = regexp.MustCompile(`\s(?:born|buried|married|raised|educated|baptized|baptised|killed|murdered|executed|founded|established|created|formed|built|released|published|elected|appointed)\s*\?\s*$`)
	// kinshipEN, kinshipRU: kin two relations away ("the paternal grandfather of X", "X's
	// mother-in-law", «дед X»): a chain of parent, sibling and spouse pages, whatever the wording.
	kinshipEN = regexp.MustCompile(`(?i)\b(?:(?:paternal|maternal)\s+[a-z]+|grandfather|grandmother|grandparents?|grandson|granddaughter|grandchild(?:ren)?|uncle|aunt|nephew|niece|cousin|stepfather|stepmother|stepson|stepdaughter|half-brother|half-sister|[a-z]+-in-law)\b`)
	kinshipRU = regexp.MustCompile(`(?i)(?:^|[\s«"(])(?:дед|дедушк|бабушк|внук|внучк|дяд|тёт|тет[яиеюей]|племянни|свёк|свек|тест[яюь]|тещ|тёщ|зят|невестк|шурин|деверь|двоюродн|прадед|прабабушк|отчим|мачех|пасын|падчериц)[а-яё]*`)
	// copulaPrefixEN: "Who is " before a frame makes the frame the question itself.
	copulaPrefixEN = regexp.MustCompile(`^(?i:who|what|which|where|when)\s+(?:is|are|was|were)\s+$`)
	// correlativeRU: «тот, кто …», «того, кто …» — a person picked out by what they did.
	correlativeRU = regexp.MustCompile(`(?i)(?:^|[\s,])(?:тот|того|тому|тем|том|та|той|ту|те|тех|теми)\s*,?\s*(?:кто|кого|кому|кем|ком)(?:[\s,]|$)`)
	// relAdverbRU: a relative adverb after a noun, «в кластере X, куда пишет Y», «город, где …»;
	// not after a verb of asking («подскажите, где …»).
	relAdverbRU = regexp.MustCompile(`(?i)([а-яёa-z0-9»"]+)\s*,\s*(?:где|куда|откуда)\s`)
	askVerbRU   = regexp.MustCompile(`(?i)^(?:скажи|скажите|подскажи|подскажите|знаешь|знаете|уточни|уточните|напомни|напомните|интересно|покажи|покажите|объясни|объясните)$`)
	subClauseRU = regexp.MustCompile(`(?i),\s*когда\s`)
	subClauseEN = regexp.MustCompile(`^(?i)(?:after|before|during|when|since)\s+(?:the|a|an|our)\b`)
	// Comparisons: two (or more) named things set side by side, each described on its own page —
	// named alternatives at the end of the question ("Who was born first, Alfred Hitchcock or
	// Orson Welles?", «Кто пришёл раньше: X или Y?»), a choice among named things ("Between A and
	// B, which …", «Кто из X и Y …»; not «игра между X и Y», a single event), one attribute said the
	// same of both ("Were A and B of the same nationality?", «X и Y из одного города?») and a
	// comparative with its standard ("Is A older than B?", «X старше, чем Y?»). A name starts with
	// a capital, a quote or a digit; an English alternative may also be a thing described after
	// "the" (altEN).
	comparisonAltEN = regexp.MustCompile(`(?:[,:]|\s[—–-])\s*` + altEN + `[^,?]*?\s+or\s+` + altEN + `[^?]*\?\s*$`)
	comparisonAltRU = regexp.MustCompile(`(?:[,:]|\s[—–-])\s*` + altRU + `[^,?]*?\s+или\s+` + altRU + `[^?]*\?\s*$`)
	betweenEN       = regexp.MustCompile(`^(?i:between|of)\s+(?:the\s+)?` + nameStart + `[^?]*?\s+and\s+(?:the\s+)?` + nameStart + `[^,?]*,`)
	betweenRU       = regexp.MustCompile(`(?i:(?:^|\s)(?:кто|что|как(?:ой|ая|ое|ие|ого|ую)|котор(?:ый|ая|ое|ые|ого|ую))\s+из)\s+` + nameStart + `[^?]*?\s+и\s+` + nameStart)
	sameEN          = regexp.MustCompile(`\b(?:the same|both)\b`)
	sameRU          = regexp.MustCompile(`(?i)(?:^|\s)(?:(?:один|одн(?:ой|ого|ом|ому|у|а|о|и|их))(?:\s+и\s+т(?:от|ой|ого|ом|ому|у|а|о|е|ех)\s+же)?\s+[а-яё]+|оба|обе|обоих|обеих|одинаков[а-яё]*)(?:[^\p{L}\p{N}]|$)`)
	oneOfRU         = regexp.MustCompile(`(?i)(?:^|\s)(?:один|одн(?:ой|ого|ом|ому|у|а|о|и|их))\s+из\s`)
	// whichOfEN: "Which of A and B has more engineers?" (the English «Кто из A и B»).
	whichOfEN  = regexp.MustCompile(`^(?i:which|who)\s+of\s+(?:the\s+)?` + nameStart + `[^?]*?\s+and\s+(?:the\s+)?` + nameStart)
	namesAndEN = regexp.MustCompile(nameStart + `[^?]*?\s+and\s+(?:the\s+)?` + nameStart)
	namesAndRU = regexp.MustCompile(nameStartRU + `[^?]*?\s+и\s+(?:(?:у|в|на|с|из|от|для|за)\s+)?` + nameStartRU)
	// sameAsEN: "Is the manager of A the same person as on B?"
	sameAsEN    = regexp.MustCompile(`\bthe same (?:[a-z]+ ){0,2}?as (?:(?:on|in|at|for|of|with|by|that of)\s+)?(?:the\s+)?` + nameStart)
	thanEN      = regexp.MustCompile(`\b(?:[a-z]+er|more\s+[a-z]+|less\s+[a-z]+|earlier|later)\s+than\s+(?:the\s+)?` + nameStart)
	nameStartRE = regexp.MustCompile(nameStart)
	thanRU      = regexp.MustCompile(`(?i)(?:^|\s)(?:[а-яё]+(?:ее|ей|ше|же)|раньше|позже|больше|меньше|дольше|старше|моложе|младше)\s*,?\s+чем\s+(?:(?:у|в|на|с|из|от|для|за)\s+)?` + nameStart)
)

// altEN starts an alternative of comparisonAltEN: a name, or a thing described after "the"
// ("Which has more staff: the Radiology Department or the neonatal intensive care unit?", a
// trial).
const altEN = `(?:the\s+[a-z]|(?:the\s+)?` + nameStart + `)`

// altRU starts an alternative of comparisonAltRU: a name, after a preposition and a common noun
// that says what the name is when the question gives them («в хозяйстве «Ключи» или в хозяйстве
// «Рассвет»?», a trial).
const altRU = `(?:(?:у|в|на|с|из|от|для|за|о|об)\s+)?(?:[а-яё]+\s+)?` + nameStartRU

// longest makes re prefer the longest alternative («мужа», not «муж»).
func longest(re *regexp.Regexp) *regexp.Regexp {
	re.Longest()
	return re
}

// nameStart is how a name in a question starts: a capital, an opening quote or a digit;
// nameStartRU also takes a lowercase Latin word, which in Russian text is a name or an
// identifier («telemetry-gw»).
const (
	nameStart   = `["«“„A-ZА-ЯЁ0-9]`
	nameStartRU = `["«“„A-ZА-ЯЁ0-9a-z]`
)

// comparison reports whether a question compares named things (see comparisonAltEN): each is
// described in its own document, so the question needs two lookups. The capital that starts the
// sentence does not count as a name; a quote there does.
func comparison(q string) bool {
	_, _, ok := comparedSpan(q)
	return ok
}

// comparedSpan returns the byte span of q that names the compared things (the alternatives "A or
// B", the names joined by "and", or from the first name to the comparative's standard), and
// whether q is a comparison at all.
func comparedSpan(q string) (start, end int, ok bool) {
	body := q
	if r, n := utf8.DecodeRuneInString(q); unicode.IsUpper(r) {
		if lower := string(unicode.ToLower(r)) + q[n:]; len(lower) == len(q) {
			body = lower
		}
	}
	span := func(s string, re *regexp.Regexp) (int, int, bool) {
		if m := re.FindStringIndex(s); m != nil {
			return m[0], m[1], true
		}
		return 0, 0, false
	}
	fromName := func(re *regexp.Regexp) (int, int, bool) {
		m := re.FindStringIndex(body)
		if m == nil {
			return 0, 0, false
		}
		n := nameStartRE.FindStringIndex(body[:m[0]])
		if n == nil {
			return 0, 0, false
		}
		return n[0], m[1], true
	}
	// The patterns that end at the first character of the last name (names joined by "and", a
	// comparative's standard) are extended over the whole name.
	whole := func(start, end int, ok bool) (int, int, bool) {
		if ok {
			_, n := utf8.DecodeLastRuneInString(q[:end])
			end = nameEnd(q, end-n)
		}
		return start, end, ok
	}
	for _, c := range []func() (int, int, bool){
		func() (int, int, bool) { return span(body, comparisonAltEN) },
		func() (int, int, bool) { return span(body, comparisonAltRU) },
		func() (int, int, bool) { return span(q, betweenEN) },
		func() (int, int, bool) { return span(q, betweenRU) },
		func() (int, int, bool) { return whole(span(q, whichOfEN)) },
		func() (int, int, bool) { return whole(fromName(thanEN)) },
		func() (int, int, bool) { return whole(fromName(thanRU)) },
		func() (int, int, bool) {
			if !sameEN.MatchString(body) {
				return 0, 0, false
			}
			return whole(span(body, namesAndEN))
		},
		func() (int, int, bool) { return whole(fromName(sameAsEN)) },
		func() (int, int, bool) {
			if !sameRU.MatchString(body) || oneOfRU.MatchString(body) {
				return 0, 0, false
			}
			return whole(span(body, namesAndRU))
		},
	} {
		if start, end, ok = c(); ok {
			return start, end, true
		}
	}
	return 0, 0, false
}

// nameEnd returns the end of the name that starts at byte i of q: through the closing quote of a
// quoted name («…», "…", “…”, „…“), else over the words that follow while each starts with a
// capital letter or a digit ("Evgeny Sadykov based…" ends before "based").
func nameEnd(q string, i int) int {
	r, n := utf8.DecodeRuneInString(q[i:])
	if closing, ok := map[rune]string{'«': "»", '"': `"`, '“': "”", '„': "“”"}[r]; ok {
		if j := strings.IndexAny(q[i+n:], closing); j >= 0 {
			_, m := utf8.DecodeRuneInString(q[i+n+j:])
			return i + n + j + m
		}
		return len(q)
	}
	word := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".-'’", r)
	}
	j := i
	for {
		for j < len(q) {
			r, n := utf8.DecodeRuneInString(q[j:])
			if !word(r) {
				break
			}
			j += n
		}
		k := j
		for k < len(q) && q[k] == ' ' {
			k++
		}
		if r, _ := utf8.DecodeRuneInString(q[k:]); k == j || k == len(q) || !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			for j > i && q[j-1] == '.' {
				j-- // a full stop ends the sentence, not the name
			}
			return j
		}
		j = k
	}
}

// activeClauseNames reports whether q has an active participle clause after a comma
// (activeParticipleRU) that names something — a quote, a Latin capital, or a capitalized Cyrillic
// word that is no adjective («…, нанявшим Ивана Петрова»): then the clause describes the asked
// thing by another, a hop. A number is no name («сотрудник, проработавший у нас 7 лет»), and
// «первым художником, получившим Государственную премию» names nothing (a capitalized adjective
// starts a common noun's official name): each stays one lookup.
func activeClauseNames(q string) bool {
	for _, m := range activeParticipleRU.FindAllStringSubmatch(q, -1) {
		for _, w := range strings.Fields(m[1]) {
			r, _ := utf8.DecodeRuneInString(w)
			switch {
			case strings.ContainsAny(w, "«\"“") || r >= 'A' && r <= 'Z':
				return true
			case unicode.IsUpper(r) && !adjectiveEndingRU.MatchString(strings.ToLower(strings.Trim(w, ",;:»\"”"))):
				return true
			}
		}
	}
	return false
}

// Features computes the router's features for a question and the entities linked in it.
func Features(question string, linked []Linked) map[string]int {
	f := map[string]int{}
	q := strings.TrimSpace(question)
	if m := relativeRU.FindAllString(q, -1); len(m) > 0 {
		f["relative_clause"] = 3
	}
	if relativeEN.MatchString(q) || locativeEN.MatchString(q) || reducedRelEN.MatchString(q) ||
		thatClauseEN.MatchString(q) && !copulaThatEN.MatchString(q) {
		f["relative_clause"] = 3
	}
	// Relational frames: two are a chain ("the spouse of the director of X"); one is a hop
	// inside another question ("What did the author of X study?") unless the question only asks
	// the frame ("Who is the CEO of X?").
	frames := 0
	for _, m := range ofFrameEN.FindAllString(q, -1) {
		if !spatialOfEN.MatchString(m) {
			frames++
		}
	}
	for _, m := range possessiveEN.FindAllString(q, -1) {
		if !contractionEN.MatchString(m) {
			frames++
		}
	}
	if ofChainEN.MatchString(q) {
		frames += 2
	}
	// Role frames count only where the question does not ask the role itself ("Who is the
	// GrainFlow tech lead?", «Кто аккаунт-менеджер «КамТранса»?»): there they are a hop inside
	// another question and need no lookup exception.
	for _, re := range []*regexp.Regexp{roleFrameEN, roleOfEN, participleEN, lowerPossessiveEN} {
		for _, m := range re.FindAllStringIndex(q, -1) {
			if !copulaPrefixEN.MatchString(q[:m[0]]) {
				f["nested_relation"] = 3
			}
		}
	}
	for _, re := range []*regexp.Regexp{roleFrameRU, clientFrameRU} {
		for _, m := range re.FindAllStringSubmatchIndex(q, -1) {
			if !asksRoleRU(q[:m[2]]) {
				f["nested_relation"] = 3
			}
		}
	}
	if frames >= 2 || frames == 1 && (!copulaLookupEN.MatchString(q) || eventAfterFrameEN.MatchString(q)) {
		f["nested_relation"] = 3
	}
	if eventAfterFrameEN.MatchString(q) {
		for _, m := range anyFrameEN.FindAllString(q, -1) {
			if !spatialOfEN.MatchString(m) {
				f["nested_relation"] = 3
			}
		}
	}
	for _, m := range kinWordRU.FindAllStringSubmatchIndex(q, -1) {
		rest := q[m[3]:]
		if rest != "" && !unicode.IsSpace([]rune(rest)[0]) {
			continue // a longer word («мужчина»)
		}
		if frameTailRU.MatchString(rest) && !asksRoleRU(q[:m[2]]) {
			f["nested_relation"] = 3
		}
	}
	if participleRU.MatchString(q) || activeClauseNames(q) {
		f["relative_clause"] = 3
	}
	if kinshipEN.MatchString(q) || kinshipRU.MatchString(q) {
		f["nested_relation"] = 3
	}
	if comparison(q) {
		f["comparison"] = 3
	}
	if correlativeRU.MatchString(q) {
		f["relative_clause"] = 3
	}
	for _, m := range relAdverbRU.FindAllStringSubmatch(q, -1) {
		if !askVerbRU.MatchString(m[1]) {
			f["relative_clause"] = 3
		}
	}
	// A scenario, then the question: two sentences or more (an initial or an abbreviation ends
	// none: "What is Dr. Anna Volkova's phone number?", «Что И. Белов пообещал?» are one).
	if len(sentences(strings.TrimSpace(q))) >= 2 && strings.HasSuffix(q, "?") {
		f["scenario_then_question"] = 3
	}
	if subClauseRU.MatchString(q) || subClauseEN.MatchString(q) {
		f["subordinate_clause"] = 3
	}
	if anaphoraRU.MatchString(q) || anaphoraEN.MatchString(q) {
		f["anaphoric_second_question"] = 3
	}
	types := map[string]bool{}
	for _, l := range linked {
		if l.Type != "identifier" && l.Type != "component" {
			types[l.Type] = true
		}
	}
	if len(types) >= 2 {
		f["linked_entity_types"] = len(types) - 1
	}
	if n := len(textnorm.FindBounded(codeRE, q)); n > 0 {
		f["codes"] = n
	}
	n := len(identRE.FindAllString(q, -1))
	for _, k := range kebabRE.FindAllString(q, -1) {
		if !identRE.MatchString(k) && namesLinked(k, linked) {
			n++
		}
	}
	if n > 0 {
		f["technical_identifiers"] = n
	}
	for _, w := range textnorm.Words(q) {
		if vowelless(w.Text) {
			f["cyrillic_acronym"]++
		}
	}
	for _, l := range linked {
		if l.LatinName && hasCyrillic(l.Surface) {
			f["cross_script_term"]++
		}
	}
	return f
}

// asksRoleRU reports whether the words before a Russian role noun make the role the question's
// own answer: a "who" or "which" word, then only a copula, an adverb of time or the entity it is
// held for («Кто аккаунт-менеджер …», «Кто у «Лекаря» сейчас менеджер», «Как зовут руководителя
// …», «Какой менеджер …»). «Кому подчиняется менеджер …» and «Кто замещает менеджера …» ask
// something else about the role's holder.
func asksRoleRU(prefix string) bool {
	words := textnorm.Words(prefix)
	if len(words) == 0 {
		return false
	}
	switch strings.ToLower(words[0].Text) {
	case "кто", "кого", "кем", "какой", "какая", "какого", "какую", "каков", "какова", "чей", "чья":
	case "как":
		if len(words) < 2 || strings.ToLower(words[1].Text) != "зовут" && strings.ToLower(words[1].Text) != "звали" {
			return false
		}
		words = words[1:]
	default:
		return false
	}
	afterU := false
	for _, w := range words[1:] {
		lw := strings.ToLower(w.Text)
		switch {
		case lw == "у" || lw == "в" || lw == "при":
			afterU = true
		case afterU, lookupWordsRU[lw], adjectiveRU.MatchString(lw):
		default:
			return false
		}
	}
	return true
}

// lookupWordsRU may stand between a "who" word and the role it asks: a copula, "now", "also",
// "appointed (as)".
var lookupWordsRU = map[string]bool{"зовут": true, "звали": true, "является": true, "являлся": true, "являлась": true, "являются": true,
	"был": true, "была": true, "были": true, "стал": true, "стала": true, "сейчас": true, "теперь": true, "также": true,
	"такой": true, "такая": true, "такие": true, "назначили": true, "назначен": true, "назначена": true, "на": true, "должность": true}

// adjectiveRU: a Russian adjective by its ending («генеральный», «первым», «главного»).
var adjectiveRU = regexp.MustCompile(`^[а-яё-]+(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ого|его|ому|ему|ую|юю|ым|им|ыми|ими|ых|их)$`)

// namesLinked reports whether s is the whole name of a linked entity, as written in the question
// or as the entity is called.
func namesLinked(s string, linked []Linked) bool {
	for _, l := range linked {
		if strings.EqualFold(l.Surface, s) || strings.EqualFold(l.Name, s) {
			return true
		}
	}
	return false
}

// multiHopWeight and lexicalWeight sum the two feature families.
func multiHopWeight(f map[string]int) int {
	return f["relative_clause"] + f["nested_relation"] + f["comparison"] + f["scenario_then_question"] + f["subordinate_clause"] +
		f["anaphoric_second_question"] + f["linked_entity_types"]
}

func lexicalWeight(f map[string]int) int {
	return f["codes"] + f["technical_identifiers"] + f["cyrillic_acronym"] + f["cross_script_term"]
}

// Route classifies a question.
func (RuleRouter) Route(_ context.Context, question string, linked []Linked) Decision {
	f := Features(question, linked)
	d := Decision{Classifier: "rules", Features: f}
	mh, lex := multiHopWeight(f), lexicalWeight(f)
	switch {
	case mh >= 3:
		d.Route = ariadne.RouteMultiHop
		d.Reasons = fired(f, "relative_clause", "nested_relation", "comparison", "scenario_then_question", "subordinate_clause", "anaphoric_second_question", "linked_entity_types")
		d.Reasons = append(d.Reasons, fmt.Sprintf("multi-hop weight %d >= 3", mh))
	case lex > 0:
		d.Route = ariadne.RouteHybrid
		d.Reasons = fired(f, "codes", "technical_identifiers", "cyrillic_acronym", "cross_script_term")
		d.Reasons = append(d.Reasons, "exact terms need BM25 next to vectors")
	default:
		d.Route = ariadne.RouteSimple
		d.Reasons = []string{fmt.Sprintf("no multi-hop wording (weight %d) and no codes or cross-script terms: one fact, one lookup", mh)}
	}
	return d
}

func fired(f map[string]int, names ...string) []string {
	var out []string
	for _, n := range names {
		if f[n] > 0 {
			out = append(out, fmt.Sprintf("%s=%d", n, f[n]))
		}
	}
	return out
}

// vowelless reports whether w is a short Cyrillic word without vowels: an acronym typed in
// Cyrillic («впн», «кпи»).
func vowelless(w string) bool {
	r := []rune(strings.ToLower(w))
	if len(r) < 2 || len(r) > 5 {
		return false
	}
	for _, c := range r {
		if !unicode.Is(unicode.Cyrillic, c) || strings.ContainsRune("аеёиоуыэюя", c) {
			return false
		}
	}
	return true
}

func hasCyrillic(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cyrillic, r) {
			return true
		}
	}
	return false
}
