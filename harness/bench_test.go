package harness_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"privic/harness"
)

// BenchmarkRunOverhead measures the harness's cost per job (planning,
// seeding, storing a record, merging) with a trivial job.
func BenchmarkRunOverhead(b *testing.B) {
	dir := b.TempDir()
	reg := registry(b, nil)
	spec := mustLoad(b, reg, writeSpec(b, dir, "exp.toml", "kind = \"testkind\"\n[params]\nbeta = {start = 1, stop = 100, step = 1}\nreps = 2\ndraws = 10\n"))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		if _, err := harness.Run(context.Background(), []*harness.Spec{spec}, harness.RunOptions{Out: out, Jobs: 2}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200/1e3, "µs/job")
}
