package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/lexicon"
	"github.com/ariadne-graphrag/ariadne/ontology"
	"github.com/ariadne-graphrag/ariadne/retry"
)

// IndexCounter says how many chunks a caller (groups) may read are indexed (vector.Store), to
// tell "nothing ingested" from "the documents do not say". Only chunks the caller may read count:
// a caller who may read none is told the index is empty whether or not restricted documents
// exist (a count of every chunk told an anonymous caller that they do).
type IndexCounter interface {
	CountReadable(ctx context.Context, groups []string) (int, error)
}

// AnswerConfig tunes answering. Zero values take the defaults in parentheses.
type AnswerConfig struct {
	Fragments   int           // chunks shown to the generator (8)
	MaxAttempts int           // generations tried before a controlled refusal (3)
	Deadline    time.Duration // total budget for generation and verification (60s)
	Judge       Judge         // level-3 verification; nil skips it
	// Chunks reads the provenance chunks of a multi-hop answer's evidence path that are not among
	// the fragments (graph.Store); nil: only the fragments are searched for the chain's sentences.
	Chunks ChunkReader
	// Lexicon lets the chain plan count a hop sentence in the other language as covering a
	// question term it translates; nil: the question's language only.
	Lexicon *lexicon.Lexicon
	// Gate, when set, makes the answer-or-refuse decision in place of the generator: a calibrated
	// generator (TermExtractive, Extractive) answers first, without the judge; when it refuses,
	// that is the answer and the generator is not called; when it answers, the generator's answer
	// is returned if it verifies (and passes the judge), else the gate's verified one. For a small
	// chat model whose own refusals are mostly false (docs/local-llm.md). nil: the generator
	// decides alone.
	Gate Generator
	// EntityTypeOf maps a document's front matter type to the entity type its page describes
	// (ontology.Ontology.EntityTypeOfDocument): a quote from the page of another thing of the
	// kind the question names is recognised by it ("employee" pages are persons', "warehouse"
	// pages topics'). nil: the compiled-in ontology's.
	EntityTypeOf func(docType string) string
}

// Event is a progress notification for streaming clients.
type Event struct {
	Name string // "route", "retrieval", "generation", "verification"
	Data any
}

// Hooks observe the answerer (metrics).
type Hooks struct {
	VerificationFailure func(level int)
	Retry               func(operation string)
}

// Answerer answers questions end to end: retrieve, generate, verify.
type Answerer struct {
	retriever *Retriever
	gen       Generator
	index     IndexCounter
	cfg       AnswerConfig
	hooks     Hooks
	log       *slog.Logger
}

// NewAnswerer assembles an answerer.
func NewAnswerer(r *Retriever, gen Generator, index IndexCounter, cfg AnswerConfig, hooks Hooks, log *slog.Logger) *Answerer {
	if cfg.Fragments <= 0 {
		cfg.Fragments = 8
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 60 * time.Second
	}
	if cfg.EntityTypeOf == nil {
		if o, err := ontology.Default(); err == nil {
			cfg.EntityTypeOf = o.EntityTypeOfDocument
		} else {
			cfg.EntityTypeOf = func(t string) string { return t }
		}
	}
	if log == nil {
		log = slog.Default()
	}
	return &Answerer{retriever: r, gen: gen, index: index, cfg: cfg, hooks: hooks, log: log}
}

// Generator returns the generator's name, and the gate's when answerability is gated.
func (a *Answerer) Generator() string {
	if a.cfg.Gate != nil {
		return a.gen.Name() + " gated by " + a.cfg.Gate.Name()
	}
	return a.gen.Name()
}

// GateName is the name of the generator that decides answerability (AnswerConfig.Gate), or "".
func (a *Answerer) GateName() string {
	if a.cfg.Gate == nil {
		return ""
	}
	return a.cfg.Gate.Name()
}

// Attempt records one generation in the trace.
type Attempt struct {
	N int `json:"n"`
	// Generator names the attempt's generator when the answerer is gated (AnswerConfig.Gate).
	Generator string    `json:"generator,omitempty"`
	Outcome   string    `json:"outcome"` // "answer", "not_found", "invalid", "unverified", "error"
	Error     string    `json:"error,omitempty"`
	Failures  []Failure `json:"failures,omitempty"`
	Verdicts  []Verdict `json:"judge_verdicts,omitempty"` // level 3, per claim, when a ClaimJudge is configured
	// AnswersQuestion is the AnswerJudge's verdict on the claims level 3 kept, when one is configured.
	AnswersQuestion *bool   `json:"answers_question,omitempty"`
	DurationMS      float64 `json:"duration_ms"`
}

