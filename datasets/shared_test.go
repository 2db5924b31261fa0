package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedGowalla returns ../shared/datasets/gowalla next to the module
// root, or skips the test loudly when it is absent.
func sharedGowalla(t *testing.T) string {
	t.Helper()
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(SharedDir(root), "datasets", "gowalla")
	if _, err := os.Stat(filepath.Join(dir, CellsFile("paris"))); err != nil {
		t.Skipf("SKIPPING: needs the shared Gowalla subsets in ../shared/datasets/gowalla next to the repository (%v)", err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
