package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ariadne-graphrag/ariadne"
)

// runRoute runs one route's plan and appends its step.
func (r *Retriever) runRoute(ctx context.Context, route ariadne.Route, req Request, vec []float32, linked []Linked, tr *Trace) (Result, error) {
	switch route {
	case ariadne.RouteSimple:
		if lexicalWeight(tr.Router.Features) > 0 || len(linked) > 0 {
			// A strong lexical signal — a code, or a name of a known entity — needs BM25.
			return r.withLinkedDocuments(ctx, StrategyHybrid, req, vec, linked, tr)
		}
		strategy, why, err := r.simpleStrategy(ctx, req, vec, tr)
		if err != nil {
			return Result{}, err
		}
		res, err := r.withLinkedDocuments(ctx, strategy, req, vec, linked, tr)
		if err == nil && why != "" {
			tr.note(why)
		}
		return res, err
	case ariadne.RouteHybrid:
		return r.withLinkedDocuments(ctx, StrategyHybrid, req, vec, linked, tr)
	default:
		return r.withLinkedDocuments(ctx, StrategyGraph, req, vec, linked, tr)
	}
}

// simpleStrategy chooses the simple route's search when no lexical signal asked for BM25: vector
// search when the question's neighbourhood mixes languages, hybrid search when it does not. BM25
// matches words, so it helps only where the question and the passages share a language: in a
// bilingual knowledge base, where the answer to a Russian question may be an English page, it
// pulls the ranking toward pages in the question's language (our own sets: routed recall@2 on
// the second set 0.617 → 0.532 with hybrid for every simple question); in a corpus of one
// language it breaks ties between similar passages that vector search confuses (XQuAD-ru hit@1
// 0.913 → 0.931). The test is the script (Cyrillic or not) of the question and of every
// candidate the vector search returned (Candidates chunks, the caller's groups; the question's
// script is that of its function words, so a Russian question quoting a Latin title is Russian:
// cyrillicQuestion). It adds no search: the vector search is the one the route ran before
// (memoised, so the vector strategy reuses it) and the hybrid search is the one prefetched for
// every question. Languages that share
// a script (English and German) look alike to it. The returned reason is for the step's note
// (empty for vector search). Measured in docs/evaluation.md, "The simple route's search".
func (r *Retriever) simpleStrategy(ctx context.Context, req Request, vec []float32, tr *Trace) (Strategy, string, error) {
	hits, err := r.questionSearch(ctx, ariadne.SearchVector, req, vec, tr)
	if err != nil || len(hits) == 0 {
		return StrategyVector, "", err
	}
	q := cyrillicQuestion(req.Question)
	for _, c := range hits {
		if cyrillicText(c.Text) != q {
			return StrategyVector, "", nil
		}
	}
	return StrategyHybrid, fmt.Sprintf("all %d vector candidates are in the question's script: hybrid search", len(hits)), nil
}

