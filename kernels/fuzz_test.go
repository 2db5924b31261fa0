package kernels_test

import (
	"math"
	"strings"
	"testing"

	"privic/kernels"
)

// ibuCase is a fuzz input decoded into an IBU problem: a channel from m
// inputs to n outputs, a report distribution q, an optional start, a
// configuration, and possibly one defect that IBU must refuse.
type ibuCase struct {
	m, n   int
	ch     *kernels.Channel
	q      []float64
	start  []float64
	cfg    kernels.IBUConfig
	defect string // "" for valid input
}

// fzReader hands out bytes, zero once the input is exhausted.
type fzReader struct {
	data []byte
	k    int
}

func (r *fzReader) byte() byte {
	if r.k >= len(r.data) {
		return 0
	}
	r.k++
	return r.data[r.k-1]
}

// weight decodes a non-negative weight spanning many magnitudes, down to
// subnormals, with zeros frequent (zero mass cells and impossible reports
// are where IBU divides by zero if careless).
func (r *fzReader) weight() float64 {
	mant, exp := r.byte(), r.byte()
	if mant < 48 {
		return 0
	}
	e := 0
	switch {
	case exp >= 250:
		e = 1060 + int(exp-250) // subnormal range
	case exp >= 200:
		e = int(exp) * 4
	case exp >= 128:
		e = int(exp-128) / 8
	}
	return math.Ldexp(float64(mant), -e)
}

// dist normalises w to sum 1; ok is false if w is all zero.
func dist(w []float64) (ok bool) {
	s := 0.0
	for _, v := range w {
		s += v
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return false
	}
	for i := range w {
		w[i] /= s
	}
	return true
}

func decodeIBU(data []byte) ibuCase {
	r := &fzReader{data: data}
	var c ibuCase
	c.m, c.n = 1+int(r.byte()%9), 1+int(r.byte()%9)
	flags := r.byte()
	in := kernels.Grid{Rows: 1, Cols: c.m}
	out := kernels.Grid{Rows: 1, Cols: c.n, Row0: int(flags % 3)}
	c.ch = &kernels.Channel{In: in, Out: out, P: make([]float64, c.m*c.n)}
	for x := range c.m {
		row := c.ch.P[x*c.n : (x+1)*c.n]
		for y := range row {
			row[y] = r.weight()
		}
		if !dist(row) {
			row[int(r.byte())%c.n] = 1 // every row must be a distribution
		}
	}
	c.q = make([]float64, c.n)
	for y := range c.q {
		c.q[y] = r.weight()
	}
	if !dist(c.q) {
		c.q[0] = 1
	}
	if flags&8 != 0 {
		c.start = make([]float64, c.m)
		for x := range c.start {
			c.start[x] = r.weight()
		}
		if !dist(c.start) {
			c.start[c.m-1] = 1
		}
	}
	if flags&16 != 0 {
		c.cfg = kernels.IBUConfig{Delta: math.Ldexp(1, -int(r.byte()%48)), MaxIterations: int(r.byte() % 40)}
	} else {
		c.cfg = kernels.IBUConfig{Iterations: 1 + int(r.byte()%30)}
	}
	// One defect in about a quarter of the inputs.
	switch d := r.byte(); d % 16 {
	case 1:
		c.ch.P[int(r.byte())%len(c.ch.P)] = math.NaN()
		c.defect = "NaN channel entry"
	case 2:
		c.ch.P[int(r.byte())%len(c.ch.P)] = -0.25
		c.defect = "negative channel entry"
	case 3:
		x := int(r.byte()) % c.m
		for y := range c.n {
			c.ch.P[x*c.n+y] *= 1.001
		}
		c.defect = "row not stochastic"
	case 4:
		c.q[int(r.byte())%c.n] = math.Inf(1)
		c.defect = "infinite report probability"
	case 5:
		for y := range c.q {
			c.q[y] *= 0.5
		}
		c.defect = "q does not sum to 1"
	case 6:
		c.start = make([]float64, c.m+1)
		c.start[0] = 1
		c.defect = "start of the wrong length"
	case 7:
		c.cfg = kernels.IBUConfig{Iterations: -1 - int(r.byte())}
		c.defect = "negative iterations"
	case 8:
		c.cfg = kernels.IBUConfig{Delta: []float64{0, -1, math.NaN(), math.Inf(1)}[r.byte()%4]}
		c.defect = "bad delta"
	case 9:
		c.ch.P = c.ch.P[:len(c.ch.P)-1]
		c.defect = "channel too short"
	}
	return c
}

// refIBU is the textbook update, written so that nothing overflows:
// theta(x) C[x,y] / den(y) <= 1 since den(y) >= theta(x) C[x,y].
func refIBU(ch *kernels.Channel, q, start []float64, iters int) []float64 {
	m, n := ch.In.Len(), ch.Out.Len()
	theta := make([]float64, m)
	if start == nil {
		for x := range theta {
			theta[x] = 1 / float64(m)
		}
	} else {
		copy(theta, start)
	}
	for range iters {
		den := make([]float64, n)
		for x := range m {
			for y := range n {
				den[y] += theta[x] * ch.P[x*n+y]
			}
		}
		next := make([]float64, m)
		for x := range m {
			for y := range n {
				if q[y] > 0 && den[y] > 0 {
					next[x] += q[y] * (theta[x] * ch.P[x*n+y] / den[y])
				}
			}
		}
		if !dist(next) {
			return nil
		}
		theta = next
	}
	return theta
}

