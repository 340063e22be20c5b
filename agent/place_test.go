package agent

import "testing"

func TestAsksAndStatesPlace(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"Where is Quillmoor Salt headquartered?", true},
		{"In which city is the client of Harrow based?", true},
		{"What country does the author of Brand come from?", true},
		{"В каком городе находится клиент проекта «Клюква»?", true},
		{"Где работает руководитель команды данных?", true},
		{"Из какой страны родом основатель компании?", true},
		{"What is the name of the airport in the city where the festival is held?", false}, // a relative "where"
		{"Who leads the Falcon team?", false},
		{"Какой город указан в договоре?", true},
	} {
		if got := asksPlace(tc.q); got != tc.want {
			t.Errorf("asksPlace(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"Quillmoor Salt is headquartered in Tarvessa.", true},
		{"Головной офис компании находится в Вологде.", true},
		{"Датчики привезли из Тамбова.", true},
		{"The office opened in March 2024.", false},
		{"It has been our client since 2021.", false},
		{"В 2023 году компания выросла.", false},
	} {
		if got := statesPlace(tc.s); got != tc.want {
			t.Errorf("statesPlace(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
