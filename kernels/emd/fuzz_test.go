package emd

import (
	"math"
	"testing"
)

// fuzzCase decodes fuzz bytes into two weighted point sets on a small
// lattice (so that points coincide and distances tie often). Missing bytes
// read as zero.
type fuzzCase struct {
	ax, ay, a, bx, by, b []float64
	corrupt              int // 0: valid masses; 1..3: one mass NaN, -1 or +Inf
}

func decodeFuzz(data []byte) fuzzCase {
	k := 0
	next := func() byte {
		if k >= len(data) {
			return 0
		}
		k++
		return data[k-1]
	}
	n, m := 1+int(next()%12), 1+int(next()%12)
	mode := next()
	// Masses span several magnitudes depending on the mode, to exercise the
	// relative tolerances.
	scale := []float64{1, 1e-9, 1e9, 1.0 / 3}[mode%4]
	var c fuzzCase
	c.corrupt = int(mode/4) % 8 // mostly valid
	if c.corrupt > 3 {
		c.corrupt = 0
	}
	side := func(cnt int) (x, y, w []float64) {
		for range cnt {
			x = append(x, float64(int8(next())%8))
			y = append(y, float64(int8(next())%8))
			w = append(w, float64(next())*scale)
		}
		return x, y, w
	}
	c.ax, c.ay, c.a = side(n)
	c.bx, c.by, c.b = side(m)
	return c
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// FuzzEMD: no input makes the solvers panic; invalid input is an error from
// every entry point; on valid input the distance is finite, >= 0, symmetric,
// at most the largest distance between the supports, at least the shift of
// the means along each axis (x and y are 1-Lipschitz), and the same with and
// without the cancellation of shared mass (SolvePoints, SolveCommon,
// SolveMatrix); and the optimality certificate of SolvePoints (dense and
// sparse solver) and SolveMatrix checks out on every arc, so an early stop
// is caught wherever it happens.
func FuzzEMD(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 1, 2, 5, 3, 4, 5})
	f.Add([]byte{3, 3, 0, 0, 0, 1, 1, 0, 1, 2, 0, 1, 0, 0, 1, 1, 0, 1, 2, 0, 1})
	f.Add([]byte{5, 4, 1, 0, 0, 9, 0, 1, 0, 0, 2, 7, 1, 1, 3, 2, 2, 0, 7, 7, 1, 0, 0, 9, 3, 1, 4, 2, 2, 2, 6, 6, 5})
	f.Add([]byte{2, 2, 4, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1})  // NaN mass
	f.Add([]byte{2, 2, 8, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1})  // negative mass
	f.Add([]byte{2, 2, 14, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1}) // +Inf mass, scale 1e9
	f.Add([]byte{11, 11, 2, 255, 128, 200, 7, 7, 255, 0, 0, 0}) // big masses, mostly zero
	f.Fuzz(func(t *testing.T, data []byte) {
		c := decodeFuzz(data)
		if c.corrupt > 0 {
			bad := []float64{0, math.NaN(), -1, math.Inf(1)}[c.corrupt]
			c.b[len(c.b)-1] = bad
			if _, err := SolvePoints(c.ax, c.ay, c.a, c.bx, c.by, c.b); err == nil {
				t.Fatalf("SolvePoints accepted mass %v", bad)
			}
			if _, err := SolveMatrix(c.a, c.b, euclid(c.ax, c.ay, c.bx, c.by)); err == nil {
				t.Fatalf("SolveMatrix accepted mass %v", bad)
			}
			return
		}
		sa, sb := sum(c.a), sum(c.b)
		if sa == 0 || sb == 0 {
			if _, err := SolvePoints(c.ax, c.ay, c.a, c.bx, c.by, c.b); err == nil {
				t.Fatalf("zero total accepted (totals %v, %v)", sa, sb)
			}
			return
		}
		// Distributions: normalise both sides.
		for i := range c.a {
			c.a[i] /= sa
		}
		for j := range c.b {
			c.b[j] /= sb
		}
		d, err := SolvePoints(c.ax, c.ay, c.a, c.bx, c.by, c.b)
		if err != nil {
			t.Fatalf("SolvePoints: %v", err)
		}
		r, err := SolvePoints(c.bx, c.by, c.b, c.ax, c.ay, c.a)
		if err != nil {
			t.Fatalf("SolvePoints reversed: %v", err)
		}
		cost := euclid(c.ax, c.ay, c.bx, c.by)
		sm := Solver{Duals: true}
		fullRes, err := sm.SolveMatrix(c.a, c.b, cost)
		if err != nil {
			t.Fatalf("SolveMatrix: %v", err)
		}
		full := fullRes.Cost
		m := len(c.b)
		if err := certificate(c.a, c.b, func(i, j int) float64 { return cost[i*m+j] }, fullRes); err != nil {
			t.Fatalf("SolveMatrix certificate: %v", err)
		}
		for _, path := range []int{pathDense, pathSparse} {
			s := Solver{Duals: true, path: path}
			res, err := s.SolvePoints(c.ax, c.ay, c.a, c.bx, c.by, c.b)
			if err != nil {
				t.Fatalf("SolvePoints (path %d): %v", path, err)
			}
			if err := certificate(c.a, c.b, euclidCost(c.ax, c.ay, c.bx, c.by), res); err != nil {
				t.Fatalf("SolvePoints certificate (path %d): %v", path, err)
			}
			if math.Abs(res.Cost-full) > 1e-9*(1+full) {
				t.Fatalf("SolvePoints (path %d) %v, full problem %v", path, res.Cost, full)
			}
		}
		// Both sides on the concatenated point list (points may repeat).
		x, y := append(append([]float64(nil), c.ax...), c.bx...), append(append([]float64(nil), c.ay...), c.by...)
		pa, pb := make([]float64, len(x)), make([]float64, len(x))
		copy(pa, c.a)
		copy(pb[len(c.a):], c.b)
		com, err := SolveCommon(x, y, pa, pb)
		if err != nil {
			t.Fatalf("SolveCommon: %v", err)
		}
		maxd := 0.0
		for k, v := range cost {
			if c.a[k/len(c.b)] > 0 && c.b[k%len(c.b)] > 0 {
				maxd = max(maxd, v)
			}
		}
		tol := 1e-9 * (1 + maxd)
		if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
			t.Fatalf("EMD = %v: want finite and >= 0", d)
		}
		if math.Abs(d-r) > tol {
			t.Fatalf("asymmetric: %v vs %v", d, r)
		}
		if math.Abs(d-full) > tol || math.Abs(com-full) > tol {
			t.Fatalf("SolvePoints %v, SolveCommon %v, full problem %v", d, com, full)
		}
		if d > maxd+tol {
			t.Fatalf("EMD %v exceeds the largest distance %v", d, maxd)
		}
		mean := func(x, w []float64) float64 {
			s := 0.0
			for i := range x {
				s += x[i] * w[i]
			}
			return s
		}
		shift := max(math.Abs(mean(c.ax, c.a)-mean(c.bx, c.b)), math.Abs(mean(c.ay, c.a)-mean(c.by, c.b)))
		if d < shift-tol {
			t.Fatalf("EMD %v below the shift of the means %v", d, shift)
		}
	})
}

