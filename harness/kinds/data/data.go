// Package data is the experiment kind "datasets": the figures of the data
// (Fig. 1, the Paris island prior with A and B; Fig. 6a, the check-in
// points; Fig. 6b, density heat maps) and a table of the grids beside what
// the paper's text says of them.
package data

import (
	"context"
	"math/rand/v2"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
)

// Kind returns the datasets kind.
func Kind() harness.Kind { return harness.Typed[*params, job](def{}) }

type def struct{}

type job struct {
	p  *params
	ds *datasets.Dataset
}

func (def) About() harness.About {
	return harness.About{
		Name:     "datasets",
		Describe: "Fig. 1 (Paris island prior with A and B), Fig. 6a (check-in points), Fig. 6b (check-in density) and a table of the grids",
		Tables:   []string{"grids"},
		Figures:  []string{"fig1", "fig6a", "fig6b"},
		Skips:    true,
		Version:  "2",
	}
}

func (def) NewParams() *params {
	return &params{
		Data:             param.Data{Cities: []string{"paris", "sf"}, Rows: datasets.HeaderQuirk},
		IslandCity:       "paris",
		Island:           island.Default(),
		ScatterMaxPoints: 6000,
		LogDensity:       true,
	}
}

func (def) Plan(p *params) ([]harness.Work[job], error) {
	return param.CityJobs(&p.Data, func(ds *datasets.Dataset) job { return job{p: p, ds: ds} })
}

// EstimateBytes: a job only counts cells; the check-in points are read by
// Finish, outside any job.
func (def) EstimateBytes(j job) int64 { return 64*int64(j.ds.Grid.Len()) + (1 << 16) }

func (def) Run(_ context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	ds := j.ds
	occupied, best := 0, 0
	for i, c := range ds.Counts {
		if c > 0 {
			occupied++
		}
		if c > ds.Counts[best] {
			best = i
		}
	}
	br, bc := ds.Grid.Abs(best)
	t := harness.NewTable("grids", "city", "rows", "cols", "cells", "n_checkins", "occupied_cells",
		"max_cell_row", "max_cell_col", "max_cell_share", "rows_policy")
	t.Add(ds.Name, ds.Grid.Rows, ds.Grid.Cols, ds.Grid.Len(), ds.N, occupied,
		br, bc, float64(ds.Counts[best])/float64(ds.N), j.p.Rows.String())
	return []harness.Table{*t}, nil
}
