// Package data is the experiment kind "datasets": the figures of the data
// (Fig. 1, the Paris island prior with A and B; Fig. 6a, the check-in
// points; Fig. 6b, density heat maps) and a table of the grids beside what
// the paper's text says of them. The paper's figures show its datasets
// (the presets); any other dataset gets the same figures under its own
// name: island-<name>, points-<name> and density-<name>.
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
		Describe: "Fig. 1 (Paris island prior with A and B), Fig. 6a (check-in points), Fig. 6b (check-in density) and a table of the grids, for any dataset",
		Tables:   []string{"grids"},
		Figures:  []string{"fig1", "fig6a", "fig6b", "island-<city>", "points-<city>", "density-<city>"},
		Skips:    true,
		Version:  "3",
	}
}

func (def) NewParams() *params {
	return &params{
		Data:             param.Data{Cities: param.Presets(), Rows: datasets.HeaderQuirk},
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
	occupied, best := ds.Occupancy()
	br, bc := ds.Grid.Abs(best)
	t := harness.NewTable("grids", "city", "rows", "cols", "cells", "n_checkins", "occupied_cells",
		"max_cell_row", "max_cell_col", "max_cell_share", "rows_policy",
		"cell_m", "cell_height_m", "cell_width_m", "checkins_read", "checkins_dropped")
	policy := j.p.Rows.String()
	if !ds.Preset {
		policy = "" // the row policy is the presets'
	}
	t.Add(harness.Row{"city": ds.Name, "rows": ds.Grid.Rows, "cols": ds.Grid.Cols, "cells": ds.Grid.Len(), "n_checkins": ds.N,
		"occupied_cells": occupied, "max_cell_row": br, "max_cell_col": bc, "max_cell_share": float64(ds.Counts[best]) / float64(ds.N),
		"rows_policy": policy, "cell_m": param.CellSize(ds), "cell_height_m": length(ds, ds.CellHeightM),
		"cell_width_m": length(ds, ds.CellWidthM), "checkins_read": ds.Read.Checkins, "checkins_dropped": ds.Read.Dropped})
	return []harness.Table{*t}, nil
}

// length formats a length in metres of ds's grid, "" when its cell size
// is unknown.
func length(ds *datasets.Dataset, m float64) string {
	if ds.CellM == 0 {
		return ""
	}
	return harness.FormatFloat(m)
}
