// Package httpjson posts JSON to HTTP APIs (model and embedding servers) and decodes JSON answers,
// turning non-2xx answers into *retry.HTTPStatusError so that callers can retry 429/5xx with the
// server's Retry-After.
package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ariadne-graphrag/ariadne/retry"
)

// maxBody bounds how much of a response is read (64 MiB: a batch of 256 embeddings of 4096
// floats as JSON text is about 20 MiB).
const maxBody = 64 << 20

// Post sends body as JSON to url with the given headers and decodes a 2xx JSON answer into out.
// A non-2xx answer is a *retry.HTTPStatusError; a transport failure is returned as is (the retry
// package classifies it).
func Post(ctx context.Context, client *http.Client, service, url string, headers map[string]string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", service, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("%s: %w", service, err)
	}
	req.Header.Set("Content-Type", "application/json")
	return do(client, service, req, headers, out)
}

// Get fetches url and decodes a 2xx JSON answer into out.
func Get(ctx context.Context, client *http.Client, service, url string, headers map[string]string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", service, err)
	}
	return do(client, service, req, headers, out)
}

// do sends req with the headers (asking for JSON) and decodes a 2xx JSON answer into out (nil: the
// body is dropped). A non-2xx answer is a *retry.HTTPStatusError.
func do(client *http.Client, service string, req *http.Request, headers map[string]string, out any) error {
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", service, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s: read response: %w", service, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return retry.NewHTTPStatusError(service, resp, raw, time.Now())
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: decode response: %w", service, err)
	}
	return nil
}
