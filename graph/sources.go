package graph

import (
	"context"

	"slices"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ariadne-graphrag/ariadne"
)

// Sources: every Document has a `source` property (the corpus it is synced from) and each source
// a (:Source {name, last_sync}) node. Document ids are unique across sources (the document_id
// constraint); a run claims its ids before writing (ClaimDocuments).

// migrateSourcesCypher gives documents stored before sources existed the default source, in
// batches, and records the default source when it has documents.
const migrateSourcesCypher = `
MATCH (d:Document) WHERE d.source IS NULL
WITH d LIMIT 10000
SET d.source = 'default'
RETURN count(d) AS n`

// migrateSources runs as part of EnsureSchema.
func (s *Store) migrateSources(ctx context.Context) error {
	total := 0
	for {
		res, err := s.run(ctx, migrateSourcesCypher, nil)
		if err != nil {
			return translate("migrate documents to sources", err)
		}
		n, err := count(res.Records[0], "n")
		if err != nil {
			return err
		}
		total += n
		if n == 0 {
			break
		}
	}
	if total > 0 {
		if _, err := s.run(ctx, `MERGE (:Source {name: 'default'})`, nil); err != nil {
			return translate("migrate documents to sources", err)
		}
	}
	return nil
}

// claimDocumentsCypher creates the documents new to the graph as (empty) documents of $source —
// MERGE on the unique id serializes two runs creating the same id — and returns the ids another
// source holds.
const claimDocumentsCypher = `
UNWIND $ids AS id
MERGE (d:Document {id: id})
ON CREATE SET d.source = $source
WITH d WHERE coalesce(d.source, 'default') <> $source
RETURN d.id AS id, coalesce(d.source, 'default') AS source
ORDER BY id`

// ClaimDocuments records ids as documents of source: ids new to the graph become empty documents
// of source (no content hash, no chunks: not listed, and rewritten by the next run if this one
// stops), ids source already holds are left as they are, and the ids another source holds are
// returned as conflicts, untouched. An empty source is ariadne.DefaultSource.
func (s *Store) ClaimDocuments(ctx context.Context, source string, ids []string) ([]ariadne.SourceConflict, error) {
	if source == "" {
		source = ariadne.DefaultSource
	}
	if len(ids) == 0 {
		return nil, nil
	}
	ids = slices.Sorted(slices.Values(ids)) // one lock order for every run
	res, err := s.write(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		r, err := tx.Run(ctx, s.cy(claimDocumentsCypher), map[string]any{"ids": ids, "source": source})
		if err != nil {
			return nil, err
		}
		recs, err := r.Collect(ctx)
		if err != nil {
			return nil, err
		}
		var out []ariadne.SourceConflict
		for _, rec := range recs {
			out = append(out, ariadne.SourceConflict{DocID: str(get(rec, "id")), Source: str(get(rec, "source"))})
		}
		return out, nil
	})
	if err != nil {
		return nil, translate("claim documents", err)
	}
	out, _ := res.([]ariadne.SourceConflict)
	return out, nil
}

// MarkSourceSynced records that a run over source completed now (last_sync, RFC 3339 UTC).
func (s *Store) MarkSourceSynced(ctx context.Context, source string) error {
	if source == "" {
		source = ariadne.DefaultSource
	}
	now := time.Now().UTC().Format(time.RFC3339)
	if _, err := s.run(ctx, `MERGE (x:Source {name: $name}) SET x.last_sync = $now`, map[string]any{"name": source, "now": now}); err != nil {
		return translate("mark source synced", err)
	}
	return nil
}

// SourceRegistry returns the fingerprint of the entity registry the source's stored documents were
// last extracted with, as SetSourceRegistry recorded it; "" when none is recorded (cleared by a
// write that did not finish, or never set).
func (s *Store) SourceRegistry(ctx context.Context, source string) (string, error) {
	res, err := s.run(ctx, `OPTIONAL MATCH (x:Source {name: $name}) RETURN coalesce(x.registry, '') AS registry`, map[string]any{"name": source})
	if err != nil {
		return "", translate("source registry", err)
	}
	return str(get(res.Records[0], "registry")), nil
}

// SetSourceRegistry records the fingerprint of the registry every stored document of source is
// now extracted with; "" clears it (a write is about to change the source's facts).
func (s *Store) SetSourceRegistry(ctx context.Context, source, fingerprint string) error {
	stmt := `MERGE (x:Source {name: $name}) SET x.registry = $fp`
	if fingerprint == "" {
		stmt = `MATCH (x:Source {name: $name}) REMOVE x.registry`
	}
	if _, err := s.run(ctx, stmt, map[string]any{"name": source, "fp": fingerprint}); err != nil {
		return translate("set source registry", err)
	}
	return nil
}

// sourcesCypher counts, per source, the documents the caller may read (readable document acl and
// at least one readable chunk, as in Documents) and their readable chunks, and takes the latest
// time one of those documents was written with new text or a new acl (Document.written_at); a
// source with none is absent.
const sourcesCypher = `
MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk)
WHERE any(g IN coalesce(d.acl, []) WHERE g IN $groups) AND any(g IN c.acl WHERE g IN $groups)
WITH coalesce(d.source, 'default') AS name, count(DISTINCT d) AS documents, count(c) AS chunks, max(d.written_at) AS written
RETURN name, documents, chunks, coalesce(written, '') AS last_sync
ORDER BY name`

// Sources lists the sources that hold documents the caller (groups) may read, by name, with
// counts over what the caller may read and, as LastSync, the latest time (RFC 3339, UTC) a
// document the caller may read was added or changed (its text or acl) — never a write the caller
// may not read, so that no caller can watch restricted writes; deleting a document does not move
// it, and a document written before the time was kept has none ("").
func (s *Store) Sources(ctx context.Context, groups []string) ([]ariadne.SourceInfo, error) {
	res, err := s.read(ctx, sourcesCypher, map[string]any{"groups": groups})
	if err != nil {
		return nil, translate("sources", err)
	}
	out := make([]ariadne.SourceInfo, 0, len(res.Records))
	for _, r := range res.Records {
		docs, err := count(r, "documents")
		if err != nil {
			return nil, err
		}
		chunks, err := count(r, "chunks")
		if err != nil {
			return nil, err
		}
		out = append(out, ariadne.SourceInfo{Name: str(get(r, "name")), Documents: docs, Chunks: chunks, LastSync: str(get(r, "last_sync"))})
	}
	return out, nil
}

func sortedStrs(v any) []string {
	out := strs(v)
	slices.Sort(out)
	return slices.Compact(out)
}
