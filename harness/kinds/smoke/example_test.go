package smoke_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"privic/harness"
	"privic/harness/kinds/smoke"
)

// A spec run through the harness as `privic run` does: registry, strict
// loading, parallel jobs, the merged table and the kind's section.
func Example() {
	reg, err := harness.NewRegistry(smoke.Kind())
	if err != nil {
		panic(err)
	}
	spec, err := reg.Parse("pi.toml", []byte(`
kind = "smoke"
seed = 7
[params]
samples = [100000]
reps = 4
`))
	if err != nil {
		panic(err)
	}
	out, err := os.MkdirTemp("", "privic-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(out)
	res, err := harness.Run(context.Background(), []*harness.Spec{spec}, harness.RunOptions{Out: out, Jobs: 2})
	if err != nil {
		panic(err)
	}
	dir := res[0].Dir
	fmt.Printf("wrote %s/ under the output directory\n", res[0].Spec.Name)

	// Four estimates of pi from 10^5 points each: their mean lies within
	// a few standard errors (sd/2 here) of pi.
	o, err := harness.NewOutput(dir, nil)
	if err != nil {
		panic(err)
	}
	t, err := o.ReadTable("summary")
	if err != nil {
		panic(err)
	}
	rd, _ := t.Reader("samples", "reps", "mean", "sd_binomial")
	mean, sdModel := rd.Float(0, "mean"), rd.Float(0, "sd_binomial")
	fmt.Printf("%d estimates of %d points\n", rd.Int(0, "reps"), rd.Int(0, "samples"))
	fmt.Println("mean within 4 standard errors of pi:", math.Abs(mean-math.Pi) < 4*sdModel/2)

	sec, _, err := harness.ReadSection(dir)
	if err != nil {
		panic(err)
	}
	heading, _, _ := strings.Cut(sec.Markdown, "\n")
	fmt.Println("section:", heading)
	// Output:
	// wrote pi/ under the output directory
	// 4 estimates of 100000 points
	// mean within 4 standard errors of pi: true
	// section: ## Smoke test: Monte Carlo estimate of pi
}
