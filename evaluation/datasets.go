package evaluation

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/ariadne-graphrag/ariadne"
)

// docID is a stable id for a passage: prefix + the first 12 hex digits of sha256(title, text).
func docID(prefix, title, text string) string {
	sum := sha256.Sum256([]byte(title + "\x00" + text))
	return prefix + "/" + hex.EncodeToString(sum[:6])
}

// passageDoc makes a document of a titled passage: the title as heading, the text as body, type
// "article" (the ontology's topic entities: the passage is about its title).
func passageDoc(id, title, text, lang string) ariadne.Document {
	return ariadne.Document{ID: id, Title: title, Type: "article", Lang: lang, ACL: []string{ariadne.PublicGroup},
		Body: "# " + title + "\n\n" + strings.TrimSpace(text) + "\n", Path: id}
}

// LoadMuSiQue turns MuSiQue (JSON array of questions, each with 20 paragraphs marked
// is_supporting) into a corpus — one document per distinct (title, text) paragraph — and a golden
// set whose gold_docs are the supporting paragraphs. The type is "multi_hop"; the hop count is in
// the question id ("2hop__…").
func LoadMuSiQue(path string) ([]ariadne.Document, []Question, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("evaluation: %w", err)
	}
	var items []struct {
		ID         string `json:"id"`
		Question   string `json:"question"`
		Answer     string `json:"answer"`
		Paragraphs []struct {
			Title        string `json:"title"`
			Text         string `json:"paragraph_text"`
			IsSupporting bool   `json:"is_supporting"`
		} `json:"paragraphs"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, nil, fmt.Errorf("evaluation: %s: %w", path, err)
	}
	var docs []ariadne.Document
	seen := map[string]bool{}
	var qs []Question
	for _, it := range items {
		q := Question{ID: it.ID, Question: it.Question, Lang: "en", Type: "multi_hop", Answer: it.Answer,
			UserGroups: []string{ariadne.PublicGroup}}
		for _, p := range it.Paragraphs {
			id := docID("musique", p.Title, p.Text)
			if !seen[id] {
				seen[id] = true
				docs = append(docs, passageDoc(id, p.Title, p.Text, "en"))
			}
			if p.IsSupporting && !contains(q.GoldDocs, id) {
				q.GoldDocs = append(q.GoldDocs, id)
				q.Evidence = append(q.Evidence, strings.TrimSpace(p.Text))
			}
		}
		qs = append(qs, q)
	}
	return docs, qs, nil
}

// LoadXQuAD turns XQuAD (SQuAD v1.1 format) into a corpus — one document per paragraph, titled
// with its article — and a golden set: each question's gold document is its paragraph, its
// evidence the sentence that holds the answer span. The type is "simple".
func LoadXQuAD(path, lang string) ([]ariadne.Document, []Question, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("evaluation: %w", err)
	}
	var ds struct {
		Data []struct {
			Title      string `json:"title"`
			Paragraphs []struct {
				Context string `json:"context"`
				QAs     []struct {
					ID       string `json:"id"`
					Question string `json:"question"`
					Answers  []struct {
						Text  string `json:"text"`
						Start int    `json:"answer_start"`
					} `json:"answers"`
				} `json:"qas"`
			} `json:"paragraphs"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &ds); err != nil {
		return nil, nil, fmt.Errorf("evaluation: %s: %w", path, err)
	}
	var docs []ariadne.Document
	var qs []Question
	for _, art := range ds.Data {
		for _, p := range art.Paragraphs {
			id := docID("xquad", art.Title, p.Context)
			docs = append(docs, passageDoc(id, art.Title, p.Context, lang))
			for _, qa := range p.QAs {
				q := Question{ID: qa.ID, Question: qa.Question, Lang: lang, Type: "simple", GoldDocs: []string{id},
					UserGroups: []string{ariadne.PublicGroup}}
				if len(qa.Answers) > 0 {
					q.Answer = qa.Answers[0].Text
					q.Evidence = []string{sentenceAt(p.Context, qa.Answers[0].Start, qa.Answers[0].Text)}
				}
				qs = append(qs, q)
			}
		}
	}
	return docs, qs, nil
}

// sentenceAt returns the sentence of text that contains the answer starting at rune offset start
// (SQuAD offsets count characters).
func sentenceAt(text string, start int, answer string) string {
	runes := []rune(text)
	if start < 0 || start >= len(runes) {
		return answer
	}
	end := start + len([]rune(answer))
	from := start
	for from > 0 && !(strings.ContainsRune(".!?", runes[from-1]) && from < len(runes) && unicode.IsSpace(runes[from])) {
		from--
	}
	to := min(end, len(runes))
	for to < len(runes) && !(strings.ContainsRune(".!?", runes[to-1]) && unicode.IsSpace(runes[to])) {
		to++
	}
	return strings.TrimSpace(string(runes[from:to]))
}
