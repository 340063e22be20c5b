// Package corpus loads source documents — Markdown or plain text files that start with a YAML
// front matter block — from a folder tree and validates them.
//
// A malformed document (unparseable front matter, missing or duplicate id, empty body, invalid
// UTF-8) never aborts a load: it is reported as a Problem with its path and reason and skipped, and
// every valid document is still returned.
package corpus
