// Package extraction finds entities and typed relations in chunks, with the chunk ids that
// support each of them.
//
// Two extractors share one interface:
//
//   - Dictionary (offline, the default): every document whose front matter type maps to an entity
//     type describes that entity (its subject); its names come from the title, the first heading,
//     the document id and the aliases its opening sentences announce. Named technical artifacts
//     (code spans such as `billing-gateway`), codes (ERR-7713, INC-7702) and organizations with a legal
//     form (ООО «…», … LLC) are discovered across the corpus. Each chunk is then scanned for every
//     known name (package resolution), and a relation from the document's subject to each entity
//     a chunk mentions is typed by the ontology from the pair of entity types.
//   - LLM: an OpenAI-compatible chat model reads each chunk (fenced as data) and returns entities
//     and relations as JSON constrained by a schema built from the ontology; names stay in the
//     source language. Unknown types are mapped through the ontology or dropped.
//
// Extractors resolve what they find through a resolution.Registry, so the same entity found
// under different spellings in different documents is one entity.
package extraction

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// SubjectInfo is the entity a document describes, as a candidate with the aliases the document
// itself gives.
type SubjectInfo struct {
	resolution.Candidate
	// QuotedOnly are nicknames that are ordinary words («эксплуатация»): they only match quoted.
	QuotedOnly []string
	// Alternates are other names to fall back on (the first heading, the full title) when the
	// primary name is taken by another entity (a project titled with its client's name).
	Alternates []string
	// Updated and Version are the document's (front matter): among pages of one type that give
	// their subjects one name, the newest keeps it (Deconflict).
	Updated string
	Version int
	// Announced are the aliases only the lead gives, after an alias cue or in parentheses («в
	// англоязычных материалах встречается Luchik EdTech»): a cue also fires on another thing's
	// name ("бренд трикотажа группы Lumen Apparel"), so such an alias yields to any other page that
	// names or declares it itself (Deconflict).
	Announced []string
	// NamePinned says that the front matter's aliases list the name too: the author declared it,
	// and another page's announced alias of it renames nothing (Deconflict).
	NamePinned bool
	// CodeAliases are the aliases that are codes written inside a longer name ("PS-3" of "PS-3
	// Reconstruction", «НС-3» of «Переключение на резервный насос НС-3»): the code may name
	// another thing the name is about, so such an alias yields to a page that declares the code
	// or is named by it (Deconflict).
	CodeAliases []string
}

