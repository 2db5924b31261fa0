package kernels

import (
	"fmt"
	"math"
)

// SingularBounds returns certified bounds lo <= sigma_min(C) <= hi on the
// smallest singular value of the BA channel C = diag(1/Z) K diag(c), in
// O(m) time and memory, without materialising C (a dense SVD costs
// O(m^3)). It serves the invertibility of BA channels (the paper's
// Theorem 4.1) on grids where MinSingularValue cannot run.
//
// Lower bound: sigma_min(ABC) >= sigma_min(A) sigma_min(B) sigma_min(C)
// for square factors, so sigma_min(C) >= lambda_min(K) min_y c(y) /
// max_x Z(x). The grid's cells are points of the integer lattice, and
// K = exp(-beta d) is a section of the Toeplitz operator of the function
// g(z) = exp(-beta |z|) on Z^2, whose symbol is, by Poisson summation,
// f(w) = sum_j ghat(w + 2 pi j) with ghat(xi) = 2 pi beta / (beta^2 +
// |xi|^2)^(3/2), the Fourier transform of g on the plane. Every term is
// positive, so for w in [-pi, pi]^2, f(w) >= ghat(w) >= ghat(pi sqrt 2),
// and u^T K u = (2 pi)^-2 int |uhat|^2 f >= ghat(pi sqrt 2) |u|^2 for
// every vector u: lambda_min(K) >= 2 pi beta / (beta^2 + 2 pi^2)^(3/2)
// (0.0665 at beta = 1), on any grid.
//
// Upper bound: sigma_min(C) <= |C e_y| / |e_y| for every column y, and the
// column of the smallest c(y), c(y) (sum_x K(x,y)^2 / Z(x)^2)^(1/2), is
// summed directly (in logarithms, so that it neither underflows nor
// overflows before the end).
//
// The bounds are those of the channel as stored (its c and Z), widened by
// 1e-9 relative for rounding. lo is 0 when some c(y) is 0 (an output
// starved below the smallest float64), where no positive bound can be
// certified; hi is at least the smallest positive float64.
func (b *BAChannel) SingularBounds() (lo, hi float64, err error) {
	if err := b.check(); err != nil {
		return 0, 0, fmt.Errorf("singular bounds: %w", err)
	}
	m := b.Grid.Len()
	lc := b.logMarginal()
	lz := b.LogZ()
	ymin, lcMin := 0, math.Inf(1)
	for y, v := range lc {
		if v < lcMin {
			ymin, lcMin = y, v
		}
	}
	lzMax := math.Inf(-1)
	for _, v := range lz {
		lzMax = max(lzMax, v)
	}
	lam := 2 * math.Pi * b.Beta / math.Pow(b.Beta*b.Beta+2*math.Pi*math.Pi, 1.5)
	lo = lam * math.Exp(lcMin-lzMax) * (1 - 1e-9)
	if math.IsInf(lcMin, -1) || math.IsNaN(lo) {
		lo = 0
	}
	// ln |C e_y|^2 = 2 ln c(y) + ln sum_x exp(2 (-beta d(x,y) - ln Z(x))).
	terms := make([]float64, m)
	mx := math.Inf(-1)
	for x := range terms {
		t := 2 * (-b.Beta*Dist(b.Grid, x, b.Grid, ymin) - lz[x])
		terms[x] = t
		mx = max(mx, t)
	}
	s := 0.0
	for _, t := range terms {
		s += math.Exp(t - mx)
	}
	hi = math.Exp(lcMin+0.5*(mx+math.Log(s))) * (1 + 1e-9)
	if math.IsNaN(hi) || hi > 1 {
		hi = 1 // the channel is row-stochastic: sigma_min <= 1
	}
	hi = max(hi, math.SmallestNonzeroFloat64)
	return lo, hi, nil
}

// logMarginal returns ln c(y) for every output (-Inf where c is 0).
func (b *BAChannel) logMarginal() []float64 {
	if b.logDomain {
		return append([]float64(nil), b.logc...)
	}
	lc := make([]float64, len(b.Marginal))
	for y, v := range b.Marginal {
		lc[y] = math.Log(v)
	}
	return lc
}
