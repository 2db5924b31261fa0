// Package kinds lists the experiment kinds privic knows. Each kind is a
// package of its own below this one, written against its own parameter
// and job types (harness.Def) and handed to the harness by harness.Typed:
//
//	smoke/        "smoke": a Monte Carlo estimate of pi that checks the pipeline
//	data/         "datasets": Fig. 1 and 6, the grids
//	elastic/      "elastic": Fig. 2, BA vs LAP at a vulnerable and a strong location
//	bavslap/      "ba-vs-lap": Fig. 3, statistical utility of BA and LAP
//	convergence/  "privic-convergence": Fig. 7-9, Tables III-IV
//	betasweep/    "beta-sweep": Fig. 10
//	adversarial/  "adversarial": Fig. 11
//	timing/       "runtime": Table II
//	mechanisms/   "mechanisms": more mechanisms on equal footing
//	scale/        "scale": each kernel's time and memory against the number of cells
//	resolution/   "resolution": the paper's claims on its grids beside fine grids
//
// What several kinds share lives in internal/: param (the parameter checks,
// dataset names resolved in one place, the spec's datasets), island (the island prior and the
// statistics of one location), privic (the simulation of the PRIVIC
// method) and paper (the paper's numbers and names, keyed by its data
// sets).
//
// To add a kind, write its package (a harness.Def with About, NewParams,
// Plan, Run and Finish; its section's prose in an embedded template) and
// add it to All. Its Finish returns a harness.Section, which
// the harness writes and the report assembles; nothing else needs to know
// the kind.
package kinds

import (
	"privic/harness"
	"privic/harness/kinds/adversarial"
	"privic/harness/kinds/bavslap"
	"privic/harness/kinds/betasweep"
	"privic/harness/kinds/convergence"
	"privic/harness/kinds/data"
	"privic/harness/kinds/elastic"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/mechanisms"
	"privic/harness/kinds/resolution"
	"privic/harness/kinds/scale"
	"privic/harness/kinds/smoke"
	"privic/harness/kinds/timing"
)

// All returns every kind, in the order their sections appear in the
// report (the paper's order, then the extensions).
func All() []harness.Kind {
	return []harness.Kind{
		data.Kind(),
		elastic.Kind(),
		bavslap.Kind(),
		convergence.Kind(),
		betasweep.Kind(),
		adversarial.Kind(),
		timing.Kind(),
		mechanisms.Kind(),
		scale.Kind(),
		resolution.Kind(),
		smoke.Kind(),
	}
}

// Data is how the kinds read the datasets a spec declares in
// [datasets.NAME] tables (datasets.Decl, datasets.Catalog); give it to a
// Registry with WithData.
func Data() harness.Data { return param.Handler{} }

// Registry returns a registry of kinds that reads [datasets] tables.
func Registry(kinds ...harness.Kind) (*harness.Registry, error) {
	r, err := harness.NewRegistry(kinds...)
	if err != nil {
		return nil, err
	}
	return r.WithData(Data()), nil
}

// Names returns the kinds' names in the order of All.
func Names(kinds []harness.Kind) []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name()
	}
	return names
}
