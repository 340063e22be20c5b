// Package synth generates a synthetic knowledge base for scale benchmarks: typed pages (client,
// project, person, team, technology, incident, meeting notes) with YAML front matter in the
// format corpus.Load reads, plus free-text notes without a subject, in Russian and English.
// Names are built from syllables that exist in both scripts, so one entity appears in Cyrillic
// and Latin spellings; which entity a page or note mentions is drawn from a Zipf distribution,
// so a few entities are hubs and most are rare, as in real corpora. The same seed and entity
// count always give the same documents. Nothing here knows any evaluation set.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is an entity type of the default ontology that has its own pages.
type Kind string

// The entity kinds the generator creates, and their share of the entities.
const (
	Client     Kind = "client"
	Project    Kind = "project"
	Person     Kind = "person"
	Team       Kind = "team"
	Technology Kind = "technology"
)

// kindFolder is the folder (and id prefix) of each kind's pages.
var kindFolder = map[Kind]string{Client: "clients", Project: "projects", Person: "people", Team: "teams", Technology: "technologies"}

var kindShare = []struct {
	k     Kind
	share float64
}{{Person, 0.45}, {Project, 0.2}, {Client, 0.12}, {Technology, 0.15}, {Team, 0.08}}

// Entity is one generated entity: its page id, type and its name in both scripts.
type Entity struct {
	ID    string
	Kind  Kind
	Latin string
	Cyr   string
}

// Name is the entity's name in the given language ("ru": Cyrillic, else Latin).
func (e Entity) Name(lang string) string {
	if lang == "ru" {
		return e.Cyr
	}
	return e.Latin
}

// Doc is one generated file: a path relative to the corpus root and its bytes.
type Doc struct {
	Path    string
	Content []byte
}

// Generator draws documents. Not safe for concurrent use.
type Generator struct {
	rng      *rand.Rand
	entities []Entity
	byKind   map[Kind][]int // indexes into entities, in popularity order (index 0 is the hub)
	zipf     map[Kind]*rand.Zipf
	next     int // typed pages written so far (one per entity, then notes)
	notes    int
}

// syllable pairs: the same sound in Latin and Cyrillic.
var syllables = [][2]string{
	{"ber", "бер"}, {"ez", "ез"}, {"in", "ин"}, {"kol", "кол"}, {"es", "ес"}, {"nik", "ник"}, {"tun", "тун"},
	{"dra", "дра"}, {"or", "ор"}, {"bi", "би"}, {"ta", "та"}, {"mar", "мар"}, {"ko", "ко"}, {"vo", "во"},
	{"lan", "лан"}, {"ga", "га"}, {"ro", "ро"}, {"sen", "сен"}, {"dul", "дул"}, {"pa", "па"}, {"mi", "ми"},
	{"ras", "рас"}, {"tol", "тол"}, {"ve", "ве"}, {"zar", "зар"}, {"lo", "ло"}, {"nad", "над"}, {"gor", "гор"},
	{"sa", "са"}, {"ri", "ри"}, {"fen", "фен"}, {"dor", "дор"}, {"ul", "ул"}, {"am", "ам"}, {"bur", "бур"},
	{"tek", "тек"}, {"lim", "лим"}, {"nor", "нор"}, {"pet", "пет"}, {"sol", "сол"},
}

