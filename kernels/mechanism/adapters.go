package mechanism

import (
	"fmt"

	"privic/kernels"
)

// BA is the Blahut-Arimoto rate-distortion channel for the prior with
// Euclidean distortion and loss parameter beta (kernels.BA), the mechanism
// of PRIVIC.
//
// References: R. Blahut, "Computation of channel capacity and
// rate-distortion functions", IEEE Trans. IT 18(4), 1972; S. Arimoto, IEEE
// Trans. IT 18(1), 1972; S. Biswas, C. Palamidessi, "PRIVIC: a
// privacy-preserving method for incremental collection of location data"
// (Remark 2.3: BA is 2*beta-geo-indistinguishable).
type BA struct {
	// Iterations > 0 runs that many iterations from the uniform channel;
	// Iterations = 0 with Delta > 0 iterates until the channel changes by
	// less than Delta (at most MaxIterations). The zero value runs 10
	// iterations, as the reference code does in its BA-vs-LAP experiment.
	Iterations    int
	Delta         float64
	MaxIterations int
}

// Info implements Mechanism.
func (BA) Info() Info {
	return Info{
		Name: "ba", Param: "beta", Min: 1e-4, Max: 100, PriorDependent: true, SameGrid: true,
		Reference: "Blahut 1972; Arimoto 1972; Biswas & Palamidessi, PRIVIC",
	}
}

// Claim implements Mechanism. With C[x,y] = c(y) e^{-beta d(x,y)} / Z(x),
// the ratio for a pair x, x' is e^{-beta (d(x,y) - d(x',y))} Z(x')/Z(x),
// at most e^{2 beta d(x,x')} (triangle inequality, twice), and the
// log-ratios at y = x and y = x' add up to 2 beta d(x,x'), so one of them
// is at least beta d(x,x'): beta <= TightEps <= 2 beta. The lower bound
// needs c > 0 at two cells, which BA from the uniform channel keeps unless
// entries underflow.
func (BA) Claim(in, out kernels.Grid, beta float64) Claim {
	if in.Len() < 2 {
		return Claim{Note: "one cell: constant channel"}
	}
	return Claim{Lo: beta, Hi: 2 * beta, Note: "beta <= eps <= 2 beta (Remark 2.3)"}
}

func (m BA) config(beta float64) (kernels.BAConfig, error) {
	cfg := kernels.BAConfig{Beta: beta, Iterations: m.Iterations, Delta: m.Delta, MaxIterations: m.MaxIterations}
	switch {
	case m.Iterations < 0 || m.Delta < 0 || m.MaxIterations < 0:
		return cfg, fmt.Errorf("ba: Iterations = %d, Delta = %v, MaxIterations = %d: must be >= 0", m.Iterations, m.Delta, m.MaxIterations)
	case m.Iterations == 0 && m.Delta == 0:
		cfg.Iterations = 10
	}
	return cfg, nil
}

// Channel implements Mechanism; out must equal in.
func (m BA) Channel(in, out kernels.Grid, prior []float64, beta float64) (*kernels.Channel, error) {
	b, err := m.Run(in, out, prior, beta)
	if err != nil {
		return nil, err
	}
	return b.Channel(), nil
}

// Run returns the factorised BA channel (for its fast tight epsilon and
// marginal).
func (m BA) Run(in, out kernels.Grid, prior []float64, beta float64) (*kernels.BAChannel, error) {
	info := m.Info()
	if err := checkArgs(info, in, out, beta); err != nil {
		return nil, err
	}
	if err := checkPrior(info.Name, in, prior); err != nil {
		return nil, err
	}
	cfg, err := m.config(beta)
	if err != nil {
		return nil, err
	}
	b, err := kernels.BA(in, prior, cfg)
	if err != nil {
		return nil, fmt.Errorf("ba: beta=%v: %w", beta, err)
	}
	return b, nil
}

// LAP is the discrete planar Laplace mechanism on the grid
// (kernels.Laplace): C[x,y] proportional to e^{-eps d(x,y)}, normalised per
// row, from the input grid to any output grid (the reference code widens
// the output by 5 cells on every side).
//
// Reference: M. E. Andrés, N. E. Bordenabe, K. Chatzikokolakis,
// C. Palamidessi, "Geo-indistinguishability", ACM CCS 2013 (the planar
// Laplace mechanism), discretised as in the PRIVIC reference code.
type LAP struct{}

// Info implements Mechanism.
func (LAP) Info() Info {
	return Info{
		Name: "lap", Param: "eps", Min: 1e-4, Max: 200,
		Reference: "Andrés et al., CCS 2013; discretised as in PRIVIC's reference code",
	}
}

// Claim implements Mechanism. The ratio for inputs x, x' is
// e^{-eps (d(x,y) - d(x',y))} Z(x')/Z(x) <= e^{2 eps d(x,x')}; when out
// contains in, the log-ratios at y = x and y = x' add up to 2 eps d(x,x'),
// so TightEps >= eps. Per-row normalisation is what lifts it above eps.
func (LAP) Claim(in, out kernels.Grid, eps float64) Claim {
	if in.Len() < 2 {
		return Claim{Note: "one cell: constant channel"}
	}
	if !out.Contains(in) {
		return Claim{Lo: 0, Hi: 2 * eps, Note: "eps <= 2 eps bound (normalisation)"}
	}
	return Claim{Lo: eps, Hi: 2 * eps, Note: "eps <= TightEps <= 2 eps (normalisation)"}
}

// Channel implements Mechanism; the prior is ignored.
func (m LAP) Channel(in, out kernels.Grid, _ []float64, eps float64) (*kernels.Channel, error) {
	return checkedBuild(m, in, out, eps, kernels.Laplace)
}
