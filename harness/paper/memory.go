package paper

import (
	"privic/datasets"
	"privic/harness"
)

// Memory estimates for the harness's guard (harness.MemoryEstimator). The
// dense channels dominate: 8 bytes per entry. A job whose data set cannot
// be loaded gets a nominal estimate; it fails on its own when it runs.

// gridCells returns the number of cells of city's grid and of its
// w-widened output grid.
func gridCells(city string, rows datasets.RowPolicy, w int) (m, n int64) {
	ds, err := datasets.Load(city, datasets.LoadOptions{Rows: rows})
	if err != nil {
		return 1024, 1024
	}
	return int64(ds.Grid.Len()), int64(ds.Grid.Widen(max(w, 0)).Len())
}

// tableBytes bounds the memory of a table of formatted numbers: about
// 200 bytes per row of a dozen short strings.
func tableBytes(rows int64) int64 { return 200 * rows }

// EstimateBytes: the BA channel and the SVD's work space (about six m x m
// matrices), the LAP channel (m x n) and the report tables (two rows of m
// and two of n cells).
func (elasticKind) EstimateBytes(job harness.Job) int64 {
	j, ok := job.Arg.(elasticJob)
	if !ok {
		return 1 << 20
	}
	m, n := gridCells(j.p.City, j.p.Rows, j.p.LapWiden)
	return 8*(6*m*m+m*n) + tableBytes(2*(m+n))
}

// EstimateBytes: as elastic, with one report row of m cells.
func (adversarialKind) EstimateBytes(job harness.Job) int64 {
	j, ok := job.Arg.(adversarialJob)
	if !ok {
		return 1 << 20
	}
	m, n := gridCells(j.p.City, j.p.Rows, j.p.LapWiden)
	return 8*(6*m*m+m*n) + tableBytes(m)
}

// EstimateBytes: the channel, the BA work space and the IBU vectors.
func (runtimeKind) EstimateBytes(job harness.Job) int64 {
	j, ok := job.Arg.(runtimeJob)
	if !ok {
		return 1 << 20
	}
	m, _ := gridCells(j.city, j.p.Rows, 0)
	return 8 * 3 * m * m
}

// EstimateBytes: a job only counts cells; the check-in points are read by
// Finish, outside any job.
func (datasetsKind) EstimateBytes(job harness.Job) int64 {
	j, ok := job.Arg.(datasetsJob)
	if !ok {
		return 1 << 20
	}
	m, _ := gridCells(j.city, j.p.Rows, 0)
	return 64*m + (1 << 16)
}
