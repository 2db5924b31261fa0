package kernels

import (
	"os"
	"path/filepath"
)

// sharedDir returns the project's shared data directory (../shared relative
// to the module root, found by walking up from the working directory to the
// directory holding go.mod), or "" with the reason when it is absent. Only
// the scale benchmarks' hotspot cities need it; the paper's cities come
// from the counts embedded in package datasets (cities_test.go).
func sharedDir() (string, string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", "cannot get working directory: " + err.Error()
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			shared := filepath.Join(dir, "..", "shared")
			if st, err := os.Stat(shared); err != nil || !st.IsDir() {
				return "", "shared data directory " + shared + " not found"
			}
			return shared, ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "no go.mod above " + wd
		}
		dir = parent
	}
}