// decodeFar decodes fuzz bytes into a far transport: supplies on a small
// lattice around the origin, demands on one around an offset of up to 60
// lattice steps a side (so most mass must travel far, past many cells of
// every level), some demands mixed in among the supplies, and a bound on
// the coarsest level small enough for several levels. Missing bytes read
// as zero.
func decodeFar(data []byte) (c fuzzCase, coarse int) {
	k := 0
	next := func() byte {
		if k >= len(data) {
			return 0
		}
		k++
		return data[k-1]
	}
	n, m := 1+int(next()%40), 1+int(next()%40)
	ox, oy := float64(int8(next())%61), float64(int8(next())%61)
	coarse = 2 + int(next()%64)
	equal := next()%2 == 0 // equal demands, as from uniform
	for range n {
		c.ax = append(c.ax, float64(int8(next())%6))
		c.ay = append(c.ay, float64(int8(next())%6))
		c.a = append(c.a, float64(1+next()%16))
	}
	for j := range m {
		x, y := float64(int8(next())%6), float64(int8(next())%6)
		if j%4 != 3 {
			x, y = x+ox, y+oy
		}
		c.bx, c.by = append(c.bx, x), append(c.by, y)
		w := float64(1 + next()%16)
		if equal {
			w = 1
		}
		c.b = append(c.b, w)
	}
	normalise(c.a)
	normalise(c.b)
	return c, coarse
}

// FuzzEMDFar: on far transports solved coarse to fine over several levels
// (a tiny coarsest bound), the distance equals the dense solver's
// (SolveMatrix, every pair priced) to 1e-9 relative, the certificate
// checks out on every arc, and SolveCommon on the merged points agrees.
func FuzzEMDFar(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{20, 30, 50, 40, 3, 0})
	f.Add([]byte{39, 39, 60, 196, 10, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{12, 25, 200, 30, 5, 0, 0, 0, 5, 0, 5, 5, 5, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{7, 7, 0, 0, 60, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, coarse := decodeFar(data)
		cost := euclid(c.ax, c.ay, c.bx, c.by)
		want, err := SolveMatrix(c.a, c.b, cost)
		if err != nil {
			t.Fatalf("SolveMatrix: %v", err)
		}
		s := Solver{Duals: true, path: pathSparse, coarse: coarse}
		got, err := s.SolvePoints(c.ax, c.ay, c.a, c.bx, c.by, c.b)
		if err != nil {
			t.Fatalf("SolvePoints: %v", err)
		}
		if math.Abs(got.Cost-want) > 1e-9*(1+want) {
			t.Fatalf("coarse to fine (bound %d, %d levels) %.17g, dense %.17g", coarse, got.Levels, got.Cost, want)
		}
		if err := certificate(c.a, c.b, euclidCost(c.ax, c.ay, c.bx, c.by), got); err != nil {
			t.Fatalf("certificate (bound %d, %d levels): %v", coarse, got.Levels, err)
		}
		x, y := append(append([]float64(nil), c.ax...), c.bx...), append(append([]float64(nil), c.ay...), c.by...)
		pa, pb := make([]float64, len(x)), make([]float64, len(x))
		copy(pa, c.a)
		copy(pb[len(c.a):], c.b)
		sc := Solver{path: pathSparse, coarse: coarse}
		com, err := sc.SolveCommon(x, y, pa, pb)
		if err != nil {
			t.Fatalf("SolveCommon: %v", err)
		}
		if math.Abs(com.Cost-want) > 1e-9*(1+want) {
			t.Fatalf("SolveCommon %.17g, dense %.17g", com.Cost, want)
		}
	})
}
