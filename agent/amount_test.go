package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/ariadne-graphrag/ariadne"
)

func TestAskedAmount(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want string
	}{
		{"Какая годовая арендная плата за склад в Твери?", kindMoney},
		{"Какой размер неустойки за просрочку поставки?", kindMoney},
		{"Какова вилка оклада у стажёра?", kindMoney},
		{"Сколько стоит подписка на корпоративный тариф?", kindMoney},
		{"Сколько нам заплатил подрядчик за аудит?", kindMoney},
		{"Сколько Ashgrove выплатила по претензии ASH-CL-26-0042?", kindMoney}, // a perfective verb of paying (trial 71)
		{"Сколько музей потратил на ящики?", kindMoney},
		{"What is the annual licence fee for the scanner?", kindMoney},
		{"What's the hourly rate of pay for weekend shifts?", kindMoney},
		{"How much does the courier service cost?", kindMoney},
		{"How much travel compensation do interns get?", kindMoney},
		{"Which penalty applies to late invoices?", kindMoney},
		{"What premium does the mill pay for its property policy?", kindMoney}, // an insurance premium
		{"What is the annual premium under the policy?", kindMoney},
		{"На сколько процентов выросла выручка?", kindPercent},
		{"What percentage of tickets is closed within a day?", kindPercent},
		// Not an amount: another head noun, a yes/no question, a count, a platform.
		{"Какой сертификат оплатила компания из бюджета на обучение?", ""},
		{"Какая платформа используется для сборки?", ""},
		{"Какую скидку можно дать постоянному клиенту?", ""}, // a share as often as a sum
		{"Does the company pay for taxis at night?", ""},
		{"How many engineers work on the billing service?", ""},
		{"Сколько человек в команде поддержки?", ""},
		{"Сколько наград и премий получил этот фильм?", ""}, // «сколько» + a noun counts
		{"Какую премию получил роман в 1998 году?", ""},     // an award, not a bonus
		{"Сколько денег собрали на ремонт?", kindMoney},
		{"How much did AquaTech quote for the two pumps?", kindMoney},
		{"How much was the hotel invoiced for the conference?", kindMoney},
		{"How much of the quota is left this month?", ""},
		{"How big is the advance the publisher pays the author?", kindMoney},
		{"Какой аванс получил переводчик?", kindMoney},
		{"How high is the late-payment fee?", kindMoney},
		{"How big is the support team?", ""}, // a size: a count, no sum
		{"How high is the dam on the Vuoksi?", ""},
		{"How many billion cubic metres were pumped?", ""},
		{"How much did the repair of the GR-400 antenna cost?", kindMoney}, // the verb ends a long clause
		{"Сколько в итоге по договору с подрядчиком на ремонт антенны заплатили?", kindMoney},
		{"How much time passed between the audit and the payment?", ""}, // a money noun far from "how much" is no sum asked
		{"How much snow fell, and what did the clearing cost?", ""},     // the verb of another clause
		{"Who approves the budget of the marketing team?", ""},
		{"What is the value of the ценность field?", ""},
	} {
		if got := askedAmount(tc.q); got != tc.want {
			t.Errorf("askedAmount(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestHasAmount(t *testing.T) {
	for _, tc := range []struct {
		text string
		kind string
		want bool
	}{
		{"Плата составляет 45 000 ₽ в месяц.", kindMoney, true},
		{"The fee is 120 EUR per seat.", kindMoney, true},
		{"| Стажёр | 60 000 – 80 000 |", kindMoney, false}, // a row without its header: 60 000 of what?
		{"| Грейд | Вилка оклада |\n| Стажёр | 60 000 – 80 000 |", kindMoney, true},
		{"Премия — до 20% годового оклада.", kindMoney, true},
		{"The share of flagged payments grew from 40% to 55%.", kindMoney, false}, // a share of payments, not of a sum
		{"| Грузовиков в сутки | до 4 100 |", kindMoney, false},                   // counts trucks
		{"| Salary band | 150 000 – 210 000 |", kindMoney, true},
		{"Бюджет на проект — 3,5 млн рублей.", kindMoney, true},
		{"Cost: $1,200 a year.", kindMoney, true},
		{"Сумма пока не согласована.", kindMoney, false},
		{"Договор CTR-2031-007 подписан 01.02.2031.", kindMoney, false},
		{"The team moved to Europe in 2019.", kindMoney, false},
		{"Работы ведутся в Европе с 2020 года.", kindMoney, false},
		{"Выручка выросла на 12 процентов.", kindPercent, true},
		{"Revenue grew by 12 percent.", kindPercent, true},
		{"Revenue grew by 12 000 roubles.", kindPercent, false},
		{"Отрасль даёт от шести до девяти процентов продукта.", kindPercent, true},
		{"Лес занимает более половины бассейна.", kindPercent, true},
		{"Процентная ставка обсуждается.", kindPercent, false},
		{"Сделка принесла 30 миллионов фунтов стерлингов.", kindMoney, true},
		{"Госпожа Тан подтвердила гонорар 60 000 сингапурских долларов за концерт.", kindMoney, true}, // a country's adjective before the currency
		{"Стоимость — 5 000 швейцарских франков.", kindMoney, true},
		{"The fee is 9,500 Swiss francs.", kindMoney, true},
		{"В зале 1 150 зрительских мест.", kindMoney, false}, // an adjective before another noun
		{"Штраф — 40 000 шведских крон.", kindMoney, true},
		{"На стене 12 стальных кронштейнов.", kindMoney, false}, // «крон» begins another word
		{"If a shipment is more than 14 days late, the seller pays a penalty of 3% of the shipment value.", kindMoney, true},
		{"Неустойка в размере 0,5% за каждый день просрочки.", kindMoney, true},
		{"The fee is 2% of the order.", kindMoney, true},
		{"From 1 July the carrier applies a fuel surcharge of 7% to every run.", kindMoney, true}, // «надбавка»: a surcharge set as a share
		{"Payments rose by 3% last year.", kindMoney, false},                                      // a change, not a sum set by a share
		{"Город вырос до 2 миллионов человек.", kindMoney, false},
	} {
		if got := hasAmount(tc.text, tc.kind); got != tc.want {
			t.Errorf("hasAmount(%q, %s) = %v, want %v", tc.text, tc.kind, got, tc.want)
		}
	}
}

func TestHasAmountCounts(t *testing.T) {
	if hasAmount("Сервисом пользуются около 12 000 клиентов.", kindMoney) {
		t.Error("a count of customers is not a sum")
	}
	if !hasAmount("| 150 000 – 210 000 |", kindMoney) {
		t.Error("a table cell range is a sum")
	}
}

// TestQuotesAmountReadsTheTableHeader: a quoted table row is read with its header.
func TestQuotesAmountReadsTheTableHeader(t *testing.T) {
	chunk := ariadne.Chunk{ID: "hr/grades#0000-dddddddd", Text: "Вилки по грейдам.\n\n| Грейд | Вилка оклада |\n|---|---|\n| Стажёр | 60 000 – 80 000 |\n| Инженер | 120 000 – 170 000 |"}
	frags := []Fragment{{N: 1, Chunk: chunk}}
	claim := func(quote string) []ariadne.Claim {
		return []ariadne.Claim{{Text: quote, Citations: []ariadne.Citation{{ChunkID: chunk.ID, Quote: quote}}}}
	}
	if !quotesAmount(claim("| Стажёр | 60 000 – 80 000 |"), frags, kindMoney, nil, nil) {
		t.Error("a salary row under its header states a sum")
	}
	if quotesAmount(claim("Вилки по грейдам."), frags, kindMoney, nil, nil) {
		t.Error("a sentence without a number states no sum")
	}
	if quotesAmount(claim("| Стажёр | 60 000 – 80 000 |"), nil, kindMoney, nil, nil) {
		t.Error("without its chunk the row says 60 000 of nothing named")
	}
}

// TestQuotesAmountAboutTheSubject: a quoted sum counts when the quote, its chunk's title or its
// section states a term of the question other than those asking for money; the row of another
// service in a price list does not answer for a fine.
func TestQuotesAmountAboutTheSubject(t *testing.T) {
	prices := ariadne.Chunk{ID: "prices/ligovsky#0000-aaaaaaaa", Title: "Прайс-лист", Text: "| Услуга | Цена |\n|---|---|\n| Вакцинация | 2 200 ₽ |\n| Осмотр | 1 500 ₽ |"}
	report := ariadne.Chunk{ID: "reports/inspection#0000-bbbbbbbb", Title: "Inspection of Ligovsky Clinic", Text: "A fine of 30,000 roubles was imposed."}
	frags := []Fragment{{N: 1, Chunk: prices}, {N: 2, Chunk: report}}
	claim := func(c ariadne.Chunk, quote string) []ariadne.Claim {
		return []ariadne.Claim{{Text: quote, Citations: []ariadne.Citation{{ChunkID: c.ID, Quote: quote}}}}
	}
	for _, tc := range []struct {
		q, quote string
		c        ariadne.Chunk
		want     bool
	}{
		{"How much was the fine imposed on Ligovsky Clinic after the inspection?", "| Вакцинация | 2 200 ₽ |", prices, false},
		{"How much was the fine imposed on Ligovsky Clinic after the inspection?", "A fine of 30,000 roubles was imposed.", report, true}, // "imposed"; the title names the clinic
		{"Сколько стоит вакцинация?", "| Вакцинация | 2 200 ₽ |", prices, true},
		{"How much does it cost?", "| Осмотр | 1 500 ₽ |", prices, true},                                                                      // no term but money words: no subject asked
		{"How much did the repair of the GR-400 antenna cost?", "A prize of 150 000 roubles went to the 400 MHz radar paper.", report, false}, // a number is no subject
	} {
		if got := quotesAmount(claim(tc.c, tc.quote), frags, kindMoney, subjectTerms(tc.q, nil, ""), nil); got != tc.want {
			t.Errorf("%q quoting %q: %v, want %v", tc.q, tc.quote, got, tc.want)
		}
	}
}

// A sum asked for comes from the best claim's own document, or from another that states a code or
// number the question names which the best claim states too: a grant's yearly sum on the project
// page answers a question the news item about the grant covers best, and the sum of another grant
// does not.
func TestTermExtractiveSumOfTheNamedID(t *testing.T) {
	c := firstChunk
	news := Fragment{N: 1, Chunk: c("news/grant", "Lab wins a grant",
		"The Cryosphere Lab of Kama State University has won a three-year grant of the Russian Science Foundation, No. 24-17-00452.")}
	other := Fragment{N: 2, Chunk: c("projects/firn", "Firn project", "The firn project is funded by grant No. 23-11-00017 at 4 million rubles a year.")}
	page := Fragment{N: 3, Chunk: c("projects/basal", "Basal project", "The basal project is funded by grant No. 24-17-00452 at 6 million rubles a year.")}
	q := "How much money per year does the Russian Science Foundation grant 24-17-00452 give the Cryosphere Lab?"
	for _, tc := range []struct {
		name  string
		frags []Fragment
		want  string // the quote that states the sum; "" refused
	}{
		{"the named grant's page", []Fragment{news, other, page}, "The basal project is funded by grant No. 24-17-00452 at 6 million rubles a year."},
		{"only another grant's sum", []Fragment{news, other}, ""},
	} {
		raw, err := TermExtractive{}.Generate(context.Background(), GenerationInput{Question: q, Fragments: tc.frags, Route: ariadne.RouteSimple})
		if err != nil {
			t.Fatal(err)
		}
		out, err := ParseOutput(raw)
		if err != nil {
			t.Fatal(err)
		}
		var quotes []string
		for _, cl := range out.Claims {
			for _, ci := range cl.Citations {
				quotes = append(quotes, ci.Quote)
			}
		}
		switch {
		case tc.want == "" && slices.ContainsFunc(quotes, func(s string) bool { return hasAmount(s, kindMoney) }):
			t.Errorf("%s: quoted a sum %q, want none", tc.name, quotes)
		case tc.want != "" && (out.NotFound || !slices.Contains(quotes, tc.want) || quotes[0] != news.Chunk.Text):
			t.Errorf("%s: %s, want the news item first and then %q", tc.name, raw, tc.want)
		}
	}
}

// TestAskForSizes: "how big", "how high", «каким тиражом» ask for a number (a trial's «Каким
// тиражом печатается каталог?» was answered by a sentence without one).
func TestAskForSizes(t *testing.T) {
	for q, want := range map[string]string{
		"How big is the support team?":                 "number",
		"How high is the dam on the Vuoksi?":           "number",
		"How old is the founder of the press?":         "number",
		"Каким тиражом вышел первый сборник?":          "number",
		"Какой тираж у атласа?":                        "number",
		"How big is the advance the publisher pays?":   kindMoney,
		"Who designs the cover of the northern atlas?": "person",
	} {
		if got := askFor(q); got != want {
			t.Errorf("askFor(%q) = %q, want %q", q, got, want)
		}
	}
}
