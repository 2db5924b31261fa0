package data

import (
	"fmt"

	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
)

type params struct {
	param.Data
	// IslandCity is the dataset of the island figure (the paper's Fig. 1:
	// Paris); "" draws none. Left out, it is the first dataset of Cities
	// that has a place A.
	IslandCity *string       `toml:"island_city"`
	Island     island.Params `toml:"island"`
	// A and B are the locations marked in the island figure: a place of
	// the dataset or [row, col]; left out, its places A and B.
	A param.Loc `toml:"a"`
	B param.Loc `toml:"b"`
	// ScatterMaxPoints thins the scatter of check-ins to at most this
	// many places (distinct points) per dataset (every k-th place in file
	// order; 0 draws all of them).
	ScatterMaxPoints int `toml:"scatter_max_points"`
	// LogDensity colours the density heat maps by log10 of the share.
	LogDensity bool `toml:"log_density"`
}

func (p *params) Validate() error {
	if err := p.Data.Validate(); err != nil {
		return err
	}
	if err := p.Island.Validate("island"); err != nil {
		return err
	}
	if city := p.islandCity(); city != "" {
		if err := p.Check("island_city", city); err != nil {
			return fmt.Errorf("%w (or \"\" for no island figure)", err)
		}
		ds, err := p.Dataset(city, p.Rows)
		if err != nil {
			return fmt.Errorf("params.island_city: %w", err)
		}
		if err := island.ResolveOn(ds, p.Island, &p.A, &p.B); err != nil {
			return err
		}
	}
	if p.ScatterMaxPoints < 0 {
		return fmt.Errorf("params.scatter_max_points = %d: must be >= 0 (0 = all points)", p.ScatterMaxPoints)
	}
	return nil
}

// islandCity is the dataset of the island figure: island_city, or the
// first dataset of cities with a place A ("" for none, or when a dataset
// cannot be loaded: Validate reports that).
func (p *params) islandCity() string {
	if p.IslandCity != nil {
		return *p.IslandCity
	}
	for _, c := range p.Cities {
		ds, err := p.Dataset(c, p.Rows)
		if err != nil {
			return ""
		}
		if _, ok := ds.Place("A"); ok {
			return c
		}
	}
	return ""
}

// places are the island figure's dataset, island and locations.
func (p *params) places() *island.Places {
	return &island.Places{Catalog: p.Catalog, City: p.islandCity(), Rows: p.Rows, Island: p.Island, A: p.A, B: p.B}
}
