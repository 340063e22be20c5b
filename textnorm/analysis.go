package textnorm

// AnalysisVersion names the analysis SearchTerms does (stopwords, stemming, transliteration,
// joined codes). The index stores it with every chunk's BM25 terms, so that a sync can find the
// chunks analyzed by an older Ariadne and rewrite their terms (ingest: Plan.Reanalyze) — a
// question is always analyzed by the running code, and a term it has that the stored text lacks
// only because the analysis changed is a BM25 miss. Change it with any change to what
// SearchTerms returns; TestAnalysisVersionPinned fails until both move together.
const AnalysisVersion = "2026-12-05.5"
