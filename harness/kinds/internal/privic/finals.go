package privic

import (
	"math"

	"privic/harness"
)

// FinalKey names the final EMDs of one family of rounds.
type FinalKey struct {
	City     string
	Beta     float64
	V        Variant
	Ref      string
	Estimate string // "last-cycle" or "gibu"
}

// Finals is final_emd.csv parsed.
type Finals struct {
	emd, eps map[FinalKey][]float64
	// cycles and batch per (city, batches mode): cycles run and batch size.
	cycles map[[2]string]int
	batch  map[string]int
}

// ReadFinals parses final_emd.csv.
func ReadFinals(t *harness.Table) (*Finals, error) {
	rd, err := t.Reader("city", "beta", "first_mechanism", "ibu_start", "mixing", "batches", "emd_reference",
		"round", "cycles", "batch_size", "estimate", "emd", "final_tight_eps")
	if err != nil {
		return nil, err
	}
	fs := &Finals{emd: map[FinalKey][]float64{}, eps: map[FinalKey][]float64{}, cycles: map[[2]string]int{}, batch: map[string]int{}}
	for i := range t.Rows {
		k := FinalKey{rd.Str(i, "city"), rd.Float(i, "beta"), ReadVariant(rd, i), rd.Str(i, "emd_reference"), rd.Str(i, "estimate")}
		fs.emd[k] = append(fs.emd[k], rd.Float(i, "emd"))
		fs.eps[k] = append(fs.eps[k], rd.Float(i, "final_tight_eps"))
		fs.cycles[[2]string{k.City, k.V.Batches}] = rd.Int(i, "cycles")
		fs.batch[k.City] = rd.Int(i, "batch_size")
	}
	return fs, rd.Err()
}

// ReadVariant reads the variant columns of row i.
func ReadVariant(rd *harness.Reader, i int) Variant {
	return Variant{
		FirstMechanism: rd.Str(i, "first_mechanism"),
		IBUStart:       rd.Str(i, "ibu_start"),
		Mixing:         rd.Str(i, "mixing"),
		Batches:        rd.Str(i, "batches"),
	}
}

// PartitionCycles is the number of cycles the partition variants of city
// ran, and the batch size.
func (fs *Finals) PartitionCycles(city string) (cycles, batch int, ok bool) {
	cycles, ok = fs.cycles[[2]string{city, "partition"}]
	return cycles, fs.batch[city], ok
}

// Batch is the batch size of city's runs.
func (fs *Finals) Batch(city string) int { return fs.batch[city] }

// Stat is the mean and sd over rounds of one family's EMD.
func (fs *Finals) Stat(k FinalKey) (mean, sd float64, n int) {
	return harness.MeanSD(fs.emd[k])
}

// Values are the rounds' EMD of one family, in table order (a copy).
func (fs *Finals) Values(k FinalKey) []float64 { return append([]float64(nil), fs.emd[k]...) }

// EpsMean is the mean tight epsilon of one family's final channels.
func (fs *Finals) EpsMean(k FinalKey) float64 {
	m, _, _ := harness.MeanSD(fs.eps[k])
	return m
}

// Summary lists, per (city, beta), the default variant's final EMD after
// the last cycle and of the final GIBU, and the final channel's tight eps.
func (fs *Finals) Summary(cities []string, betas []float64, v Variant, ref string, title func(string) string) [][]string {
	var rows [][]string
	for _, city := range cities {
		for _, beta := range betas {
			lk := FinalKey{city, beta, v, ref, "last-cycle"}
			gk := FinalKey{city, beta, v, ref, "gibu"}
			lm, lsd, ln := fs.Stat(lk)
			if ln == 0 {
				continue
			}
			gm, gsd, _ := fs.Stat(gk)
			em := fs.EpsMean(lk)
			eps := "–"
			if !math.IsNaN(em) {
				eps = Sig(em, 4) + " (2β = " + Sig(2*beta, 3) + ")"
			}
			rows = append(rows, []string{title(city), BetaText(beta), PM(lm, lsd, 5), PM(gm, gsd, 5), eps})
		}
	}
	return rows
}