// Subject returns the entity a document describes; ok is false when the document's type does not
// describe an entity. places (nil: none) is the gazetteer: a one-word slug or a name the lead
// announces that names a place it knows is no alias of a subject that is not a location
// (slugAliases); the front matter's aliases are taken as written.
func Subject(doc ariadne.Document, o *ontology.Ontology, places *lexicon.Gazetteer) (SubjectInfo, bool) {
	etype := o.EntityTypeOfDocument(doc.Type)
	if etype == "" {
		return SubjectInfo{}, false
	}
	h1 := firstHeading(doc.Body)
	name, aliases := splitName(doc.Title)
	h1name, h1aliases := splitName(h1)
	if name == "" {
		name = h1name
	}
	if name == "" {
		name = doc.ID
	}
	// A heading that gives the name, a colon and what happened («INC-2041: остановка загрузки
	// снимков») names the subject by the part before the colon (outside tester: the whole heading,
	// and a piece of it without "INC-", were shown as aliases).
	if head, _, ok := strings.Cut(h1name, ": "); ok && textnorm.Key(head) == textnorm.Key(name) {
		h1name = head
	}
	aliases = append(aliases, h1aliases...)
	if h1name != "" && textnorm.Key(h1name) != textnorm.Key(name) {
		aliases = append(aliases, h1name)
	}
	var codes []string
	for _, n := range []string{name, h1name} {
		for _, c := range textnorm.FindBounded(identifierRE, n) {
			aliases = append(aliases, c)
			if textnorm.Key(c) != textnorm.Key(n) {
				codes = append(codes, c)
			}
		}
		aliases = append(aliases, legalCore(n)...)
	}
	aliases = append(aliases, doc.Aliases...)
	if etype == "location" {
		places = nil // a place's page may take the place's name from its slug
	}
	aliases = append(aliases, slugAliases(doc.ID, append([]string{name}, aliases...), places)...)

	lead := leadSentences(doc.Body)
	primary := []string{name}
	if h1name != "" {
		primary = append(primary, h1name)
	}
	found, quoted := announcedAliases(lead, primary, o.AliasCues)
	// «Тартуский университет (Эстония) — партнёр …»: a parenthetical place is where the subject
	// is, not another name of it (trial 77 found "Эстония" an alias of the university).
	found = slices.DeleteFunc(found, func(a string) bool { _, named, _ := places.Lookup(a); return named })
	acronyms := acronymAliases(lead, append(append([]string{name}, aliases...), found...))
	own := map[string]bool{} // keys of the names the page gives its subject itself, not by a cue
	for _, a := range append(append([]string{name}, aliases...), acronyms...) {
		own[textnorm.Key(a)] = true
	}
	aliases = append(aliases, found...)
	aliases = append(aliases, acronyms...)

	info := SubjectInfo{Candidate: resolution.Candidate{Name: name, Type: etype, DocID: doc.ID}, Updated: doc.Updated, Version: doc.Version,
		NamePinned: slices.ContainsFunc(doc.Aliases, func(a string) bool { return textnorm.Key(a) == textnorm.Key(name) })}
	// Aliases are kept once per match key — except the ones the front matter declares, which are
	// kept once per spelling: «Марта Келлер» declared for Marta Keller shares her key and is still
	// the name a reader of the entity expects to see (a trial found declared names missing).
	seen := map[string]bool{textnorm.Key(name): true}
	spelled := map[string]bool{textnorm.FoldString(name): true}
	for _, a := range aliases {
		a = strings.TrimSpace(a)
		k := textnorm.Key(a)
		if k == "" || !hasLetter(a) || textnorm.IsLegalForm(a) {
			continue
		}
		if seen[k] && (spelled[textnorm.FoldString(a)] || !slices.Contains(doc.Aliases, a)) {
			continue
		}
		seen[k], spelled[textnorm.FoldString(a)] = true, true
		info.Aliases = append(info.Aliases, a)
		if slices.Contains(codes, a) && !slices.Contains(doc.Aliases, a) {
			info.CodeAliases = append(info.CodeAliases, a)
		}
		if !own[k] {
			info.Announced = append(info.Announced, a)
		}
	}
	for _, q := range quoted {
		if k := textnorm.Key(q); k != "" && !seen[k] {
			seen[k] = true
			info.QuotedOnly = append(info.QuotedOnly, q)
		}
	}
	for _, alt := range []string{h1name, strings.TrimSpace(doc.Title)} {
		if alt != "" && textnorm.Key(alt) != textnorm.Key(name) {
			info.Alternates = append(info.Alternates, alt)
		}
	}
	return info, true
}

// legalCore returns the name inside the quotes of an organization written with a legal form
// (МУП «Горводоканал» г. Заречного → Горводоканал) and the name without its legal form.
func legalCore(name string) []string {
	words := textnorm.Words(name)
	if len(words) < 2 || !textnorm.IsLegalForm(words[0].Text) {
		return nil
	}
	var out []string
	if open := strings.Index(name, "«"); open >= 0 {
		inner := name[open+len("«"):]
		depth, end := 1, -1
		for i, r := range inner {
			if r == '«' {
				depth++
			} else if r == '»' {
				if depth--; depth == 0 {
					end = i
					break
				}
			}
		}
		if end < 0 {
			end = len(inner)
		}
		out = append(out, strings.NewReplacer("«", "", "»", "").Replace(inner[:end]))
	}
	out = append(out, strings.TrimSpace(name[words[1].Start:]))
	return out
}

