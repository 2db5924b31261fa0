package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Merge joins the job stores of shard runs into opt.Out and completes each
// experiment as an unsharded run would (merged tables, Finish, manifest),
// so the tables are byte-identical to a run without shards. Each of
// shardDirs is the --out directory of a shard run (holding <name>/
// directories) or one experiment directory; the spec is read from the
// spec.toml the shard runs copied there, and must be the same in every
// shard. Every job of the plan must be found in some shard.
func Merge(ctx context.Context, reg *Registry, shardDirs []string, opt RunOptions) ([]Result, error) {
	opt = opt.withDefaults()
	opt.Shard = Shard{}
	if len(shardDirs) == 0 {
		return nil, errors.New("merge: no shard directories given")
	}
	groups := map[string][]string{} // experiment name -> its directories in the shards
	var names []string
	for _, sd := range shardDirs {
		dirs, err := experimentDirs(sd)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			n := filepath.Base(d)
			if _, ok := groups[n]; !ok {
				names = append(names, n)
			}
			groups[n] = append(groups[n], d)
		}
	}
	slices.Sort(names)

	// Check everything before writing anything.
	var runs []*specRun
	sources := map[*specRun][]string{}
	for _, n := range names {
		r, err := gatherShards(reg, n, groups[n], opt)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		sources[r] = groups[n]
	}
	env := CurrentEnv(ctx)
	con := newConsole(opt.Log, opt.ProgressEvery)
	defer unlockAll(runs)
	var results []Result
	for _, r := range runs {
		if err := r.openMerge(); err != nil {
			return nil, err
		}
		res, err := execute(ctx, []*specRun{r}, opt, con, env, sources[r])
		if err != nil {
			return nil, err
		}
		results = append(results, res...)
	}
	return results, nil
}

// experimentDirs lists the experiment directories (those holding a
// spec.toml) in dir, or dir itself if it is one.
func experimentDirs(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("merge: %s: %w", dir, unwrapPathError(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("merge: %s is not a directory", dir)
	}
	if isFile(filepath.Join(dir, specCopy)) {
		return []string{filepath.Clean(dir)}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && isFile(filepath.Join(dir, e.Name(), specCopy)) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("merge: %s holds no experiment directories (none has a %s)", dir, specCopy)
	}
	return out, nil
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// gatherShards loads the spec of experiment name from its shard copies
// and finds every job's record.
func gatherShards(reg *Registry, name string, dirs []string, opt RunOptions) (*specRun, error) {
	var spec *Spec
	for _, d := range dirs {
		path := filepath.Join(d, specCopy)
		data, err := readSpecFile(path)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		// Relative data paths resolve where the shard run found them.
		dataDir := manifestDataDir(d)
		if dataDir == "" {
			dataDir = specDir(path)
		}
		s, err := reg.parse(path, data, name, dataDir)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if spec == nil {
			spec = s
		} else if s.Hash != spec.Hash {
			return nil, fmt.Errorf("merge: %s and %s hold different specs for %s (hash %.12s vs %.12s): merge only shards of one run", spec.Path, s.Path, name, spec.Hash, s.Hash)
		}
	}
	if spec.Name != name {
		return nil, fmt.Errorf("merge: %s names the experiment %q but sits in %s", spec.Path, spec.Name, dirs[0])
	}
	jobs, err := spec.Plan()
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	r := &specRun{
		spec: spec, dir: filepath.Join(opt.Out, name), jobs: jobs, estimate: make([]int64, len(jobs)),
		recs: make([]*record, len(jobs)), reused: make([]bool, len(jobs)),
	}
	var missing []string
	for _, j := range jobs {
		for _, d := range dirs {
			if rec, _ := readRecord(filepath.Join(d, jobsDir, jobFileName(j.Key)), spec.Hash, j.Key); rec != nil {
				r.recs[j.Index], r.reused[j.Index] = rec, true
				break
			}
		}
		if r.recs[j.Index] == nil {
			missing = append(missing, j.Key)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: %s: %d of %d jobs are in no shard (first: %s); run the missing shards (or `privic run` the spec into %s) and merge again",
			name, len(missing), len(jobs), missing[0], strings.Join(dirs, ", "))
	}
	return r, nil
}

// openMerge prepares the merged directory and stores every record there,
// so it is a complete run directory (a later `privic run` reuses it).
func (r *specRun) openMerge() error {
	fail := func(err error) error { return fmt.Errorf("merge %s: %w", r.spec.Name, err) }
	if err := r.lockDirectory(); err != nil {
		return fail(err)
	}
	for _, j := range r.jobs {
		dst := filepath.Join(r.dir, jobsDir, jobFileName(j.Key))
		if rec, _ := readRecord(dst, r.spec.Hash, j.Key); rec != nil {
			continue // already there (the merged directory is one of the shards)
		}
		if err := writeRecord(dst, r.recs[j.Index]); err != nil {
			return fail(err)
		}
	}
	return nil
}