// explainedMass is the total of q over the reports that have positive
// probability under theta (0: no report can be explained).
func explainedMass(ch *kernels.Channel, q, theta []float64) float64 {
	m, n := ch.In.Len(), ch.Out.Len()
	mass := 0.0
	for y := range n {
		if q[y] == 0 {
			continue
		}
		for x := range m {
			if theta[x] > 0 && ch.P[x*n+y] > 0 {
				mass += q[y]
				break
			}
		}
	}
	return mass
}

// minPositive is the smallest positive entry of the vectors (+Inf if none).
func minPositive(vs ...[]float64) float64 {
	mn := math.Inf(1)
	for _, v := range vs {
		for _, x := range v {
			if x > 0 {
				mn = min(mn, x)
			}
		}
	}
	return mn
}

// FuzzIBU: IBU never panics; every defective input is refused with a
// one-line error; on valid input it fails only when no report can be
// explained, and otherwise returns a distribution (finite, >= 0, sum 1)
// that keeps the start's zeros and, away from the underflow threshold,
// matches the textbook update within 1e-9 and equals GIBU over the same
// reports split in two batches of the same channel.
func FuzzIBU(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 2, 0, 200, 0, 100, 0, 100, 0, 200, 0, 255, 0, 255, 0, 5})
	f.Add([]byte{4, 3, 8, 60, 0, 0, 0, 70, 251, 90, 0, 90, 1, 250, 255, 200, 4, 100, 0, 100, 0, 100, 0, 100, 0, 10})
	f.Add([]byte{3, 3, 16, 255, 0, 1, 0, 1, 0, 1, 0, 255, 0, 1, 0, 1, 0, 1, 0, 255, 0, 80, 0, 80, 0, 80, 0, 10, 30})
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 7})
	f.Add([]byte{5, 5, 24, 90, 255, 90, 255, 90, 255, 90, 255, 90, 255})
	for d := byte(1); d <= 9; d++ {
		f.Add([]byte{3, 4, 0, 100, 0, 100, 3, 100, 9, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0, 5, d, 7})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := decodeIBU(data)
		est, iters, err := kernels.IBU(c.ch, c.q, c.start, c.cfg)
		if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("error is not one line: %q", err)
		}
		if c.defect != "" {
			if err == nil {
				t.Fatalf("%s accepted", c.defect)
			}
			return
		}
		theta0 := c.start
		if theta0 == nil {
			theta0 = make([]float64, c.m)
			for x := range theta0 {
				theta0[x] = 1 / float64(c.m)
			}
		}
		explained := explainedMass(c.ch, c.q, theta0)
		if explained == 0 {
			if err == nil {
				t.Fatalf("no report is explainable, yet IBU returned %v", est)
			}
			return
		}
		if err != nil {
			t.Fatalf("valid input refused: %v", err)
		}
		maxIter := c.cfg.Iterations
		if maxIter == 0 {
			maxIter = c.cfg.MaxIterations
			if maxIter == 0 {
				maxIter = kernels.DefaultMaxIterations
			}
		}
		if iters < 1 || iters > maxIter || (c.cfg.Iterations > 0 && iters != c.cfg.Iterations) {
			t.Fatalf("iters = %d with config %+v", iters, c.cfg)
		}
		if len(est) != c.m {
			t.Fatalf("estimate has %d entries, want %d", len(est), c.m)
		}
		s := 0.0
		for x, v := range est {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("estimate[%d] = %v", x, v)
			}
			if theta0[x] == 0 && v != 0 {
				t.Fatalf("estimate[%d] = %v but the start is 0 there", x, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12*float64(c.m) {
			t.Fatalf("estimate sums to %v", s)
		}
		// Subnormal numbers carry only a few significant bits, so where the
		// input holds numbers near the underflow threshold (entries below
		// 1e-250, whose products underflow, or explainable reports of
		// subnormal total mass) two correct evaluation orders differ at
		// that precision: only the invariants above are checked then.
		if explained < 1e-300 || minPositive(c.ch.P, c.q, c.start) < 1e-250 {
			return
		}
		if ref := refIBU(c.ch, c.q, c.start, iters); ref != nil {
			for x := range est {
				if math.Abs(est[x]-ref[x]) > 1e-9 {
					t.Fatalf("estimate %v, textbook update %v (iters %d)", est, ref, iters)
				}
			}
		}
		// GIBU with the reports split into two batches of the same channel
		// (counts a and q - a, any scale) is IBU with q.
		if c.cfg.Iterations > 0 {
			a, b := make([]float64, c.n), make([]float64, c.n)
			const scale = 1e6
			for y, v := range c.q {
				a[y] = scale * v * float64(1+y%3) / 4
				b[y] = scale*v - a[y]
			}
			g, giters, gerr := kernels.GIBU([]kernels.Batch{{Channel: c.ch, Counts: a}, {Channel: c.ch, Counts: b}}, c.start, c.cfg)
			if gerr != nil || giters != iters {
				t.Fatalf("GIBU over a split of q: %v (iters %d, IBU %d)", gerr, giters, iters)
			}
			for x := range est {
				if math.Abs(g[x]-est[x]) > 1e-9 {
					t.Fatalf("GIBU %v, IBU %v", g, est)
				}
			}
		}
	})
}