// Deconflict makes the subjects of a batch of documents name distinct things. A subject whose
// name is another entity's name or alias of a different type (a project titled with its client's
// name: «Тер-Пласт — выдача результатов анализов в PDF») is renamed to its first alternate that is
// free — unless its front matter lists the name among its aliases too (NamePinned) and only
// aliases a lead's cue announced (Announced) take it; an alias that is another subject's name is
// dropped, so is an announced one that another subject names or declares itself, and so is a
// code the name writes inside a longer name (CodeAliases) that another subject declares or is
// named by — such an alias never renames a page named by the code ("RA-73412 — Airbus A320neo"
// stays "RA-73412" beside the project "C-check RA-73412", which loses the alias). taken holds the
// name keys (textnorm.Key) of entities known from earlier runs, mapped to their types.
//
// Subjects are renamed only for subjects with the same readers (acl): a page some of whose
// readers may not read another never changes its name because of it (that would tell them the
// other exists), and a public page cannot rename a restricted one by taking its name (a decoy
// titled like a management-only contract) — two such pages keep one name, as two entities the
// name means both (agent: a question naming it links both for a caller who may read both).
func Deconflict(subjects []SubjectInfo, taken map[string]string) {
	// users: readers → name key → the types that use it as a name or alias (this batch, and
	// earlier runs for every readers).
	users := map[string]map[string]map[string]bool{}
	use := func(readers, k, typ string) {
		if users[readers] == nil {
			users[readers] = map[string]map[string]bool{}
		}
		if users[readers][k] == nil {
			users[readers][k] = map[string]bool{}
		}
		users[readers][k][typ] = true
	}
	pinned := map[[2]string]bool{} // readers and key of the names their front matter declares too
	for _, s := range subjects {
		if s.NamePinned {
			pinned[[2]string{readersOf(s), textnorm.Key(s.Name)}] = true
		}
	}
	for _, s := range subjects {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			k := textnorm.Key(n)
			if slices.Contains(s.CodeAliases, n) || slices.Contains(s.Announced, n) && pinned[[2]string{readersOf(s), k}] {
				continue // it yields to a page named by the code, or that declares the name (below)
			}
			use(readersOf(s), k, s.Type)
		}
	}
	for r := range users {
		for k, typ := range taken {
			use(r, k, typ)
		}
	}
	for i := range subjects {
		s := &subjects[i]
		r := readersOf(*s)
		if len(users[r][textnorm.Key(s.Name)]) <= 1 {
			continue
		}
		for _, alt := range s.Alternates {
			k := textnorm.Key(alt)
			if types := users[r][k]; len(types) == 0 || (len(types) == 1 && types[s.Type]) {
				s.Aliases = slices.DeleteFunc(s.Aliases, func(a string) bool { return textnorm.Key(a) == k })
				s.Name = alt
				use(r, k, s.Type)
				break
			}
		}
	}
	renameHomonyms(subjects, taken)
	// names: readers and primary name key → the documents whose subject has that name.
	names := map[[2]string][]string{}
	for _, s := range subjects {
		k := [2]string{readersOf(s), textnorm.Key(s.Name)}
		names[k] = append(names[k], s.DocID)
	}
	// claimed: readers and key → the documents whose subject has it as its name or as an alias
	// that is not a code inside a longer name (SubjectInfo.CodeAliases).
	claimed := map[[2]string][]string{}
	// declared: the same for names and the aliases a page gives its subject itself (not
	// Announced): an announced alias another page declares is that page's (trial 78: "Lumen
	// Apparel", the group's declared alias, announced on its brand's page after «бренд»).
	declared := map[[2]string][]string{}
	for _, s := range subjects {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			k := [2]string{readersOf(s), textnorm.Key(n)}
			if !slices.Contains(s.CodeAliases, n) {
				claimed[k] = append(claimed[k], s.DocID)
			}
			if !slices.Contains(s.Announced, n) {
				declared[k] = append(declared[k], s.DocID)
			}
		}
	}
	other := func(docs []string, self string) bool {
		return slices.ContainsFunc(docs, func(d string) bool { return d != self })
	}
	for i := range subjects {
		s := &subjects[i]
		r := readersOf(*s)
		s.Aliases = slices.DeleteFunc(s.Aliases, func(a string) bool {
			k := [2]string{r, textnorm.Key(a)}
			return other(names[k], s.DocID) || slices.Contains(s.CodeAliases, a) && other(claimed[k], s.DocID) ||
				slices.Contains(s.Announced, a) && other(declared[k], s.DocID)
		})
		s.Announced = slices.DeleteFunc(s.Announced, func(a string) bool { return !slices.Contains(s.Aliases, a) })
	}
}

