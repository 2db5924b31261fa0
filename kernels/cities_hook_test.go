package kernels_test

import (
	"privic/datasets"
	"privic/kernels"
)

// The internal tests cannot import datasets (it imports kernels); this
// external test file hands them its embedded city counts.
func init() {
	kernels.SetCityCounts(func(city string) (kernels.Grid, []int, error) {
		d, err := datasets.Load(city, datasets.LoadOptions{Rows: datasets.HeaderQuirk})
		if err != nil {
			return kernels.Grid{}, nil, err
		}
		g, err := kernels.NewGrid(d.Grid.Rows, d.Grid.Cols)
		if err != nil {
			return kernels.Grid{}, nil, err
		}
		return g, d.Counts, nil
	})
}
