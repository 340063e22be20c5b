package textnorm

import (
	"regexp"
	"slices"
	"testing"
)

func TestFindBounded(t *testing.T) {
	code := regexp.MustCompile(`(?:[A-ZА-ЯЁ][A-ZА-ЯЁ0-9]{0,7}-)+[0-9]{2,}(?:-[0-9]+)*`)
	acronym := regexp.MustCompile(`[A-ZА-ЯЁ]{2,6}`)
	for _, tc := range []struct {
		re   *regexp.Regexp
		s    string
		want []string
	}{
		{code, "договор ВБ-2023-04 и INC-2207, (ВБ-2023-04)", []string{"ВБ-2023-04", "INC-2207", "ВБ-2023-04"}},
		{code, "аВБ-2023 xINC-2207 INC-2207a", nil}, // inside a word
		{acronym, "завод (СМЗ) и SMW", []string{"СМЗ", "SMW"}},
		{acronym, "ПРОВЕРКАМ", nil}, // a longer word in capitals holds no acronym
	} {
		if got := FindBounded(tc.re, tc.s); !slices.Equal(got, tc.want) {
			t.Errorf("FindBounded(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if got := ReplaceBounded(code, "по ВБ-2023-04 и аВБ-2023", func(string) string { return "#" }); got != "по # и аВБ-2023" {
		t.Errorf("ReplaceBounded = %q", got)
	}
}