var (
	firstNames = [][2]string{{"Artem", "Артём"}, {"Vera", "Вера"}, {"Ivan", "Иван"}, {"Olga", "Ольга"}, {"Pavel", "Павел"},
		{"Irina", "Ирина"}, {"Denis", "Денис"}, {"Anna", "Анна"}, {"Roman", "Роман"}, {"Maria", "Мария"},
		{"Oleg", "Олег"}, {"Nina", "Нина"}, {"Boris", "Борис"}, {"Elena", "Елена"}, {"Gleb", "Глеб"},
		{"Daria", "Дарья"}, {"Kirill", "Кирилл"}, {"Sofia", "Софья"}, {"Timur", "Тимур"}, {"Alla", "Алла"}}
	surnameEnd = [][2]string{{"ov", "ов"}, {"in", "ин"}, {"sky", "ский"}, {"enko", "енко"}, {"ev", "ев"}}
	orgSuffix  = [][2]string{{"Energo", "Энерго"}, {"Stroy", "Строй"}, {"Logistic", "Логистик"}, {"Med", "Мед"}, {"Trans", "Транс"}, {"Agro", "Агро"}}
	projSuffix = [][2]string{{"Booking", "Букинг"}, {"Portal", "Портал"}, {"Sites", "Площадки"}, {"Ledger", "Леджер"}, {"Tracker", "Трекер"}, {"Pay", "Пэй"}}
	cities     = [][2]string{{"Tomsk", "Томск"}, {"Kazan", "Казань"}, {"Perm", "Пермь"}, {"Samara", "Самара"}, {"Omsk", "Омск"}}
)

func capitalize(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// New returns a generator of entities entities (at least 20) with the given seed.
func New(seed uint64, entities int) *Generator {
	entities = max(entities, 20)
	g := &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), byKind: map[Kind][]int{}, zipf: map[Kind]*rand.Zipf{}}
	seen := map[string]bool{}
	for _, ks := range kindShare {
		n := max(2, int(float64(entities)*ks.share))
		for i := 0; i < n; i++ {
			var e Entity
			for try := 0; ; try++ {
				e = g.name(ks.k)
				if !seen[strings.ToLower(e.Latin)] {
					break
				}
				if try > 50 { // the syllable space is large; disambiguate the rare collision
					e.Latin += fmt.Sprintf(" %d", i)
					e.Cyr += fmt.Sprintf(" %d", i)
					break
				}
			}
			seen[strings.ToLower(e.Latin)] = true
			e.Kind = ks.k
			e.ID = kindFolder[ks.k] + "/" + slug(e.Latin)
			g.byKind[ks.k] = append(g.byKind[ks.k], len(g.entities))
			g.entities = append(g.entities, e)
		}
		// s = 1.1: a heavy head (the top entity is mentioned in a large share of documents).
		g.zipf[ks.k] = rand.NewZipf(g.rng, 1.1, 1, uint64(n-1))
	}
	return g
}

func slug(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), " ", "-")
}

func (g *Generator) word(parts int) (string, string) {
	var l, c strings.Builder
	for i := 0; i < parts; i++ {
		s := syllables[g.rng.IntN(len(syllables))]
		l.WriteString(s[0])
		c.WriteString(s[1])
	}
	return capitalize(l.String()), capitalize(c.String())
}

func (g *Generator) name(k Kind) Entity {
	switch k {
	case Person:
		f := firstNames[g.rng.IntN(len(firstNames))]
		sl, sc := g.word(2)
		end := surnameEnd[g.rng.IntN(len(surnameEnd))]
		return Entity{Latin: f[0] + " " + sl + end[0], Cyr: f[1] + " " + sc + end[1]}
	case Client:
		wl, wc := g.word(2)
		s := orgSuffix[g.rng.IntN(len(orgSuffix))]
		return Entity{Latin: wl + " " + s[0], Cyr: wc + " " + s[1]}
	case Project:
		wl, wc := g.word(2)
		s := projSuffix[g.rng.IntN(len(projSuffix))]
		return Entity{Latin: wl + " " + s[0], Cyr: wc + " " + s[1]}
	case Team:
		wl, wc := g.word(2)
		return Entity{Latin: wl + " Team", Cyr: "Команда " + wc}
	default: // technology: one lower-case word, the same in both scripts' texts (like doughmill)
		wl, _ := g.word(3)
		w := strings.ToLower(wl)
		return Entity{Latin: w, Cyr: w}
	}
}

// Entities returns the generated entities (shared; do not modify).
func (g *Generator) Entities() []Entity { return g.entities }

// Pick returns an entity of kind k drawn by popularity (Zipf).
func (g *Generator) Pick(k Kind) Entity {
	return g.entities[g.byKind[k][g.zipf[k].Uint64()]]
}

