package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var routeColor = map[string]color.RGBA{
	"simple":    {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"hybrid":    {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"multi_hop": {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

// plotResults draws retrieval p95 (solid) and p95 with the answer step (dashed) per route
// against corpus size (log–log), with the targets as dotted lines, into a PNG.
func plotResults(path string, rs []Result) error {
	p := plot.New()
	p.Title.Text = "Ariadne retrieval latency vs corpus size (p95; dashed: with answer step)"
	p.X.Label.Text = "chunks"
	p.Y.Label.Text = "ms"
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = false // bottom right: the curves rise to the upper right
	p.Legend.Left = false
	for _, route := range []string{"simple", "hybrid", "multi_hop"} {
		var ret, ans plotter.XYs
		for _, r := range rs {
			rr, ok := r.Routes[route]
			if !ok || r.Chunks == 0 {
				continue
			}
			ret = append(ret, plotter.XY{X: float64(r.Chunks), Y: max(rr.RetrievalP95, 0.1)})
			ans = append(ans, plotter.XY{X: float64(r.Chunks), Y: max(rr.AnswerP95, 0.1)})
		}
		if len(ret) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(ret)
		if err != nil {
			return err
		}
		l.Color, pts.Color = routeColor[route], routeColor[route]
		l.Width = vg.Points(1.5)
		la, err := plotter.NewLine(ans)
		if err != nil {
			return err
		}
		la.Color = routeColor[route]
		la.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l, pts, la)
		p.Legend.Add(route+" retrieval", l, pts)
		p.Legend.Add(route+" + answer", la)
	}
	if len(rs) > 0 {
		lo, hi := float64(rs[0].Chunks), float64(rs[len(rs)-1].Chunks)
		for _, t := range []struct {
			ms   float64
			name string
		}{{50, "target simple/hybrid 50 ms"}, {150, "target multi_hop 150 ms"}} {
			tl, err := plotter.NewLine(plotter.XYs{{X: lo, Y: t.ms}, {X: hi, Y: t.ms}})
			if err != nil {
				return err
			}
			tl.Color = color.Gray{Y: 0x80}
			tl.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
			p.Add(tl)
			p.Legend.Add(t.name, tl)
		}
	}
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	if err := p.Save(9*vg.Inch, 5.5*vg.Inch, path); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}