// decodeEMD decodes a grid EMD problem: distributions p on grid a, q on grid
// b (a itself, a widened, or a shifted copy) and r on a.
func decodeEMD(data []byte) (a kernels.Grid, p []float64, b kernels.Grid, q, r []float64) {
	rd := &fzReader{data: data}
	a = kernels.Grid{Rows: 1 + int(rd.byte()%6), Cols: 1 + int(rd.byte()%6), Row0: int(int8(rd.byte())) % 4, Col0: int(int8(rd.byte())) % 4}
	switch k := rd.byte(); k % 3 {
	case 0:
		b = a
	case 1:
		b = a.Widen(1 + int(k/3)%2)
	default:
		b = a
		b.Row0 += int(int8(rd.byte())) % 5
		b.Col0 += int(int8(rd.byte())) % 5
	}
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rd.weight()
		}
		if !dist(v) {
			v[int(rd.byte())%n] = 1
		}
		return v
	}
	return a, vec(a.Len()), b, vec(b.Len()), vec(a.Len())
}

// centroid is the mean position (row, col) of p on g.
func centroid(g kernels.Grid, p []float64) (float64, float64) {
	var mr, mc float64
	for i, v := range p {
		r, c := g.Abs(i)
		mr += v * float64(r)
		mc += v * float64(c)
	}
	return mr, mc
}

// FuzzGridEMD: kernels.EMD never fails on valid distributions; it is finite,
// >= 0, symmetric, at most the largest distance between the grids, at least
// the shift of the centroid along each axis, zero between a distribution
// and a copy of it changed by rounding, equal to sum_y q(y) d(x, y) from a
// point mass at x, and satisfies the triangle inequality; and its
// optimality certificate checks out on every pair of cells, so an early
// stop of the solver is caught wherever it happens.
func FuzzGridEMD(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 4, 0, 0, 0, 100, 0, 0, 0, 100, 0, 200, 0, 60, 0, 90, 3, 70, 0})
	f.Add([]byte{5, 5, 1, 2, 1, 255, 0, 255, 0, 255, 0, 80, 200, 90, 251})
	f.Add([]byte{2, 3, 3, 1, 2, 4, 3, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, p, b, q, r := decodeEMD(data)
		emd := func(g kernels.Grid, x []float64, h kernels.Grid, y []float64) float64 {
			d, err := kernels.EMD(g, x, h, y)
			if err != nil {
				t.Fatalf("EMD(%v, %v, %v, %v): %v", g, x, h, y, err)
			}
			if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
				t.Fatalf("EMD = %v", d)
			}
			return d
		}
		d := emd(a, p, b, q)
		cert, err := kernels.EMDCertificate(a, p, b, q)
		if err != nil || cert.Cost != d {
			t.Fatalf("EMD with certificate: %v (%v), EMD %v", cert.Cost, err, d)
		}
		if err := kernels.CheckEMDCertificate(a, p, b, q, cert); err != nil {
			t.Fatalf("certificate of EMD(%v, %v, %v, %v): %v", a, p, b, q, err)
		}
		tol := 1e-9 * (1 + d)
		if back := emd(b, q, a, p); math.Abs(back-d) > tol {
			t.Fatalf("EMD not symmetric: %v vs %v", d, back)
		}
		maxd := 0.0
		for i := range p {
			for j := range q {
				maxd = max(maxd, kernels.Dist(a, i, b, j))
			}
		}
		if d > maxd+tol {
			t.Fatalf("EMD %v above the largest distance %v", d, maxd)
		}
		pr, pc := centroid(a, p)
		qr, qc := centroid(b, q)
		if lb := max(math.Abs(pr-qr), math.Abs(pc-qc)); d < lb-tol {
			t.Fatalf("EMD %v below the centroid shift %v", d, lb)
		}
		// A copy of p changed by rounding only is at distance ~0.
		p2 := make([]float64, len(p))
		for i, v := range p {
			p2[i] = v * (1 + float64(i%3)*1e-15)
		}
		dist(p2)
		if z := emd(a, p, a, p2); z > 1e-9 {
			t.Fatalf("EMD between p and a rounding of it = %v", z)
		}
		for i, v := range p {
			if v == 1 {
				want := 0.0
				for j, w := range q {
					want += w * kernels.Dist(a, i, b, j)
				}
				if math.Abs(d-want) > 1e-9*(1+want) {
					t.Fatalf("EMD from a point mass = %v, closed form %v", d, want)
				}
			}
		}
		if via := emd(a, p, a, r) + emd(a, r, b, q); d > via+tol {
			t.Fatalf("triangle inequality: EMD(p,q) = %v > %v via r", d, via)
		}
	})
}
