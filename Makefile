# Ariadne — one entry point for the local servers, the demo, the tests and the evaluation.
# Run `make help` for the list. Servers are real (Neo4j, Weaviate, the e5 embedder) and run on
# loopback from deploy/local.sh; nothing here needs Docker.

SHELL := /bin/bash
GO ?= go
SIZES ?= 1k,10k,100k

.PHONY: help up down status install prereqs test lint demo eval eval-ours bench reliability scale ui

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s "$$(printf '\t')"

install: ## install/build every server (idempotent, cached)
	@deploy/local.sh install

prereqs: ## install a JDK 17, Maven and python3-venv with apt-get if missing
	@deploy/local.sh prereqs

up: ## start Neo4j (+Browser), Weaviate, the e5 embedder and the NER sidecar on loopback; waits until ready
	@deploy/local.sh up

down: ## stop the servers this project started (pid files only)
	@deploy/local.sh down

status: ## show which servers are up (deploy/local.sh status exits non-zero when one is down; make status does not)
	@deploy/local.sh status || true

test: ## gofmt, go vet, staticcheck, unit tests with -race, integration tests against real servers (local chat model, Chromium), the short fault suite
	@deploy/test.sh

ui: ## rebuild the analyst page web/dist from web/src (npm ci from package-lock.json, tsc, unit tests, esbuild)
	@cd web && npm ci --no-audit --no-fund --silent && npx tsc --noEmit -p . && node test.mjs && node build.mjs

.PHONY: helm-test cluster-test
helm-test: ## build the pinned helm once (Go module proxy) and check deploy/helm/ariadne with helm lint and helm template
	@deploy/test.sh helm

cluster-test: ## the three-node Weaviate (deploy/weaviate-cluster.sh) and Neo4j neo4j:// routing tests alone (~2 min)
	@deploy/test.sh cluster

lint: ## gofmt, go vet and staticcheck only
	@deploy/test.sh lint

demo: ## the main job: servers up, extract the sample corpus, start the API, ask questions
	@deploy/demo.sh

eval: ## reproduce docs/evaluation.md: golden dev set, MuSiQue, XQuAD-ru, lexical and e5 (~20 min)
	@deploy/evaluate.sh

eval-ours: ## answers on our own question sets, golden dev and XQuAD-ru (~6 min; TAG=name, then deploy/eval-compare.py)
	@deploy/eval-ours.sh -t $(or $(TAG),run)

bench: ## Go benchmarks (ingestion ×20, query latency per route, embedders) against the real servers
	@deploy/local.sh up && ARIADNE_REQUIRE_INTEGRATION=1 $(GO) test -p 1 -run '^$$' -bench . -benchtime 1x ./...

scale: ## scale benchmark (docs/performance.md): generated corpora of SIZES chunks (default 1k,10k,100k), ingestion, store sizes, latency per route
	@deploy/local.sh up && $(GO) run ./cmd/scalebench corpus --sizes '$(SIZES)' --out docs/performance

reliability: ## faults (kill -9 mid-ingest and mid-query), concurrent writers, load, prompt injection, then every fuzz target for FUZZTIME (default 10m); about 2 h
	@FUZZTIME=$(or $(FUZZTIME),10m) FUZZ='$(value FUZZ)' SUITE=$(or $(SUITE),1) deploy/reliability.sh
