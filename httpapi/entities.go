package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/corpus"
	"github.com/ariadne-graphrag/ariadne/ingest"
	"github.com/ariadne-graphrag/ariadne/resolution"
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

// entities answers GET /v1/entities?q=…&limit=…: the entities the text names among those the
// caller may see, each as the caller sees it, resolved with the same normalization,
// transliteration and inflection rules as ingestion (fulltext candidates confirmed by the
// resolver's matcher), best first. An entity only restricted documents name is not listed.
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
	for _, e := range edges {
		n := Neighbor{Relation: e.Type, ChunkIDs: e.ChunkIDs, Direction: "out"}
		other := e.To
		if e.To.Key == key {
			other, n.Direction = e.From, "in"
		}
		n.Entity = EntityView{Key: other.Key, Name: other.Name, Type: other.Type, DocID: other.DocID, Aliases: []string{}}
		out = append(out, n)
	}
	c.JSON(http.StatusOK, gin.H{"entity": viewOf(ent), "neighbors": out, "request_id": c.GetString(requestIDKey)})
}

// DocumentRequest is the JSON body of POST /v1/documents, validated exactly like a file's front
// matter (corpus.FromFields). A text/markdown body with YAML front matter is accepted too, parsed
// exactly as the extraction job parses files.
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
	case "text/markdown", "text/plain":
		var f corpus.Fields
		if f, err = corpus.ParseFields(raw); err == nil {
			acl, aclScalar = f.ACL, f.ACLScalar
			doc, err = corpus.FromFields("request", f)
		}
		doc.Source = c.Query("source")
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
	// A writer may replace only documents it may read.
	acl, found, err := h.svc.Library.DocumentACL(c.Request.Context(), doc.ID)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	if found && !ariadne.CanRead(acl, callerOf(c).Groups) {
		writeError(c, http.StatusForbidden, "forbidden", "this API key may not replace that document")
		return
	}
	sum, err := h.svc.Documents.Upsert(c.Request.Context(), []ariadne.Document{doc}, ingest.Options{Source: doc.SourceName()})
	if err != nil {
		h.writeErr(c, err)
		return
	}
	if len(sum.Conflicts) > 0 {
		// Nothing was written: the stored document stays as its source wrote it.
		writeError(c, http.StatusConflict, "document_conflict", fmt.Sprintf(
			"document id %q belongs to another source; ids are unique across sources (delete it there first, or choose another id)", doc.ID))
		return
	}
	status := "indexed"
	if sum.DocsWritten == 0 && sum.DocsRelinked == 0 {
		status = "unchanged"
	}
	if len(sum.VectorErrors) > 0 {
		writeError(c, http.StatusBadGateway, "index_refused", fmt.Sprintf("Weaviate refused %d chunks; the document will be indexed by the next write", len(sum.VectorErrors)))
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": status, "doc_id": doc.ID, "chunks": sum.Chunks, "entities": sum.DocEntities,
		"relations": sum.Relations, "writes": sum.Writes(), "request_id": c.GetString(requestIDKey)})
}

// deleteDocument answers DELETE /v1/documents/{id}. A document the caller may not read is 404,
// exactly like one that does not exist.
func (h *handlers) deleteDocument(c *gin.Context) {
	id := c.Param("id")
	acl, found, err := h.svc.Library.DocumentACL(c.Request.Context(), id)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	if !found || !ariadne.CanRead(acl, callerOf(c).Groups) {
		writeError(c, http.StatusNotFound, "not_found", "no document with that id")
		return
	}
	sum, err := h.svc.Documents.Delete(c.Request.Context(), []string{id}, ingest.Options{})
	if err != nil {
		h.writeErr(c, err)
		return
	}
	if sum.DocsDeleted == 0 {
		writeError(c, http.StatusNotFound, "not_found", "no document with that id")
		return
	}
	c.Status(http.StatusNoContent)
}

// documentFields are the fields of a JSON document (DocumentRequest), for messages.
const documentFields = "id, title, type, lang, updated, acl, version, aliases, body, source"
