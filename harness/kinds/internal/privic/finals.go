package incremental

import (
	"math"

	"privic/harness"
)

// finalKey names the final EMDs of one family of rounds.
type finalKey struct {
	City     string
	Beta     float64
	V        variant
	Ref      string
	Estimate string // "last-cycle" or "gibu"
}

// finalSet is final_emd.csv parsed.
type finalSet struct {
	emd, eps map[finalKey][]float64
	// cycles and batch per (city, batches mode): cycles run and batch size.
	cycles map[[2]string]int
	batch  map[string]int
}

func readFinals(t *harness.Table) (*finalSet, error) {
	col, err := columns(t, "city", "beta", "first_mechanism", "ibu_start", "mixing", "batches", "emd_reference",
		"round", "cycles", "batch_size", "estimate", "emd", "final_tight_eps")
	if err != nil {
		return nil, err
	}
	fs := &finalSet{emd: map[finalKey][]float64{}, eps: map[finalKey][]float64{}, cycles: map[[2]string]int{}, batch: map[string]int{}}
	for i, row := range t.Rows {
		beta, err := cell(t, row, col, "beta", i)
		if err != nil {
			return nil, err
		}
		v, err := cell(t, row, col, "emd", i)
		if err != nil {
			return nil, err
		}
		e, err := cell(t, row, col, "final_tight_eps", i)
		if err != nil {
			return nil, err
		}
		cy, err := intCell(t, row, col, "cycles", i)
		if err != nil {
			return nil, err
		}
		n, err := intCell(t, row, col, "batch_size", i)
		if err != nil {
			return nil, err
		}
		k := finalKey{row[col["city"]], beta, variantOf(row, col), row[col["emd_reference"]], row[col["estimate"]]}
		fs.emd[k] = append(fs.emd[k], v)
		fs.eps[k] = append(fs.eps[k], e)
		fs.cycles[[2]string{k.City, k.V.Batches}] = cy
		fs.batch[k.City] = n
	}
	return fs, nil
}

// partitionCycles is the number of cycles the partition variants of city
// ran, and the batch size.
func (fs *finalSet) partitionCycles(city string) (cycles, batch int, ok bool) {
	cycles, ok = fs.cycles[[2]string{city, "partition"}]
	return cycles, fs.batch[city], ok
}

// stat is the mean and sd over rounds of one family.
func (fs *finalSet) stat(k finalKey) (mean, sd float64, n int) {
	return meanSD(fs.emd[k])
}

// summary lists, per (city, beta), the default variant's final EMD after
// the last cycle and of the final GIBU, and the final channel's tight eps.
func (fs *finalSet) summary(cities []string, betas []float64, v variant, ref string) [][]string {
	var rows [][]string
	for _, city := range cities {
		for _, beta := range betas {
			lk := finalKey{city, beta, v, ref, "last-cycle"}
			gk := finalKey{city, beta, v, ref, "gibu"}
			lm, lsd, ln := fs.stat(lk)
			if ln == 0 {
				continue
			}
			gm, gsd, _ := fs.stat(gk)
			em, _, _ := meanSD(fs.eps[lk])
			eps := "–"
			if !math.IsNaN(em) {
				eps = fmtG(em, 4) + " (2β = " + fmtG(2*beta, 3) + ")"
			}
			rows = append(rows, []string{cityTitle(city), betaText(beta), pm(lm, lsd, 5), pm(gm, gsd, 5), eps})
		}
	}
	return rows
}
