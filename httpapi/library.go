package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/ariadne-graphrag/ariadne"
)

// DocumentView is a stored document's metadata as the API shows it.
type DocumentView struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Type    string   `json:"type"`
	Lang    string   `json:"lang"`
	Updated string   `json:"updated"`
	Version int      `json:"version"`
	ACL     []string `json:"acl"`
	Chunks  int      `json:"chunks,omitempty"` // readable chunks (in lists)
	Source  string   `json:"source"`           // the source the document is synced from
}

func documentView(d ariadne.DocumentInfo) DocumentView {
	v := DocumentView{ID: d.ID, Title: d.Title, Type: d.Type, Lang: d.Lang, Updated: d.Updated, Version: d.Version,
		ACL: d.ACL, Chunks: d.Chunks, Source: d.Source}
	if v.ACL == nil {
		v.ACL = []string{}
	}
	return v
}

// ChunkView is one stored chunk. Start and End are byte offsets of Text in its document's body;
// a citation's offsets are byte offsets into Text.
type ChunkView struct {
	ChunkID  string `json:"chunk_id"`
	DocID    string `json:"doc_id,omitempty"`
	Title    string `json:"title,omitempty"`
	Position int    `json:"position"`
	Heading  string `json:"heading"`
	Text     string `json:"text"`
	// Start and End are the byte offsets of Text in the document body; absent when the chunk was
	// read from the chunk index because the graph store was unavailable (it keeps no offsets).
	Start      *int     `json:"start,omitempty"`
	End        *int     `json:"end,omitempty"`
	DocVersion int      `json:"doc_version"`
	Updated    string   `json:"updated,omitempty"`
	Lang       string   `json:"lang,omitempty"`
	ACL        []string `json:"acl"`
}

// chunkView is the API's view of a chunk; offsets says whether c's Start and End are known (read
// from the graph store) or not (the chunk index's copy).
func chunkView(c ariadne.Chunk, offsets bool) ChunkView {
	v := ChunkView{ChunkID: c.ID, DocID: c.DocID, Title: c.Title, Position: c.Position, Heading: c.HeadingPath(),
		Text: c.Text, DocVersion: c.DocVersion, Updated: c.Updated, Lang: c.Lang, ACL: c.ACL}
	if offsets {
		v.Start, v.End = &c.Start, &c.End
	}
	if v.ACL == nil {
		v.ACL = []string{}
	}
	return v
}

// maxDocumentOffset is the largest offset GET /v1/documents takes: Neo4j's SKIP is a 32-bit
// count, and a limit of at most 500 is added to it.
const maxDocumentOffset = math.MaxInt32 - 500

// listDocuments answers GET /v1/documents?limit=…&offset=…: the documents the caller may read,
// by id.
func (h *handlers) listDocuments(c *gin.Context) {
	limit, err := strconv.Atoi(c.DefaultQuery("limit", "50"))
	if err != nil || limit < 1 || limit > 500 {
		writeError(c, http.StatusBadRequest, "invalid_request", "limit must be between 1 and 500")
		return
	}
	// Neo4j takes SKIP as a 32-bit count: a larger offset failed there as a server error,
	// answered 503 and opened the graph circuit breaker for every caller (security audit).
	offset, err := strconv.Atoi(c.DefaultQuery("offset", "0"))
	if err != nil || offset < 0 || offset > maxDocumentOffset {
		writeError(c, http.StatusBadRequest, "invalid_request", fmt.Sprintf("offset must be an integer between 0 and %d", maxDocumentOffset))
		return
	}
	docs, total, err := h.svc.Library.Documents(c.Request.Context(), callerOf(c).Groups, limit, offset)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	out := make([]DocumentView, 0, len(docs))
	for _, d := range docs {
		out = append(out, documentView(d))
	}
	c.JSON(http.StatusOK, gin.H{"documents": out, "total": total, "request_id": c.GetString(requestIDKey)})
}

// getDocument answers GET /v1/documents/{id}: the document with its readable chunks in order; a
// document the caller may not read is 404, exactly like one that does not exist.
func (h *handlers) getDocument(c *gin.Context) {
	info, chunks, err := h.svc.Library.Document(c.Request.Context(), c.Param("id"), callerOf(c).Groups)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	out := make([]ChunkView, 0, len(chunks))
	for _, ch := range chunks {
		v := chunkView(ch, true)
		v.DocID, v.Title, v.Updated = "", "", "" // on the document
		out = append(out, v)
	}
	doc := documentView(info)
	doc.Chunks = 0
	c.JSON(http.StatusOK, gin.H{"document": doc, "chunks": out, "request_id": c.GetString(requestIDKey)})
}

// SourceView is one source as the caller sees it: counts over what the caller may read.
type SourceView struct {
	Name      string `json:"name"`
	Documents int    `json:"documents"` // readable documents
	Chunks    int    `json:"chunks"`    // readable chunks
	// LastSync is the latest time (RFC 3339, UTC) a document the caller may read was added or
	// changed in its text or acl; "" when none has such a time (written before it was kept).
	// Deleting a document does not move it. It never reflects a write the caller may not read.
	LastSync string `json:"last_sync"`
}

// listSources answers GET /v1/sources: the sources holding documents the caller may read, by
// name; a source with nothing readable is absent. Counts and last_sync are over what the caller
// may read (graph.Store.Sources): the time of a source's last run, which moves with restricted
// writes too, is not shown.
func (h *handlers) listSources(c *gin.Context) {
	srcs, err := h.svc.Library.Sources(c.Request.Context(), callerOf(c).Groups)
	if err != nil {
		h.writeErr(c, err)
		return
	}
	out := make([]SourceView, 0, len(srcs))
	for _, s := range srcs {
		out = append(out, SourceView{Name: s.Name, Documents: s.Documents, Chunks: s.Chunks, LastSync: s.LastSync})
	}
	c.JSON(http.StatusOK, gin.H{"sources": out, "request_id": c.GetString(requestIDKey)})
}

// getChunk answers GET /v1/chunks/{id}: one chunk the caller may read, or 404. With the graph
// store unavailable it reads the chunk index's copy (Services.ChunkIndex).
func (h *handlers) getChunk(c *gin.Context) {
	ids, groups := []string{c.Param("id")}, callerOf(c).Groups
	chunks, err := h.svc.Library.Chunks(c.Request.Context(), ids, groups)
	offsets := true
	if err != nil && errors.Is(err, ariadne.ErrUnavailable) && h.svc.ChunkIndex != nil && c.Request.Context().Err() == nil {
		chunks, err = h.svc.ChunkIndex.Chunks(c.Request.Context(), ids, groups)
		offsets = false
	}
	if err != nil {
		h.writeErr(c, err)
		return
	}
	if len(chunks) == 0 {
		writeError(c, http.StatusNotFound, "not_found", "not found")
		return
	}
	c.JSON(http.StatusOK, gin.H{"chunk": chunkView(chunks[0], offsets), "request_id": c.GetString(requestIDKey)})
}
