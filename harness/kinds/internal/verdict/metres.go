package verdict

import (
	"math"
	"strconv"
	"strings"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/paper"
)

// PaperCellM is one cell of the paper's grids as a distance: its cells
// are about 480 m (Paris) and 500 m (San Francisco). Rules about places
// ("the mode near B", "reports around A") are stated in this unit, so
// that they ask for the same ground at any resolution: on the paper's
// grids it is the old "within 1 cell" (the four neighbours of a cell lie
// 475-502 m away, within it once distances are cells times the cell
// side); on 50 m cells it is ten cells.
const PaperCellM = 500

// StepM is half a paper cell: a move of the most likely report by less
// than this is within the paper's resolution and counts as no move.
const StepM = PaperCellM / 2

// StepWhy says, for a rule on ds, why a move shorter than StepM counts
// as none: on the paper's datasets, that it is within the paper's
// resolution.
func StepWhy(ds *datasets.Dataset) string {
	if ds != nil && paper.Has(ds.Name) {
		return "half a paper cell; smaller moves are within the paper's resolution"
	}
	return "smaller moves count as none"
}

// NearWhy is the words after "within PaperCellM m" in a rule on ds: on
// the paper's datasets, that it is one paper cell; "" otherwise.
func NearWhy(ds *datasets.Dataset) string {
	if ds != nil && paper.Has(ds.Name) {
		return " (one paper cell)"
	}
	return ""
}

// MinCheckinsPerCell is the density below which a grid cannot resolve an
// estimate's error down to a small fraction of its starting value: with
// fewer check-ins than cells on average, most cells are empty whatever
// the mechanism, and the EMD stays at the sampling error of the
// check-ins themselves.
const MinCheckinsPerCell = 1.0

// CellM is the side of ds's cells in metres, and whether it is assumed:
// a dataset without a cell size (counts or synthetic data without
// cell_m) has its cells taken as one paper cell, and the rules say so.
func CellM(ds *datasets.Dataset) (m float64, assumed bool) {
	if ds == nil || ds.CellM <= 0 {
		return PaperCellM, true
	}
	return ds.CellM, false
}

// Cells converts metres to cells of ds (CellM's side).
func Cells(ds *datasets.Dataset, metres float64) float64 {
	m, _ := CellM(ds)
	return metres / m
}

// Metres converts cells of ds to metres (CellM's side).
func Metres(ds *datasets.Dataset, cells float64) float64 {
	m, _ := CellM(ds)
	return cells * m
}

// Assumed is the words a rule in metres adds on a dataset without a cell
// size: "" when ds has one.
func Assumed(ds *datasets.Dataset) string {
	if _, a := CellM(ds); a {
		return " (this dataset has no cell size: its cells are taken as " + harness.FormatSig(PaperCellM, 3) + " m)"
	}
	return ""
}

// M formats metres for evidence: whole metres from 100 m on, else 3
// significant digits, and " m".
func M(v float64) string { return Num(v) + " m" }

// Num formats a distance in metres without its unit: whole metres from
// 100 on, else 3 significant digits.
func Num(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return harness.FormatSig(v, 3)
}

// Nums formats distances in metres as "a, b, c" (Num).
func Nums(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = Num(x)
	}
	return strings.Join(s, ", ")
}
