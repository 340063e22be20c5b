package ner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ariadne-graphrag/ariadne"
	"github.com/ariadne-graphrag/ariadne/internal/testenv"
	"github.com/ariadne-graphrag/ariadne/ner"
)

func sidecar(t *testing.T) *ner.Client {
	t.Helper()
	testenv.Need(t, "the NER sidecar ("+testenv.NERURL()+")", testenv.HTTPGet(testenv.NERURL()+"/health"))
	c, err := ner.New(ner.Config{BaseURL: testenv.NERURL()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func describe(ms []ner.Mention) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Label + ":" + m.Text
	}
	return out
}

// TestIntegrationNERRussianAndEnglish: the real sidecar finds a foreign-named company, a person and
// cities in inflected forms in Russian, and the same kinds in English, with byte offsets that
// slice the text.
func TestIntegrationNERRussianAndEnglish(t *testing.T) {
	c := sidecar(t)
	texts := []string{
		"Вчера компания «Норлинг Системс» открыла исследовательский центр в Екатеринбурге, а её основатель Оливер Хартманн встретился с мэром Казани.",
		"Brightwater Analytics, a startup founded by Priya Raman, opened an office in Leeds last week after talks with Siemens.",
		"Сотрудники Yandex и «Ростелекома» обсудили проект в Нижнем Новгороде.",
		"",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := c.Recognize(ctx, texts, ner.Detect)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"ORG:Норлинг Системс", "LOC:Екатеринбурге", "PER:Оливер Хартманн", "LOC:Казани"},
		{"ORG:Brightwater Analytics", "PER:Priya Raman", "LOC:Leeds", "ORG:Siemens"},
		{"ORG:Yandex", "ORG:Ростелекома", "LOC:Нижнем Новгороде"},
		{},
	}
	if len(got) != len(texts) {
		t.Fatalf("%d results for %d texts", len(got), len(texts))
	}
	for i := range texts {
		if d := describe(got[i]); fmt.Sprint(d) != fmt.Sprint(want[i]) {
			t.Errorf("text %d: mentions %q, want %q", i, d, want[i])
		}
		for _, m := range got[i] {
			if texts[i][m.Start:m.End] != m.Text {
				t.Errorf("text %d: [%d:%d] = %q, mention %q", i, m.Start, m.End, texts[i][m.Start:m.End], m.Text)
			}
		}
	}
	// Byte, not character, offsets: "Екатеринбурге" starts after 65 characters of Cyrillic and Latin text.
	if m := got[0][1]; m.Start != strings.Index(texts[0], "Екатеринбурге") || m.End-m.Start != len("Екатеринбурге") {
		t.Errorf("Екатеринбурге at [%d:%d], want byte offsets [%d:%d]", m.Start, m.End,
			strings.Index(texts[0], "Екатеринбурге"), strings.Index(texts[0], "Екатеринбурге")+len("Екатеринбурге"))
	}
	if c.Dropped() != 0 {
		t.Errorf("%d mentions had offsets that did not match their text", c.Dropped())
	}
	// Russian mentions carry their nominative, English ones none.
	for i, want := range [][]string{{"Норлинг Системс", "Екатеринбург", "Оливер Хартманн", "Казань"}, {"", "", "", ""}} {
		var normals []string
		for _, m := range got[i] {
			normals = append(normals, m.Normal)
		}
		if fmt.Sprint(normals) != fmt.Sprint(want) {
			t.Errorf("text %d: normal forms %q, want %q", i, normals, want)
		}
	}
	for _, part := range []string{"slovnet_ner_news_v1", "en_core_web_sm 3.8.0", "natasha 1.6.0", "pymorphy3 2.0.6"} {
		if !strings.Contains(c.Name(), part) {
			t.Errorf("Name %q lacks %q", c.Name(), part)
		}
	}
}

// TestIntegrationNERLanguageAndLimits: an explicit language, a batch larger than one request, the
// client's limit, and the sidecar's JSON 400 for a request over its own.
func TestIntegrationNERLanguageAndLimits(t *testing.T) {
	c := sidecar(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	texts := make([]string, 70)
	for i := range texts {
		texts[i] = fmt.Sprintf("Отчёт %d: Оливер Хартманн прилетел в Новосибирск.", i)
	}
	got, err := c.Recognize(ctx, texts, ner.Russian)
	if err != nil {
		t.Fatal(err)
	}
	for i, ms := range got {
		if d := describe(ms); fmt.Sprint(d) != fmt.Sprint([]string{"PER:Оливер Хартманн", "LOC:Новосибирск"}) {
			t.Fatalf("text %d: %q", i, d)
		}
	}
	// The client's own limit stops a 100,001-character text before it is sent.
	if _, err := c.Recognize(ctx, []string{strings.Repeat("я", 100_001)}, ner.Detect); !errors.Is(err, ariadne.ErrInvalid) {
		t.Errorf("over-long text: %v", err)
	}
	body := `{"texts": [` + strings.Repeat(`"a",`, 256) + `"a"]}`
	resp, err := http.Post(testenv.NERURL()+"/v1/ner", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(e.Error, "at most 256") {
		t.Errorf("257 texts: HTTP %d, error %q (%v)", resp.StatusCode, e.Error, err)
	}
}

// TestIntegrationNERNormalForms: the real sidecar gives Russian names their nominative — a place
// in the locative, a person written surname first with a patronymic, persons in oblique cases —
// while the surface and its offsets stay as written; a quoted company name stays as written.
func TestIntegrationNERNormalForms(t *testing.T) {
	c := sidecar(t)
	texts := []string{
		"Вчера в Мурманске Кнутов Зорислав Игоревич подписал договор поставки.",
		"Совещание с Олегом Рябцевым и Анной Светловой провели в Нижнем Новгороде.",
		"Счёт выставило ООО «Вертоград Холдинг».",
		"Вера Соколова — руководитель проекта.",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := c.Recognize(ctx, texts, ner.Russian)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"LOC:Мурманске→Мурманск", "PER:Кнутов Зорислав Игоревич→Зорислав Кнутов"},
		{"PER:Олегом Рябцевым→Олег Рябцев", "PER:Анной Светловой→Анна Светлова", "LOC:Нижнем Новгороде→Нижний Новгород"},
		{"ORG:ООО «Вертоград Холдинг»→ООО «Вертоград Холдинг»"},
		{"PER:Вера Соколова→Вера Соколова"}, // her nominative, not the genitive of «Вер Соколов» (outside tester)
	}
	for i := range texts {
		var d []string
		for _, m := range got[i] {
			d = append(d, m.Label+":"+m.Text+"→"+m.Normal)
			if texts[i][m.Start:m.End] != m.Text {
				t.Errorf("text %d: [%d:%d] = %q, mention %q", i, m.Start, m.End, texts[i][m.Start:m.End], m.Text)
			}
		}
		if fmt.Sprint(d) != fmt.Sprint(want[i]) {
			t.Errorf("text %d: mentions %q, want %q", i, d, want[i])
		}
	}
}
