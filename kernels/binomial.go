package kernels

import (
	"math"
	"math/rand/v2"
)

// binomial draws from Binomial(n, p) for n >= 0 and p in [0, 1], exactly
// (up to floating-point rounding of the probabilities) and using only rng:
// inversion of the cumulative distribution when the mean of the smaller
// tail n*min(p,1-p) is below 10, and otherwise Hörmann's BTRD
// (transformed rejection with decomposition; W. Hörmann, "The generation of
// binomial random variates", J. Statist. Comput. Simul. 46, 1993), whose
// acceptance test is exact: it compares against the exact pmf ratio
// (recursively for |k - mode| <= 15, through Stirling's series with its
// remainder bounded otherwise).
func binomial(rng *rand.Rand, n int, p float64) int {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - binomial(rng, n, 1-p)
	case float64(n)*p < 10:
		return binomialInversion(rng, n, p)
	}
	return binomialBTRD(rng, n, p)
}

// binomialInversion walks the pmf from k = 0 with the ratio
// P(k)/P(k-1) = ((n+1)/k - 1) p/q until the uniform is used up.
func binomialInversion(rng *rand.Rand, n int, p float64) int {
	q := 1 - p
	s := p / q
	a := float64(n+1) * s
	r0 := math.Exp(float64(n) * math.Log1p(-p)) // P(0) = q^n >= e^-20 here
	for {
		u := rng.Float64()
		r := r0
		for k := 0; ; {
			if u < r {
				return k
			}
			u -= r
			k++
			if k > n || r == 0 {
				// Rounding left the uniform above the total mass
				// (probability ~1e-16): draw again.
				break
			}
			r *= a/float64(k) - s
		}
	}
}

// stirlingTail is fc(k) = ln k! - [(k+1/2) ln(k+1) - (k+1) + ln(2 pi)/2],
// the remainder of Stirling's formula used by BTRD.
func stirlingTail(k int) float64 {
	if k <= 9 {
		lg, _ := math.Lgamma(float64(k + 1))
		kf := float64(k)
		return lg - ((kf+0.5)*math.Log(kf+1) - (kf + 1) + 0.5*math.Log(2*math.Pi))
	}
	r := 1 / float64(k+1)
	r2 := r * r
	return (1.0/12 - (1.0/360-r2/1260)*r2) * r
}

// binomialBTRD is Hörmann's algorithm BTRD for p <= 1/2 and n p >= 10.
func binomialBTRD(rng *rand.Rand, n int, p float64) int {
	nf := float64(n)
	q := 1 - p
	spq := math.Sqrt(nf * p * q)
	b := 1.15 + 2.53*spq
	a := -0.0873 + 0.0248*b + 0.01*p
	c := nf*p + 0.5
	vr := 0.92 - 4.2/b
	urvr := 0.86 * vr
	alpha := (2.83 + 5.1/b) * spq
	mode := int(math.Floor(float64(n+1) * p))
	npq := nf * p * q
	r := p / q
	nr := float64(n+1) * r
	var h float64 // computed on first use (step 3.2)
	hDone := false
	for {
		v := rng.Float64()
		var u float64
		if v <= urvr {
			// The box in the centre: accept at once.
			u = v/vr - 0.43
			return int(math.Floor((2*a/(0.5-math.Abs(u))+b)*u + c))
		}
		if v >= vr {
			u = rng.Float64() - 0.5
		} else {
			u = v/vr - 0.93
			u = math.Copysign(0.5, u) - u
			v = rng.Float64() * vr
		}
		us := 0.5 - math.Abs(u)
		kf := math.Floor((2*a/us+b)*u + c)
		if kf < 0 || kf > nf {
			continue
		}
		k := int(kf)
		v = v * alpha / (a/(us*us) + b)
		km := k - mode
		if km < 0 {
			km = -km
		}
		if km <= 15 {
			// Exact pmf ratio f(k)/f(mode) by recursion.
			f := 1.0
			switch {
			case mode < k:
				for i := mode + 1; i <= k; i++ {
					f *= nr/float64(i) - r
				}
			case mode > k:
				for i := k + 1; i <= mode; i++ {
					v *= nr/float64(i) - r
				}
			}
			if v <= f {
				return k
			}
			continue
		}
		// Squeeze with the normal approximation, then the exact test via
		// Stirling's series.
		v = math.Log(v)
		t, rho := btrdSqueeze(float64(km), npq)
		if v < t-rho {
			return k
		}
		if v > t+rho {
			continue
		}
		if !hDone {
			h = btrdLogRatioBase(n, mode, r)
			hDone = true
		}
		if v <= btrdLogRatio(n, mode, k, r, h) {
			return k
		}
	}
}

// btrdSqueeze returns BTRD's normal approximation t of ln(f(k)/f(mode))
// for |k - mode| = km, npq = n p q, and the bound rho of its error, so
// that t - rho <= ln(f(k)/f(mode)) <= t + rho.
func btrdSqueeze(km, npq float64) (t, rho float64) {
	rho = (km / npq) * (((km/3+0.625)*km+1.0/6)/npq + 0.5)
	t = -km * km / (2 * npq)
	return t, rho
}

// btrdLogRatioBase is the part of btrdLogRatio that depends only on the
// mode (r = p/q).
func btrdLogRatioBase(n, mode int, r float64) float64 {
	nm := float64(n - mode + 1)
	return (float64(mode)+0.5)*math.Log(float64(mode+1)/(r*nm)) + stirlingTail(mode) + stirlingTail(n-mode)
}

// btrdLogRatio returns ln(f(k)/f(mode)) for the Binomial(n, p) pmf f
// through Stirling's series with its remainder (stirlingTail), given
// r = p/q and h = btrdLogRatioBase(n, mode, r).
func btrdLogRatio(n, mode, k int, r, h float64) float64 {
	nm := float64(n - mode + 1)
	nk := float64(n - k + 1)
	kf := float64(k)
	return h + float64(n+1)*math.Log(nm/nk) + (kf+0.5)*math.Log(nk*r/(kf+1)) - stirlingTail(k) - stirlingTail(n-k)
}
