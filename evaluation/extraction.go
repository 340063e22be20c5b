package evaluation

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/extraction"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// VariantSpelling is one row of a corpus's entity variant table: a spelling of an entity and
// the documents it occurs in.
type VariantSpelling struct {
	// Canonical is "doc:<id>" for an entity a document describes (its key is the id), else the
	// table's canonical name.
	Canonical string
	Form      string
	Docs      []string
}

var (
	variantDocRE  = regexp.MustCompile("\\(`([^`]+)`\\)")
	variantDocsRE = regexp.MustCompile("`([^`]+)`")
)

// LoadVariantTable parses the first Markdown table of path whose header starts with
// "| Canonical entity" (columns: canonical entity with its document id in backquotes, variant
// spelling, the documents where it occurs in backquotes; an empty first cell continues the
// entity above). Spellings marked "(first name only)" are skipped: a bare first name is not a
// name an extractor should resolve on its own. It fails when the file has no such table.
func LoadVariantTable(path string) ([]VariantSpelling, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseVariantTable(f, path)
}

func parseVariantTable(r io.Reader, name string) ([]VariantSpelling, error) {
	var out []VariantSpelling
	current := ""
	in := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| Canonical entity") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if current != "" {
				break
			}
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		if c := strings.TrimSpace(cells[1]); c != "" {
			if m := variantDocRE.FindStringSubmatch(c); m != nil {
				current = "doc:" + m[1]
			} else {
				current = c
			}
		}
		v := strings.TrimSpace(cells[2])
		if v == "" || strings.Contains(v, "(first name only)") {
			continue
		}
		var docs []string
		for _, m := range variantDocsRE.FindAllStringSubmatch(cells[3], -1) {
			docs = append(docs, m[1])
		}
		out = append(out, VariantSpelling{Canonical: current, Form: strings.Trim(v, "\""), Docs: docs})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("evaluation: %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("evaluation: %s has no entity variant table (a table whose header starts with \"| Canonical entity\")", name)
	}
	return out, nil
}

// VariantGroups turns the table into gold groups: canonical entity → its spellings.
func VariantGroups(vs []VariantSpelling) map[string][]string {
	groups := map[string][]string{}
	for _, v := range vs {
		groups[v.Canonical] = append(groups[v.Canonical], v.Form)
	}
	return groups
}

// VariantOccurrence is one place a table spelling occurs in a chunk of one of its documents,
// with the entity the extractor's mention there resolved to ("" when no mention covers it).
type VariantOccurrence struct {
	Canonical string `json:"canonical"`
	Form      string `json:"form"`
	ChunkID   string `json:"chunk_id"`
	Start     int    `json:"start"` // byte offsets of the spelling in the chunk text
	End       int    `json:"end"`
	Entity    string `json:"entity,omitempty"`
}

// ExtractionReport compares an extractor's output over a set of chunks with a variant table.
type ExtractionReport struct {
	Extractor        string  `json:"extractor"`
	Chunks           int     `json:"chunks"`
	Seconds          float64 `json:"seconds"` // wall time of the extraction step
	ChunksPerSecond  float64 `json:"chunks_per_second"`
	Mentions         int     `json:"mentions"`           // chunk–entity pairs
	MentionsPerChunk float64 `json:"mentions_per_chunk"` // distinct entities per chunk, averaged
	Entities         int     `json:"entities"`           // distinct entities mentioned
	Relations        int     `json:"relations"`          // distinct (source, type, target)
	// RelationsPerChunk is relation–chunk support pairs per chunk: how many stated relations a
	// chunk carries on average.
	RelationsPerChunk float64 `json:"relations_per_chunk"`
	Fallbacks         int     `json:"fallbacks"` // chunks another extractor took over (LLM failures)
	// Occurrences of table spellings in the chunks, and how they resolved.
	Occurrences []VariantOccurrence `json:"occurrences"`
	// Covered is occurrences with a mention over them; Linked those of a documented entity
	// whose mention resolved to that document's entity; Documented the occurrences of documented
	// entities.
	Covered    int `json:"covered"`
	Documented int `json:"documented"`
	Linked     int `json:"linked"`
	// Pairwise is entity resolution over the occurrences: two occurrences are a predicted pair
	// when their mentions resolved to one entity, a gold pair when the table puts their
	// spellings under one entity. Uncovered occurrences are in no predicted pair.
	Pairwise resolution.Scores `json:"pairwise"`
}

