package main

import (
	"context"
	"encoding/json"
	"os"
	"sync"
)

// fileUnitVectors is an agent.UnitVectorStore in a JSON file (--unit-vectors): evaluation runs on
// the same corpus and embedder reuse the evidence unit vectors instead of embedding them again.
// Keys are content keys (agent.UnitVectorKeyFor), so a changed corpus simply misses.
type fileUnitVectors struct {
	path string
	mu   sync.Mutex
	vecs map[string][]float32
}

func openFileUnitVectors(path string) (*fileUnitVectors, error) {
	f := &fileUnitVectors{path: path, vecs: map[string][]float32{}}
	raw, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		return f, nil
	case err != nil:
		return nil, err
	}
	return f, json.Unmarshal(raw, &f.vecs)
}

func (f *fileUnitVectors) UnitVectors(_ context.Context, keys []string) (map[string][]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]float32{}
	for _, k := range keys {
		if v, ok := f.vecs[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

func (f *fileUnitVectors) PutUnitVectors(_ context.Context, vecs map[string][]float32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range vecs {
		f.vecs[k] = v
	}
	raw, err := json.Marshal(f.vecs)
	if err != nil {
		return err
	}
	return os.WriteFile(f.path, raw, 0o644)
}
