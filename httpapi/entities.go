package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/agent"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/resolution"
	"github.com/ariadne-graphrag/ariadne/textnorm"
)

// EntityView is an entity as the API shows it.
type EntityView struct {
	Key     string   `json:"key"`
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	DocID   string   `json:"doc_id,omitempty"`
	Aliases []string `json:"aliases"`
}

func viewOf(e ariadne.Entity) EntityView {
	v := EntityView{Key: e.Key, Name: e.Name, Type: e.Type, DocID: e.DocID, Aliases: e.Aliases}
	if v.Aliases == nil {
		v.Aliases = []string{}
	}
	return v
}

// namesEveryWord reports whether every word of q (phonetic Latin keys, textnorm.KeyTokens) is,
// up to an inflection (textnorm.TokenMatch, ShortNameInflected), a word of e's name or of one
// of its aliases: «Светловой» or "Svetlova" for «Анна Светлова», "Lazarev Igor" for Igor
// Lazarev. Words of fewer than three letters do not count.
func namesEveryWord(q string, e ariadne.Entity) bool {
	var words []string
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		words = append(words, textnorm.KeyTokens(n)...)
	}
	found := false
	for _, qt := range textnorm.KeyTokens(q) {
		if len(qt) < 3 {
			continue
		}
		if !slices.ContainsFunc(words, func(w string) bool { return textnorm.TokenMatch(qt, w) || textnorm.ShortNameInflected(qt, w) }) {
			return false
		}
		found = true
	}
	return found
}

// entities answers GET /v1/entities?q=…&limit=…: the entities the text names among those the
// caller may see, each as the caller sees it, resolved with the same normalization,
// transliteration and inflection rules as ingestion (fulltext candidates confirmed by the
// resolver's matcher), best first; with a gazetteer (Services.Places), a place by any of its
// names ("Vienna" lists «Вена»). An entity only restricted documents name is not listed.
func (h *handlers) entities(c *gin.Context) {
	q := strings.TrimSpace(c.Query("q"))
	if q == "" || len(q) > 500 {
		writeError(c, http.StatusBadRequest, "invalid_request", "q is required (at most 500 bytes)")
		return
	}
	limit, err := strconv.Atoi(c.DefaultQuery("limit", "10"))
	if err != nil || limit < 1 || limit > 100 {
		writeError(c, http.StatusBadRequest, "invalid_request", "limit must be between 1 and 100")
		return
	}
	cands, err := h.svc.Entities.EntityCandidates(c.Request.Context(), q, callerOf(c).Groups, 100)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	places, err := agent.PlaceCandidates(c.Request.Context(), h.svc.Entities.EntityCandidates, h.svc.Places, q, callerOf(c).Groups)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	cands = agent.WithPlaceCandidates(cands, places)
	reg := resolution.NewRegistry(nil)
	for _, cand := range cands {
		reg.Load(cand.Entity, cand.Context, cand.QuotedAliases)
	}
	out := []EntityView{}
	seen := map[string]bool{}
	add := func(key string) {
		if e, ok := reg.Get(key); ok && !seen[key] && len(out) < limit {
			seen[key] = true
			out = append(out, viewOf(e))
		}
	}
	for _, k := range reg.Matcher().FindWhole(q).Keys {
		add(k)
	}
	for _, m := range reg.Matcher().Find(q) {
		for _, k := range m.Keys {
			add(k)
		}
	}
	if len(out) == 0 {
		// Nothing named whole: a part of a name (a surname alone) or its words in another order.
		for _, cand := range cands {
			if namesEveryWord(q, cand.Entity) {
				add(cand.Key)
			}
		}
	}
	c.JSON(http.StatusOK, gin.H{"entities": out, "request_id": c.GetString(requestIDKey)})
}

// Neighbor is one relationship of an entity.
type Neighbor struct {
	Relation  string     `json:"relation"`
	Direction string     `json:"direction"` // "out" (entity → neighbour) or "in"
	Entity    EntityView `json:"entity"`
	ChunkIDs  []string   `json:"chunk_ids"` // provenance the caller may read
}