func (g *Generator) lang() string {
	if g.rng.IntN(2) == 0 {
		return "ru"
	}
	return "en"
}

func (g *Generator) date() string {
	return fmt.Sprintf("202%d-%02d-%02d", 3+g.rng.IntN(3), 1+g.rng.IntN(12), 1+g.rng.IntN(28))
}

// Next returns the next document: first one typed page per entity, then notes (meeting notes,
// incidents and free-text notes) without end.
func (g *Generator) Next() Doc {
	if g.next < len(g.entities) {
		e := g.entities[g.next]
		g.next++
		return g.page(e)
	}
	g.notes++
	switch g.notes % 3 {
	case 0:
		return g.incident()
	case 1:
		return g.meeting()
	}
	return g.note()
}

func frontMatter(b *strings.Builder, id, title, typ, lang, updated string, acl []string) {
	fmt.Fprintf(b, "---\nid: %s\ntitle: %q\ntype: %s\nlang: %s\nupdated: %s\n", id, title, typ, lang, updated)
	if len(acl) > 0 {
		fmt.Fprintf(b, "acl: [%s]\n", strings.Join(acl, ", "))
	}
	b.WriteString("---\n\n")
}

func (g *Generator) acl() []string {
	if g.rng.IntN(10) == 0 {
		return []string{"management"}
	}
	return nil
}

func (g *Generator) page(e Entity) Doc {
	lang := g.lang()
	var b strings.Builder
	name := e.Name(lang)
	frontMatter(&b, e.ID, name, string(e.Kind), lang, g.date(), g.acl())
	fmt.Fprintf(&b, "# %s\n\n", name)
	other := "ru"
	if lang == "ru" {
		other = "en"
	}
	city := cities[g.rng.IntN(len(cities))]
	if lang == "ru" {
		fmt.Fprintf(&b, "## Кратко\n\n%s — %s из города %s. В англоязычных письмах пишут %s.\n\n", name, kindWordRU[e.Kind], city[1], e.Name(other))
	} else {
		fmt.Fprintf(&b, "## Summary\n\n%s is a %s based in %s. Also written %s.\n\n", name, kindWordEN[e.Kind], city[0], e.Name(other))
	}
	for s := 0; s < 2+g.rng.IntN(3); s++ {
		g.section(&b, lang, e)
	}
	return Doc{Path: e.ID + ".md", Content: []byte(b.String())}
}

var (
	kindWordRU = map[Kind]string{Client: "клиент компании", Project: "проект", Person: "сотрудник", Team: "команда", Technology: "библиотека"}
	kindWordEN = map[Kind]string{Client: "client of the company", Project: "project", Person: "colleague", Team: "team", Technology: "library"}
)

// section writes one titled section of 3–6 sentences, each naming one or two entities.
func (g *Generator) section(b *strings.Builder, lang string, subject Entity) {
	titlesRU := []string{"Работа", "Связи", "История", "Архитектура", "Заметки", "Договорённости"}
	titlesEN := []string{"Work", "Links", "History", "Architecture", "Notes", "Agreements"}
	if lang == "ru" {
		fmt.Fprintf(b, "## %s\n\n", titlesRU[g.rng.IntN(len(titlesRU))])
	} else {
		fmt.Fprintf(b, "## %s\n\n", titlesEN[g.rng.IntN(len(titlesEN))])
	}
	n := 3 + g.rng.IntN(4)
	for i := 0; i < n; i++ {
		b.WriteString(g.sentence(lang, subject))
		b.WriteByte(' ')
	}
	b.WriteString("\n\n")
}

