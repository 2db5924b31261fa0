package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The functions of this file are Obfuscate, IBU and GIBU for channels whose
// entries the caller vouches for, e.g. channels it has just built with
// BAChannel.Channel or Laplace, or validated once before using them many
// times. They skip the O(m*n) check that every row is a distribution,
// which the checked functions repeat on every call (a PRIVIC run hands
// each cycle's channel to one obfuscation, one or two IBUs and the final
// GIBU of every later state). Everything else is checked as before, and
// the results are identical to the checked functions' bit for bit. On a
// channel whose rows are not distributions the results are meaningless
// (but nothing panics).

// ObfuscateTrusted is Obfuscate without the check of ch's rows.
func ObfuscateTrusted(rng *rand.Rand, counts []int, ch *Channel) ([]int, error) {
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

// IBUTrusted is IBUWorkspace.IBU without the check of ch's rows.
func (w *IBUWorkspace) IBUTrusted(dst []float64, ch *Channel, q, start []float64, cfg IBUConfig) ([]float64, int, error) {
	if ch == nil {
		return nil, 0, fmt.Errorf("ibu: channel is nil")
	}
	if err := checkDist("ibu: report distribution q", q, ch.Out.Len()); err != nil {
		return nil, 0, err
	}
	w.batch[0] = Batch{Channel: ch, Counts: q}
	est, it, err := w.runTrusted("ibu", dst, w.batch[:], start, cfg)
	w.batch[0] = Batch{}
	return est, it, err
}

// GIBUTrusted is IBUWorkspace.GIBU without the check of the channels' rows.
func (w *IBUWorkspace) GIBUTrusted(dst []float64, batches []Batch, start []float64, cfg IBUConfig) ([]float64, int, error) {
	return w.runTrusted("gibu", dst, batches, start, cfg)
}

// runTrusted is IBUWorkspace.run without checkRows.
func (w *IBUWorkspace) runTrusted(name string, dst []float64, batches []Batch, start []float64, cfg IBUConfig) ([]float64, int, error) {
	maxIter, converge, err := cfg.limits()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	if len(batches) == 0 {
		return nil, 0, fmt.Errorf("%s: no batches", name)
	}
	in := Grid{}
	total := 0.0
	for t, b := range batches {
		ch := b.Channel
		if err := checkChannelShape(ch); err != nil {
			return nil, 0, fmt.Errorf("%s: batch %d: %w", name, t, err)
		}
		if t == 0 {
			in = ch.In
		} else if ch.In.Len() != in.Len() {
			return nil, 0, fmt.Errorf("%s: batch %d: channel input %v differs from batch 0's %v", name, t, ch.In, in)
		}
		n, err := checkWeights("counts", b.Counts, ch.Out.Len())
		if err != nil {
			return nil, 0, fmt.Errorf("%s: batch %d: %w", name, t, err)
		}
		total += n
	}
	if math.IsInf(total, 1) {
		return nil, 0, fmt.Errorf("%s: total count overflows", name)
	}
	m := in.Len()
	theta := grow(dst, m)
	if start == nil {
		for i := range theta {
			theta[i] = 1 / float64(m)
		}
	} else {
		if err := checkDist(name+": start", start, m); err != nil {
			return nil, 0, err
		}
		copy(theta, start)
	}
	w.prev = grow(w.prev, m)
	w.s = grow(w.s, m)
	var iters int
	if len(batches) == 1 {
		iters, err = w.runOne(theta, batches[0], 1/total, maxIter, converge, cfg.Delta)
	} else {
		iters, err = w.runMany(theta, batches, 1/total, maxIter, converge, cfg.Delta)
	}
	if err != nil {
		return nil, iters, fmt.Errorf("%s: %w", name, err)
	}
	return theta, iters, nil
}
