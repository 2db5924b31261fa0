package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// binomialPMFRange returns the exact pmf of Binomial(n, p) on [lo, hi],
// computed from log-gamma (independent of the sampler's recursions), with
// lo and hi 15 standard deviations (and 20 values) around the mean: the
// mass outside is below 1e-40.
func binomialPMFRange(n int, p float64) (pmf []float64, lo int) {
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	lo = max(0, int(mean-15*sd)-20)
	hi := min(n, int(mean+15*sd)+20)
	pmf = make([]float64, hi-lo+1)
	for k := lo; k <= hi; k++ {
		pmf[k-lo] = binomialPMF(n, k, p)
	}
	return pmf, lo
}

// TestBinomial checks the sampler against the exact pmf in both regimes
// (inversion for n min(p,1-p) < 10, BTRD above, with its exact test
// reached for |k - mode| > 15 when npq is large) and for p > 1/2, by
// Pearson's statistic on 100 bins of equal probability, with a negative
// control in each case (see reweighted).
//
// The draws are enough to catch BTRD's hat function scaled by 0.9 in every
// BTRD case (the chi-square noncentrality per draw is 1e-4 to 1e-3), and
// by 0.98 in the n = 5e6 case, where it is 2.4e-5 per draw (8e6 draws:
// about 190, well beyond the quantile); for smaller npq a 2% error of the
// hat moves the law by less than 1e-6 per draw. The last case, just above
// BTRD's threshold n p = 10, is where a reference point one below the mode
// (from (n-1)p instead of (n+1)p) moves the law most: 1.5e-5 per draw,
// about 60 over 4e6 draws (13 bins: quantile 38). The case n p = 10 with
// a small p puts 4.3e-5 of the mass at k = 0, whose rate is checked
// directly.
func TestBinomial(t *testing.T) {
	for i, tc := range []struct {
		n     int
		p     float64
		draws int
	}{
		{1, 0.5, 200_000}, {7, 0.3, 200_000}, {40, 0.1, 200_000}, {2000, 0.003, 200_000}, {60, 0.9, 200_000},
		{30, 0.4, 1_000_000}, {100, 0.37, 1_000_000}, {1000, 0.5, 1_000_000}, {250, 0.93, 1_000_000},
		{100000, 0.01, 1_000_000}, {5000000, 0.2, 8_000_000}, {25, 0.45, 4_000_000}, {1000, 0.01, 1_000_000},
	} {
		t.Run(fmt.Sprintf("n=%d,p=%v", tc.n, tc.p), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(61, uint64(i)))
			pmf, lo := binomialPMFRange(tc.n, tc.p)
			bins := newEqBins(pmf, lo, 100)
			crit := chiSquareCritical(len(bins.prob))
			sum, sum2 := 0.0, 0.0
			zeros := 0
			draw := func() int {
				k := binomial(rng, tc.n, tc.p)
				if k < 0 || k > tc.n {
					t.Fatalf("drew %d", k)
				}
				if k == 0 {
					zeros++
				}
				sum += float64(k)
				sum2 += float64(k) * float64(k)
				return k
			}
			s := bins.stat(tc.draws, draw)
			if s > crit {
				t.Errorf("chi-square %.1f > %.1f (%d bins, alpha %v)", s, crit, len(bins.prob), gofAlpha)
			}
			// The rate of k = 0, where it is large enough to count: the
			// bins are too coarse to see it (it can be a sliver of the
			// first bin).
			if e := float64(tc.draws) * binomialPMF(tc.n, 0, tc.p); e >= 20 && e <= float64(tc.draws)/2 {
				if math.Abs(float64(zeros)-e) > 5*math.Sqrt(e) {
					t.Errorf("%d draws of 0, want %.1f +- %.1f", zeros, e, math.Sqrt(e))
				}
			}
			// The first two moments, against the closed forms np and npq.
			d := float64(tc.draws)
			mean, v := float64(tc.n)*tc.p, float64(tc.n)*tc.p*(1-tc.p)
			if m := sum / d; math.Abs(m-mean) > 5*math.Sqrt(v/d) {
				t.Errorf("sample mean %v, want %v +- %.3g", m, mean, math.Sqrt(v/d))
			}
			if s2 := sum2/d - (sum/d)*(sum/d); math.Abs(s2-v) > 10*v*math.Sqrt(2/d)+1e-12 {
				t.Errorf("sample variance %v, want %v", s2, v)
			}
			control, delta := bins.reweighted(rand.New(rand.NewPCG(62, uint64(i))), tc.draws,
				func() int { return binomial(rng, tc.n, tc.p) })
			sc := bins.stat(tc.draws, control)
			if sc <= crit {
				t.Errorf("negative control (central half of the mass reweighted by %.4f): chi-square %.1f <= %.1f: the test cannot see an error of this size",
					1-delta, sc, crit)
			}
			t.Logf("%d bins: chi-square %.1f, negative control %.1f (reweighted by %.4f), critical %.1f", len(bins.prob), s, sc, 1-delta, crit)
		})
	}
}