// ScoreExtraction scores facts (an extractor's output over chunks) against a variant table:
// every occurrence of a table spelling in a chunk of a document the table lists for it is
// looked up among the chunk's mentions (a mention covers it when one of the mention surface's
// occurrences in the chunk overlaps it), and the entities they resolved to are compared with the
// table's grouping.
func ScoreExtraction(name string, vs []VariantSpelling, chunks []ariadne.Chunk, facts []extraction.Facts) ExtractionReport {
	rep := ExtractionReport{Extractor: name, Chunks: len(chunks)}
	mentions := map[string][]ariadne.Mention{}
	entities := map[string]bool{}
	for _, f := range facts {
		for _, m := range f.Mentions {
			mentions[m.ChunkID] = append(mentions[m.ChunkID], m)
			entities[m.EntityKey] = true
			rep.Mentions++
		}
		rep.Relations += len(f.Relations)
		for _, r := range f.Relations {
			rep.RelationsPerChunk += float64(len(r.ChunkIDs))
		}
	}
	rep.Entities = len(entities)
	if len(chunks) > 0 {
		rep.MentionsPerChunk = float64(rep.Mentions) / float64(len(chunks))
		rep.RelationsPerChunk /= float64(len(chunks))
	}
	byDoc := map[string][]ariadne.Chunk{}
	for _, c := range chunks {
		byDoc[c.DocID] = append(byDoc[c.DocID], c)
	}
	groups := map[string][]string{}
	pred := map[string]string{}
	for _, v := range vs {
		for _, doc := range v.Docs {
			for _, c := range byDoc[doc] {
				for _, span := range indexAll(c.Text, v.Form) {
					o := VariantOccurrence{Canonical: v.Canonical, Form: v.Form, ChunkID: c.ID, Start: span[0], End: span[1]}
					o.Entity = coveringEntity(c.Text, mentions[c.ID], span)
					id := fmt.Sprintf("%s\x1f%s\x1f%d", v.Form, c.ID, span[0])
					groups[v.Canonical] = append(groups[v.Canonical], id)
					pred[id] = o.Entity
					if o.Entity != "" {
						rep.Covered++
					}
					if doc, ok := strings.CutPrefix(v.Canonical, "doc:"); ok {
						rep.Documented++
						if o.Entity == doc {
							rep.Linked++
						}
					}
					rep.Occurrences = append(rep.Occurrences, o)
				}
			}
		}
	}
	sort.Slice(rep.Occurrences, func(i, j int) bool {
		a, b := rep.Occurrences[i], rep.Occurrences[j]
		if a.ChunkID != b.ChunkID {
			return a.ChunkID < b.ChunkID
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.Form < b.Form
	})
	rep.Pairwise = resolution.PairwiseScores(groups, func(id string) string { return pred[id] })
	rep.Pairwise.Unresolved = nil // occurrence ids are not for people; Occurrences lists them
	return rep
}

// coveringEntity returns the entity of the first mention (in the order given) one of whose
// surface's occurrences in text overlaps span, or "".
func coveringEntity(text string, ms []ariadne.Mention, span [2]int) string {
	for _, m := range ms {
		for _, s := range indexAll(text, m.Surface) {
			if s[0] < span[1] && span[0] < s[1] {
				return m.EntityKey
			}
		}
	}
	return ""
}

// indexAll returns the byte spans in text of every non-overlapping occurrence of needle, both
// compared after textnorm folding (case, ё/е, quotes).
func indexAll(text, needle string) [][2]int {
	n := textnorm.FoldString(needle)
	if n == "" {
		return nil
	}
	f := textnorm.Fold(text)
	var out [][2]int
	for from := 0; from < len(f.Text); {
		i := strings.Index(f.Text[from:], n)
		if i < 0 {
			break
		}
		i += from
		s, e := f.Span(text, i, i+len(n))
		out = append(out, [2]int{s, e})
		from = i + len(n)
	}
	return out
}

// ExtractionMarkdown writes the reports as one table, a row per extractor.
func ExtractionMarkdown(w io.Writer, reports []ExtractionReport) {
	fmt.Fprintf(w, "| extractor | chunks | s | chunks/s | mentions / chunk | entities | relations | relations / chunk | fallbacks | spellings covered | linked to their document | pairwise P / R |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range reports {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.2f | %.2f | %d | %d | %.2f | %d | %d / %d | %d / %d | %.3f / %.3f |\n",
			r.Extractor, r.Chunks, r.Seconds, r.ChunksPerSecond, r.MentionsPerChunk, r.Entities, r.Relations, r.RelationsPerChunk,
			r.Fallbacks, r.Covered, len(r.Occurrences), r.Linked, r.Documented, r.Pairwise.Precision, r.Pairwise.Recall)
	}
}
