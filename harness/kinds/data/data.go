// Package data is the experiment kind "datasets": the figures of the data
// (Fig. 1, the Paris island prior with A and B; Fig. 6a, the check-in
// points; Fig. 6b, density heat maps) and a table of the grids beside what
// the paper's text says of them.
package data

import (
	"context"
	"fmt"
	"math/rand/v2"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
)

// Kind returns the datasets kind.
func Kind() harness.Kind { return harness.Typed[*params, job](def{}) }

// version is mixed into the spec hash (harness.Versioned).
const version = "2"

type params struct {
	Cities []string           `toml:"cities"`
	Rows   datasets.RowPolicy `toml:"rows"`
	// IslandCity is the city of Fig. 1 (the paper: Paris; "" draws no
	// Fig. 1).
	IslandCity string        `toml:"island_city"`
	Island     island.Params `toml:"island"`
	// A and B are the locations marked in Fig. 1; left out, the island
	// city's places A and B.
	A param.Cell `toml:"a"`
	B param.Cell `toml:"b"`
	// ScatterMaxPoints thins Fig. 6a to at most this many points per city
	// (every k-th point in file order; 0 draws all of them).
	ScatterMaxPoints int `toml:"scatter_max_points"`
	// LogDensity colours Fig. 1 and Fig. 6b by log10 of the share.
	LogDensity bool `toml:"log_density"`
}

func (p *params) Validate() error {
	if err := param.Cities("cities", p.Cities); err != nil {
		return err
	}
	if err := p.Island.Validate("island"); err != nil {
		return err
	}
	if p.IslandCity != "" {
		if err := param.City("island_city", p.IslandCity); err != nil {
			return fmt.Errorf("%w (or \"\" for no Fig. 1)", err)
		}
		if err := p.A.Resolve("a", p.IslandCity, "A", p.Rows); err != nil {
			return err
		}
		if err := p.B.Resolve("b", p.IslandCity, "B", p.Rows); err != nil {
			return err
		}
	}
	if p.ScatterMaxPoints < 0 {
		return fmt.Errorf("params.scatter_max_points = %d: must be >= 0 (0 = all points)", p.ScatterMaxPoints)
	}
	return nil
}

// places are Fig. 1's city, island and locations.
func (p *params) places() *island.Places {
	return &island.Places{City: p.IslandCity, Rows: p.Rows, Island: p.Island, A: p.A, B: p.B}
}

type def struct{}

type job struct {
	p    *params
	city string
}

func (def) Name() string    { return "datasets" }
func (def) Version() string { return version }
func (def) Describe() string {
	return "Fig. 1 (Paris island prior with A and B), Fig. 6a (check-in points), Fig. 6b (check-in density) and a table of the grids"
}
func (def) Outputs() []string {
	return []string{"grids.csv", "fig1.png", "fig1.svg", "fig6a.png", "fig6a.svg",
		"fig6b.png", "fig6b.svg", "skipped.csv", "section.md"}
}

func (def) NewParams() *params {
	return &params{
		Cities:           []string{"paris", "sf"},
		Rows:             datasets.HeaderQuirk,
		IslandCity:       "paris",
		Island:           island.Default(),
		ScatterMaxPoints: 6000,
		LogDensity:       true,
	}
}

func (def) Plan(p *params) ([]harness.Work[job], error) {
	var jobs []harness.Work[job]
	for _, c := range p.Cities {
		jobs = append(jobs, harness.Work[job]{Key: "city=" + c, Job: job{p: p, city: c}})
	}
	return jobs, nil
}

// EstimateBytes: a job only counts cells; the check-in points are read by
// Finish, outside any job.
func (def) EstimateBytes(j job) int64 {
	ds, err := datasets.Load(j.city, datasets.LoadOptions{Rows: j.p.Rows})
	if err != nil {
		return 1 << 20 // the job fails on its own when it runs
	}
	return 64*int64(ds.Grid.Len()) + (1 << 16)
}

func (def) Run(_ context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	ds, err := datasets.Load(j.city, datasets.LoadOptions{Rows: j.p.Rows})
	if err != nil {
		return nil, err
	}
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
	t.Add(j.city, ds.Grid.Rows, ds.Grid.Cols, ds.Grid.Len(), ds.N, occupied,
		br, bc, float64(ds.Counts[best])/float64(ds.N), j.p.Rows.String())
	return []harness.Table{*t}, nil
}
