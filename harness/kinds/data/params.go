package data

import (
	"fmt"

	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
)

type params struct {
	param.Data
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
	if err := p.Data.Validate(); err != nil {
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