func (g *Generator) sentence(lang string, subject Entity) string {
	p, pr, c, t, tm := g.Pick(Person), g.Pick(Project), g.Pick(Client), g.Pick(Technology), g.Pick(Team)
	subj := subject.Name(lang)
	if subj == "" {
		subj = pr.Name(lang)
	}
	num := 2 + g.rng.IntN(97)
	if lang == "ru" {
		forms := []string{
			"%[1]s работает вместе с %[2]s над проектом «%[3]s».",
			"Для клиента %[4]s проект «%[3]s» использует библиотеку %[5]s версии %[7]d.",
			"Руководитель — %[2]s, задачи ведёт %[6]s.",
			"%[1]s переводит сервис на %[5]s, это займёт %[7]d дней.",
			"В %[7]d%% случаев заявки %[4]s разбирает %[6]s.",
			"%[2]s отвечает за релизы «%[3]s» и согласует их с %[4]s.",
		}
		return fmt.Sprintf(forms[g.rng.IntN(len(forms))], subj, p.Cyr, pr.Cyr, c.Cyr, t.Cyr, tm.Cyr, num)
	}
	forms := []string{
		"%[1]s works with %[2]s on the %[3]s project.",
		"For %[4]s, %[3]s runs on %[5]s version %[7]d.",
		"The lead is %[2]s; the backlog belongs to %[6]s.",
		"%[1]s is moving the service to %[5]s, which takes %[7]d days.",
		"%[6]s handles %[7]d%% of the requests from %[4]s.",
		"%[2]s owns the releases of %[3]s and agrees them with %[4]s.",
	}
	return fmt.Sprintf(forms[g.rng.IntN(len(forms))], subj, p.Latin, pr.Latin, c.Latin, t.Latin, tm.Latin, num)
}

func (g *Generator) incident() Doc {
	lang := g.lang()
	id := fmt.Sprintf("incidents/inc-%d", 10000+g.notes)
	code := fmt.Sprintf("E-%04d", 1000+g.rng.IntN(9000))
	t, pr := g.Pick(Technology), g.Pick(Project)
	var b strings.Builder
	if lang == "ru" {
		title := fmt.Sprintf("INC-%d — сбой %s", 10000+g.notes, pr.Cyr)
		frontMatter(&b, id, title, "incident", lang, g.date(), g.acl())
		fmt.Fprintf(&b, "# %s\n\n## Сводка\n\nСервис проекта «%s» отдавал ошибку %s; первопричина — библиотека %s.\n\n", title, pr.Cyr, code, t.Cyr)
	} else {
		title := fmt.Sprintf("INC-%d — %s outage", 10000+g.notes, pr.Latin)
		frontMatter(&b, id, title, "incident", lang, g.date(), g.acl())
		fmt.Fprintf(&b, "# %s\n\n## Summary\n\nThe %s service returned error %s; the root cause was the %s library.\n\n", title, pr.Latin, code, t.Latin)
	}
	for s := 0; s < 1+g.rng.IntN(2); s++ {
		g.section(&b, lang, pr)
	}
	return Doc{Path: id + ".md", Content: []byte(b.String())}
}

func (g *Generator) meeting() Doc {
	lang := g.lang()
	id := fmt.Sprintf("meeting-notes/m-%d", g.notes)
	tm := g.Pick(Team)
	var b strings.Builder
	title := fmt.Sprintf("%s: %s", tm.Name(lang), g.date())
	frontMatter(&b, id, title, "meeting-notes", lang, g.date(), nil)
	fmt.Fprintf(&b, "# %s\n\n", title)
	for s := 0; s < 1+g.rng.IntN(3); s++ {
		g.section(&b, lang, Entity{})
	}
	return Doc{Path: id + ".md", Content: []byte(b.String())}
}

// note is free text without an entity type: a plain note that mentions entities.
func (g *Generator) note() Doc {
	lang := g.lang()
	id := fmt.Sprintf("notes/n-%d", g.notes)
	var b strings.Builder
	frontMatter(&b, id, fmt.Sprintf("Note %d", g.notes), "note", lang, g.date(), g.acl())
	for p := 0; p < 2+g.rng.IntN(3); p++ {
		for i := 0; i < 3+g.rng.IntN(4); i++ {
			b.WriteString(g.sentence(lang, Entity{}))
			b.WriteByte(' ')
		}
		b.WriteString("\n\n")
	}
	return Doc{Path: id + ".md", Content: []byte(b.String())}
}
