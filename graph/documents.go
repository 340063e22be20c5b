package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/ariadne-graphrag/ariadne"
)

const documentsCypher = `
MATCH (d:Document)
WHERE any(g IN coalesce(d.acl, []) WHERE g IN $groups)
  AND EXISTS { MATCH (d)-[:HAS_CHUNK]->(c:Chunk) WHERE any(g IN c.acl WHERE g IN $groups) }
WITH d ORDER BY d.id
WITH collect(d) AS docs
RETURN size(docs) AS total,
       [x IN docs[$offset..($offset + $limit)] | {id: x.id, title: x.title, type: x.type, lang: x.lang,
        updated: x.updated, version: x.version, acl: x.acl,
        chunks: COUNT { (x)-[:HAS_CHUNK]->(c:Chunk) WHERE any(g IN c.acl WHERE g IN $groups) }}] AS page`

// Documents lists the documents the caller (groups) may read — those with at least one readable
// chunk — ordered by id, limit from offset, with the total count.
func (s *Store) Documents(ctx context.Context, groups []string, limit, offset int) ([]ariadne.DocumentInfo, int, error) {
	if limit <= 0 || offset < 0 {
		return nil, 0, fmt.Errorf("graph: documents page limit %d offset %d: %w", limit, offset, ariadne.ErrInvalid)
	}
	res, err := s.read(ctx, documentsCypher, map[string]any{"groups": groups, "limit": limit, "offset": offset})
	if err != nil {
		return nil, 0, translate("documents", err)
	}
	r := res.Records[0]
	rows, _ := get(r, "page").([]any)
	out := make([]ariadne.DocumentInfo, 0, len(rows))
	for _, row := range rows {
		m, _ := row.(map[string]any)
		out = append(out, documentInfo(m))
	}
	return out, toInt(get(r, "total")), nil
}

func documentInfo(m map[string]any) ariadne.DocumentInfo {
	return ariadne.DocumentInfo{ID: str(m["id"]), Title: str(m["title"]), Type: str(m["type"]), Lang: str(m["lang"]),
		Updated: str(m["updated"]), Version: toInt(m["version"]), ACL: strs(m["acl"]), Chunks: toInt(m["chunks"])}
}

const documentCypher = `
MATCH (d:Document {id: $id})
WHERE any(g IN coalesce(d.acl, []) WHERE g IN $groups)
MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
WHERE any(g IN c.acl WHERE g IN $groups)
WITH d, c ORDER BY c.position
WITH d, collect({id: c.id, position: c.position, heading: c.heading, text: c.text, start: c.start, end: c.end,
                 lang: c.lang, acl: c.acl}) AS chunks
RETURN {id: d.id, title: d.title, type: d.type, lang: d.lang, updated: d.updated, version: d.version,
        acl: d.acl, chunks: size(chunks)} AS doc, chunks`

// Document returns one document the caller may read with its readable chunks in order, or
// ErrNotFound when it does not exist or the caller may not read it (indistinguishable).
func (s *Store) Document(ctx context.Context, id string, groups []string) (ariadne.DocumentInfo, []ariadne.Chunk, error) {
	res, err := s.read(ctx, documentCypher, map[string]any{"id": id, "groups": groups})
	if err != nil {
		return ariadne.DocumentInfo{}, nil, translate("document", err)
	}
	if len(res.Records) == 0 {
		return ariadne.DocumentInfo{}, nil, fmt.Errorf("graph: no such document: %w", ariadne.ErrNotFound)
	}
	r := res.Records[0]
	m, _ := get(r, "doc").(map[string]any)
	info := documentInfo(m)
	rows, _ := get(r, "chunks").([]any)
	chunks := make([]ariadne.Chunk, 0, len(rows))
	for _, row := range rows {
		c, _ := row.(map[string]any)
		ch := ariadne.Chunk{ID: str(c["id"]), DocID: info.ID, DocVersion: info.Version, DocType: info.Type,
			Position: toInt(c["position"]), Title: info.Title, Text: str(c["text"]), Start: toInt(c["start"]),
			End: toInt(c["end"]), Lang: str(c["lang"]), ACL: strs(c["acl"]), Updated: info.Updated}
		if h := str(c["heading"]); h != "" {
			ch.Heading = strings.Split(h, " > ")
		}
		chunks = append(chunks, ch)
	}
	return info, chunks, nil
}

// DocumentACL returns the groups that may read a stored document; found is false when no
// document has that id. It is for write permission checks, never for showing to a caller.
func (s *Store) DocumentACL(ctx context.Context, id string) (acl []string, found bool, err error) {
	res, err := s.read(ctx, `MATCH (d:Document {id: $id}) RETURN d.acl AS acl`, map[string]any{"id": id})
	if err != nil {
		return nil, false, translate("document acl", err)
	}
	if len(res.Records) == 0 {
		return nil, false, nil
	}
	return strs(get(res.Records[0], "acl")), true, nil
}
