package incremental

import (
	"fmt"
	"slices"
	"strings"

	"privic/datasets"
	"privic/harness"
)

// Values of the protocol options (PROTOCOL.md, experiment 3). The first
// value of each list is the paper's choice, the second the reference
// code's.
var (
	firstMechanisms = []string{"ba-uniform", "laplace"}
	ibuStarts       = []string{"previous", "uniform"}
	mixings         = []string{"weighted", "none"}
	batchModes      = []string{"iid", "partition"}
	emdReferences   = []string{"population", "batch"}
	gibuStarts      = []string{"previous", "uniform"}
)

// variant is one simulated PRIVIC protocol: the options that change the
// trajectory. The EMD reference does not change it, so both references
// are measured on the same trajectory.
type variant struct {
	FirstMechanism string `toml:"first_mechanism"`
	IBUStart       string `toml:"ibu_start"`
	Mixing         string `toml:"mixing"`
	Batches        string `toml:"batches"`
}

// paperVariant and referenceVariant are Algorithm 1 of the paper and the
// published reference code.
var (
	paperVariant     = variant{"ba-uniform", "previous", "weighted", "iid"}
	referenceVariant = variant{"laplace", "uniform", "none", "partition"}
)

// label is a compact name for legends and Markdown tables.
func (v variant) label() string {
	return v.FirstMechanism + "/" + v.IBUStart + "/" + v.Mixing + "/" + v.Batches
}

// name says whether v is the paper's or the reference code's protocol.
func (v variant) name() string {
	switch v {
	case paperVariant:
		return "paper"
	case referenceVariant:
		return "reference"
	}
	return ""
}

func (v variant) validate(key string) error {
	for _, c := range []struct {
		k, v    string
		allowed []string
	}{
		{"first_mechanism", v.FirstMechanism, firstMechanisms},
		{"ibu_start", v.IBUStart, ibuStarts},
		{"mixing", v.Mixing, mixings},
		{"batches", v.Batches, batchModes},
	} {
		if err := oneOf(key+"."+c.k, c.v, c.allowed); err != nil {
			return err
		}
	}
	return nil
}

// protocol holds the settings shared by both kinds: data, schedule and
// estimator settings. Per-city settings are maps keyed by city name so that
// a spec can override one city and keep the other's default.
type protocol struct {
	Cities        []string           `toml:"cities"`
	Rows          datasets.RowPolicy `toml:"rows"`
	Beta          harness.Sweep      `toml:"beta"`
	Rounds        int                `toml:"rounds"`
	RoundsPerJob  int                `toml:"rounds_per_job"`
	EMDReference  []string           `toml:"emd_reference"`
	BatchFraction float64            `toml:"batch_fraction"`
	BatchSize     map[string]int     `toml:"batch_size"`
	LaplaceEps    float64            `toml:"laplace_eps"`
	Cycles        map[string]int     `toml:"cycles"`
	BAIterations  map[string]int     `toml:"ba_iterations"`
	IBUIterations map[string]int     `toml:"ibu_iterations"`
	BADelta       float64            `toml:"ba_delta"`
	IBUDelta      float64            `toml:"ibu_delta"`
	MaxIterations int                `toml:"max_iterations"`
	FinalGIBU     bool               `toml:"final_gibu"`
	GIBUStart     string             `toml:"gibu_start"`
	GIBUIter      map[string]int     `toml:"gibu_iterations"`
	GIBUDelta     float64            `toml:"gibu_delta"`
	FinalBA       bool               `toml:"final_ba"`
}

// defaultProtocol is the paper's protocol: Paris 15 cycles of BA x 8 and
// IBU x 10, San Francisco 8 cycles of BA x 5 and IBU x 5, 5 rounds,
// batches of 10% of the check-ins.
func defaultProtocol(roundsPerJob int, betas ...float64) protocol {
	return protocol{
		RoundsPerJob:  roundsPerJob,
		Cities:        []string{"paris", "sf"},
		Rows:          datasets.HeaderQuirk,
		Beta:          harness.SweepOf(betas...),
		Rounds:        5,
		EMDReference:  slices.Clone(emdReferences),
		BatchFraction: 0.1,
		BatchSize:     map[string]int{},
		LaplaceEps:    2,
		Cycles:        map[string]int{"paris": 15, "sf": 8},
		BAIterations:  map[string]int{"paris": 8, "sf": 5},
		IBUIterations: map[string]int{"paris": 10, "sf": 5},
		BADelta:       1e-6,
		IBUDelta:      1e-6,
		MaxIterations: 10000,
		FinalGIBU:     true,
		GIBUStart:     "previous",
		GIBUIter:      map[string]int{"paris": 10, "sf": 5},
		GIBUDelta:     1e-6,
		FinalBA:       true,
	}
}

