package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"privic/internal/atomicfile"
)

// Manifest is results/<name>/manifest.json: where a result came from and
// what it cost. Timings differ between runs; the tables do not.
type Manifest struct {
	Format      int    `json:"format"`
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	SpecFile    string `json:"spec_file"`
	SpecHash    string `json:"spec_hash"`
	// DataDir is the absolute directory against which the relative data
	// paths of the spec's [datasets] tables resolved (empty when it
	// declares none): a merge of shards, which reads the spec from its
	// copy, resolves them against it too.
	DataDir string `json:"data_dir,omitempty"`
	// Datasets are the titles of the datasets the experiment ran on
	// (DatasetTitler), for the report's headings; empty when its kind
	// does not say.
	Datasets   []string `json:"datasets,omitempty"`
	Seed       uint64   `json:"seed"`
	Shard      string   `json:"shard"`                 // "all" or "i/n"
	MergedFrom []string `json:"merged_from,omitempty"` // shard directories, for `privic merge`
	Env
	Parallelism   int       `json:"parallelism"` // -j
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	WallSeconds   float64   `json:"wall_seconds"`
	FinishSeconds float64   `json:"finish_seconds"`
	// PeakRSSBytes is the process's peak resident memory while the spec's
	// jobs ran (other specs' jobs of the same run included); 0: unknown.
	PeakRSSBytes int64       `json:"peak_rss_bytes,omitempty"`
	JobsComputed int         `json:"jobs_computed"`
	JobsReused   int         `json:"jobs_reused"`
	Jobs         []JobTiming `json:"jobs"`
	Tables       []string    `json:"tables"`
}

// JobTiming is one job's compute time; Reused jobs report the time of the
// run that computed them.
type JobTiming struct {
	Key     string  `json:"key"`
	Seconds float64 `json:"seconds"`
	Reused  bool    `json:"reused"`
}

// Env describes the machine and build, the context in which kernel
// timings are meaningful.
type Env struct {
	GitCommit  string            `json:"git_commit"`          // "unknown" outside a git checkout
	GitDirty   *bool             `json:"git_dirty,omitempty"` // uncommitted changes to tracked files outside results/
	GoVersion  string            `json:"go_version"`
	GOOS       string            `json:"goos"`
	GOARCH     string            `json:"goarch"`
	CPU        string            `json:"cpu"`
	CPUFlags   []string          `json:"cpu_flags,omitempty"` // SIMD features the kernels may use
	NumCPU     int               `json:"num_cpu"`
	GOMAXPROCS int               `json:"gomaxprocs"`
	Build      map[string]string `json:"build,omitempty"` // GOAMD64, GOEXPERIMENT, -tags, CGO_ENABLED, ...
	Hostname   string            `json:"hostname,omitempty"`
}

// CurrentEnv describes this process's machine and build (it asks git,
// so call it once per run, not per job).
func CurrentEnv(ctx context.Context) Env { return gatherEnv(ctx) }

func gatherEnv(ctx context.Context) Env {
	e := Env{
		GitCommit:  "unknown",
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		CPU:        "unknown",
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output(); err == nil {
		if c := strings.TrimSpace(string(out)); len(c) >= 40 {
			e.GitCommit = c
			// Changed results are not changed code: a second ./run.sh in a
			// clone whose results the first one rewrote is still clean.
			if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no", "--", ":/", ":(top,exclude)results").Output(); err == nil {
				dirty := len(strings.TrimSpace(string(st))) > 0
				e.GitDirty = &dirty
			}
		}
	}
	e.CPU, e.CPUFlags = cpuInfo()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "GOAMD64", "GOARM64", "GOARM", "GO386", "GOEXPERIMENT", "-tags", "CGO_ENABLED", "-gcflags", "-pgo":
				if e.Build == nil {
					e.Build = map[string]string{}
				}
				e.Build[s.Key] = s.Value
			}
		}
	}
	if h, err := os.Hostname(); err == nil {
		e.Hostname = h
	}
	return e
}

// simdFlags are the /proc/cpuinfo flags that matter to the kernels.
var simdFlags = []string{"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512vl", "asimd", "sve", "sve2"}

// cpuInfo reads the CPU model and its SIMD flags from /proc/cpuinfo.
func cpuInfo() (model string, flags []string) {
	model = "unknown"
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return model, nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	gotModel, gotFlags := false, false
	for sc.Scan() && !(gotModel && gotFlags) {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Model", "cpu model":
			if !gotModel && v != "" {
				model, gotModel = v, true
			}
		case "flags", "Features":
			if !gotFlags {
				have := strings.Fields(v)
				for _, s := range simdFlags {
					if slices.Contains(have, s) {
						flags = append(flags, s)
					}
				}
				gotFlags = true
			}
		}
	}
	return model, flags
}

func writeManifest(path string, m *Manifest) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// manifestDataDir reads the DataDir of the manifest in dir; "" when there
// is none.
func manifestDataDir(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return ""
	}
	var m struct {
		DataDir string `json:"data_dir"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	return m.DataDir
}
