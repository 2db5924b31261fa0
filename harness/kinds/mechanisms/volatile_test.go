package mechanisms

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"privic/harness"
)

// TestCompareLeavesOutJobsCutByTheTimeLimit: two runs of a mechanisms spec
// where the island prior's solve for the identification of A hit
// lp.time_limit at different levels (as happened between two runs of
// mechanisms-full on a loaded machine) compare equal; the other jobs'
// rows are still compared, and a difference there is still reported.
func TestCompareLeavesOutJobsCutByTheTimeLimit(t *testing.T) {
	const calHeader = "city,mechanism,calibration,level,status,missing\n"
	const lpHeader = "city,mechanism,calibration,level,prior,solve,primal,seconds\n"
	const skipHeader = "figure,reason\n"
	island := `"identification of A on the island prior: time limit: channel on the island prior: LP time limit reached"`
	write := func(dir string, files map[string]string) string {
		t.Helper()
		d := filepath.Join(t.TempDir(), dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		files["manifest.json"] = `{"kind": "mechanisms"}`
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	// Committed: the island solve of (eps, 0.25) was cut; fresh: that of
	// (distortion, 2). Each run lacks the cut job's island row in lp_solves.
	committed := write("committed", map[string]string{
		"calibration.csv": calHeader +
			"paris,optimal,eps,0.25,ok," + island + "\n" +
			"paris,optimal,distortion,2,ok,\n" +
			"paris,optimal,eps,1,ok,\n",
		"lp_solves.csv": lpHeader +
			"paris,optimal,eps,0.25,city,0,3.4,204\n" +
			"paris,optimal,distortion,2,city,0,1.9,50\n" +
			"paris,optimal,distortion,2,island,0,1.8,40\n" +
			"paris,optimal,eps,1,city,0,1.1,30\n" +
			"paris,optimal,eps,1,island,0,1.0,20\n",
		"skipped.csv": skipHeader + `"frontier.csv identification_A (paris, optimal, eps 0.25)",` + island + "\n",
	})
	fresh := func(eps1 string) string {
		return write("fresh", map[string]string{
			"calibration.csv": calHeader +
				"paris,optimal,eps,0.25,ok,\n" +
				"paris,optimal,distortion,2,ok," + island + "\n" +
				"paris,optimal,eps,1,ok,\n",
			"lp_solves.csv": lpHeader +
				"paris,optimal,eps,0.25,city,0,3.4,190\n" +
				"paris,optimal,eps,0.25,island,0,3.3,120\n" +
				"paris,optimal,distortion,2,city,0,1.9,55\n" +
				"paris,optimal,eps,1,city,0," + eps1 + ",31\n" +
				"paris,optimal,eps,1,island,0,1.0,22\n",
			"skipped.csv": skipHeader + `"frontier.csv identification_A (paris, optimal, distortion 2)",` + island + "\n",
		})
	}
	lookup := func(string) (harness.Kind, error) { return Kind(), nil }

	c, err := harness.Compare(committed, fresh("1.1"), harness.CompareOptions{Kinds: lookup})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Diffs) != 0 {
		t.Errorf("differences %v, want none: both cut jobs are left out", c.Diffs)
	}
	if !slices.ContainsFunc(c.Excluded, func(s string) bool { return strings.Contains(s, "lp_solves.csv: some rows") }) {
		t.Errorf("excluded %q: the cut jobs' LP solves are not listed", c.Excluded)
	}
	if c.Cells == 0 {
		t.Error("no cell compared: the jobs that were not cut must be")
	}

	c, err = harness.Compare(committed, fresh("1.2"), harness.CompareOptions{Kinds: lookup})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Diffs) != 1 || c.Diffs[0].Table != "lp_solves.csv" {
		t.Errorf("differences %v, want one in lp_solves.csv (eps 1 was not cut)", c.Diffs)
	}
}