// Answer is the outcome of a question.
type Answer struct {
	Status    ariadne.Status     `json:"status"`
	Answer    string             `json:"answer"`
	Reason    string             `json:"reason,omitempty"`
	Route     ariadne.Route      `json:"route,omitempty"`
	Claims    []ariadne.Claim    `json:"claims"`
	Citations []ariadne.Citation `json:"citations"`
	Paths     []ariadne.Path     `json:"paths"`
	// Chain: on the multi_hop route, one verified sentence per hop of the best evidence path, in
	// path order (their claims lead Claims); empty when some hop has no readable sentence.
	Chain []ChainHop `json:"chain,omitempty"`
	// Compared: for a comparison ("Who joined earlier, A or B?"), each compared thing with the
	// verified sentence about it, in the question's order (their claims lead Claims; with a
	// quoting generator they are the claims); when one of them has no readable sentence that
	// states the compared attribute the status is not_found and Compared is empty.
	Compared []ComparedItem `json:"compared,omitempty"`
	// ComparedOutcome: which compared thing the comparison asks for, when code can tell from the
	// compared sentences' dates (compareDates); nil otherwise.
	ComparedOutcome *ComparisonOutcome `json:"compared_outcome,omitempty"`
	// Degraded names the stores the answer went without (DegradedGraph: Neo4j was unavailable,
	// so the answer comes from the chunk index's search alone); empty when none.
	Degraded []string     `json:"degraded,omitempty"`
	Trace    *AnswerTrace `json:"trace,omitempty"`
}

// AnswerTrace is the retrieval trace plus the generation attempts.
type AnswerTrace struct {
	*Trace
	Generator string    `json:"generator"`
	Attempts  []Attempt `json:"generation_attempts"`
	// Evidence is the last attempt's answerability decision, for generators that make one.
	Evidence *EvidenceDecision `json:"evidence_decision,omitempty"`
	// GateFallback says why a gated answer is the gate's and not the generator's.
	GateFallback string `json:"gate_fallback,omitempty"`
}