func (p *protocol) validate() error {
	if len(p.Cities) == 0 {
		return fmt.Errorf("params.cities: empty; give at least one of %s", quoteJoin(datasets.CityNames()))
	}
	seen := map[string]bool{}
	for i, c := range p.Cities {
		if _, err := datasets.Lookup(c); err != nil {
			return fmt.Errorf("params.cities[%d]: %w", i, err)
		}
		if c != strings.ToLower(strings.TrimSpace(c)) {
			return fmt.Errorf("params.cities[%d] = %q: write the city name in lower case", i, c)
		}
		if seen[c] {
			return fmt.Errorf("params.cities[%d] = %q: duplicate city", i, c)
		}
		seen[c] = true
	}
	if _, err := p.Rows.MarshalText(); err != nil {
		return fmt.Errorf("params.rows: %w", err)
	}
	if p.Beta.Len() == 0 {
		return fmt.Errorf("params.beta: empty; give at least one value")
	}
	if err := p.Beta.Check("params.beta", "beta must be finite and > 0", func(v float64) bool { return v > 0 }); err != nil {
		return err
	}
	if p.Rounds < 1 || p.Rounds > 1000 {
		return fmt.Errorf("params.rounds = %d: must be in 1..1000", p.Rounds)
	}
	if p.RoundsPerJob < 1 || p.RoundsPerJob > p.Rounds {
		return fmt.Errorf("params.rounds_per_job = %d: must be in 1..rounds (%d)", p.RoundsPerJob, p.Rounds)
	}
	if err := listOf("emd_reference", p.EMDReference, emdReferences); err != nil {
		return err
	}
	if !(p.BatchFraction > 0 && p.BatchFraction <= 1) {
		return fmt.Errorf("params.batch_fraction = %v: must be in (0, 1]", p.BatchFraction)
	}
	for c, n := range p.BatchSize {
		if _, err := datasets.Lookup(c); err != nil {
			return fmt.Errorf("params.batch_size.%s: %w", c, err)
		}
		if n < 1 || n > 100000000 {
			return fmt.Errorf("params.batch_size.%s = %d: must be in 1..100000000", c, n)
		}
	}
	if err := positiveFinite("laplace_eps", p.LaplaceEps); err != nil {
		return err
	}
	for _, m := range []struct {
		key string
		m   map[string]int
		min int
	}{
		{"cycles", p.Cycles, 1},
		{"ba_iterations", p.BAIterations, 0},
		{"ibu_iterations", p.IBUIterations, 0},
		{"gibu_iterations", p.GIBUIter, 0},
	} {
		for c, v := range m.m {
			if _, err := datasets.Lookup(c); err != nil {
				return fmt.Errorf("params.%s.%s: %w", m.key, c, err)
			}
			if v < m.min || v > 100000 {
				return fmt.Errorf("params.%s.%s = %d: must be in %d..100000", m.key, c, v, m.min)
			}
		}
		for _, c := range p.Cities {
			if _, ok := m.m[c]; !ok {
				return fmt.Errorf("params.%s: no value for city %q", m.key, c)
			}
		}
	}
	for _, d := range []struct {
		key string
		v   float64
	}{{"ba_delta", p.BADelta}, {"ibu_delta", p.IBUDelta}, {"gibu_delta", p.GIBUDelta}} {
		if err := positiveFinite(d.key, d.v); err != nil {
			return err
		}
	}
	if p.MaxIterations < 1 || p.MaxIterations > 1000000 {
		return fmt.Errorf("params.max_iterations = %d: must be in 1..1000000", p.MaxIterations)
	}
	return oneOf("gibu_start", p.GIBUStart, gibuStarts)
}

