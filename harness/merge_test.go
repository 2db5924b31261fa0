package harness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"privic/harness"
	"privic/harness/internal/testkind"
)

// TestShardsMergeToOneRun: three shards run separately (as three tasks
// of a job array) and merged give the same bytes as one run.
func TestShardsMergeToOneRun(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "exp.toml", runSpec)
	reg := registry(t, nil)
	whole := filepath.Join(dir, "whole")
	mustRun(t, reg, spec, whole, harness.RunOptions{})

	var shardDirs []string
	total := 0
	for i := range 3 {
		sd := filepath.Join(dir, fmt.Sprint("shard", i))
		shardDirs = append(shardDirs, sd)
		res := mustRun(t, reg, spec, sd, harness.RunOptions{Shard: harness.Shard{Index: i, Count: 3}, Jobs: 1 + i})
		m := res[0].Manifest
		if m.Shard != fmt.Sprintf("%d/3", i) || len(m.Tables) != 0 {
			t.Errorf("shard %d manifest: shard %q tables %v", i, m.Shard, m.Tables)
		}
		if _, err := os.Stat(filepath.Join(sd, "exp", "means.csv")); err == nil {
			t.Errorf("shard %d wrote merged tables (Finish must not run on a shard)", i)
		}
		total += countJobs(sd)
	}
	if total != 20 {
		t.Fatalf("shards stored %d jobs, the plan has 20", total)
	}

	merged := filepath.Join(dir, "merged")
	res, err := harness.Merge(context.Background(), reg, shardDirs, harness.RunOptions{Out: merged})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, tree(t, whole), tree(t, merged))
	if m := res[0].Manifest; len(m.MergedFrom) != 3 || m.JobsReused != 20 || m.Shard != "all" {
		t.Errorf("merge manifest: %+v", m)
	}
	if countJobs(merged) != 20 {
		t.Error("merged directory does not hold every job record")
	}
	// The merged directory is a complete run: a run there computes nothing.
	var ran atomic.Int64
	mustRun(t, registry(t, &testkind.Hooks{OnRun: func(string) { ran.Add(1) }}), spec, merged, harness.RunOptions{})
	if ran.Load() != 0 {
		t.Errorf("run after merge computed %d jobs", ran.Load())
	}
	// Merging into one of the shards' own directories works too.
	if _, err := harness.Merge(context.Background(), reg, shardDirs, harness.RunOptions{Out: shardDirs[0]}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, tree(t, whole), tree(t, shardDirs[0]))
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	reg := registry(t, nil)
	spec := writeSpec(t, dir, "exp.toml", runSpec)
	s0, s1 := filepath.Join(dir, "s0"), filepath.Join(dir, "s1")
	mustRun(t, reg, spec, s0, harness.RunOptions{Shard: harness.Shard{Index: 0, Count: 2}})
	out := filepath.Join(dir, "out")
	_, err := harness.Merge(context.Background(), reg, []string{s0}, harness.RunOptions{Out: out})
	if err == nil || !strings.Contains(err.Error(), "merge: exp: 10 of 20 jobs are in no shard (first: beta=0.5/rep=1)") {
		t.Errorf("missing shard: %v", err)
	}
	other := writeSpec(t, dir, "exp.toml", strings.Replace(runSpec, "seed = 11", "seed = 99", 1))
	mustRun(t, reg, other, s1, harness.RunOptions{Shard: harness.Shard{Index: 1, Count: 2}})
	_, err = harness.Merge(context.Background(), reg, []string{s0, s1}, harness.RunOptions{Out: out})
	if err == nil || !strings.Contains(err.Error(), "hold different specs for exp") {
		t.Errorf("mixed specs: %v", err)
	}
	_, err = harness.Merge(context.Background(), reg, []string{dir}, harness.RunOptions{Out: out})
	if err == nil || !strings.Contains(err.Error(), "holds no experiment directories") {
		t.Errorf("not a shard dir: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed merge wrote its output directory")
	}
}
