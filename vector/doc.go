// Package vector is Ariadne's Weaviate adapter, the only package that imports the Weaviate
// client.
//
// It owns the Chunk class (vectorizer `none`: Ariadne brings its own embeddings), writes chunks
// with their vectors in batches with object UUID = UUIDv5(chunk id) so that re-runs overwrite,
// and searches them by vector, by BM25, or by Weaviate's hybrid fusion of both, with the caller's
// permission groups applied as a filter inside the same query. Both of Weaviate's failure
// channels are checked: the call's error and the GraphQL `errors` / per-object batch errors.
// The analysis of text into BM25 terms is the caller's (ariadne.IndexedChunk.SearchText,
// ariadne.SearchQuery.Terms). Errors (errors.go): 408, 429 and 5xx are transient with the
// server's Retry-After, 401/403 are ErrUnauthorized, other 4xx ErrInvalid.
package vector