// schedule is one city's iteration plan.
type schedule struct {
	Cycles         int
	BAIterations   int // 0: converge on BADelta
	IBUIterations  int // 0: converge on IBUDelta
	GIBUIterations int // 0: converge on GIBUDelta
	BADelta        float64
	IBUDelta       float64
	GIBUDelta      float64
	MaxIterations  int
}

func (p *protocol) schedule(city string) schedule {
	return schedule{
		Cycles:         p.Cycles[city],
		BAIterations:   p.BAIterations[city],
		IBUIterations:  p.IBUIterations[city],
		GIBUIterations: p.GIBUIter[city],
		BADelta:        p.BADelta,
		IBUDelta:       p.IBUDelta,
		GIBUDelta:      p.GIBUDelta,
		MaxIterations:  p.MaxIterations,
	}
}

// ConvergenceParams are the [params] of kind "privic-convergence": every
// combination of the variant lists is simulated; the first value of each
// list forms the default variant shown in Fig. 7-9.
type ConvergenceParams struct {
	protocol
	FirstMechanism []string `toml:"first_mechanism"`
	IBUStart       []string `toml:"ibu_start"`
	Mixing         []string `toml:"mixing"`
	Batches        []string `toml:"batches"`
}

// Validate implements harness.Params.
func (p *ConvergenceParams) Validate() error {
	if err := p.protocol.validate(); err != nil {
		return err
	}
	for _, l := range []struct {
		key     string
		v       []string
		allowed []string
	}{
		{"first_mechanism", p.FirstMechanism, firstMechanisms},
		{"ibu_start", p.IBUStart, ibuStarts},
		{"mixing", p.Mixing, mixings},
		{"batches", p.Batches, batchModes},
	} {
		if err := listOf(l.key, l.v, l.allowed); err != nil {
			return err
		}
	}
	return nil
}

// variants is the cross product of the variant lists, default first.
func (p *ConvergenceParams) variants() []variant {
	var out []variant
	for _, f := range p.FirstMechanism {
		for _, s := range p.IBUStart {
			for _, m := range p.Mixing {
				for _, b := range p.Batches {
					out = append(out, variant{f, s, m, b})
				}
			}
		}
	}
	return out
}

// SweepParams are the [params] of kind "beta-sweep": each listed variant
// is run at every beta; the first variant is the default.
type SweepParams struct {
	protocol
	Variant []variant `toml:"variant"`
}

// Validate implements harness.Params.
func (p *SweepParams) Validate() error {
	if err := p.protocol.validate(); err != nil {
		return err
	}
	if len(p.Variant) == 0 {
		return fmt.Errorf("params.variant: empty; give at least one [[params.variant]] table")
	}
	seen := map[variant]bool{}
	for i, v := range p.Variant {
		key := fmt.Sprintf("variant[%d]", i)
		if err := v.validate(key); err != nil {
			return err
		}
		if seen[v] {
			return fmt.Errorf("params.%s = %s: duplicate variant", key, v.label())
		}
		seen[v] = true
	}
	return nil
}

// listOf checks a non-empty, duplicate-free list of allowed strings.
func listOf(key string, v, allowed []string) error {
	if len(v) == 0 {
		return fmt.Errorf("params.%s: empty; allowed values are %s", key, quoteJoin(allowed))
	}
	seen := map[string]bool{}
	for i, s := range v {
		if err := oneOf(fmt.Sprintf("%s[%d]", key, i), s, allowed); err != nil {
			return err
		}
		if seen[s] {
			return fmt.Errorf("params.%s[%d] = %q: duplicate value", key, i, s)
		}
		seen[s] = true
	}
	return nil
}

// oneOf checks that v is one of allowed, naming key otherwise.
func oneOf(key, v string, allowed []string) error { return harness.OneOf(key, v, allowed...) }

// Short names for the shared parameter checks (functions, not package
// variables: no mutable globals).
func quoteJoin(s []string) string                { return harness.QuoteJoin(s) }
func positiveFinite(key string, v float64) error { return harness.PositiveFinite(key, v) }