// neighbors answers GET /v1/entities/{key}/neighbors with the relationships the caller may read;
// an entity the caller may not see is 404, exactly like one that does not exist.
func (h *handlers) neighbors(c *gin.Context) {
	groups := callerOf(c).Groups
	ent, err := h.svc.Entities.Entity(c.Request.Context(), c.Param("key"), groups)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	key := ent.Key // the key as this caller sees it (an opaque key when the entity's own is hidden)
	edges, err := h.svc.Entities.Edges(c.Request.Context(), []string{key}, groups, nil, 500)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	out := []Neighbor{}
	var keys []string
	for _, e := range edges {
		n := Neighbor{Relation: e.Type, ChunkIDs: e.ChunkIDs, Direction: "out"}
		other := e.To
		if e.To.Key == key {
			other, n.Direction = e.From, "in"
		}
		n.Entity = EntityView{Key: other.Key, Name: other.Name, Type: other.Type, DocID: other.DocID, Aliases: []string{}}
		out = append(out, n)
		keys = append(keys, other.Key)
	}
	// The neighbours' other names, as this caller may see them (graph.Store.EntityAliases), in
	// one read: the edges carry the ends' names only. A store without it lists none.
	if ar, ok := h.svc.Entities.(agent.EntityAliasReader); ok && len(keys) > 0 {
		aliases, err := ar.EntityAliases(c.Request.Context(), keys, groups)
		if err != nil {
			h.writeErr(c, err)
			return
		}
		for i := range out {
			if a := aliases[out[i].Entity.Key]; len(a) > 0 {
				out[i].Entity.Aliases = a
			}
		}
	}
	c.JSON(http.StatusOK, gin.H{"entity": viewOf(ent), "neighbors": out, "request_id": c.GetString(requestIDKey)})
}

// DocumentRequest is the JSON body of POST /v1/documents, validated like a file's front matter
// (corpus.FromFields). A text/markdown body with YAML front matter is accepted too, parsed as the
// extraction job parses files (corpus.ParseFields). For both, the API is stricter than the job
// about acl (acl.go): a list, not empty, no blank name, sharing a group with the writing key.
type DocumentRequest struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Type    string   `json:"type"`
	Lang    string   `json:"lang"`
	Updated string   `json:"updated"`
	ACL     []string `json:"acl"`
	Version int      `json:"version"`
	Aliases []string `json:"aliases"`
	Body    string   `json:"body"`
	Source  string   `json:"source"` // the source it belongs to; "" is "default"
}

