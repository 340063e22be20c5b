package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHandlerServesThePage(t *testing.T) {
	h := Handler(Config{Neo4jBrowserURL: "http://127.0.0.1:7474/browser/"})
	page := get(t, h, "/ui/")
	if page.Code != 200 || page.Header().Get("Content-Type") != "text/html; charset=utf-8" || page.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("/ui/: %d %v", page.Code, page.Header())
	}
	csp := page.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "connect-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Fatalf("CSP %q", csp)
	}
	// Every script and stylesheet the page names is served, hashed and immutable; nothing points
	// at another host.
	html := page.Body.String()
	if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).MatchString(html) {
		t.Fatalf("the page refers to another host:\n%s", html)
	}
	refs := regexp.MustCompile(`(?:src|href)="(app-[A-Z0-9]{8}\.(?:js|css))"`).FindAllStringSubmatch(html, -1)
	if len(refs) != 2 {
		t.Fatalf("want one script and one stylesheet, got %v", refs)
	}
	for _, m := range refs {
		a := get(t, h, "/ui/"+m[1])
		want := "text/javascript; charset=utf-8"
		if strings.HasSuffix(m[1], ".css") {
			want = "text/css; charset=utf-8"
		}
		if a.Code != 200 || a.Header().Get("Content-Type") != want || !strings.Contains(a.Header().Get("Cache-Control"), "immutable") || a.Body.Len() == 0 {
			t.Errorf("%s: %d %v", m[1], a.Code, a.Header())
		}
		if a.Header().Get("Content-Security-Policy") != ContentSecurityPolicy || a.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: security headers %v", m[1], a.Header())
		}
	}
	if r := get(t, h, "/ui/favicon.svg"); r.Code != 200 || r.Header().Get("Content-Type") != "image/svg+xml" {
		t.Errorf("favicon: %d %v", r.Code, r.Header())
	}
}

func TestHandlerGzipETagConfigAndMisses(t *testing.T) {
	h := Handler(Config{Neo4jBrowserURL: "http://127.0.0.1:7474/browser/"})
	plain := get(t, h, "/ui/index.html")
	gz := get(t, h, "/ui/index.html", "Accept-Encoding", "br, gzip")
	if gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip: %v", gz.Header())
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	if !bytes.Equal(unz, plain.Body.Bytes()) || gz.Body.Len() >= plain.Body.Len() {
		t.Fatalf("gzip body differs or is not smaller (%d vs %d)", gz.Body.Len(), plain.Body.Len())
	}
	if r := get(t, h, "/ui/index.html", "If-None-Match", plain.Header().Get("ETag")); r.Code != http.StatusNotModified || r.Body.Len() != 0 {
		t.Fatalf("If-None-Match: %d", r.Code)
	}
	conf := get(t, h, "/ui/config.json")
	if conf.Code != 200 || conf.Header().Get("Cache-Control") != "no-store" || conf.Body.String() != `{"neo4j_browser_url":"http://127.0.0.1:7474/browser/"}` {
		t.Fatalf("config: %d %v %s", conf.Code, conf.Header(), conf.Body)
	}
	for _, p := range []string{"/ui/missing.js", "/ui/../web.go", "/other", "/ui/dist/index.html"} {
		if r := get(t, h, p); r.Code != 404 {
			t.Errorf("%s: %d", p, r.Code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/ui/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
}
