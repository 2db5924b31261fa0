package kernels

import (
	"fmt"
	"math/rand/v2"
)

// Obfuscate draws the report counts over the channel's output grid when
// counts[x] true check-ins at each input cell x report independently
// through op. Only the counts matter, so each occupied source cell x
// contributes one Multinomial(counts[x], C[x,:]) draw; the result is
// equal in distribution to drawing every check-in's report separately,
// and deterministic for a given rng state.
//
// On a dense channel (a *Channel, or a structured operator's dense form
// below DenseOpCells cells, see ChannelOp) each multinomial is drawn by
// whichever of two exact methods costs less for its size:
//   - sequential conditional binomials: for y = 0, 1, ..., the count of y
//     is Binomial(remaining check-ins, C[x,y] / sum_{y' >= y} C[x,y']) (see
//     binomial), stopping when no check-in is left; cost ~ |Y| draws;
//   - categorical draws: the counts[x] check-ins pick their reports by
//     inversion of the row's cumulative distribution, with the uniforms
//     generated in sorted order so that one merge pass places them all
//     (see orderedCategorical), cost ~ |Y| + counts[x].
//
// Both give exactly the multinomial law; the choice depends only on
// counts[x] and |Y|. Structured operators on larger grids draw without
// materialising any row (see factorSampler), and other operators row by
// row through their Sample method.
func Obfuscate(rng *rand.Rand, counts []int, op ChannelOp) ([]int, error) {
	if rng == nil {
		return nil, fmt.Errorf("obfuscate: rng is nil")
	}
	if op == nil {
		return nil, fmt.Errorf("obfuscate: channel is nil")
	}
	if ch, check, ok := denseForm(op); ok {
		return obfuscate(rng, counts, ch, check)
	}
	in, out := op.Grids()
	if len(counts) != in.Len() {
		return nil, fmt.Errorf("obfuscate: counts has %d entries, want %d (channel input %v)", len(counts), in.Len(), in)
	}
	for x, k := range counts {
		if k < 0 {
			return nil, fmt.Errorf("obfuscate: counts[%d] = %d: must be >= 0", x, k)
		}
	}
	rep := make([]int, out.Len())
	if o, ok := op.(obfuscator); ok {
		if err := o.obfuscate(rng, counts, rep); err != nil {
			return nil, err
		}
		return rep, nil
	}
	for x, k := range counts {
		if k > 0 {
			if err := op.Sample(rng, x, k, rep); err != nil {
				return nil, fmt.Errorf("obfuscate: %w", err)
			}
		}
	}
	return rep, nil
}

// obfuscate is Obfuscate on a dense channel; checkEntries false skips the
// O(|X||Y|) check of the channel's rows (see denseForm).
func obfuscate(rng *rand.Rand, counts []int, ch *Channel, checkEntries bool) ([]int, error) {
	if rng == nil {
		return nil, fmt.Errorf("obfuscate: rng is nil")
	}
	if err := checkChannelShape(ch); err != nil {
		return nil, fmt.Errorf("obfuscate: %w", err)
	}
	m, n := ch.In.Len(), ch.Out.Len()
	if len(counts) != m {
		return nil, fmt.Errorf("obfuscate: counts has %d entries, want %d (channel input %v)", len(counts), m, ch.In)
	}
	for x, k := range counts {
		if k < 0 {
			return nil, fmt.Errorf("obfuscate: counts[%d] = %d: must be >= 0", x, k)
		}
	}
	if checkEntries {
		if bad := checkRows(ch.P, m, n); bad >= 0 {
			return nil, fmt.Errorf("obfuscate: channel row %d is not a distribution (entries finite and >= 0, sum 1 within %g)",
				bad, StochasticTol*float64(n))
		}
	}
	out := make([]int, n)
	limit := int(categoricalFactor * float64(n))
	scratch := make([]float64, max(n, min(limit, maxCount(counts))))
	for x, k := range counts {
		if k == 0 {
			continue
		}
		row := ch.Row(x)
		if k < limit {
			orderedCategorical(rng, k, row, out, scratch)
		} else {
			sequentialBinomials(rng, k, row, out, scratch)
		}
	}
	return out, nil
}

// categoricalFactor is the crossover of the two multinomial methods,
// counts[x] < factor*|Y| choosing categorical draws: one conditional
// binomial costs about as much as four categorical draws (measured on the
// SF workload of BenchmarkObfuscate).
const categoricalFactor = 4

func maxCount(counts []int) int {
	m := 0
	for _, k := range counts {
		m = max(m, k)
	}
	return m
}

// sequentialBinomials adds a Multinomial(k, row) draw to out by conditional
// binomials. suffix is scratch of len(row).
func sequentialBinomials(rng *rand.Rand, k int, row []float64, out []int, suffix []float64) {
	n := len(row)
	suffix = suffix[:n]
	out = out[:n]
	s := 0.0
	for y := n - 1; y >= 0; y-- {
		s += row[y]
		suffix[y] = s
	}
	for y, v := range row {
		if v <= 0 {
			continue
		}
		// At the last output with mass p is 1 (suffix[y] = v exactly), and
		// binomial returns all k without drawing.
		d := binomial(rng, k, v/suffix[y])
		out[y] += d
		k -= d
		if k == 0 {
			return
		}
	}
	// Not reached when the row has mass (its last output with mass has
	// p = 1); a fallback giving the rest to the last output with mass.
	for y := n - 1; y >= 0; y-- {
		if row[y] > 0 {
			out[y] += k
			return
		}
	}
}

// orderedCategorical adds k independent draws from row to out (k <= len(buf))
// by merging the k uniforms, generated already sorted, with the row's
// cumulative sums in one pass: with S_i = E_1 + ... + E_i for independent
// Exp(1) variables E_1..E_{k+1}, (S_1, ..., S_k)/S_{k+1} has exactly the law
// of the order statistics of k independent uniforms on [0, 1), so the
// number of S_i / S_{k+1} falling in [cum(y-1), cum(y)) / total is the
// count of report y. Cost: k exponential variates (ziggurat: mostly one
// random word each) and one pass over the row, with no search per draw.
func orderedCategorical(rng *rand.Rand, k int, row []float64, out []int, buf []float64) {
	total := 0.0
	last := 0
	for y, v := range row {
		total += v
		if v > 0 {
			last = y
		}
	}
	buf = buf[:k]
	s := 0.0
	for i := range buf {
		s += rng.ExpFloat64()
		buf[i] = s
	}
	s += rng.ExpFloat64()
	scale := s / total
	out = out[:len(row)]
	i, c := 0, 0.0
	for y, v := range row[:last] {
		if i == k {
			return
		}
		c += v
		thr := c * scale
		j := i
		for j < k && buf[j] < thr {
			j++
		}
		out[y] += j - i
		i = j
	}
	// The last output with mass takes the rest (including any draw that
	// rounding put at or above the top).
	out[last] += k - i
}
