package textnorm

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"testing"
)

// analysisProbe exercises every part of SearchTerms: Russian inflections and stems, pronouns in
// several cases, English function words, Latin and Cyrillic spellings of one name, hyphenated and
// dotted codes, digits, quotes and punctuation. Written for this test.
const analysisProbe = `Кому и кем был подтверждён перенос «Суперкубка»? Владельцем сервиса svc-billing
стала команда Редиса; её отчёт ERR-4410 (v2.3) лежит в разделе «Сроки и списки».
Whom did they ask about the Redis cluster? Themselves, of course: PRJ-7-019 was theirs.
Сотрудник получает 28 дней отпуска; служащие — не меньше. Маршрутизация запросов идёт через VPN/впн.`

// TestAnalysisVersionPinned pins a fingerprint of the analysis (the probe's terms and the stopword
// list) to AnalysisVersion. When it fails, the analysis changed: indexes built before still hold
// the old terms, so bump AnalysisVersion (a sync then rewrites stored terms) and put the new
// fingerprint here.
func TestAnalysisVersionPinned(t *testing.T) {
	h := sha256.New()
	h.Write([]byte(strings.Join(SearchTerms(analysisProbe), " ")))
	h.Write([]byte{0})
	h.Write([]byte(strings.Join(slices.Sorted(maps.Keys(stopwords)), " ")))
	got := hex.EncodeToString(h.Sum(nil))[:16]
	const version, want = "2026-12-05.5", "163c47c08e606843"
	if AnalysisVersion != version || got != want {
		t.Fatalf("AnalysisVersion %s with analysis fingerprint %s; pinned: %s with %s. If the analysis changed, bump AnalysisVersion and pin both anew", AnalysisVersion, got, version, want)
	}
}