// Answer runs the whole contract: the answer is either verified claims or a status that says why
// not. The error is reserved for invalid requests (ErrInvalid); a store or model that stays down
// is status unavailable, with the error in Reason. progress may be nil.
func (a *Answerer) Answer(ctx context.Context, req Request, progress func(Event)) (Answer, error) {
	emit := func(name string, data any) {
		if progress != nil {
			progress(Event{Name: name, Data: data})
		}
	}
	if req.TopK <= 0 {
		req.TopK = a.cfg.Fragments
	}
	res, err := a.retriever.Retrieve(ctx, req)
	tr := &AnswerTrace{Trace: res.Trace, Generator: a.Generator()}
	out := Answer{Trace: tr, Route: res.Route, Claims: []ariadne.Claim{}, Citations: []ariadne.Citation{}, Paths: []ariadne.Path{}}
	if res.Trace != nil {
		out.Degraded = res.Trace.Degraded
	}
	if err != nil {
		if errors.Is(err, ariadne.ErrInvalid) {
			return out, err
		}
		out.Status, out.Reason = ariadne.StatusUnavailable, err.Error()
		return out, nil
	}
	for _, rt := range res.Trace.Retries {
		if a.hooks.Retry != nil {
			a.hooks.Retry(rt.Operation)
		}
	}
	emit("route", res.Trace.Router)
	emit("retrieval", map[string]any{"hits": len(res.Chunks), "steps": res.Trace.Steps, "route": res.Route})
	out.Paths = nonNilPaths(res.Paths)

	if len(res.Chunks) == 0 {
		n, err := a.index.CountReadable(ctx, req.Groups)
		switch {
		case err != nil:
			out.Status, out.Reason = ariadne.StatusUnavailable, err.Error()
		case n == 0:
			out.Status, out.Reason = ariadne.StatusIndexEmpty, "nothing the caller may read has been ingested"
		default:
			out.Status, out.Reason = ariadne.StatusNotFound, "no document the caller may read matches the question"
		}
		return out, nil
	}
	// A generator that makes the calibrated answerability decision itself sees weak evidence too.
	calibrated := false
	decider := a.gen
	if a.cfg.Gate != nil {
		decider = a.cfg.Gate
	}
	if d, ok := decider.(interface{ DecidesAnswerability() bool }); ok {
		calibrated = d.DecidesAnswerability()
	}
	if ev := res.Evidence; ev.Weak && !calibrated {
		out.Status = ariadne.StatusNotFound
		out.Reason = fmt.Sprintf("the best evidence is too weak (top score %.3f, %.0f%% of the question's terms)", ev.TopScore, 100*ev.Coverage)
		return out, nil
	}

	frags := withPages(Fragments(res.Chunks), res.pages)
	gctx, cancel := context.WithTimeout(ctx, a.cfg.Deadline)
	defer cancel()
	// On the multi_hop route the generator also sees the chunks of the evidence path that follows
	// the question best, so that a link retrieval ranked low is still in front of it (chain.go).
	// A comparison ("Who joined earlier, A or B?") cites one sentence about each thing it compares
	// (compare.go) rather than a path between them.
	var plan chainPlan
	var cmp comparePlan
	if ents := comparedEntities(req.Question, res.Linked); len(ents) > 0 {
		pages, err := a.comparisonPages(gctx, req, ents, frags)
		if err != nil {
			a.log.Warn("compared pages not read", "err", err)
		}
		if cmp = planComparison(req.Question, ents, append(append([]Fragment(nil), frags...), pages...), a.cfg.Lexicon, callerScope(req.Groups)); len(cmp.units) > 0 {
			frags = withUnits(frags, cmp.units)
		}
		if cmp.missing != "" {
			// Sentences about one side answer no comparison: the honest answer is that the
			// documents do not say (and not a quote about something else the names co-occur in).
			out.Status = ariadne.StatusNotFound
			out.Reason = fmt.Sprintf("the question compares %d named things, and no passage the caller may read states what it compares for %q", len(ents), cmp.missing)
			return out, nil
		}
	}
	if len(cmp.units) == 0 && res.Route == ariadne.RouteMultiHop && len(res.Paths) > 0 {
		var err error
		candidates := res.Paths
		if len(res.chainPaths) > 0 {
			candidates = res.chainPaths
		}
		start := time.Now()
		if plan, err = a.planChain(gctx, req, res.Linked, candidates, res.walkRooted, frags, tr.Trace); err != nil {
			a.log.Warn("evidence chain not planned", "err", err)
		}
		tr.time("chain", start)
		frags = withChain(frags, plan)
	}
	g := generation{req: req, res: res, frags: frags, plan: plan, cmp: cmp}
	if g.nameFrags, err = a.nameFragments(gctx, req, res, frags); err != nil {
		// Without them a name the fragments lack is judged unknown: a refusal, not a wrong answer.
		a.log.Warn("names not looked up in the chunk index", "err", err)
	}
	if a.cfg.Gate == nil {
		return overruled(tr, a.generate(ctx, gctx, a.gen, a.cfg.Judge, g, tr, out, emit, "")), nil
	}
	// Gated: the calibrated generator decides whether the question is answered; the model only
	// writes the answer of a question it passed (and is not asked about one it refused).
	gated := a.generate(ctx, gctx, a.cfg.Gate, nil, g, tr, out, emit, a.cfg.Gate.Name())
	if gated.Status != ariadne.StatusAnswered {
		return overruled(tr, gated), nil
	}
	written := a.generate(ctx, gctx, a.gen, a.cfg.Judge, g, tr, out, emit, a.gen.Name())
	if written.Status == ariadne.StatusAnswered {
		return written, nil
	}
	tr.GateFallback = fmt.Sprintf("%s gave no verified answer (%s: %s); the answer is %s's", a.gen.Name(), written.Status, written.Reason, a.cfg.Gate.Name())
	a.log.Info("answer from the gate", "generator", a.gen.Name(), "status", written.Status)
	return gated, nil
}

// overruled returns ans, noting in the trace's evidence decision a refusal that came after it
// passed (OverruledBy), so that the trace does not say "answered" beside a not_found.
func overruled(tr *AnswerTrace, ans Answer) Answer {
	if tr.Evidence != nil && tr.Evidence.Answered && ans.Status != ariadne.StatusAnswered {
		tr.Evidence.OverruledBy = ans.Reason
	}
	return ans
}

// generation is what every generator of one question answers from.
type generation struct {
	req   Request
	res   Result
	frags []Fragment
	plan  chainPlan
	cmp   comparePlan
	// nameFrags are readable chunks that give names of the question the fragments do not
	// (Answerer.nameFragments), for the generators' unknown-name rule only.
	nameFrags []Fragment
}

