package agent

import "testing"

func TestAsksTime(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"When was Anna Svetlova born?", true},
		{"When did the outage start?", true},
		{"In which year was the contract signed?", true},
		{"What date is the release planned for?", true},
		{"Когда родилась Анна Светлова?", true},
		{"Когда был подписан договор?", true},
		{"Когда компания открыла офис в Казани?", true},
		{"В каком году основан «Кварц Системс»?", true},
		{"До какого числа перенесли интеграцию?", true},
		{"Когда подписан договор NH-2024-11?", true}, // short passive participles, no «был»
		{"Когда основана компания?", true},
		{"Когда запущено производство?", true},
		{"Когда открыт офис в Казани?", true},
		{"Когда назначен новый директор?", true},
		{"Когда утверждён бюджет?", true},
		{"Когда план релиза будет готов?", false}, // nouns in -ан, -ен
		{"Когда экран обновляется?", false},
		{"When should an incident be escalated?", false}, // a condition
		{"When is the maintenance window?", false},       // a routine
		{"Когда нужно звонить дежурному?", false},
		{"Кто был лидером, когда франки вошли в долину?", false}, // «когда» as a conjunction
		{"Who founded the company?", false},
		{"Сколько инженеров в команде?", false},
	} {
		if got := asksTime(tc.q); got != tc.want {
			t.Errorf("asksTime(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestStatesTime(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"Anna Svetlova joined in 2019.", true},
		{"The pilot ended in March.", true},
		{"Договор подписан в ноябре.", true},
		{"Движение возникло в середине XVIII века.", true},
		{"Это случилось два года назад.", true},
		{"The review is held every Thursday.", true},
		{"Anna Svetlova leads the Integrations team.", false},
		{"Анна Светлова руководит командой интеграций.", false},
		{"Helio Pharma distributes vaccines.", false},
		// A code is no time; a date or a year beside one is.
		{"По словам Анны, Бореал Агро просит ежедневный отчёт после INC-2041.", false},
		{"Договор CTR-2024-117 и бюллетень SV-SEC-2024-019 обсудили; сервис S3 и v1.2.", false},
		{"INC-2041 случился 14.03.2025.", true},
		{"On 2025-04-02 INC-2057 stopped the pipeline.", true},
		{"Q3 2024", true},
		// A number that counts things is no time; one before a time word or unit is.
		{"К премьере заказали 2000 программок.", false},
		{"2000 programmes were printed for the premiere.", false},
		{"The festival sold 40 tickets.", false},
		{"In 2000 the theatre moved.", true},
		{"Репетиция длилась 3 часа.", true},
		{"The premiere was on 14 March.", true},
		{"Премьера прошла 14 марта.", true},
		{"The show ran for 2 weeks, 40 tickets a night.", true},
		{"2019 was the first season.", true},
		{"Договор подписан в 2020 г.", true},
		{"Проект шёл в 2020–2021 гг.", true},
		{"В 2000 театр переехал.", true},
		{"В команде 5 человек.", false},
		{"Найдено 5 месторождений.", false},
		{"Компания работает по лицензии Банка России СИ № 4127.", false}, // a number sign names a thing
		{"Лицензия № 4127 выдана в 2004 году.", true},
	} {
		if got := statesTime(tc.s); got != tc.want {
			t.Errorf("statesTime(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestAsksClock(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"At what time of day did the dryer fire start?", true},
		{"What time did the outage begin?", true},
		{"В котором часу открывается склад?", true},
		{"В какое время суток загорелась сушилка?", true},
		{"Во сколько часов начинается смена?", true},
		{"Во сколько начинаются смены на терминале?", true}, // «во сколько» alone: at what time (trial 76)
		{"Во сколько раз выросла выручка?", false},          // a ratio
		{"When did the outage start?", false},               // a date answers it
		{"Во сколько обошлась покупка сушилки?", false},     // a price
		{"В какое время года проходит уборка?", false},      // a season
		{"How much time does the check take?", false},
	} {
		if got := asksClock(tc.q); got != tc.want {
			t.Errorf("asksClock(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestStatesClock(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"The fire started at 02:40 in dryer No. 2.", true},
		{"Смена начинается в 7.30.", true},
		{"The alarm went off at 3 a.m.", true},
		{"Сушилка загорелась ночью.", true},
		{"Пожар начался в 3 часа дня.", true},
		{"The fire was reported in the early morning.", true},
		{"14 сентября 2025 года на элеваторе загорелась зерносушилка.", false},
		{"Акт подписан 14.09.2025.", false},
		{"The elevator was built in 1978.", false},
		{"Version 2.10 was released on 3 June.", true}, // an hour and minutes as written: the known limit
	} {
		if got := statesClock(tc.s); got != tc.want {
			t.Errorf("statesClock(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