// TestBinomialEdges: the degenerate parameters have one outcome.
func TestBinomialEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n    int
		p    float64
		want int
	}{{0, 0.5, 0}, {10, 0, 0}, {10, -0.1, 0}, {10, 1, 10}, {10, 1.5, 10}, {-3, 0.5, 0}, {1 << 40, 0, 0}, {1 << 40, 1, 1 << 40}} {
		for range 5 {
			if k := binomial(rng, tc.n, tc.p); k != tc.want {
				t.Errorf("Bin(%d,%v) = %d, want %d", tc.n, tc.p, k, tc.want)
			}
		}
	}
}

// TestStirlingTail: BTRD's remainder of Stirling's formula against its
// definition ln k! - [(k+1/2) ln(k+1) - (k+1) + ln(2 pi)/2], from
// log-gamma. The series used from k = 10 on is accurate to 1e-10 there
// (its first omitted term is 1/(1680 (k+1)^7)); the reference itself
// loses about 4e-16 times the size of ln k! to cancellation.
func TestStirlingTail(t *testing.T) {
	for k := 0; k <= 200; k++ {
		kf := float64(k)
		lg, _ := math.Lgamma(kf + 1)
		want := lg - ((kf+0.5)*math.Log(kf+1) - (kf + 1) + 0.5*math.Log(2*math.Pi))
		tol := 4e-16 * (lg + 2)
		if k >= 10 {
			tol += 1.5 / (1680 * math.Pow(kf+1, 7))
		}
		if got := stirlingTail(k); math.Abs(got-want) > tol {
			t.Errorf("stirlingTail(%d) = %.17g, want %.17g (tolerance %.3g)", k, got, want, tol)
		}
	}
}

// countingSource counts the words drawn from a source.
type countingSource struct {
	src rand.Source
	n   int
}

func (c *countingSource) Uint64() uint64 { c.n++; return c.src.Uint64() }

// TestBTRDImmediateAcceptance: BTRD accepts its first candidate at once,
// using a single uniform, exactly when that uniform falls in the box
// v <= 0.86 vr, vr = 0.92 - 4.2/b, b = 1.15 + 2.53 sqrt(npq) (Hörmann's
// constants); every other path draws at least two. So the fraction of
// draws that consume one uniform is 0.86 vr, a check of the box that the
// law alone cannot see (a sampler without the box is exact but slower).
func TestBTRDImmediateAcceptance(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{30, 0.4}, {1000, 0.5}, {5000000, 0.2}} {
		src := &countingSource{src: rand.NewPCG(71, 72)}
		rng := rand.New(src)
		const draws = 200_000
		once := 0
		for range draws {
			before := src.n
			binomial(rng, tc.n, tc.p)
			if src.n-before == 1 {
				once++
			}
		}
		b := 1.15 + 2.53*math.Sqrt(float64(tc.n)*tc.p*(1-tc.p))
		want := 0.86 * (0.92 - 4.2/b)
		got := float64(once) / draws
		if sd := math.Sqrt(want * (1 - want) / draws); math.Abs(got-want) > 5*sd {
			t.Errorf("Bin(%d,%v): %.4f of the draws took one uniform, want 0.86 vr = %.4f +- %.4f", tc.n, tc.p, got, want, sd)
		}
	}
}