// generate runs gen's attempts (generation, verification, judge) on one question and returns out
// completed: verified claims, or a status that says why not. label, when set, names gen in its
// trace attempts (a gated answerer runs two generators).
func (a *Answerer) generate(ctx, gctx context.Context, gen Generator, judge Judge, g generation, tr *AnswerTrace, out Answer, emit func(string, any), label string) Answer {
	req, res, frags, plan := g.req, g.res, g.frags, g.plan
	before := len(tr.Attempts) // a gate's attempts are not this generator's
	lastReason := ""
	// A quoting generator whose claims state the asked fact only of another place than the
	// question's (elsewhere.go) is asked again without those quotes, while attempts remain: the
	// sentence that states it of the asked place may rank below the near miss (a trial's
	// cross-language twins were refused that way). The other fact checks refuse at once: retried
	// after a date of another event or a count of another thing too, six more questions were
	// answered, four of them wrongly, and two more near misses (docs/evaluation.md, "Stop 69").
	var exclude []string
	rejected := "" // the first such check's reason: a later refusal says why the near miss was not taken
	why := func(reason string) string {
		if rejected != "" {
			return rejected
		}
		return reason
	}
	quoting := false
	if q, ok := gen.(interface{ QuotesOnly() bool }); ok {
		quoting = q.QuotesOnly()
	}
	elsewhere := placesOfOther(req.Question, a.cfg.Lexicon.Places()) // elsewhere.go; nil: not judged
attempts:
	for n := 1; n <= a.cfg.MaxAttempts; n++ {
		start := time.Now()
		att := Attempt{N: n, Generator: label}
		var dec EvidenceDecision
		raw, err := gen.Generate(gctx, GenerationInput{Question: req.Question, Groups: req.Groups, Fragments: frags, Route: res.Route, Linked: res.Linked,
			NameFragments: g.nameFrags, Attempt: n, Previous: lastReason, Decision: &dec, Exclude: exclude})
		if dec.ChunkID != "" || dec.Reason != "" {
			tr.Evidence = &dec
		}
		tr.time("generation", start)
		if err != nil {
			a.log.Warn("generation failed", "generator", gen.Name(), "attempt", n, "err", err)
			att.Outcome, att.Error, att.DurationMS = "error", "the model call failed: "+retry.Describe(err), ms(time.Since(start))
			tr.Attempts = append(tr.Attempts, att)
			if errors.Is(err, ariadne.ErrInvalid) && gctx.Err() == nil {
				// The server rejected the request itself: the same request would be rejected again.
				out.Status, out.Reason = ariadne.StatusUnavailable, "the answer model rejects the request: "+err.Error()
				return out
			}
			if gctx.Err() != nil || errors.Is(err, ariadne.ErrUnavailable) {
				out.Status, out.Reason = ariadne.StatusUnavailable, "the answer model is unavailable: "+retry.Describe(err)
				if gctx.Err() != nil && ctx.Err() == nil {
					out.Status, out.Reason = ariadne.StatusRefused, fmt.Sprintf("no verified answer within %s", a.cfg.Deadline)
				}
				return out
			}
			lastReason = att.Error
			continue
		}
		parsed, err := ParseOutput(raw)
		if err != nil {
			att.Outcome, att.Error, att.DurationMS = "invalid", err.Error(), ms(time.Since(start))
			tr.Attempts = append(tr.Attempts, att)
			a.failure(0)
			lastReason = err.Error()
			emit("verification", map[string]any{"attempt": n, "ok": false, "error": err.Error()})
			continue
		}
		if parsed.NotFound {
			att.Outcome, att.DurationMS = "not_found", ms(time.Since(start))
			tr.Attempts = append(tr.Attempts, att)
			emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found"})
			out.Status, out.Reason = ariadne.StatusNotFound, why("the documents the caller may read do not answer the question")
			return out
		}
		perCitation := judge
		claimJudge, batched := judge.(ClaimJudge)
		if batched {
			perCitation = nil
		}
		v, err := Verify(gctx, parsed, frags, perCitation)
		if err == nil && batched && len(v.Claims) > 0 {
			jstart := time.Now()
			att.Verdicts, err = judgeClaims(gctx, claimJudge, req.Question, &v)
			tr.time("judge", jstart)
			if err == nil && len(v.Claims) == 0 {
				for _, f := range v.Failures {
					a.failure(f.Level)
				}
				att.Outcome, att.Failures, att.DurationMS = "not_found", v.Failures, ms(time.Since(start))
				tr.Attempts = append(tr.Attempts, att)
				emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found", "verdicts": att.Verdicts})
				out.Status, out.Reason = ariadne.StatusNotFound, "the support judge found no claim backed by its quotes"
				return out
			}
			if aj, ok := judge.(AnswerJudge); err == nil && ok && len(v.Claims) > 0 {
				var answers bool
				astart := time.Now()
				if answers, err = aj.Answers(gctx, req.Question, v.Claims); err == nil {
					att.AnswersQuestion = &answers
				}
				tr.time("judge", astart) // level 3 is both calls
				if err == nil && !answers {
					att.Outcome, att.Failures, att.DurationMS = "not_found", v.Failures, ms(time.Since(start))
					tr.Attempts = append(tr.Attempts, att)
					emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found", "verdicts": att.Verdicts, "answers_question": false})
					out.Status, out.Reason = ariadne.StatusNotFound, "the support judge found that the claims do not give what the question asks"
					return out
				}
				if err != nil {
					err = fmt.Errorf("agent: answers judge: %w", err)
				}
			}
		}
		if err != nil {
			att.Outcome, att.Error, att.DurationMS = "error", err.Error(), ms(time.Since(start))
			tr.Attempts = append(tr.Attempts, att)
			lastReason = err.Error()
			if gctx.Err() != nil {
				break
			}
			continue
		}
		att.Failures, att.DurationMS = v.Failures, ms(time.Since(start))
		for _, f := range v.Failures {
			a.failure(f.Level)
		}
		// A verified quote can still be an instruction planted in a document (injection.go):
		// never an answer. If that was all the evidence had, the documents do not answer.
		if len(v.Claims) > 0 {
			var dropped int
			if v.Claims, dropped = dropInstructions(v.Claims); dropped > 0 && len(v.Claims) == 0 {
				att.Outcome = "not_found"
				tr.Attempts = append(tr.Attempts, att)
				emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found", "dropped_instructions": dropped})
				out.Status, out.Reason = ariadne.StatusNotFound, "the only matching text reads as an instruction to the assistant, which is document data, not an answer"
				return out
			}
		}
		// A question for a sum of money is not answered by quotes that state none, whatever
		// wrote them: they are on its subject and miss the fact (amount.go). (A percentage is
		// often written in words, «более половины»: it ranks units, it does not refuse.)
		// retryWithout records a fact check's rejection and reports whether the generator is
		// asked again without the rejected quotes (those of claims whose quotes reject accepts).
		retryWithout := func(reason string, reject func(string) bool) bool {
			var quotes []string
			for _, c := range v.Claims {
				for _, cit := range c.Citations {
					if reject(cit.Quote) && !slices.Contains(exclude, cit.Quote) {
						quotes = append(quotes, cit.Quote)
					}
				}
			}
			if !quoting || n >= a.cfg.MaxAttempts || len(quotes) == 0 {
				return false
			}
			exclude = append(exclude, quotes...)
			if rejected == "" {
				rejected = reason
			}
			att.Outcome, att.Error, att.DurationMS = "rejected", reason, ms(time.Since(start))
			tr.Attempts = append(tr.Attempts, att)
			emit("verification", map[string]any{"attempt": n, "ok": false, "error": reason})
			lastReason = reason
			return true
		}
		if kind := askedAmount(req.Question); kind == kindMoney && len(v.Claims) > 0 {
			// The sum must also be of the asked place (elsewhere.go) and, when the question asks
			// what was paid, not an estimate or a plan (estimate.go).
			subject, reason := subjectTerms(req.Question, a.cfg.Lexicon, callerScope(req.Groups)), ""
			placed := false
			switch estimated := estimatedSum(req.Question); {
			case !quotesAmount(v.Claims, frags, kind, subject, nil):
				reason = "the question asks for a sum of money and no verified quote states one"
			case elsewhere != nil && !quotesAmount(v.Claims, frags, kind, subject, elsewhere):
				reason, placed = "the question asks for a sum of money at a place and every verified quote that states one is about another place", true
			case estimated != nil && !quotesAmount(v.Claims, frags, kind, subject, func(q string) bool { return estimated(q) || elsewhere != nil && elsewhere(q) }):
				reason = "the question asks for a sum as paid and every verified quote that states one gives an estimate or a plan"
			}
			if placed && retryWithout(reason, func(q string) bool { return hasAmount(q, kind) && elsewhere(q) }) {
				continue attempts
			}
			if reason != "" {
				att.Outcome = "not_found"
				tr.Attempts = append(tr.Attempts, att)
				emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found", "missing": kind})
				out.Status, out.Reason = ariadne.StatusNotFound, why(reason)
				return out
			}
		}
		// Likewise "how many" and "when" of a past event: quotes that state no count (in digits or
		// words), or no time, are on the subject and miss the fact («Сколько сотрудников в офисе?»
		// is not answered by «Офис: Казань», «Когда родилась Анна?» not by her role; when.go).
		for _, r := range factKinds {
			if len(v.Claims) == 0 || !r.asks(req.Question) {
				continue
			}
			stating := slices.DeleteFunc(slices.Clone(v.Claims), func(c ariadne.Claim) bool {
				return !slices.ContainsFunc(c.Citations, func(cit ariadne.Citation) bool { return r.states(cit.Quote) })
			})
			reason := r.reason
			// A count must be of what the question counts ("410 beds" is no number of doctors), a
			// time of the event it dates (a founding year is not the year of a delivery).
			if r.other != nil && len(stating) > 0 {
				if other := r.other(req.Question, res.Linked, a.cfg.Lexicon, callerScope(req.Groups)); other != nil {
					stating = slices.DeleteFunc(stating, func(c ariadne.Claim) bool {
						return !slices.ContainsFunc(c.Citations, func(cit ariadne.Citation) bool {
							return r.states(cit.Quote) && !other(cit.Quote)
						})
					})
					reason = r.otherReason
				}
			}
			// …and of the place it names, when it names one (elsewhere.go): a first concert in St
			// Petersburg does not date the first one in Kazan.
			placed := false // every quote that states the fact was rejected for being about another place
			if elsewhere != nil && len(stating) > 0 {
				placed = true
				stating = slices.DeleteFunc(stating, func(c ariadne.Claim) bool {
					return !slices.ContainsFunc(c.Citations, func(cit ariadne.Citation) bool {
						return r.states(cit.Quote) && !elsewhere(cit.Quote)
					})
				})
				if len(stating) == 0 {
					reason = fmt.Sprintf("the question asks for a %s at a place and every verified quote that states one is about another place", r.kind)
				}
			}
			if len(stating) == 0 && placed && retryWithout(reason, func(q string) bool { return r.states(q) && elsewhere(q) }) {
				continue attempts
			}
			if len(stating) == 0 {
				att.Outcome = "not_found"
				tr.Attempts = append(tr.Attempts, att)
				emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found", "missing": r.kind})
				out.Status, out.Reason = ariadne.StatusNotFound, why(reason)
				return out
			}
			// The quotes that state the fact must not all come from the page of another thing of
			// the kind the question names: «В команде 7 человек.» from another team's page does not
			// say how many are in the asked team, whatever else is quoted about it (outside tester).
			if l, other, ok := aboutOtherPage(res.Linked, stating, frags, a.cfg.EntityTypeOf, true); ok && res.Route != ariadne.RouteMultiHop {
				att.Outcome = "not_found"
				tr.Attempts = append(tr.Attempts, att)
				emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found", "missing": "subject"})
				out.Status, out.Reason = ariadne.StatusNotFound, fmt.Sprintf("the question asks for a %s of %q and the only verified quotes that state one are from the page of another organisation or thing of its kind (%s)", r.kind, l.Surface, other)
				return out
			}
		}
		// A quote from the page of another thing of the same kind as one the question names (another
		// team's headcount for "how many engineers in the Data team", another incident's author)
		// answers the question about that other thing: when the best quote — a quoting generator's
		// first claim, any other generator's every claim — is such a quote, the answer is not_found.
		if res.Route != ariadne.RouteMultiHop && len(v.Claims) > 0 {
			claims := v.Claims
			if quotesOnly(gen) {
				claims = claims[:1]
			}
			if l, other, ok := aboutOther(res.Linked, claims, frags, a.cfg.EntityTypeOf); ok {
				att.Outcome = "not_found"
				tr.Attempts = append(tr.Attempts, att)
				emit("verification", map[string]any{"attempt": n, "ok": true, "status": "not_found", "missing": "subject"})
				out.Status, out.Reason = ariadne.StatusNotFound, fmt.Sprintf("the best verified quote is about another %s (%s), not %q, which the question names", l.Type, other, l.Surface)
				return out
			}
		}
		if len(v.Claims) == 0 {
			emit("verification", map[string]any{"attempt": n, "ok": false, "verified_claims": 0, "failures": nonNilFailures(v.Failures)})
			att.Outcome = "unverified"
			tr.Attempts = append(tr.Attempts, att)
			lastReason = fmt.Sprintf("no claim survived verification (%d failures, first: %s)", len(v.Failures), v.Failures[0].Reason)
			continue
		}
		att.Outcome = "answer"
		tr.Attempts = append(tr.Attempts, att)
		out.Status = ariadne.StatusAnswered
		out.Claims = v.Claims
		if quotesOnly(gen) && len(plan.hops) == 0 {
			// A further quote about another thing of the kind the question names (a colleague's
			// «с 2021 года руководит командой» after the asked person's own sentence) pads the answer with
			// that thing's facts; the best quote stays whatever it is about (checked above).
			out.Claims = append(out.Claims[:1:1], withoutOther(out.Claims[1:], res.Linked, frags, a.cfg.EntityTypeOf)...)
		}
		if len(plan.hops) > 0 {
			claims, chain, err := chainClaims(gctx, plan, frags)
			if err != nil {
				a.log.Warn("evidence chain not claimed", "err", err)
			}
			if len(chain) > 0 {
				out.Chain = chain
				out.Claims = withChainClaims(claims, v.Claims, quotesOnly(gen), res.Linked, frags, a.cfg.EntityTypeOf)
			}
		} else if len(g.cmp.units) > 0 {
			// Each compared thing's sentence leads the answer; a unit that does not verify drops
			// the comparison, not the answer.
			if claims, err := verifyUnits(gctx, g.cmp.units, frags); err != nil {
				a.log.Warn("comparison not claimed", "err", err)
			} else if len(claims) > 0 {
				out.Claims = mergeClaims(claims, v.Claims)
				if quotesOnly(gen) {
					// A quoting generator's own picks answer the question's words, not the
					// comparison: the compared sentences are the answer (a model's written claims,
					// which may say which one is earlier, stay).
					out.Claims = claims
				}
				times := timeRE.MatchString(req.Question) || ageRE.MatchString(req.Question) || sameTimeRE.MatchString(req.Question)
				for i, c := range claims {
					item := ComparedItem{Entity: g.cmp.entities[i], Citation: c.Citations[0]}
					if times {
						item.Value, _ = dateValue(item.Citation.Quote)
					}
					out.Compared = append(out.Compared, item)
				}
				out.ComparedOutcome = compareDates(req.Question, out.Compared)
			}
		}
		// The event counts the answer's claims: the chain's and the compared sentences' too.
		emit("verification", map[string]any{"attempt": n, "ok": true, "verified_claims": len(out.Claims), "failures": nonNilFailures(v.Failures)})
		out.Answer, out.Citations = render(out.Claims)
		return out
	}
	out.Status = ariadne.StatusRefused
	out.Reason = fmt.Sprintf("no verified answer after %d attempts: %s", len(tr.Attempts)-before, lastReason)
	return out
}