// renameHomonyms gives distinct names to subjects of one type that share their primary name (a
// policy and its superseded edition, both titled «Положение о ежегодном отпуске»): the two would
// be two entities spelled alike, and every other document's mention of the name would be
// ambiguous and dropped. One keeps the name — the one without another name to fall back on (its
// title and first heading are the name itself), else the most recently updated, then the highest
// version, then the smallest document id — and each other takes its first alternate that no
// other subject and no earlier entity uses («Положение о ежегодном отпуске, редакция 2022
// года»). A subject without a free alternate keeps the shared name. The choice depends on the set
// of subjects, not on their order.
func renameHomonyms(subjects []SubjectInfo, taken map[string]string) {
	// owners: name key → the documents whose subject uses it as its name or an alias.
	owners := map[string]map[string]bool{}
	own := func(k, doc string) {
		if owners[k] == nil {
			owners[k] = map[string]bool{}
		}
		owners[k][doc] = true
	}
	for _, s := range subjects {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			own(textnorm.Key(n), s.DocID)
		}
	}
	groups := map[[3]string][]int{}
	var order [][3]string
	for i, s := range subjects {
		g := [3]string{s.Type, textnorm.Key(s.Name), readersOf(s)}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	for _, g := range order {
		members := slices.Clone(groups[g])
		if len(members) < 2 {
			continue
		}
		slices.SortFunc(members, func(a, b int) int { return keeperOrder(subjects[a], subjects[b]) })
		for _, i := range members[1:] {
			s := &subjects[i]
			for _, alt := range s.Alternates {
				k := textnorm.Key(alt)
				if _, used := taken[k]; used || k == "" || k == g[1] {
					continue
				}
				if others := owners[k]; len(others) > 1 || len(others) == 1 && !others[s.DocID] {
					continue
				}
				s.Aliases = slices.DeleteFunc(s.Aliases, func(a string) bool { return textnorm.Key(a) == k })
				s.Name = alt
				own(k, s.DocID)
				break
			}
		}
	}
}

// readersOf identifies a subject's readers: its document's acl groups, sorted ("" for none).
func readersOf(s SubjectInfo) string {
	acl := slices.Clone(s.ACL)
	slices.Sort(acl)
	return strings.Join(slices.Compact(acl), ",")
}

// keeperOrder orders the subjects that share a name: the one that keeps it first (see
// renameHomonyms).
func keeperOrder(a, b SubjectInfo) int {
	if (len(a.Alternates) == 0) != (len(b.Alternates) == 0) {
		if len(a.Alternates) == 0 {
			return -1
		}
		return 1
	}
	if a.Updated != b.Updated {
		return -strings.Compare(a.Updated, b.Updated)
	}
	if a.Version != b.Version {
		return b.Version - a.Version
	}
	return strings.Compare(a.DocID, b.DocID)
}