// logRatiosBySteps returns ln(f(k)/f(mode)) for k = lo..hi (lo <= mode <=
// hi) for the Binomial(n, p) pmf f, as cumulative sums of the logs of the
// consecutive ratios f(i)/f(i-1) = (n-i+1)/i p/q: independent of Stirling's
// series and accurate to about |k-mode| ulps.
func logRatiosBySteps(n, mode, lo, hi int, p float64) []float64 {
	r := p / (1 - p)
	out := make([]float64, hi-lo+1)
	s := 0.0
	for i := mode + 1; i <= hi; i++ {
		s += math.Log(float64(n-i+1) / float64(i) * r)
		out[i-lo] = s
	}
	s = 0
	for i := mode; i > lo; i-- {
		s -= math.Log(float64(n-i+1) / float64(i) * r)
		out[i-1-lo] = s
	}
	return out
}

// TestBTRDLogRatio: BTRD's exact test evaluates ln(f(k)/f(mode)) through
// Stirling's series; it must agree with the sum of the logs of the pmf's
// consecutive ratios to 1e-9 wherever BTRD uses it (|k - mode| > 15).
func TestBTRDLogRatio(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{20, 0.5}, {30, 0.4}, {100, 0.37}, {1000, 0.5}, {5000, 0.01}, {100000, 0.3}} {
		q := 1 - tc.p
		mode := int(math.Floor(float64(tc.n+1) * tc.p))
		r := tc.p / q
		h := btrdLogRatioBase(tc.n, mode, r)
		sd := math.Sqrt(float64(tc.n) * tc.p * q)
		lo, hi := max(0, mode-int(12*sd)-20), min(tc.n, mode+int(12*sd)+20)
		exact := logRatiosBySteps(tc.n, mode, lo, hi, tc.p)
		for k := lo; k <= hi; k++ {
			if k-mode <= 15 && mode-k <= 15 {
				continue
			}
			got, want := btrdLogRatio(tc.n, mode, k, r, h), exact[k-lo]
			if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
				t.Fatalf("Bin(%d,%v), k=%d: Stirling %.15g, by steps %.15g", tc.n, tc.p, k, got, want)
			}
		}
	}
}

// TestBTRDSqueeze: the normal approximation t of ln(f(k)/f(mode)) is
// within its bound rho wherever BTRD uses it (|k - mode| > 15) and the pmf
// matters (f(k) >= 2e-9 f(mode)), so the squeeze does not decide wrongly
// there. (Far in the tails the bound can fail: for Bin(5000, 0.01) at
// k = 0, ln f(0)/f(mode) = -47.4 < t - rho = -43.4; a candidate lands in
// that gap with probability below e^-43.)
func TestBTRDSqueeze(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{20, 0.5}, {30, 0.4}, {100, 0.37}, {1000, 0.5}, {5000, 0.01}, {100000, 0.3}, {5000000, 0.2}} {
		q := 1 - tc.p
		npq := float64(tc.n) * tc.p * q
		mode := int(math.Floor(float64(tc.n+1) * tc.p))
		sd := math.Sqrt(npq)
		lo, hi := max(0, mode-int(12*sd)-20), min(tc.n, mode+int(12*sd)+20)
		ratios := logRatiosBySteps(tc.n, mode, lo, hi, tc.p)
		for k := lo; k <= hi; k++ {
			km := max(k-mode, mode-k)
			if km <= 15 {
				continue
			}
			exact := ratios[k-lo]
			if exact < -20 {
				continue // f(k) < 2e-9 f(mode): see above
			}
			tt, rho := btrdSqueeze(float64(km), npq)
			if exact < tt-rho || exact > tt+rho {
				t.Fatalf("Bin(%d,%v), k=%d: ln f(k)/f(mode) = %.6g outside t +- rho = %.6g +- %.3g", tc.n, tc.p, k, exact, tt, rho)
			}
		}
	}
}