// withLinkedDocuments runs a strategy (any route's: the multi_hop route's graph+hybrid too) and,
// when the question names documented entities, fuses (RRF) its hits with the most relevant chunks
// of those entities' own documents: a name in the question points at the page about it, and a
// chain starts there. At most two chunks per document lead the list.
//
// The strategy's search and the linked pages' lookup (their chunk ids from Neo4j, then a hybrid
// search restricted to them) are independent and run at once.
func (r *Retriever) withLinkedDocuments(ctx context.Context, s Strategy, req Request, vec []float32, linked []Linked, tr *Trace) (Result, error) {
	var docs []string
	for _, l := range linked {
		if strings.Contains(l.Key, "/") && !slices.Contains(docs, l.Key) {
			docs = append(docs, l.Key) // documented entities are keyed by their document id
		}
	}
	var res Result
	var own []ariadne.ScoredChunk
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		res, err = r.runStrategy(gctx, s, req, vec, linked, tr)
		return err
	})
	if len(docs) > 0 {
		g.Go(func() error {
			ids, err := r.graph.DocumentChunkIDs(gctx, docs, req.Groups)
			if err != nil || len(ids) == 0 {
				return err
			}
			own, err = r.hybrid(gctx, req, vec, ids, tr)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	if len(own) > 0 {
		for i := range own {
			own[i].Sources = []string{"linked"}
		}
		res.pages = own
		res.Chunks = FuseRRF(res.Chunks, diversify(own, 1))
		tr.note(fmt.Sprintf("fused with the pages of %d linked entities", len(docs)))
	}
	res.Chunks = diversify(res.Chunks, 2)
	if len(own) > 0 {
		// The evidence is what the fused list covers: the named entity's own page may state
		// what the strategy's hits did not (a question in one script about a page in the other).
		if c := coverage(res.terms, res.Chunks, 3); c > res.Evidence.Coverage {
			res.Evidence.Coverage = c
			res.Evidence.Weak = r.weak(s, res.Evidence)
			tr.reassess(res.Evidence)
		}
	}
	return res, nil
}

// pageChunks is how many chunks of a named entity's own page the generator sees at least, when
// the page has them (withPages): one more than the ranked list keeps ahead (diversify). Four
// answered five more questions of our own sets and four more of their near misses wrongly; three,
// three more and no more near misses (docs/evaluation.md, "Stop 69").
const pageChunks = 3

// withPages returns the fragments followed (numbered on) by the chunks of pages — the own pages of
// the entities the question names, best first — that are not among them yet, until each page has
// pageChunks chunks among the fragments or none left. The ranked list keeps at most two chunks of
// a document ahead of the others (diversify), and a page's sentence that answers may rank third
// within it: "Who signed contract X for Y?" is answered by the parties' paragraph of X's page,
// which a question in the other language ranks below X's couriers and law.
func withPages(frags []Fragment, pages []ariadne.ScoredChunk) []Fragment {
	out := append([]Fragment(nil), frags...)
	count := map[string]int{}
	for _, f := range out {
		count[f.Chunk.DocID]++
	}
	for _, c := range pages {
		if count[c.DocID] >= pageChunks || slices.ContainsFunc(out, func(f Fragment) bool { return f.Chunk.ID == c.ID }) {
			continue
		}
		count[c.DocID]++
		out = append(out, Fragment{N: len(out) + 1, Chunk: c.Chunk})
	}
	return out
}

func (r *Retriever) runStrategy(ctx context.Context, s Strategy, req Request, vec []float32, linked []Linked, tr *Trace) (Result, error) {
	start := time.Now()
	var res Result
	var err error
	note := ""
	switch s {
	case StrategyBM25:
		res.Chunks, err = r.search(ctx, ariadne.SearchBM25, ariadne.SearchQuery{Text: req.Question, Terms: keywordTerms(req.Question, r.cfg.Lexicon, r.cfg.Translations), Groups: req.Groups, Limit: r.cfg.Candidates}, tr)
	case StrategyVector:
		res.Chunks, err = r.questionSearch(ctx, ariadne.SearchVector, req, vec, tr)
	case StrategyHybrid:
		res.Chunks, err = r.questionSearch(ctx, ariadne.SearchHybrid, req, vec, tr)
	case StrategyGraph:
		res, note, err = r.graphHybrid(ctx, req, vec, linked, tr)
	case StrategyWalk:
		res, note, err = r.graphHybrid(ctx, req, vec, linked, tr)
		if err == nil && res.walk != nil {
			res.Chunks = diversify(res.walk.Walk, r.cfg.PerDoc)
		}
	default:
		err = fmt.Errorf("agent: unknown strategy %q: %w", s, ariadne.ErrInvalid)
	}
	tr.time(string(s), start)
	if err != nil {
		return res, err
	}
	res.terms = newQuestionTerms(req.Question, r.cfg.Lexicon, callerScope(req.Groups)).withLinked(linked)
	ev := Evidence{Hits: len(res.Chunks), Coverage: coverage(res.terms, res.Chunks, 3)}
	if len(res.Chunks) > 0 {
		ev.TopScore = res.Chunks[0].Score
	}
	ev.Weak = r.weak(s, ev)
	res.Evidence = ev
	var ids []string
	for _, c := range res.Chunks[:min(len(res.Chunks), TraceChunkIDs)] {
		ids = append(ids, c.Chunk.ID)
	}
	tr.mu.Lock()
	tr.Steps = append(tr.Steps, Step{Strategy: s, Hits: ev.Hits, TopScore: ev.TopScore, Coverage: ev.Coverage, Weak: ev.Weak,
		Note: note, ChunkIDs: ids, DurationMS: ms(time.Since(start))})
	tr.mu.Unlock()
	return res, nil
}

func (r *Retriever) hybrid(ctx context.Context, req Request, vec []float32, ids []string, tr *Trace) ([]ariadne.ScoredChunk, error) {
	return r.search(ctx, ariadne.SearchHybrid, ariadne.SearchQuery{Text: req.Question, Terms: keywordTerms(req.Question, r.cfg.Lexicon, r.cfg.Translations), Vector: vec, Alpha: r.cfg.Alpha,
		Fusion: r.cfg.Fusion, Groups: req.Groups, Limit: r.cfg.Candidates, ChunkIDs: ids}, tr)
}
