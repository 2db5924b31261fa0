package smoke_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"privic/harness"
	"privic/harness/kinds/smoke"
)

// TestSmokeEstimatesPi runs the kind through the harness and checks the
// estimates against pi: with 40 repetitions of 20000 points the mean's
// standard error is about 0.0018, so 5 standard errors is a test that
// fails only if the sampling or the pipeline is wrong (p < 1e-6).
func TestSmokeEstimatesPi(t *testing.T) {
	dir := t.TempDir()
	reg, err := harness.NewRegistry(smoke.Kind())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "smoke.toml")
	os.WriteFile(path, []byte("kind = \"smoke\"\nseed = 3\n[params]\nsamples = [100, 20000]\nreps = 40\n"), 0o644)
	s, err := reg.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := harness.Run(context.Background(), []*harness.Spec{s}, harness.RunOptions{Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "smoke", "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || lines[0] != "samples,reps,mean,sd,sd_binomial,pi" {
		t.Fatalf("summary.csv:\n%s", b)
	}
	f := strings.Split(lines[2], ",")
	mean, _ := strconv.ParseFloat(f[2], 64)
	sd, _ := strconv.ParseFloat(f[3], 64)
	q := math.Pi / 4
	model := 4 * math.Sqrt(q*(1-q)/20000)
	if se := model / math.Sqrt(40); math.Abs(mean-math.Pi) > 5*se {
		t.Errorf("mean of 40 estimates %v is %.2g standard errors from pi", mean, math.Abs(mean-math.Pi)/se)
	}
	// The sample sd of 40 estimates is within 40% of the model's: for a
	// correct sampler, 39*(sd/model)^2 is chi-square with 39 degrees of
	// freedom, outside [0.36*39, 1.96*39] with probability about 4e-4.
	if sd < 0.6*model || sd > 1.4*model {
		t.Errorf("sd %v, binomial model %v", sd, model)
	}
	for _, bad := range []string{"samples = [0]", "samples = [1.5]", "reps = 1", "samples = [2e8]"} {
		os.WriteFile(path, []byte("kind = \"smoke\"\n[params]\n"+bad+"\n"), 0o644)
		if _, err := reg.Load(path); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