// scriptSource returns the words of script in order, then those of rest,
// and counts the words drawn: it drives a sampler down a chosen path.
type scriptSource struct {
	script []uint64
	rest   rand.Source
	n      int
}

func (s *scriptSource) Uint64() uint64 {
	s.n++
	if s.n <= len(s.script) {
		return s.script[s.n-1]
	}
	return s.rest.Uint64()
}

// wordFor returns the word from which rand.Float64 makes u; u must be a
// multiple of 2^-53 in [0, 1).
func wordFor(t *testing.T, u float64) uint64 {
	t.Helper()
	m := u * (1 << 53)
	if u < 0 || u >= 1 || m != math.Trunc(m) {
		t.Fatalf("%v is not a value of rand.Float64", u)
	}
	return uint64(m) // rand.Float64 keeps the low 53 bits
}

// scripted draws one Binomial(n, p) variate from the words script and
// returns it with the number of words drawn.
func scripted(n int, p float64, script ...uint64) (k, words int) {
	src := &scriptSource{script: script, rest: rand.NewPCG(73, 74)}
	k = binomial(rand.New(src), n, p)
	return k, src.n
}

// TestBinomialInversionConvention: inversion returns k exactly for u in
// [F(k-1), F(k)), F the cumulative distribution, checked at every F(k)
// and one value of rand.Float64 below it for Bin(1, 1/2) and Bin(2, 1/2), whose probabilities
// and cumulative sums are exact in floating point.
func TestBinomialInversionConvention(t *testing.T) {
	for _, n := range []int{1, 2} {
		cum := 0.0
		for k := 0; k < n; k++ {
			cum += math.Ldexp(binomialCoef(n, k), -n) // F(k), exact
			for _, tc := range []struct {
				u    float64
				want int
			}{{cum, k + 1}, {cum - 0x1p-53, k}} {
				if got, words := scripted(n, 0.5, wordFor(t, tc.u)); got != tc.want || words != 1 {
					t.Errorf("Bin(%d,1/2) from u = %v: %d in %d words, want %d in one", n, tc.u, got, words, tc.want)
				}
			}
		}
	}
}

