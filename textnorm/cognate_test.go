package textnorm

import "testing"

func TestCognateMatch(t *testing.T) {
	tests := []struct {
		ru, en string
		want   bool
	}{
		{"офисе", "office", true},
		{"менеджера", "manager", true},
		{"клиента", "client", true},
		{"инженеров", "engineers", true},
		{"релиз", "release", true},
		{"бюджет", "budget", true},
		{"контракта", "contract", true},
		{"лицензии", "license", true},
		{"кластере", "cluster", true},
		{"версии", "version", true},
		{"сервер", "server", true},
		{"платформы", "platform", true},
		// different words
		{"город", "guard", false},
		{"сидит", "side", false},
		{"дом", "dome", false},
		{"отпуск", "output", false},
		{"срок", "circus", false},
		// a false friend matches too: «команда» is a team, not a command
		{"команда", "command", true},
	}
	for _, tc := range tests {
		r, e := SearchTerms(tc.ru), SearchTerms(tc.en)
		if len(r) != 1 || len(e) != 1 {
			t.Fatalf("%s/%s: terms %v %v", tc.ru, tc.en, r, e)
		}
		if got := CognateMatch(CognateForm(r[0]), CognateForm(e[0])); got != tc.want {
			t.Errorf("%s (%s → %s) ~ %s (%s → %s) = %v, want %v", tc.ru, r[0], CognateForm(r[0]), tc.en, e[0], CognateForm(e[0]), got, tc.want)
		}
	}
}