// putDocument answers POST /v1/documents: one document is indexed through the same pipeline as
// the extraction job (unchanged content writes nothing).
func (h *handlers) putDocument(c *gin.Context) {
	raw, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(c, http.StatusRequestEntityTooLarge, "payload_too_large", fmt.Sprintf("the body is over %d bytes", mbe.Limit))
			return
		}
		writeError(c, http.StatusBadRequest, "invalid_request", "could not read the body")
		return
	}
	ct, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	var doc ariadne.Document
	var acl []string // as sent: nil when left out
	aclScalar := false
	switch ct {
	case "", "application/json":
		var req DocumentRequest
		if len(bytes.TrimSpace(raw)) == 0 {
			writeError(c, http.StatusBadRequest, "invalid_request", "a JSON document is required (fields "+documentFields+")")
			return
		}
		if err := decodeStrict(raw, &req); err != nil {
			writeError(c, http.StatusBadRequest, "invalid_request", "the body is not a valid JSON document: "+err.Error()+" (fields "+documentFields+")")
			return
		}
		if strings.TrimSpace(req.ID) == "" {
			writeError(c, http.StatusBadRequest, "invalid_request", `invalid document: the JSON document has no "id"`)
			return
		}
		acl = req.ACL
		doc, err = corpus.FromFields("request", corpus.Fields{ID: req.ID, Title: req.Title, Type: req.Type, Lang: req.Lang,
			Updated: req.Updated, ACL: req.ACL, Version: req.Version, Aliases: req.Aliases, Body: req.Body})
		doc.Source = req.Source
		// The query parameter names the source for JSON too (it was ignored, and the document
		// landed in "default", where the next sync of the default corpus deleted it: outside
		// tester); a body that names another source is a contradiction.
		if q := c.Query("source"); q != "" {
			if req.Source != "" && req.Source != q {
				writeError(c, http.StatusBadRequest, "invalid_request", fmt.Sprintf("the body's \"source\" %q and ?source=%s differ: give one", req.Source, q))
				return
			}
			doc.Source = q
		}
	case "text/markdown", "text/plain":
		var f corpus.Fields
		if f, err = corpus.ParseFields(raw); err == nil {
			acl, aclScalar = f.ACL, f.ACLScalar
			doc, err = corpus.FromFields("request", f)
		}
		// The front matter's "source" counts as the JSON field does (it was ignored, and the
		// document landed in "default": README trial).
		doc.Source = cmp.Or(c.Query("source"), f.Source)
		if q := c.Query("source"); err == nil && q != "" && f.Source != "" && f.Source != q {
			writeError(c, http.StatusBadRequest, "invalid_request", fmt.Sprintf("the front matter's source %q and ?source=%s differ: give one", f.Source, q))
			return
		}
	default:
		writeError(c, http.StatusUnsupportedMediaType, "unsupported_media_type", "send application/json or text/markdown")
		return
	}
	if err != nil {
		writeError(c, http.StatusBadRequest, "invalid_request", "invalid document: "+publicMessage(err, "not a Markdown document with YAML front matter"))
		return
	}
	if e := checkACLShape(acl, aclScalar); e != nil {
		e.write(c)
		return
	}
	if err := ariadne.CheckSource(doc.SourceName()); err != nil {
		writeError(c, http.StatusBadRequest, "invalid_request", publicMessage(err, "invalid source"))
		return
	}
	if e := checkWriteACL(doc.ACL, callerOf(c).Groups); e != nil {
		e.write(c)
		return
	}
	// A writer may replace only documents it may read, and only with a version that is not older
	// than the stored one (versionConflict). Checked first here, to refuse without waiting for
	// the writer lock, then again under it (Precheck), where no other writer can change them.
	groups := callerOf(c).Groups
	if e, err := h.replaceCheck(c.Request.Context(), doc, groups, nil); err != nil || e != nil {
		h.writeErrOr(c, e, err)
		return
	}
	opts := ingest.Options{Source: doc.SourceName(), Precheck: func(ctx context.Context, stored map[string]ariadne.DocState) error {
		e, err := h.replaceCheck(ctx, doc, groups, stored)
		if e != nil {
			return e
		}
		return err
	}}
	ctx, cancel := h.writeContext(c)
	defer cancel()
	sum, err := h.svc.Documents.Upsert(ctx, []ariadne.Document{doc}, opts)
	if err != nil {
		h.writeFailed(c, ctx, err)
		return
	}
	if len(sum.Conflicts) > 0 {
		// Nothing was written: the stored document stays as its source wrote it.
		writeError(c, http.StatusConflict, "document_conflict", fmt.Sprintf(
			"document id %q belongs to another source; ids are unique across sources (delete it there first, or choose another id)", doc.ID))
		return
	}
	// "indexed" when the document's content was written. An unchanged document may still be
	// linked again because names elsewhere changed — and one a restricted page defines since
	// its last write is such a name: saying so told a public writer that a management page now
	// describes a name its note contains (security audit, stop 60). So a relink alone is
	// "unchanged".
	status := "indexed"
	if sum.DocsWritten == 0 {
		status = "unchanged"
	}
	if len(sum.VectorErrors) > 0 {
		writeError(c, http.StatusBadGateway, "index_refused", fmt.Sprintf("Weaviate refused %d chunks; the document will be indexed by the next write", len(sum.VectorErrors)))
		return
	}
	// The document's own counts, written or unchanged, of what every reader of the document may
	// see (ingest: visibleCounts; not the run's: a pipeline without Summary.Docs, e.g. a fake,
	// falls back to what the run wrote).
	counts := ingest.DocCounts{Chunks: sum.Chunks, Entities: sum.DocEntities, Relations: sum.Relations}
	if d, ok := sum.Docs[doc.ID]; ok {
		counts = d
	}
	// No count of the run's writes: a write also rewrites stored documents whose names it changes,
	// restricted ones too, and their number would tell the writer what pages it may not read say.
	c.JSON(http.StatusOK, gin.H{"status": status, "doc_id": doc.ID, "chunks": counts.Chunks, "entities": counts.Entities,
		"relations": counts.Relations, "request_id": c.GetString(requestIDKey)})
}

