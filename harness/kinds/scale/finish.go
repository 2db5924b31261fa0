package scale

import (
	"context"
	"embed"
	"fmt"
	"math"
	"runtime"
	"slices"

	"privic/harness"
	"privic/plots"
)

// point is one row of scale.csv.
type point struct {
	kernel       string
	side, cells  int
	status       string
	seconds, rss float64 // NaN when not measured
	load         float64 // NaN when not known
}

// fit is one kernel's summary (a row of slopes.csv).
type fit struct {
	kernel                 string
	n                      int     // points fitted
	timeSlope, memSlope    float64 // NaN without two points
	largestSide            int     // 0: no side within the budget
	largestSec, largestRSS float64
	beyondSide             int // the smallest side above largestSide not reached (0: none)
	beyondStatus           string
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	pts, err := harness.ReadTableAs(out, "scale", readPoints)
	if err != nil {
		return harness.Section{}, err
	}
	fits := fitAll(p, pts)
	st := harness.NewTable("slopes", "kernel", "points_fitted", "time_slope", "memory_slope", "largest_side", "largest_cells",
		"largest_median_seconds", "largest_peak_rss_bytes", "next_side", "next_status")
	for _, f := range fits {
		ls, lc, ns := "", "", ""
		if f.largestSide > 0 {
			ls, lc = fmt.Sprint(f.largestSide), fmt.Sprint(f.largestSide*f.largestSide)
		}
		if f.beyondSide > 0 {
			ns = fmt.Sprint(f.beyondSide)
		}
		rss := ""
		if !math.IsNaN(f.largestRSS) {
			rss = fmt.Sprint(int64(f.largestRSS))
		}
		st.Add(harness.Row{"kernel": f.kernel, "points_fitted": f.n, "time_slope": nanCell(f.timeSlope), "memory_slope": nanCell(f.memSlope),
			"largest_side": ls, "largest_cells": lc, "largest_median_seconds": nanCell(f.largestSec), "largest_peak_rss_bytes": rss,
			"next_side": ns, "next_status": f.beyondStatus})
	}
	if err := out.WriteTable(*st); err != nil {
		return harness.Section{}, err
	}
	var figs harness.Figures
	fig, err := figure(p, pts, fits)
	if err := figs.Add("scale", fig, err); err != nil {
		return harness.Section{}, err
	}
	var skipped []harness.Skip
	for _, pt := range pts {
		if pt.status != "ok" {
			skipped = append(skipped, harness.Skip{Figure: fmt.Sprintf("scale (%s at %dx%d)", pt.kernel, pt.side, pt.side), Reason: pt.status})
		}
	}
	md, err := section(p, pts, fits, figs)
	return harness.Section{Markdown: md, Figures: figs, Skipped: skipped}, err
}

func nanCell(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return harness.FormatFloat(v)
}

func readPoints(t *harness.Table) ([]point, error) {
	rd, err := t.Reader("kernel", "side", "cells", "status", "median_seconds", "peak_rss_bytes", "load_average")
	if err != nil {
		return nil, err
	}
	var pts []point
	for i := range t.Rows {
		pt := point{kernel: rd.Str(i, "kernel"), side: rd.Int(i, "side"), cells: rd.Int(i, "cells"), status: rd.Str(i, "status"),
			seconds: math.NaN(), rss: math.NaN(), load: math.NaN()}
		if rd.Str(i, "median_seconds") != "" {
			pt.seconds = rd.Float(i, "median_seconds")
		}
		if rd.Str(i, "peak_rss_bytes") != "" {
			pt.rss = rd.Float(i, "peak_rss_bytes")
		}
		if rd.Str(i, "load_average") != "" {
			pt.load = rd.Float(i, "load_average")
		}
		pts = append(pts, pt)
	}
	return pts, rd.Err()
}

// of returns the points of kernel k by side.
func of(pts []point, k string) []point {
	var out []point
	for _, pt := range pts {
		if pt.kernel == k {
			out = append(out, pt)
		}
	}
	slices.SortFunc(out, func(a, b point) int { return a.side - b.side })
	return out
}

// fitAll fits every kernel of p: the least-squares slopes of log time and
// log peak memory against log cells over the sides within the budget
// with at least p.FitMinCells cells, and the largest side reached.
func fitAll(p *params, pts []point) []fit {
	var fits []fit
	for _, k := range p.Kernels {
		f := fit{kernel: k, timeSlope: math.NaN(), memSlope: math.NaN(), largestSec: math.NaN(), largestRSS: math.NaN()}
		var x, yt, xm, ym []float64
		kp := of(pts, k)
		for _, pt := range kp {
			if pt.status != "ok" {
				continue
			}
			f.largestSide, f.largestSec, f.largestRSS = pt.side, pt.seconds, pt.rss
			if pt.cells < p.FitMinCells || !(pt.seconds > 0) {
				continue
			}
			x, yt = append(x, math.Log(float64(pt.cells))), append(yt, math.Log(pt.seconds))
			if pt.rss > 0 {
				xm, ym = append(xm, math.Log(float64(pt.cells))), append(ym, math.Log(pt.rss))
			}
		}
		// The first side beyond the largest reached, and why it was not.
		for _, pt := range kp {
			if pt.side > f.largestSide && pt.status != "ok" {
				f.beyondSide, f.beyondStatus = pt.side, pt.status
				break
			}
		}
		f.n = len(x)
		f.timeSlope, f.memSlope = slope(x, yt), slope(xm, ym)
		fits = append(fits, f)
	}
	return fits
}

