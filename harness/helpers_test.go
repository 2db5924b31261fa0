package harness_test

import (
	"os"
	"path/filepath"
	"testing"

	"privic/harness"
	"privic/harness/internal/testkind"
)

// registry returns a registry with the test kind (hooks from k if given).
func registry(t testing.TB, k *testkind.Hooks) *harness.Registry {
	t.Helper()
	if k == nil {
		k = &testkind.Hooks{}
	}
	reg, err := harness.NewRegistry(testkind.New(k))
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// writeSpec writes body to dir/file and returns its path.
func writeSpec(t testing.TB, dir, file, body string) string {
	t.Helper()
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustLoad(t testing.TB, reg *harness.Registry, path string) *harness.Spec {
	t.Helper()
	s, err := reg.Load(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return s
}