func binomialCoef(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// btrdSetup holds BTRD's constants for Bin(n, p), p <= 1/2, n p >= 10, as
// Hörmann defines them: the transformation k = floor((2a/us + b) u + c),
// us = 1/2 - |u|, of a uniform u on [-1/2, 1/2), the hat alpha/(a/us^2 + b)
// (the derivative of the transformation is a/us^2 + b), the box
// |u| <= 0.43, v <= vr of immediate acceptance, and the mode.
type btrdSetup struct {
	n                        int
	p                        float64
	a, b, c, vr, urvr, alpha float64
	mode                     int
}

func newBTRDSetup(n int, p float64) btrdSetup {
	spq := math.Sqrt(float64(n) * p * (1 - p))
	b := 1.15 + 2.53*spq
	vr := 0.92 - 4.2/b
	return btrdSetup{
		n: n, p: p,
		a: -0.0873 + 0.0248*b + 0.01*p, b: b, c: float64(n)*p + 0.5,
		vr: vr, urvr: 0.86 * vr,
		alpha: (2.83 + 5.1/b) * spq,
		mode:  int(math.Floor(float64(n+1) * p)),
	}
}

// candidate is the k of u and the hat's scale at u.
func (s btrdSetup) candidate(u float64) (kf, scale float64) {
	us := 0.5 - math.Abs(u)
	return math.Floor((2*s.a/us+s.b)*u + s.c), s.alpha / (s.a/(us*us) + s.b)
}

// tailU returns the u of the first uniform v in (urvr, vr): the tails
// |u| in (0.43, 0.5) reached with a fresh v in [0, vr).
func (s btrdSetup) tailU(v float64) float64 {
	u := v/s.vr - 0.93
	return math.Copysign(0.5, u) - u
}

// logRatio is ln f(k)/f(mode) from log-gamma.
func (s btrdSetup) logRatio(k int) float64 {
	return math.Log(binomialPMF(s.n, k, s.p)) - math.Log(binomialPMF(s.n, s.mode, s.p))
}

// TestBTRDBox: a first uniform v <= 0.86 vr (the box, closed) returns
// floor((2a/us + b) u + c) for u = v/vr - 0.43 at once, from that one
// uniform, with Hörmann's constants; v just above the box draws more.
func TestBTRDBox(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{30, 0.4}, {2000, 0.01}, {1000, 0.5}, {5000000, 0.2}} {
		s := newBTRDSetup(tc.n, tc.p)
		vs := []float64{0, 0.25 * s.urvr, 0.5 * s.urvr}
		if m := s.urvr * (1 << 53); m == math.Trunc(m) {
			vs = append(vs, s.urvr) // the edge, when rand.Float64 can return it
		} else if s.urvr >= 0.5 {
			t.Fatalf("Bin(%d,%v): 0.86 vr = %v is not a multiple of 2^-53", tc.n, tc.p, s.urvr)
		}
		for _, v := range vs {
			v = math.Ldexp(math.Floor(math.Ldexp(v, 53)), -53)
			kf, _ := s.candidate(v/s.vr - 0.43)
			if got, words := scripted(tc.n, tc.p, wordFor(t, v)); float64(got) != kf || words != 1 {
				t.Errorf("Bin(%d,%v), v = %v in the box: %d in %d words, want %v in one", tc.n, tc.p, v, got, words, kf)
			}
		}
		above := math.Nextafter(s.urvr, 1)
		above = math.Ldexp(math.Ceil(math.Ldexp(above, 53)), -53)
		if _, words := scripted(tc.n, tc.p, wordFor(t, above)); words < 2 {
			t.Errorf("Bin(%d,%v), v = %v just above the box: accepted from one uniform", tc.n, tc.p, above)
		}
	}
}

// TestBTRDUpperRegion: a first uniform v >= vr (closed at vr) keeps v and
// takes u from a second uniform: with u = 0 the candidate is
// floor(n p + 1/2), accepted exactly when v alpha/(4a + b) <= f(k)/f(mode).
// (The tails' branch would instead reflect u to 0.43.)
func TestBTRDUpperRegion(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{1000, 0.5}, {100000, 0.3}} {
		s := newBTRDSetup(tc.n, tc.p)
		kf, scale := s.candidate(0)
		k := int(kf)
		if lr := s.logRatio(k); math.Log(s.vr*scale) > lr-1e-9 {
			t.Fatalf("Bin(%d,%v): v = vr at u = 0 is not clearly accepted (%v vs %v)", tc.n, tc.p, math.Log(s.vr*scale), lr)
		}
		if got, words := scripted(tc.n, tc.p, wordFor(t, s.vr), wordFor(t, 0.5)); got != k || words != 2 {
			t.Errorf("Bin(%d,%v), v = vr, u = 0: %d in %d words, want %d in two", tc.n, tc.p, got, words, k)
		}
	}
}

