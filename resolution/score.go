package resolution

import "sort"

// Scores are pairwise clustering scores of entity resolution against a gold grouping of surface
// forms: a pair of forms is a true positive when gold and prediction both put them in one entity.
type Scores struct {
	Precision, Recall float64
	TP, FP, FN        int
	Unresolved        []string // forms the resolver attributed to no entity
}

// PairwiseScores scores predict, which maps a surface form to an entity key ("" for none), against
// groups: gold entity → its surface forms. Forms predicted "" are never in a pair with anything, so
// they cost recall only. Precision is 1 when no pair was predicted.
func PairwiseScores(groups map[string][]string, predict func(string) string) Scores {
	type form struct{ gold, pred string }
	var forms []form
	var s Scores
	for gold, vs := range groups {
		for _, v := range vs {
			p := predict(v)
			if p == "" {
				s.Unresolved = append(s.Unresolved, v)
			}
			forms = append(forms, form{gold, p})
		}
	}
	for i := range forms {
		for j := i + 1; j < len(forms); j++ {
			sameGold := forms[i].gold == forms[j].gold
			samePred := forms[i].pred != "" && forms[i].pred == forms[j].pred
			switch {
			case sameGold && samePred:
				s.TP++
			case samePred:
				s.FP++
			case sameGold:
				s.FN++
			}
		}
	}
	sort.Strings(s.Unresolved)
	s.Precision, s.Recall = 1, 1
	if s.TP+s.FP > 0 {
		s.Precision = float64(s.TP) / float64(s.TP+s.FP)
	}
	if s.TP+s.FN > 0 {
		s.Recall = float64(s.TP) / float64(s.TP+s.FN)
	}
	return s
}