// identifierRE matches codes that name things: ERR-7713, INC-7702, PRJ-2031-042, SV-OPS-2030-007,
// ВБ-2023-04, and numbers of documents with a slash, «ДГ-2025/14» (outside tester: the code was
// cut at the slash, so every «ДГ-2025/NN» a note wrote was that one contract). Find them with
// textnorm.FindBounded: the pattern has no \b, which in RE2 knows ASCII letters only and kept
// every Cyrillic code from matching.
var identifierRE = regexp.MustCompile(`(?:[A-ZА-ЯЁ][A-ZА-ЯЁ0-9]{0,7}-)+[0-9][0-9]{0,5}(?:[-/][0-9]{1,5})*`)

// splitName cuts a title into the name and the aliases it carries: the part before " — "
// (a description follows), without parenthetical remarks, whose name-like parts are aliases when
// they are another name of the same thing (parentheticalAlias: «Сборочная команда (Assembly
// team)», "x-relay (Relay)") and not a disambiguator ("Galicia (Spain)", "Victoria (Australia)":
// Spain is not another name of Galicia). A title written with underscores for
// spaces ("Victoria_(Australia)", a Wikipedia page name) is read with spaces.
func splitName(title string) (string, []string) {
	t := strings.TrimSpace(title)
	if !strings.ContainsAny(t, " \t") {
		t = strings.TrimSpace(strings.ReplaceAll(t, "_", " "))
	}
	for _, sep := range []string{" — ", " – ", " | ", " - "} {
		if i := strings.Index(t, sep); i > 0 {
			t = t[:i]
			break
		}
	}
	var aliases []string
	for {
		open := strings.Index(t, "(")
		if open < 0 {
			break
		}
		end := strings.Index(t[open:], ")")
		if end < 0 {
			break
		}
		for _, part := range splitList(t[open+1 : open+end]) {
			if nameLike(part) && !shouting(part) {
				aliases = append(aliases, part)
			}
		}
		t = strings.TrimSpace(t[:open] + t[open+end+1:])
	}
	name := strings.Join(strings.Fields(t), " ")
	aliases = slices.DeleteFunc(aliases, func(a string) bool { return !parentheticalAlias(name, a) })
	aliases = append(aliases, conjoined(name)...)
	return name, aliases
}

// parentheticalAlias reports whether a name-like parenthetical of a title is another name of the
// title's subject: written in the other script (a translation or transliteration: «Сборочная
// команда (Assembly team)», «Группа выпуска (RE)»), sharing a word with the name by its Latin key
// ("x-relay (Relay)"), or the initials of the name's words («Сборочная команда (СК)», "Release
// Engineering (RE)"). Otherwise it qualifies the name — a place, a kind, a work's author
// ("Galicia (Spain)", "Brother (Pearl Jam song)") — and naming that is not naming the subject.
func parentheticalAlias(name, part string) bool {
	if name == "" || cyrillicShare(name) > 0.5 != (cyrillicShare(part) > 0.5) {
		return true
	}
	nk, pk := textnorm.KeyTokens(name), textnorm.KeyTokens(part)
	for _, a := range pk {
		for _, b := range nk {
			if len(a) >= 3 && len(b) >= 3 && (strings.Contains(a, b) || strings.Contains(b, a)) {
				return true
			}
		}
	}
	a := textnorm.Acronym(name)
	return len(a) >= 2 && textnorm.Latin(strings.Join(strings.Fields(part), "")) == a
}

