package harness_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"privic/harness"
)

// TestJobSeedDefinition recomputes the documented derivation
// independently: SHA-256(seed as 8 big-endian bytes || key).
func TestJobSeedDefinition(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		key  string
	}{{0, "a"}, {42, "city=paris/beta=0.2/sim=3"}, {1<<63 - 1, "x"}} {
		buf := make([]byte, 8, 8+len(c.key))
		binary.BigEndian.PutUint64(buf, c.seed)
		sum := sha256.Sum256(append(buf, c.key...))
		want := [2]uint64{binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])}
		if got := harness.JobSeed(c.seed, c.key); got != want {
			t.Errorf("JobSeed(%d, %q) = %v, want %v", c.seed, c.key, got, want)
		}
		a, b := harness.JobRand(c.seed, c.key), rand.New(rand.NewPCG(want[0], want[1]))
		for range 10 {
			if a.Uint64() != b.Uint64() {
				t.Fatal("JobRand is not PCG(JobSeed)")
			}
		}
	}
	if harness.JobSeed(1, "k") == harness.JobSeed(2, "k") || harness.JobSeed(1, "k") == harness.JobSeed(1, "k2") {
		t.Error("seeds collide")
	}
}

func TestPlanSeedsAndOrder(t *testing.T) {
	reg := registry(t, nil)
	s := mustLoad(t, reg, writeSpec(t, t.TempDir(), "p.toml", "kind = \"testkind\"\nseed = 7\n[params]\nbeta = [2, 1]\nreps = 2\n"))
	jobs, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i, j := range jobs {
		keys = append(keys, j.Key)
		if j.Index != i || j.Seed != harness.JobSeed(7, j.Key) {
			t.Errorf("job %d: index %d seed %v", i, j.Index, j.Seed)
		}
	}
	if got := strings.Join(keys, " "); got != "beta=2/rep=0 beta=2/rep=1 beta=1/rep=0 beta=1/rep=1" {
		t.Errorf("plan order %s", got)
	}
}

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want harness.Shard
	}{{"0/1", harness.Shard{0, 1}}, {"3/4", harness.Shard{3, 4}}, {" 1 / 2 ", harness.Shard{1, 2}}} {
		got, err := harness.ParseShard(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v", c.in, got, err)
		}
	}
	for _, bad := range []string{"", "1", "4/4", "-1/4", "1/0", "a/b", "1/2/3", "0/-1"} {
		if _, err := harness.ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	// The shards of a plan partition it.
	for n := 1; n <= 5; n++ {
		for i := range 23 {
			hits := 0
			for k := range n {
				if (harness.Shard{Index: k, Count: n}).Contains(i) {
					hits++
				}
			}
			if hits != 1 {
				t.Fatalf("job %d is in %d of %d shards", i, hits, n)
			}
		}
	}
}

// badPlanKind plans whatever keys it is given.
type badPlanKind struct {
	keys  []string
	panic bool
}

type noParams struct{}

func (noParams) Validate() error { return nil }

func (k *badPlanKind) Name() string              { return "badplan" }
func (k *badPlanKind) Describe() string          { return "plans bad keys" }
func (k *badPlanKind) Outputs() []string         { return nil }
func (k *badPlanKind) NewParams() harness.Params { return &noParams{} }
func (k *badPlanKind) Finish(context.Context, harness.Params, *harness.Output) (harness.Section, error) {
	return harness.Section{}, nil
}
func (k *badPlanKind) Run(context.Context, harness.Job, *rand.Rand) ([]harness.Table, error) {
	return nil, nil
}
func (k *badPlanKind) Plan(harness.Params) ([]harness.Job, error) {
	if k.panic {
		panic("plan exploded")
	}
	var jobs []harness.Job
	for _, key := range k.keys {
		jobs = append(jobs, harness.Job{Key: key})
	}
	return jobs, nil
}

func TestPlanErrors(t *testing.T) {
	for _, c := range []struct {
		kind *badPlanKind
		want string
	}{
		{&badPlanKind{}, "params give no jobs"},
		{&badPlanKind{keys: []string{"a", "b", "a"}}, `jobs 0 and 2 have the same key "a"`},
		{&badPlanKind{keys: []string{"a", ""}}, "planned job 1 with an empty key"},
		{&badPlanKind{keys: []string{"a\nb"}}, "keys are one line"},
		{&badPlanKind{panic: true}, "panic: plan exploded"},
	} {
		reg, err := harness.NewRegistry(c.kind)
		if err != nil {
			t.Fatal(err)
		}
		s := mustLoad(t, reg, writeSpec(t, t.TempDir(), "b.toml", "kind = \"badplan\"\n"))
		_, err = s.Plan()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), s.Path+": ") {
			t.Errorf("Plan error %v, want %q", err, c.want)
		}
	}
}