// replaceCheck checks that the caller (groups) may write doc over what is stored: a stored
// document it may not read is 403, a stored version newer than doc's (or the same version with
// other content) is 409 version_conflict. stored, when not nil, is the pipeline's view under the
// writer lock (ingest.Options.Precheck): a document it does not hold, or holds in another source
// (the pipeline reports that conflict), is not compared. The *httpError is the answer; err is a
// store's failure.
func (h *handlers) replaceCheck(ctx context.Context, doc ariadne.Document, groups []string, stored map[string]ariadne.DocState) (*httpError, error) {
	var st ariadne.DocState
	if stored != nil {
		var ok bool
		if st, ok = stored[doc.ID]; !ok || st.ContentHash == "" {
			return nil, nil // new, or only claimed by a run that never wrote it
		}
	}
	acl, found, err := h.svc.Library.DocumentACL(ctx, doc.ID)
	if err != nil || !found {
		return nil, err
	}
	if !ariadne.CanRead(acl, groups) {
		return &httpError{http.StatusForbidden, "forbidden", "this API key may not replace that document"}, nil
	}
	if stored == nil || cmp.Or(st.Source, ariadne.DefaultSource) != doc.SourceName() || st.ContentHash == doc.ContentHash() {
		return nil, nil
	}
	info, _, err := h.svc.Library.Document(ctx, doc.ID, groups)
	if errors.Is(err, ariadne.ErrNotFound) {
		return nil, nil // no readable chunk stored: nothing to compare
	}
	if err != nil {
		return nil, err
	}
	return versionConflict(doc.ID, doc.Version, info.Version), nil
}

// versionConflict applies the version rule to a write of version given over a stored document
// at version stored whose content differs: an older version is refused, and so is the same
// version unless both are 0 (unversioned documents are replaced by any write; once a document
// has a version, changing it takes a higher one).
func versionConflict(id string, given, stored int) *httpError {
	switch {
	case given < stored:
		return &httpError{http.StatusConflict, "version_conflict", fmt.Sprintf(
			"document %q is stored at version %d; this write has version %d, which is older (send version %d or higher to replace it)",
			id, stored, given, stored+1)}
	case given == stored && stored > 0:
		return &httpError{http.StatusConflict, "version_conflict", fmt.Sprintf(
			"document %q is stored at version %d with other content; this write has version %d too (send version %d or higher to replace it)",
			id, stored, given, stored+1)}
	}
	return nil
}

// writeErrOr writes e when it is set, else the error err.
func (h *handlers) writeErrOr(c *gin.Context, e *httpError, err error) {
	if e != nil {
		e.write(c)
		return
	}
	h.writeErr(c, err)
}

// deleteDocument answers DELETE /v1/documents/{id}. A document the caller may not read is 404,
// exactly like one that does not exist. Checked first, then again under the writer lock.
func (h *handlers) deleteDocument(c *gin.Context) {
	id := c.Param("id")
	groups := callerOf(c).Groups
	notFound := &httpError{http.StatusNotFound, "not_found", "no document with that id"}
	check := func(ctx context.Context) error {
		acl, found, err := h.svc.Library.DocumentACL(ctx, id)
		switch {
		case err != nil:
			return err
		case !found || !ariadne.CanRead(acl, groups):
			return notFound
		}
		return nil
	}
	if err := check(c.Request.Context()); err != nil {
		h.writeErrOr(c, asHTTPError(err), err)
		return
	}
	ctx, cancel := h.writeContext(c)
	defer cancel()
	sum, err := h.svc.Documents.Delete(ctx, []string{id}, ingest.Options{
		Precheck: func(ctx context.Context, _ map[string]ariadne.DocState) error { return check(ctx) }})
	if err != nil {
		h.writeFailed(c, ctx, err)
		return
	}
	if sum.DocsDeleted == 0 {
		notFound.write(c)
		return
	}
	c.Status(http.StatusNoContent)
}

// writeContext is the context of a document write: the request's, bounded by
// Limits.WriteTimeout, with the response's write deadline moved past that bound (the server's
// WriteTimeout is sized for queries).
func (h *handlers) writeContext(c *gin.Context) (context.Context, context.CancelFunc) {
	_ = http.NewResponseController(c.Writer).SetWriteDeadline(time.Now().Add(h.lim.WriteTimeout + 30*time.Second))
	return context.WithTimeout(c.Request.Context(), h.lim.WriteTimeout)
}

// writeFailed answers a failed document write: past Limits.WriteTimeout it is 504 timeout,
// otherwise the error's class.
func (h *handlers) writeFailed(c *gin.Context, ctx context.Context, err error) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.Request.Context().Err() == nil {
		writeError(c, http.StatusGatewayTimeout, "timeout", fmt.Sprintf(
			"the write took longer than %s and was stopped: send the document again to finish it (the next write of it completes what this one left)", h.lim.WriteTimeout))
		return
	}
	h.writeErrOr(c, asHTTPError(err), err)
}

// asHTTPError returns the *httpError err is or wraps, or nil.
func asHTTPError(err error) *httpError {
	var e *httpError
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// documentFields are the fields of a JSON document (DocumentRequest), for messages.
const documentFields = "id, title, type, lang, updated, acl, version, aliases, body, source"
