// Package web is Ariadne's analyst page: a small TypeScript app (web/src, bundled with esbuild,
// graphs with Cytoscape.js) built into web/dist and embedded in the binary, so `go build` needs
// no Node.js. `make ui` rebuilds dist from package-lock.json; `make test` checks that rebuilding
// gives the committed bytes.
//
// Handler serves the page under /ui/ with its content types, cache headers (the hashed bundle is
// immutable, the page and its config are revalidated) and a strict Content-Security-Policy: the
// page loads and connects to its own origin only. It does not import Gin; httpapi mounts it.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
)

//go:embed dist
var dist embed.FS

// Prefix is where the page is served.
const Prefix = "/ui/"

// ContentSecurityPolicy is sent with every response of the handler.
const ContentSecurityPolicy = "default-src 'self'; connect-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Config is what the page reads from /ui/config.json (read-only, no secrets).
type Config struct {
	// Neo4jBrowserURL is Neo4j Browser's address, e.g. http://127.0.0.1:7474/browser/; the page
	// links to it with ?cmd=edit&arg=<cypher>. Empty hides the links.
	Neo4jBrowserURL string `json:"neo4j_browser_url"`
}

type asset struct {
	body, gz    []byte
	contentType string
	cache       string
	etag        string
}

var hashed = regexp.MustCompile(`-[A-Z0-9]{8}\.(js|css)$`)

// Handler serves the embedded page under Prefix ("/ui/" is index.html).
func Handler(cfg Config) http.Handler {
	assets := map[string]*asset{}
	err := fs.WalkDir(dist, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := dist.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "dist/")
		a := &asset{body: body, contentType: mime.TypeByExtension(path.Ext(name)), cache: "no-cache"}
		if hashed.MatchString(name) {
			a.cache = "public, max-age=31536000, immutable"
		}
		assets[name] = a
		return nil
	})
	if err != nil {
		panic("web: embedded assets: " + err.Error())
	}
	if _, ok := assets["index.html"]; !ok {
		panic("web: dist/index.html is missing: run `make ui`")
	}
	conf, _ := json.Marshal(cfg)
	assets["config.json"] = &asset{body: conf, cache: "no-store"}
	for name, a := range assets {
		switch path.Ext(name) {
		case ".html":
			a.contentType = "text/html; charset=utf-8"
		case ".js":
			a.contentType = "text/javascript; charset=utf-8"
		case ".css":
			a.contentType = "text/css; charset=utf-8"
		case ".json":
			a.contentType = "application/json"
		case ".svg":
			a.contentType = "image/svg+xml"
		}
		sum := sha256.Sum256(a.body)
		a.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
		if len(a.body) > 1024 {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			zw.Write(a.body)
			zw.Close()
			a.gz = b.Bytes()
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", ContentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			hd.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, Prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if name == "" {
			name = "index.html"
		}
		a := assets[name]
		if a == nil {
			http.NotFound(w, r)
			return
		}
		hd.Set("Content-Type", a.contentType)
		hd.Set("Cache-Control", a.cache)
		hd.Set("ETag", a.etag)
		if a.gz != nil {
			hd.Add("Vary", "Accept-Encoding")
		}
		if r.Header.Get("If-None-Match") == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := a.body
		if a.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
			hd.Set("Content-Encoding", "gzip")
			body = a.gz
		}
		hd.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	})
}

func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