// slope is the least-squares slope of y on x (NaN with fewer than two
// distinct x).
func slope(x, y []float64) float64 {
	n := float64(len(x))
	if len(x) < 2 {
		return math.NaN()
	}
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	sxy, sxx := 0.0, 0.0
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}

// figure draws time and peak memory against cells, log-log, one line per
// kernel (the sides within the budget), named with its fitted slope.
func figure(p *params, pts []point, fits []fit) (*plots.Figure, error) {
	var ts, ms []plots.Series
	for i, k := range p.Kernels {
		var x, yt, xm, ym []float64
		for _, pt := range of(pts, k) {
			if pt.status != "ok" || !(pt.seconds > 0) {
				continue
			}
			x, yt = append(x, float64(pt.cells)), append(yt, pt.seconds)
			if pt.rss > 0 {
				xm, ym = append(xm, float64(pt.cells)), append(ym, pt.rss/(1<<20))
			}
		}
		if len(x) > 0 {
			ts = append(ts, plots.Series{Name: k + slopeWords(fits[i].timeSlope), X: x, Y: yt})
		}
		if len(xm) > 0 {
			ms = append(ms, plots.Series{Name: k + slopeWords(fits[i].memSlope), X: xm, Y: ym})
		}
	}
	var panels []plots.Panel
	if len(ts) > 0 {
		panels = append(panels, plots.Panel{Title: fmt.Sprintf("Time of one run (median; budget %s s)", fmtSeconds(p.BudgetSeconds)), Series: ts,
			Opt: plots.LineOptions{XLabel: "cells", YLabel: "seconds", LogX: true, LogY: true, Points: true}})
	}
	if len(ms) > 0 {
		panels = append(panels, plots.Panel{Title: "Peak resident memory of the probe's process", Series: ms,
			Opt: plots.LineOptions{XLabel: "cells", YLabel: "MiB", LogX: true, LogY: true, Points: true}})
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("no kernel ran within the budget at any side")
	}
	return plots.LinePanels("Kernels against the number of cells (hotspot cities; slopes of log-log fits)", panels, len(panels))
}

func slopeWords(s float64) string {
	if math.IsNaN(s) {
		return ""
	}
	return " (slope " + harness.FormatSig(s, 3) + ")"
}

//go:embed section.md.tmpl
var templates embed.FS

type sectionData struct {
	Machine, Budget string
	Load            string // the range of the load averages
	Repeats         int
	FitMin          int
	Drawn           bool
	Rows, Fits      [][]string
	Figures         harness.Figures
}

func section(p *params, pts []point, fits []fit, figs harness.Figures) (string, error) {
	d := sectionData{
		Machine: fmt.Sprintf("%s/%s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version()),
		Budget:  fmtSeconds(p.BudgetSeconds), Repeats: p.Repeats, FitMin: p.FitMinCells, Drawn: p.HotspotsDir == "", Figures: figs,
	}
	sig := harness.FormatSig
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		if !math.IsNaN(pt.load) {
			lo, hi = min(lo, pt.load), max(hi, pt.load)
		}
	}
	d.Load = "not known"
	if lo <= hi {
		d.Load = "from " + sig(lo, 3) + " to " + sig(hi, 3) + " here"
	}
	for _, k := range p.Kernels {
		for _, pt := range of(pts, k) {
			t, mem := "-", "-"
			if !math.IsNaN(pt.seconds) {
				t = sig(pt.seconds, 3) + " s"
			}
			if !math.IsNaN(pt.rss) {
				mem = sig(pt.rss/(1<<20), 3) + " MiB"
			}
			status := pt.status
			if len(status) > 90 {
				status = status[:87] + "..."
			}
			d.Rows = append(d.Rows, []string{k, fmt.Sprintf("%d x %d", pt.side, pt.side), fmt.Sprint(pt.cells), t, mem, status})
		}
	}
	for _, f := range fits {
		reach, next := "none", "-"
		if f.largestSide > 0 {
			reach = fmt.Sprintf("%d x %d (%d cells, %s s)", f.largestSide, f.largestSide, f.largestSide*f.largestSide, sig(f.largestSec, 3))
		}
		if f.beyondSide > 0 {
			next = fmt.Sprintf("%d x %d: %s", f.beyondSide, f.beyondSide, f.beyondStatus)
		}
		d.Fits = append(d.Fits, []string{f.kernel, slopeCell(f.timeSlope), slopeCell(f.memSlope), fmt.Sprint(f.n), reach, next})
	}
	return harness.RenderFile(templates, "section.md.tmpl", d)
}

func slopeCell(s float64) string {
	if math.IsNaN(s) {
		return "-"
	}
	return harness.FormatSig(s, 3)
}
