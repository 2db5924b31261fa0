package harness

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PlannedJob is a job with its place in the plan and its random seed.
type PlannedJob struct {
	Job
	// Index is the job's position in the plan: merged tables list rows
	// in this order, and shards split on it.
	Index int
	// Seed is the job's PCG seed, JobSeed(spec seed, key).
	Seed [2]uint64
}

// Rand returns a fresh random stream for the job.
func (p PlannedJob) Rand() *rand.Rand { return rand.New(rand.NewPCG(p.Seed[0], p.Seed[1])) }

// JobSeed derives a job's PCG seed from the spec seed and the job key:
// the first two big-endian 64-bit words of SHA-256(seed as 8 big-endian
// bytes || key). It depends on nothing else, so a job draws the same
// numbers whatever the order, parallelism or sharding of a run.
func JobSeed(specSeed uint64, key string) [2]uint64 {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], specSeed)
	h.Write(b[:])
	h.Write([]byte(key))
	sum := h.Sum(nil)
	return [2]uint64{binary.BigEndian.Uint64(sum[0:8]), binary.BigEndian.Uint64(sum[8:16])}
}

// JobRand is rand.New(rand.NewPCG(JobSeed(specSeed, key))), the stream
// a job's Run receives (handy in a kind's own tests).
func JobRand(specSeed uint64, key string) *rand.Rand {
	s := JobSeed(specSeed, key)
	return rand.New(rand.NewPCG(s[0], s[1]))
}

// Plan expands the spec into jobs with their seeds, in the kind's order.
// Keys must be non-empty, unique and on one line (they appear in error
// messages and in the job store).
func (s *Spec) Plan() ([]PlannedJob, error) {
	var jobs []Job
	err := safely(func() error {
		var err error
		jobs, err = s.Kind.Plan(s.Params)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %s", s.Path, oneLine(err.Error()))
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: params give no jobs: nothing to run", s.Path)
	}
	seen := make(map[string]int, len(jobs))
	out := make([]PlannedJob, len(jobs))
	for i, j := range jobs {
		switch {
		case j.Key == "":
			return nil, fmt.Errorf("%s: kind %s planned job %d with an empty key", s.Path, s.Kind.Name(), i)
		case !utf8.ValidString(j.Key) || strings.ContainsAny(j.Key, "\r\n\x00"):
			return nil, fmt.Errorf("%s: kind %s planned job %d with key %q: keys are one line of UTF-8", s.Path, s.Kind.Name(), i, j.Key)
		}
		if prev, dup := seen[j.Key]; dup {
			return nil, fmt.Errorf("%s: jobs %d and %d have the same key %q: keys must be unique", s.Path, prev, i, j.Key)
		}
		seen[j.Key] = i
		out[i] = PlannedJob{Job: j, Index: i, Seed: JobSeed(s.Seed, j.Key)}
	}
	return out, nil
}

// Shard selects a deterministic subset of a plan: job i belongs to shard
// i mod Count. The zero Shard (Count 0) is the whole plan.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 0/4 (i counts from 0)", s)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want 0 <= i < n and n >= 1", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Whole reports whether the shard is the whole plan.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Contains reports whether plan index i belongs to the shard.
func (s Shard) Contains(i int) bool { return s.Whole() || i%s.Count == s.Index }

func (s Shard) String() string {
	if s.Whole() {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}
