// Package evaluation measures Ariadne against golden question sets: retrieval quality per
// retriever and per question type (hit@k, recall@k, MRR@10), router accuracy, answer status
// accuracy, ACL leaks, citation validity, evidence coverage and latency. It also loads public
// multi-hop datasets (MuSiQue, XQuAD) as a corpus plus a golden set.
//
// Retrieval metrics are computed over documents: a ranked list of chunks becomes the list of their
// distinct document ids in order of first appearance, and gold_docs are the relevant documents.
package evaluation

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
)

// Question is one line of a golden set (JSONL).
type Question struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Lang     string   `json:"lang"`
	Type     string   `json:"type"` // simple, hybrid, multi_hop, no_answer, acl, ...
	GoldDocs []string `json:"gold_docs"`
	Answer   string   `json:"answer"`
	Evidence []string `json:"evidence"`
	// UserGroups are the groups of the API key the question is asked with. LoadGolden adds
	// ariadne.PublicGroup, as the API does for every key (httpapi.Keys: a key holds the public
	// groups too), so ["sre"] is an SRE engineer's key, who also reads what everyone may.
	UserGroups []string `json:"user_groups"`
}

// LoadGolden reads a JSONL golden set. Lines that are not valid JSON or lack id or question are
// errors with their line number. "groups", the word of the API keys file, is read as
// user_groups (a line that gives both, different, is an error): before, a set written with it
// was asked with the public groups only, silently (trial 77).
func LoadGolden(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("evaluation: %w", err)
	}
	defer f.Close()
	var out []Question
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var q Question
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("evaluation: %s:%d: %w", path, line, err)
		}
		if q.ID == "" || q.Question == "" {
			return nil, fmt.Errorf("evaluation: %s:%d: id and question are required", path, line)
		}
		var alias struct {
			Groups []string `json:"groups"`
		}
		_ = json.Unmarshal(sc.Bytes(), &alias) // valid JSON: read above
		if alias.Groups != nil {
			if q.UserGroups != nil && !slices.Equal(q.UserGroups, alias.Groups) {
				return nil, fmt.Errorf("evaluation: %s:%d: question %s gives user_groups %q and groups %q: give one", path, line, q.ID, q.UserGroups, alias.Groups)
			}
			q.UserGroups = alias.Groups
		}
		if !slices.Contains(q.UserGroups, ariadne.PublicGroup) {
			q.UserGroups = append([]string{ariadne.PublicGroup}, q.UserGroups...)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// MatchGoldDocs checks the questions' gold documents against the corpus's document ids (ids): a
// gold document written as a file name ("breweries/vyborg.md") whose id without the extension is
// one (the id a document without one in its front matter gets) is read as that id; any other that
// is none stays, and is counted as missed by every metric. The questions are changed in place;
// notes say what was read how, and what is no document, one line each (first 20 of each).
func MatchGoldDocs(qs []Question, ids map[string]bool) []string {
	var read, unknown []string
	for i := range qs {
		for j, d := range qs[i].GoldDocs {
			if ids[d] {
				continue
			}
			ext := path.Ext(d)
			if id := strings.TrimSuffix(d, ext); (ext == ".md" || ext == ".markdown" || ext == ".txt") && ids[id] {
				qs[i].GoldDocs[j] = id
				read = append(read, fmt.Sprintf("question %s: gold document %s read as the document id %s", qs[i].ID, d, id))
				continue
			}
			unknown = append(unknown, fmt.Sprintf("question %s: gold document %s is no document id of the corpus (ids are the front matter's id:)", qs[i].ID, d))
		}
	}
	return append(read[:min(len(read), 20)], unknown[:min(len(unknown), 20)]...)
}

// DocRanking turns ranked chunks into ranked distinct document ids.
func DocRanking(chunks []ariadne.ScoredChunk) []string {
	var out []string
	for _, c := range chunks {
		if !slices.Contains(out, c.DocID) {
			out = append(out, c.DocID)
		}
	}
	return out
}

// HitAt is 1 when a gold document is among the first k ranked documents, else 0.
func HitAt(ranked, gold []string, k int) float64 {
	for i, d := range ranked {
		if i == k {
			break
		}
		if slices.Contains(gold, d) {
			return 1
		}
	}
	return 0
}

// RecallAt is the share of gold documents among the first k ranked documents.
func RecallAt(ranked, gold []string, k int) float64 {
	if len(gold) == 0 {
		return 0
	}
	found := 0
	for _, g := range gold {
		if i := slices.Index(ranked, g); i >= 0 && i < k {
			found++
		}
	}
	return float64(found) / float64(len(gold))
}

// MRRAt is 1/rank of the first gold document within the first k, else 0.
func MRRAt(ranked, gold []string, k int) float64 {
	for i, d := range ranked {
		if i == k {
			break
		}
		if slices.Contains(gold, d) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Mean accumulates an average.
type Mean struct {
	Sum float64
	N   int
}

// Add adds one observation.
func (m *Mean) Add(x float64) { m.Sum += x; m.N++ }

// Value is the mean, NaN when empty.
func (m Mean) Value() float64 {
	if m.N == 0 {
		return math.NaN()
	}
	return m.Sum / float64(m.N)
}

// Percentile returns the p-th percentile (0 < p ≤ 100, nearest rank) of xs; NaN when empty.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(0, min(rank, len(s))-1)]
}
