package convergence

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/privic"
)

// curveKey names one measured EMD trajectory family: the rounds of one
// (city, beta, variant, EMD reference).
type curveKey struct {
	City string
	Beta float64
	V    privic.Variant
	Ref  string
}

// curve holds the per-round values of one family: byCycle[t] lists the
// rounds' EMD at cycle t, in table order, and rounds[t] their rounds.
type curve struct {
	byCycle [][]float64
	rounds  [][]int
}

// triple returns the EMD at cycles t1, t2 and t3 of the rounds that
// have all three, paired by round.
func (c *curve) triple(t1, t2, t3 int) (a, b, d []float64) {
	for _, t := range []int{t1, t2, t3} {
		if t < 0 || t >= len(c.byCycle) {
			return nil, nil, nil
		}
	}
	for i, r := range c.rounds[t1] {
		j, k := slices.Index(c.rounds[t2], r), slices.Index(c.rounds[t3], r)
		if j >= 0 && k >= 0 {
			a, b, d = append(a, c.byCycle[t1][i]), append(b, c.byCycle[t2][j]), append(d, c.byCycle[t3][k])
		}
	}
	return a, b, d
}

// cycles is the last cycle with data.
func (c *curve) cycles() int { return len(c.byCycle) - 1 }

// stat returns mean, sd and count at cycle t (NaN beyond the data).
func (c *curve) stat(t int) (mean, sd float64, n int) {
	if c == nil || t < 0 || t >= len(c.byCycle) {
		return math.NaN(), math.NaN(), 0
	}
	return harness.MeanSD(c.byCycle[t])
}

// means is the mean at every cycle.
func (c *curve) means() []float64 {
	m := make([]float64, c.cycles()+1)
	for t := range m {
		m[t], _, _ = c.stat(t)
	}
	return m
}

// readCurves parses emd_by_cycle.csv.
func readCurves(t *harness.Table) (map[curveKey]*curve, error) {
	rd, err := t.Reader("city", "beta", "first_mechanism", "ibu_start", "mixing", "batches", "emd_reference", "round", "cycle", "emd")
	if err != nil {
		return nil, err
	}
	out := map[curveKey]*curve{}
	for i := range t.Rows {
		k := curveKey{rd.Str(i, "city"), rd.Float(i, "beta"), privic.ReadVariant(rd, i), rd.Str(i, "emd_reference")}
		cy, v, round := rd.Int(i, "cycle"), rd.Float(i, "emd"), rd.Int(i, "round")
		if rd.Err() != nil {
			return nil, rd.Err()
		}
		if cy < 0 || cy > 100000 {
			return nil, fmt.Errorf("table %s line %d: cycle %d out of range", t.Name, i+2, cy)
		}
		c := out[k]
		if c == nil {
			c = &curve{}
			out[k] = c
		}
		for len(c.byCycle) <= cy {
			c.byCycle = append(c.byCycle, nil)
			c.rounds = append(c.rounds, nil)
		}
		c.byCycle[cy] = append(c.byCycle[cy], v)
		c.rounds[cy] = append(c.rounds[cy], round)
	}
	return out, nil
}

// paperStat is the paper's mean and sd over its five rounds at a cycle.
func paperStat(city string, beta float64, t int) (mean, sd float64, ok bool) {
	f, _ := paper.Of(city)
	r := f.Table.Cycle(beta, t)
	if r == nil {
		return math.NaN(), math.NaN(), false
	}
	m, s, _ := harness.MeanSD(r)
	return m, s, true
}

// paperMeans is the paper's mean at every cycle of its table.
func paperMeans(city string, beta float64) []float64 {
	f, _ := paper.Of(city)
	rows := f.Table.Rounds[beta]
	m := make([]float64, len(rows))
	for t := range rows {
		m[t], _, _ = paperStat(city, beta, t)
	}
	return m
}

// distance compares a mean trajectory with the paper's mean over the
// cycles both have, excluding cycle 0 (the same EMD(uniform, pi) in every
// variant by construction).
type distance struct {
	N                int // cycles compared
	SumSq, MaxAbs    float64
	SumDiff          float64
	FirstCmp, LastCp int
}

func (d distance) rms() float64 {
	if d.N == 0 {
		return math.NaN()
	}
	return math.Sqrt(d.SumSq / float64(d.N))
}

func (d distance) meanDiff() float64 {
	if d.N == 0 {
		return math.NaN()
	}
	return d.SumDiff / float64(d.N)
}