// TestBTRDRangeEnds: a candidate at either end of [0, n] is accepted when
// the second uniform is 0 (every k of positive probability is); the
// candidates are placed with the tails' branch (first uniform in
// (0.86 vr, vr)) by bisection on u.
func TestBTRDRangeEnds(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{20, 0.5}, {40, 0.3}} {
		s := newBTRDSetup(tc.n, tc.p)
		for _, want := range []int{0, tc.n} {
			// The first uniforms of the tails' branch, scanned on a grid
			// of 2^-40: take the middle of those whose candidate is want.
			lo, hi := math.Ceil(math.Ldexp(s.urvr, 40)+1), math.Floor(math.Ldexp(s.vr, 40)-1)
			var hits []float64
			step := math.Max(1, math.Floor((hi-lo)/20000))
			for m := lo; m <= hi; m += step {
				v := math.Ldexp(m, -40)
				if kf, _ := s.candidate(s.tailU(v)); kf == float64(want) {
					hits = append(hits, v)
				}
			}
			if len(hits) == 0 {
				t.Fatalf("Bin(%d,%v): no first uniform gives the candidate %d", tc.n, tc.p, want)
			}
			v := hits[len(hits)/2]
			if got, words := scripted(tc.n, tc.p, wordFor(t, v), wordFor(t, 0)); got != want || words != 2 {
				t.Errorf("Bin(%d,%v), candidate %d with v = 0: %d in %d words, want %d in two", tc.n, tc.p, want, got, words, want)
			}
		}
	}
}

// TestBTRDAcceptsAtEquality: BTRD's acceptance region is closed: a
// candidate whose scaled v equals f(k)/f(mode) exactly is accepted, both
// in the recursive test (k = mode, where the ratio is 1) and in the test
// through Stirling's series (|k - mode| > 15, where the squeeze cannot
// decide). The uniforms that make the equality hold in floating point are
// found by search, evaluating v alpha/(a/us^2 + b) as the sampler does.
func TestBTRDAcceptsAtEquality(t *testing.T) {
	t.Run("recursion", func(t *testing.T) {
		s := newBTRDSetup(1000, 0.5)
		// Upper region: the first uniform is v itself (>= vr), the
		// second gives u, near 0 so that the candidate is the mode.
		for du := 0; du < 4000; du++ {
			u := 0x1p-40 * float64(du)
			kf, _ := s.candidate(u)
			if int(kf) != s.mode {
				t.Fatalf("u = %v: candidate %v, not the mode %d", u, kf, s.mode)
			}
			us := 0.5 - math.Abs(u)
			den := s.a/(us*us) + s.b
			m0 := math.Floor(den / s.alpha * (1 << 53))
			for m := m0 - 3; m <= m0+3; m++ {
				v := m / (1 << 53)
				if v < s.vr || v >= 1 || v*s.alpha/den != 1 {
					continue
				}
				if got, words := scripted(s.n, s.p, wordFor(t, v), wordFor(t, u+0.5)); got != s.mode || words != 2 {
					t.Errorf("Bin(%d,%v): v scaled to exactly f(mode)/f(mode) = 1: %d in %d words, want %d in two", s.n, s.p, got, words, s.mode)
				}
				return
			}
		}
		t.Fatal("no pair of uniforms scales v to exactly 1")
	})
	t.Run("stirling", func(t *testing.T) {
		s := newBTRDSetup(1000, 0.5)
		r := s.p / (1 - s.p)
		h := btrdLogRatioBase(s.n, s.mode, r)
		npq := float64(s.n) * s.p * (1 - s.p)
		// Tails' branch: the first uniform gives u in (0.43, 0.5), the
		// second is v/vr.
		lo, hi := math.Ceil(math.Ldexp(s.urvr, 53)+1), math.Floor(math.Ldexp(s.vr, 53)-1)
		for m1 := lo; m1 <= hi; m1 += math.Floor((hi - lo) / 5000) {
			v1 := m1 / (1 << 53)
			u := s.tailU(v1)
			kf, scale := s.candidate(u)
			k := int(kf)
			km := max(k-s.mode, s.mode-k)
			if k < 0 || k > s.n || km <= 15 {
				continue
			}
			target := btrdLogRatio(s.n, s.mode, k, r, h)
			tt, rho := btrdSqueeze(float64(km), npq)
			if target <= tt-rho || target >= tt+rho || math.Abs(target-s.logRatio(k)) > 1e-9 {
				continue // the squeeze decides here, or the ratio is off
			}
			us := 0.5 - math.Abs(u)
			den := s.a/(us*us) + s.b
			m0 := math.Floor(math.Exp(target) / scale / s.vr * (1 << 53))
			if m0 > 1<<53 {
				continue // out of the tails' branch's reach
			}
			for m := m0 - 3; m <= m0+3; m++ {
				v := m / (1 << 53) * s.vr
				if m < 0 || m >= 1<<53 || math.Log(v*s.alpha/den) != target {
					continue
				}
				if got, words := scripted(s.n, s.p, wordFor(t, v1), wordFor(t, m/(1<<53))); got != k || words != 2 {
					t.Errorf("Bin(%d,%v): v scaled to exactly f(%d)/f(mode): %d in %d words, want %d in two", s.n, s.p, k, got, words, k)
				}
				return
			}
		}
		t.Fatal("no pair of uniforms scales ln v to exactly the Stirling ratio")
	})
}