// withChainClaims is a multi-hop answer's claims: the chain's, then the generator's (mergeClaims).
// A quoting generator's quote about another thing of the kind the question names (aboutOther:
// another incident's root cause after the asked incident's chain) pads the chain with that
// thing's facts and is left out; the chain leads the answer, so none of them is its best quote.
func withChainClaims(chain, generated []ariadne.Claim, quotes bool, linked []Linked, frags []Fragment, typeOf func(string) string) []ariadne.Claim {
	if quotes {
		generated = withoutOther(generated, linked, frags, typeOf)
	}
	return mergeClaims(chain, generated)
}

// withoutOther returns claims without those that are each about another thing of the kind a
// linked entity has (aboutOther); claims is not changed.
func withoutOther(claims []ariadne.Claim, linked []Linked, frags []Fragment, typeOf func(string) string) []ariadne.Claim {
	return slices.DeleteFunc(slices.Clone(claims), func(c ariadne.Claim) bool {
		_, _, other := aboutOther(linked, []ariadne.Claim{c}, frags, typeOf)
		return other
	})
}

// mergeClaims returns the claims of first, then those of rest, leaving out every claim whose
// citations are all cited by a claim before it: a chain whose two hops one sentence states (a
// table row naming three entities) claims that sentence once, and a generator's claim that
// repeats a hop is not repeated.
func mergeClaims(first, rest []ariadne.Claim) []ariadne.Claim {
	var out []ariadne.Claim
	for _, c := range slices.Concat(first, rest) {
		dup := len(c.Citations) > 0
		for _, cit := range c.Citations {
			if !slices.ContainsFunc(out, func(f ariadne.Claim) bool {
				return slices.ContainsFunc(f.Citations, func(x ariadne.Citation) bool {
					return x.ChunkID == cit.ChunkID && x.Start == cit.Start && x.End == cit.End
				})
			}) {
				dup = false
			}
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// judgeClaims asks the judge about v's claims, drops the rejected ones (each a level-3 failure)
// and returns the verdicts.
func judgeClaims(ctx context.Context, j ClaimJudge, question string, v *Verified) ([]Verdict, error) {
	verdicts, err := j.JudgeClaims(ctx, question, v.Claims)
	if err != nil {
		return nil, fmt.Errorf("agent: judge: %w", err)
	}
	if len(verdicts) != len(v.Claims) {
		return nil, fmt.Errorf("agent: judge: %d verdicts for %d claims", len(verdicts), len(v.Claims))
	}
	var kept []ariadne.Claim
	for i, vd := range verdicts {
		if vd.Supported {
			kept = append(kept, v.Claims[i])
			continue
		}
		v.Failures = append(v.Failures, Failure{Level: 3, Claim: vd.Claim, Reason: vd.By + ": " + vd.Reason})
	}
	v.Claims = kept
	return verdicts, nil
}

func (a *Answerer) failure(level int) {
	if a.hooks.VerificationFailure != nil {
		a.hooks.VerificationFailure(level)
	}
}

// render joins the claims into the answer text, each followed by the ids of its citations in
// brackets, and lists the distinct citations.
func render(claims []ariadne.Claim) (string, []ariadne.Citation) {
	var parts []string
	var cits []ariadne.Citation
	for _, c := range claims {
		var ids []string
		for _, cit := range c.Citations {
			ids = append(ids, cit.ChunkID)
			if !slices.ContainsFunc(cits, func(x ariadne.Citation) bool {
				return x.ChunkID == cit.ChunkID && x.Start == cit.Start && x.End == cit.End
			}) {
				cits = append(cits, cit)
			}
		}
		parts = append(parts, fmt.Sprintf("%s [%s]", c.Text, strings.Join(ids, "; ")))
	}
	return strings.Join(parts, "\n"), cits
}

func nonNilPaths(p []ariadne.Path) []ariadne.Path {
	if p == nil {
		return []ariadne.Path{}
	}
	return p
}

func nonNilFailures(f []Failure) []Failure {
	if f == nil {
		return []Failure{}
	}
	return f
}

// quotesOnly reports whether every claim gen writes is a quoted unit (the extractive generators).
func quotesOnly(gen Generator) bool {
	q, ok := gen.(interface{ QuotesOnly() bool })
	return ok && q.QuotesOnly()
}

// aboutOther reports whether every claim is about another thing of the same kind as a linked
// entity of the question that has its own page (documented entities are keyed by their document
// id): each cites a chunk of another document of that entity's type whose quote does not name the
// entity by any name the caller may see. It returns that entity and the other document's title.
// The page of another linked entity the question's words name as well (two pages titled alike: a
// management-only contract and a public page that took its name) is not another thing: the name
// means both.
func aboutOther(linked []Linked, claims []ariadne.Claim, frags []Fragment, typeOf func(docType string) string) (Linked, string, bool) {
	return aboutOtherPage(linked, claims, frags, typeOf, false)
}

// unitTypes are the default ontology's entity types of organisations in their different roles
// (ontology/default.yaml: a company is an organization, a customer a client, a department a
// team): a count of staff or a date of founding stated on one's page is a fact of that one.
var unitTypes = map[string]bool{"organization": true, "client": true, "team": true}

// aboutOtherPage is aboutOther; with units, an organisation's page is another thing of the kind
// of any organisation (unitTypes: a company, a client, a team are all organisations in the
// default ontology, in different roles): «В компании работает 310 сотрудников» on the CRO's own
// page is no headcount of the client the question names (trial 69).
func aboutOtherPage(linked []Linked, claims []ariadne.Claim, frags []Fragment, typeOf func(docType string) string, units bool) (Linked, string, bool) {
	byID := map[string]Fragment{}
	for _, f := range frags {
		byID[f.Chunk.ID] = f
	}
	for _, l := range linked {
		if l.names == nil || l.Surface == "" || !strings.Contains(l.Key, "/") || l.Type == "" {
			continue
		}
		homonym := map[string]bool{}
		for _, m := range linked {
			if m.Key != l.Key && m.Surface == l.Surface {
				homonym[m.Key] = true
			}
		}
		other := ""
		all := len(claims) > 0
		for _, c := range claims {
			elsewhere := len(c.Citations) > 0
			for _, cit := range c.Citations {
				f, ok := byID[cit.ChunkID]
				kind := typeOf(f.Chunk.DocType)
				sameKind := kind == l.Type || units && unitTypes[kind] && unitTypes[l.Type]
				if !ok || f.Chunk.DocID == l.Key || homonym[f.Chunk.DocID] || !sameKind || namesKey(l, cit.Quote) {
					elsewhere = false
					break
				}
				other = f.Chunk.Title
			}
			all = all && elsewhere
		}
		if all {
			return l, other, true
		}
	}
	return Linked{}, "", false
}