func (d *distance) add(o distance) {
	d.N += o.N
	d.SumSq += o.SumSq
	d.SumDiff += o.SumDiff
	d.MaxAbs = math.Max(d.MaxAbs, o.MaxAbs)
}

func compare(k curveKey, c *curve) distance {
	var d distance
	for t := 1; t <= c.cycles(); t++ {
		pm, _, ok := paperStat(k.City, k.Beta, t)
		if !ok {
			break
		}
		m, _, n := c.stat(t)
		if n == 0 {
			continue
		}
		diff := m - pm
		if d.N == 0 {
			d.FirstCmp = t
		}
		d.LastCp = t
		d.N++
		d.SumSq += diff * diff
		d.SumDiff += diff
		d.MaxAbs = math.Max(d.MaxAbs, math.Abs(diff))
	}
	return d
}

// pooledDistance is one variant's distance over every (city, beta) panel.
type pooledDistance struct {
	V     privic.Variant
	Ref   string
	Total distance
	Parts map[[2]string]distance // (city, beta) -> distance
}

// distances computes every variant's distance to the paper's tables,
// closest first.
func (f *finish) distances() {
	var order []*pooledDistance
	for _, v := range f.variants {
		for _, ref := range f.p.EMDReference {
			pd := &pooledDistance{V: v, Ref: ref, Parts: map[[2]string]distance{}}
			for _, city := range f.p.Cities {
				for _, beta := range f.betas() {
					c := f.curves[curveKey{city, beta, v, ref}]
					if c == nil {
						continue
					}
					d := compare(curveKey{city, beta, v, ref}, c)
					if d.N == 0 {
						continue
					}
					pd.Parts[[2]string{city, harness.FormatFloat(beta)}] = d
					pd.Total.add(d)
				}
			}
			if pd.Total.N > 0 {
				order = append(order, pd)
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Total.rms() < order[j].Total.rms() })
	f.pooled = f.pooled[:0]
	for _, pd := range order {
		f.pooled = append(f.pooled, *pd)
	}
}

func (f *finish) writeDistances() error {
	t := harness.NewTable("variant_distance", "first_mechanism", "ibu_start", "mixing", "batches", "variant", "emd_reference", "city", "beta",
		"cycles_compared", "first_cycle", "last_cycle", "rms", "max_abs", "mean_diff", "rank")
	for rank, pd := range f.pooled {
		v := pd.V
		base := harness.Row{"first_mechanism": v.FirstMechanism, "ibu_start": v.IBUStart, "mixing": v.Mixing, "batches": v.Batches,
			"variant": v.Name(), "emd_reference": pd.Ref}
		t.Add(base, harness.Row{"city": "all", "beta": "all", "cycles_compared": pd.Total.N, "first_cycle": "", "last_cycle": "",
			"rms": pd.Total.rms(), "max_abs": pd.Total.MaxAbs, "mean_diff": pd.Total.meanDiff(), "rank": rank + 1})
		for _, city := range f.p.Cities {
			for _, beta := range f.betas() {
				d, ok := pd.Parts[[2]string{city, harness.FormatFloat(beta)}]
				if !ok {
					continue
				}
				t.Add(base, harness.Row{"city": city, "beta": beta, "cycles_compared": d.N, "first_cycle": d.FirstCmp,
					"last_cycle": d.LastCp, "rms": d.rms(), "max_abs": d.MaxAbs, "mean_diff": d.meanDiff(), "rank": ""})
			}
		}
	}
	return f.out.WriteTable(*t)
}

// closestIn is the variant and reference with the smallest RMS distance
// to the paper at one (city, beta).
func (f *finish) closestIn(city string, beta float64) (privic.Variant, string, bool) {
	key := [2]string{city, harness.FormatFloat(beta)}
	best := -1
	for i, pd := range f.pooled {
		if d, ok := pd.Parts[key]; ok && (best < 0 || d.rms() < f.pooled[best].Parts[key].rms()) {
			best = i
		}
	}
	if best < 0 {
		return privic.Variant{}, "", false
	}
	return f.pooled[best].V, f.pooled[best].Ref, true
}

// distanceOf is one variant's distance at one (city, beta) panel.
func (f *finish) distanceOf(v privic.Variant, ref string, panel [2]string) distance {
	for _, pd := range f.pooled {
		if pd.V == v && pd.Ref == ref {
			return pd.Parts[panel]
		}
	}
	return distance{}
}
