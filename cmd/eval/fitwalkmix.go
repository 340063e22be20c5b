package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// fitWalkMixCmd chooses the multi_hop route's fusion weights on several fitting sets at once:
// it reads the grids that `fit-walk --json` wrote (one per set: multi-hop questions, and
// single-hop ones that a router may send to the route) and ranks each weight pair by the mean of
// its per-set figures, every set weighing the same whatever its size.
type fitWalkMixCmd struct {
	Runs []string `arg:"" name:"run" help:"fit-walk --json files, one per fitting set."`
}

// mixKey is a grid pair of walk weights.
type mixKey struct{ low, high float64 }

func (m fitWalkMixCmd) run(stdout io.Writer) error {
	if len(m.Runs) == 0 {
		return usageError{fmt.Errorf("fit-walk-mix needs at least one fit-walk --json file")}
	}
	reps := make([]fitWalkReport, len(m.Runs))
	for i, path := range m.Runs {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &reps[i]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	rows, hybrid, err := mixGrid(reps)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "## fit-walk-mix: %d sets, each weighing the same\n\n", len(reps))
	fmt.Fprint(stdout, "| walk weight (zero–full confidence) | mean hit@1 | mean recall@2 | mean recall@5 | mean recall@10 | mean MRR@10 |")
	for _, r := range reps {
		fmt.Fprintf(stdout, " recall@5 %s (%s, %d) |", filepath.Base(r.Dataset), r.Kind, questionsScored(r))
	}
	fmt.Fprint(stdout, "\n|---|---|---|---|---|---|")
	for range reps {
		fmt.Fprint(stdout, "---|")
	}
	fmt.Fprintln(stdout)
	line := func(name string, mean fitWalkRow, per []float64) {
		fmt.Fprintf(stdout, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f |", name, mean.Hit1, mean.Recall2, mean.Recall5, mean.Recall10, mean.MRR10)
		for _, p := range per {
			fmt.Fprintf(stdout, " %.3f |", p)
		}
		fmt.Fprintln(stdout)
	}
	line("hybrid alone", hybrid.mean, hybrid.per)
	for _, r := range rows {
		line(fmt.Sprintf("%.2g–%.2g", r.mean.Low, r.mean.High), r.mean, r.per)
	}
	return nil
}

// questionsScored is how many questions a fit-walk run scored.
func questionsScored(r fitWalkReport) int {
	if len(r.Rows) == 0 {
		return 0
	}
	return r.Rows[0].N
}

// mixRow is one list's figures averaged over the sets, with each set's recall@5.
type mixRow struct {
	mean fitWalkRow
	per  []float64
}

// mixGrid averages, for every weight pair present in every report, its figures over the reports
// (each report weighing the same), best first: recall@5, then recall@2, then the smaller weights
// (closer to hybrid alone). It also returns the "hybrid alone" row averaged the same way. A pair
// missing from a report is left out; no pair common to all is an error.
func mixGrid(reps []fitWalkReport) ([]mixRow, mixRow, error) {
	type acc struct {
		sum fitWalkRow
		per []float64
	}
	grid := map[mixKey]*acc{}
	hyb := &acc{}
	for _, r := range reps {
		seen := map[mixKey]bool{}
		for _, row := range r.Rows {
			a := (*acc)(nil)
			switch {
			case row.Name == "hybrid alone":
				a = hyb
			case row.Low > 0 && row.High > 0:
				k := mixKey{row.Low, row.High}
				if seen[k] {
					continue
				}
				seen[k] = true
				if grid[k] == nil {
					grid[k] = &acc{}
				}
				a = grid[k]
			default:
				continue
			}
			a.sum.Hit1 += row.Hit1
			a.sum.Recall2 += row.Recall2
			a.sum.Recall5 += row.Recall5
			a.sum.Recall10 += row.Recall10
			a.sum.MRR10 += row.MRR10
			a.per = append(a.per, row.Recall5)
		}
	}
	n := float64(len(reps))
	mean := func(k mixKey, a *acc) mixRow {
		s := a.sum
		return mixRow{mean: fitWalkRow{Low: k.low, High: k.high, Hit1: s.Hit1 / n, Recall2: s.Recall2 / n, Recall5: s.Recall5 / n,
			Recall10: s.Recall10 / n, MRR10: s.MRR10 / n}, per: a.per}
	}
	var rows []mixRow
	for k, a := range grid {
		if len(a.per) == len(reps) {
			rows = append(rows, mean(k, a))
		}
	}
	if len(rows) == 0 {
		return nil, mixRow{}, fmt.Errorf("fit-walk-mix: no weight pair is in every run")
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i].mean, rows[j].mean
		if a.Recall5 != b.Recall5 {
			return a.Recall5 > b.Recall5
		}
		if a.Recall2 != b.Recall2 {
			return a.Recall2 > b.Recall2
		}
		if a.Low+a.High != b.Low+b.High {
			return a.Low+a.High < b.Low+b.High
		}
		return a.Low < b.Low
	})
	var h mixRow
	if len(hyb.per) == len(reps) {
		h = mean(mixKey{}, hyb)
	}
	return rows, h, nil
}