// TestBTRDSqueezeIsHormanns: btrdSqueeze is Hörmann's published bound
// rho = km/(2 npq) + km (km^2/3 + 5 km/8 + 1/6)/npq^2 around
// t = -km^2/(2 npq). TestBTRDSqueeze shows it sound where the pmf
// matters; this pins it to the published expression, whose soundness is
// proved for all k: a looser bound would send more candidates to the
// costly test through Stirling's series, and a tighter one has no proof.
func TestBTRDSqueezeIsHormanns(t *testing.T) {
	for _, npq := range []float64{2.5, 9.9, 20.25, 250, 1e6} {
		for km := 16.0; km <= 400; km++ {
			wantT := -km * km / (2 * npq)
			wantRho := km/(2*npq) + km*(km*km/3+5*km/8+1.0/6)/(npq*npq)
			tt, rho := btrdSqueeze(km, npq)
			if math.Abs(tt-wantT) > 1e-14*math.Abs(wantT) || math.Abs(rho-wantRho) > 1e-14*wantRho {
				t.Fatalf("btrdSqueeze(%v, %v) = %v, %v; want %v, %v", km, npq, tt, rho, wantT, wantRho)
			}
		}
	}
}

// TestBTRDUniformsPerVariate: BTRD's cost in uniforms. A round draws
// (u, v) uniform on [-1/2, 1/2) x [0, 1) with one uniform when v falls in
// the box (probability 0.86 vr) and two otherwise, and accepts with
// probability sum_k f(k)/(alpha f(mode)) = 1/(alpha f(mode)) (the hat
// alpha/(a/us^2 + b) over the transformation's derivative a/us^2 + b
// integrates to alpha per unit of k), so by Wald's identity a variate
// costs alpha f(mode) (2 - 0.86 vr) uniforms on average (Hörmann: alpha
// f(mode) rounds per variate). A sampler with a wider hat or a smaller
// box is as exact but costs more.
func TestBTRDUniformsPerVariate(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{20, 0.5}, {2000, 0.01}, {100, 0.37}, {1000, 0.5}, {5000000, 0.2}} {
		s := newBTRDSetup(tc.n, tc.p)
		want := s.alpha * binomialPMF(tc.n, s.mode, tc.p) * (2 - s.urvr)
		src := &countingSource{src: rand.NewPCG(77, uint64(tc.n))}
		rng := rand.New(src)
		const draws = 200_000
		sum, sum2 := 0.0, 0.0
		for range draws {
			before := src.n
			binomial(rng, tc.n, tc.p)
			w := float64(src.n - before)
			sum += w
			sum2 += w * w
		}
		mean := sum / draws
		sd := math.Sqrt((sum2/draws - mean*mean) / draws)
		if math.Abs(mean-want) > 5*sd {
			t.Errorf("Bin(%d,%v): %.4f uniforms per variate, want alpha f(mode) (2 - 0.86 vr) = %.4f +- %.4f", tc.n, tc.p, mean, want, sd)
		}
		t.Logf("Bin(%d,%v): %.4f uniforms per variate, want %.4f +- %.4f", tc.n, tc.p, mean, want, sd)
	}
}
