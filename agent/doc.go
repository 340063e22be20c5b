// Package agent answers questions: it routes each question to a retrieval strategy (simple,
// hybrid or multi_hop), retrieves evidence from Weaviate and Neo4j with retries and escalation,
// generates an answer from numbered fragments, and verifies every citation before anyone sees it.
//
// It depends on the stores and models only through small interfaces declared here; it knows
// nothing of HTTP.
//
// Files by stage: routing (router.go, llmrouter.go), entity linking (linking.go), retrieval and
// escalation (retrieve.go, retriever.go, plans.go, evidence.go), fusion (fusion.go), multi-hop
// (multihop.go, ppr.go), the trace (trace.go), prompts (prompt.go), generators (generate.go,
// extractive.go), output parsing (output.go), verification (verify.go, judge.go), the answerer
// (answer.go); tunable thresholds and constants with their sources are in config.go.
package agent
