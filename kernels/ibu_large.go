package kernels

import (
	"fmt"
	"math"
)

// ibuOnBALarge is ibuOnBA on a grid that uses kprod's FFT products: the
// same iteration on plain vectors, or ibuOnBALog.
func (w *IBUWorkspace) ibuOnBALarge(dst []float64, b *BAChannel, q, start []float64, cfg IBUConfig) ([]float64, int, error) {
	m := b.Grid.Len()
	maxIter, converge, err := checkIBUOnBA(cfg, q, start, m)
	if err != nil {
		return nil, 0, err
	}
	theta := grow(dst, m)
	if w.sitesFor != b.kp {
		w.sites, w.sitesFor = [2]kprodSite{}, b.kp
	}
	if !b.logDomain {
		if it, ok, err := w.ibuLinearBA(theta, b, q, start, maxIter, converge, cfg.Delta); ok {
			return theta, it, err
		}
	}
	it, err := w.ibuLogBA(theta, b, q, start, maxIter, converge, cfg.Delta)
	if err != nil {
		return nil, it, err
	}
	return theta, it, nil
}

func setStart(theta, start []float64) {
	if start == nil {
		for i := range theta {
			theta[i] = 1 / float64(len(theta))
		}
		return
	}
	copy(theta, start)
}

// ibuLinearBA iterates a = theta ./ Z, theta' = a .* K(q ./ K a) (the
// factor c of C cancels in the ratio). It reports ok = false, with
// theta undefined, when some report with q(y) > 0 gets a probability
// den(y) = c(y) (K a)(y) below denTiny, where IBU would take its careful
// step.
func (w *IBUWorkspace) ibuLinearBA(theta []float64, b *BAChannel, q, start []float64, maxIter int, converge bool, delta float64) (int, bool, error) {
	kp := b.kp
	m := kp.len()
	setStart(theta, start)
	w.prev = grow(w.prev, m)
	w.iz = grow(w.iz, m)
	w.dot = grow(w.dot, m)
	w.s = grow(w.s, m)
	w.r = grow(w.r, m)
	iz, a, kv, r := w.iz[:m], w.s[:m], w.dot[:m], w.r[:m]
	c := b.Marginal[:m]
	q = q[:m]
	for x, v := range b.z[:m] {
		iz[x] = 1 / v
	}
	for x, t := range theta {
		a[x] = t * iz[x]
	}
	if converge {
		copy(w.prev, theta)
	}
	// As in ibuOnBA: theta' keeps the sum of q up to rounding, so the
	// estimate is normalised at the end, or every iteration in
	// convergence mode (whose test compares normalised estimates).
	for it := 1; it <= maxIter; it++ {
		kp.prod(kv, a, &w.kw, &w.sites[0])
		if !ibuRatios(r, q, c, kv) {
			return it, false, nil
		}
		kp.prod(kv, r, &w.kw, &w.sites[1])
		sum := 0.0
		for x, v := range kv {
			t := a[x] * v
			theta[x] = t
			sum += t
		}
		if !(sum > 0) || math.IsInf(sum, 1) {
			return it, true, fmt.Errorf("ibu: %w", errUnexplained)
		}
		if converge {
			normalize(theta)
			d := maxAbsDiff(theta, w.prev)
			copy(w.prev, theta)
			if d < delta {
				return it, true, nil
			}
		}
		for x, t := range theta {
			a[x] = t * iz[x]
		}
	}
	normalize(theta)
	return maxIter, true, nil
}

// ibuLogBA is IBU on a BA channel in the log domain:
//
//	ln den(y) = ln c(y) + L(ln theta - ln Z)(y),  ln theta' = ln theta - ln Z + L(ln q - (ln den - ln c)),
//
// with L the log-domain product with K (kprod.lprod), renormalised every
// iteration. A report y with q(y) > 0 and den(y) = 0 is skipped.
func (w *IBUWorkspace) ibuLogBA(theta []float64, b *BAChannel, q, start []float64, maxIter int, converge bool, delta float64) (int, error) {
	kp := b.kp
	kp.ensureLog()
	m := kp.len()
	setStart(theta, start)
	negInf := math.Inf(-1)
	w.prev = grow(w.prev, m)
	w.iz = grow(w.iz, m)
	w.dot = grow(w.dot, m)
	w.s = grow(w.s, m)
	w.r = grow(w.r, m)
	w.scratch = grow(w.scratch, kp.cols)
	lz, la, lk, lr := w.iz[:m], w.s[:m], w.dot[:m], w.r[:m]
	copy(lz, b.LogZ())
	for it := 1; it <= maxIter; it++ {
		if converge {
			copy(w.prev, theta)
		}
		for x, t := range theta {
			la[x] = log(t) - lz[x]
		}
		kp.lprod(lk, la, w.scratch)
		for y, qy := range q[:m] {
			// den(y) = c(y) e^{lk(y)}, lk(y) finite (theta has mass, and
			// lprod widens its window until it is exact); c cancels in the
			// ratio unless it is zero (an output BA starved: the report is
			// impossible). q(y) = 0 gives ln 0 = -Inf, no ratio.
			possible := b.Marginal[y] > 0
			if b.logDomain {
				possible = b.logc[y] > negInf
			}
			lr[y] = negInf
			if possible {
				lr[y] = log(qy) - lk[y]
			}
		}
		// With no report possible, lr is -Inf everywhere and so is lk
		// below: the error is returned there.
		kp.lprod(lk, lr, w.scratch)
		mx := negInf
		for x := range lk {
			lk[x] += la[x]
			mx = max(mx, lk[x])
		}
		if mx == negInf {
			return it, fmt.Errorf("ibu: %w", errUnexplained)
		}
		for x, v := range lk {
			theta[x] = math.Exp(v - mx)
		}
		normalize(theta)
		if converge && maxAbsDiff(theta, w.prev) < delta {
			return it, nil
		}
	}
	return maxIter, nil
}