// conjoined returns the parts of a name that joins single-word names with "and" / «и» / "&"
// ("HAProxy and keepalived", "Memcached and Redpanda"); nil otherwise.
func conjoined(name string) []string {
	for _, sep := range []string{" and ", " и ", " & "} {
		parts := strings.Split(name, sep)
		if len(parts) < 2 {
			continue
		}
		for _, p := range parts {
			if len(strings.Fields(p)) != 1 {
				return nil
			}
		}
		return parts
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// nameLike reports whether a short phrase looks like a proper name: at most 5 words and 60
// characters, containing an upper-case letter or a quote mark, and not a clause.
func nameLike(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 60 || len(strings.Fields(s)) > 5 {
		return false
	}
	for _, r := range s {
		if unicode.IsUpper(r) || strings.ContainsRune("«\"“", r) {
			return true
		}
	}
	return false
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func firstHeading(body string) string {
	for line := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			return strings.TrimSpace(strings.TrimLeft(t, "#"))
		}
	}
	return ""
}

// slugAliases turns the last segment of a document id into a name ("projects/terplast-crm" →
// "terplast-crm") when it has several words; a one-word slug counts only when it is one of the
// name's words, and then keeps that word's spelling (so "Redpanda" stays capitalized) — unless
// places (the gazetteer; nil: none) knows the word as a place: "breweries/vyborg" of "Vyborg
// Brewery" would make the town's name, and every «Выборге» it matches, the brewery's (trial 77).
func slugAliases(id string, names []string, places *lexicon.Gazetteer) []string {
	slug := id[strings.LastIndex(id, "/")+1:]
	words := strings.FieldsFunc(slug, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	if len(words) == 0 {
		return nil
	}
	if len(words) > 1 {
		return []string{slug} // as written, so a code such as inc-7702 keeps its prefix
	}
	want := textnorm.Latin(words[0])
	for _, n := range names {
		for _, w := range textnorm.Words(n) {
			if textnorm.Latin(w.Text) == want {
				if _, named, _ := places.Lookup(w.Text); named {
					return nil
				}
				return []string{w.Text}
			}
		}
	}
	return nil
}

// leadSentences returns the first maxLeadSentences sentences of the first paragraph of body text
// (skipping headings, tables and lists), where documents introduce their subject and its other
// names.
func leadSentences(body string) []string {
	var paras []string
	for _, block := range strings.Split(body, "\n\n") {
		b := strings.TrimSpace(block)
		if b == "" || strings.HasPrefix(b, "#") || strings.HasPrefix(b, "|") || strings.HasPrefix(b, "-") ||
			strings.HasPrefix(b, "*") || strings.HasPrefix(b, "```") || strings.HasPrefix(b, ">") {
			continue
		}
		paras = append(paras, b)
		break
	}
	var out []string
	for _, p := range paras {
		start := 0
		runes := []rune(p)
		for i, r := range runes {
			if (r == '.' || r == '!' || r == '?') && (i+1 == len(runes) || unicode.IsSpace(runes[i+1])) {
				out = append(out, strings.TrimSpace(string(runes[start:i+1])))
				start = i + 1
			}
		}
		if rest := strings.TrimSpace(string(runes[start:])); rest != "" {
			out = append(out, rest)
		}
	}
	return out[:min(len(out), maxLeadSentences)]
}

// maxLeadSentences bounds the lead: a document introduces its subject's other names when it
// introduces the subject, not deep into a paragraph of narrative.
const maxLeadSentences = 3

var (
	quotedRE = regexp.MustCompile(`«([^«»]{1,60}(?:«[^«»]{1,40}»[^«»]{0,20})?)»|"([^"]{1,60})"|“([^”]{1,60})”`)
	// latinPhraseRE: capitalized Latin words in a row ("Ter Plast LLC", "Security Office").
	latinPhraseRE = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*(?:[ -][A-Z][A-Za-z0-9]*){0,4}\b`)
	// distinctiveRE: CamelCase or all-caps words ("GorVodoKanal", "PDFMill", "SMW", "СМЗ"), found
	// with textnorm.FindBounded (RE2's \b is ASCII-only: «СМЗ» never matched).
	distinctiveRE = regexp.MustCompile(`[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-ZА-ЯЁ]{2,6}`)
)

// announcedAliases finds the other names a document's lead gives its subject: parenthetical
// remarks right after one of its primary names (parts that are names themselves, or names after
// an alias cue inside them), and, in a sentence with an alias cue word («называют», "also
// written"), the quoted names, CamelCase or all-caps words, and — in non-Latin sentences —
// capitalized Latin phrases that follow the cue (up to the closing parenthesis when the cue is
// inside one). Quoted lower-case phrases are returned as quotedOnly.
func announcedAliases(lead []string, primary []string, cues []string) (aliases, quotedOnly []string) {
	m := nameMatcher(primary)
	add := func(s string, quoted bool) {
		s = strings.Trim(strings.TrimSpace(s), ".,;:—–-")
		if s == "" || !hasLetter(s) || utf8.RuneCountInString(s) > 60 || len(strings.Fields(s)) > 5 ||
			textnorm.IsLegalForm(s) || shouting(s) {
			return
		}
		if quoted && !nameLike(s) {
			if len(strings.Fields(s)) <= 3 {
				quotedOnly = append(quotedOnly, s)
			}
			return
		}
		aliases = append(aliases, s)
	}
	for _, sent := range lead {
		// Parenthetical remarks right after the name: «… завод» (СМЗ), Команда данных (Data Engineering).
		for _, match := range m.Find(sent) {
			rest := strings.TrimLeft(sent[match.End:], " »\"”")
			if !strings.HasPrefix(rest, "(") {
				continue
			}
			end := strings.Index(rest, ")")
			if end < 0 {
				continue
			}
			for _, part := range splitList(rest[1:end]) {
				if at := cueIndex(part, cues); at >= 0 {
					collectAfterCue(part[at:], add)
				} else if remark(part) {
					// A remark that contains a name («в английских документах Zhatva»): the name
					// only, as after a cue (outside tester: the whole remark was an alias).
					collectAfterCue(part, add)
				} else if nameLike(part) || quotedRE.MatchString(part) {
					add(strings.Trim(part, "«»\"“”"), strings.ContainsAny(part, "«\"“"))
				}
			}
		}
		if at := cueIndex(sent, cues); at >= 0 {
			region := sent[at:]
			if open, closing := strings.LastIndex(sent[:at], "("), strings.LastIndex(sent[:at], ")"); open > closing {
				// The cue is inside a parenthetical remark: the remark is the list of names.
				region = sent[open+1:]
				if end := strings.Index(region, ")"); end >= 0 {
					region = region[:end]
				}
			}
			collectAfterCue(region, add)
		}
	}
	return aliases, quotedOnly
}

// remark reports whether a parenthetical part is a phrase of several words that starts with a
// lower-case word («в английских документах Zhatva», "formerly Acme Ltd") rather than a name.
func remark(part string) bool {
	ws := strings.Fields(part)
	if len(ws) < 2 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(ws[0])
	return unicode.IsLower(r)
}

// shouting reports whether s is several words in capitals (emphasis such as «УТРАТИЛА СИЛУ»).
func shouting(s string) bool {
	ws := textnorm.Words(s)
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		if !w.AllUpper {
			return false
		}
	}
	return true
}

// collectAfterCue adds the names in s (the part of a sentence after an alias cue).
func collectAfterCue(s string, add func(string, bool)) {
	for _, q := range quotedRE.FindAllStringSubmatch(s, -1) {
		add(q[1]+q[2]+q[3], true)
	}
	rest := quotedRE.ReplaceAllString(s, " | ")
	// In a Russian remark a Latin phrase is a name; in an English one ("in Russian documents
	// «СевероВет»") capitalized words are English words: the share leaves the quoted names out.
	if cyrillicShare(rest) > 0.3 {
		for _, p := range latinPhraseRE.FindAllString(rest, -1) {
			add(p, false)
		}
		rest = latinPhraseRE.ReplaceAllString(rest, " | ")
	}
	for _, d := range textnorm.FindBounded(distinctiveRE, rest) {
		add(d, false)
	}
}

// cueIndex returns the byte offset just after the first alias cue word in s, or -1. A cue
// followed by a preposition announces no name: "is written in TypeScript", "known for its
// bakeries", «известна по всему региону» (an outside tester: "written in TypeScript and stores
// readings in ClickHouse" made both aliases of a project), while "also written PDFMill", "known
// as Kestrel" and «в обиходе называют «Кафка»» do.
func cueIndex(s string, cues []string) int {
	words := textnorm.Words(s)
	for i, w := range words {
		f := textnorm.FoldString(w.Text)
		for _, c := range cues {
			if strings.HasPrefix(f, c) {
				if i+1 < len(words) && cuePrepositions[strings.ToLower(words[i+1].Text)] {
					break
				}
				return w.End
			}
		}
	}
	return -1
}

// cuePrepositions after a cue word make it an ordinary verb or adjective ("written in", «известна
// по»); "as" is not one of them ("known as").
var cuePrepositions = map[string]bool{"in": true, "on": true, "by": true, "for": true, "with": true, "to": true,
	"at": true, "from": true, "about": true, "into": true, "в": true, "на": true, "по": true, "для": true, "с": true,
	"со": true, "от": true, "из": true, "о": true, "об": true}

func cyrillicShare(s string) float64 {
	var cyr, letters int
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Cyrillic, r) {
				cyr++
			}
		}
	}
	if letters == 0 {
		return 0
	}
	return float64(cyr) / float64(letters)
}

// acronymAliases returns the all-caps words of the lead that are acronyms of one of the names
// («СМЗ» for «Сосновский машиностроительный завод», "SMW" for "Sosnovsky Machine Works"), and
// the capitalized phrases of the lead that one of the names abbreviates ("Site Reliability
// Engineering" for "SRE team").
func acronymAliases(lead []string, names []string) []string {
	acr := map[string]bool{}
	short := map[string]bool{}
	for _, n := range names {
		if a := textnorm.Acronym(n); len(a) >= 2 {
			acr[a] = true
		}
		// The letters of a code are no short form of a name: «ВБ» of «Договор ВБ-2023-04» does
		// not abbreviate the client «Винотека Балтика» its lead names (a trial's contract took
		// the client's name as an alias).
		for _, w := range textnorm.Words(textnorm.ReplaceBounded(identifierRE, n, func(string) string { return " " })) {
			if w.AllUpper && utf8.RuneCountInString(w.Text) >= 2 {
				short[textnorm.Latin(w.Text)] = true
			}
		}
	}
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range lead {
		for _, w := range textnorm.Words(s) {
			if w.AllUpper && utf8.RuneCountInString(w.Text) >= 2 && acr[textnorm.Latin(w.Text)] {
				add(w.Text)
			}
		}
		for _, p := range capitalizedPhraseRE.FindAllString(s, -1) {
			// Try every run of two or more of the phrase's words ("The Site Reliability
			// Engineering" holds "Site Reliability Engineering").
			ws := textnorm.Words(p)
			for i := range ws {
				for j := i + 2; j <= len(ws); j++ {
					sub := p[ws[i].Start:ws[j-1].End]
					if a := textnorm.Acronym(sub); short[a] && !containsWord(ws[i:j], a) {
						add(sub)
					}
				}
			}
		}
	}
	return out
}

// containsWord reports whether one of ws is the short form itself ("DP Bank" is not an expansion
// of "KB").
func containsWord(ws []textnorm.Token, latin string) bool {
	for _, w := range ws {
		if textnorm.Latin(w.Text) == latin {
			return true
		}
	}
	return false
}

// capitalizedPhraseRE finds runs of two to five capitalized words in any script.
var capitalizedPhraseRE = regexp.MustCompile(`\p{Lu}[\p{L}\p{N}]*(?:[ -]\p{Lu}[\p{L}\p{N}]*){1,4}`)

// nameMatcher matches any of names in running text.
func nameMatcher(names []string) *resolution.Matcher {
	var as []resolution.Alias
	for _, n := range names {
		as = append(as, resolution.Alias{Text: n, EntityKey: "subject"})
	}
	return resolution.NewMatcher(as)
}
