package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestModuleRoot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module privic\n\ngo 1.26\n")
	deep := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// A go.mod of another module on the way up is not ours.
	writeFile(t, filepath.Join(dir, "a", "go.mod"), "module example.com/other\n")
	root, err := ModuleRoot(deep)
	if err != nil || root != dir {
		t.Fatalf("ModuleRoot(%s) = %q, %v; want %q", deep, root, err, dir)
	}
	if _, err := ModuleRoot(filepath.Join(dir, "..")); err == nil {
		t.Error("found a module root above the test module")
	}
}

func TestDataDirsOrder(t *testing.T) {
	got := DataDirs("/m", "/env")
	want := []string{"/env", filepath.FromSlash("/m/datasets/cache"), filepath.FromSlash("/shared/datasets/gowalla")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DataDirs = %q, want %q", got, want)
	}
	if got := DataDirs("", ""); len(got) != 0 {
		t.Errorf("DataDirs without root or env = %q", got)
	}
}

func TestFindPoints(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	dirs := []string{d1, d2}
	_, err := FindPoints("paris", dirs)
	if !errors.Is(err, ErrNoPoints) || !strings.Contains(err.Error(), d1) || !strings.Contains(err.Error(), d2) ||
		!strings.Contains(err.Error(), "paris_checkins.csv") {
		t.Fatalf("no file anywhere: %v, want ErrNoPoints listing %s and %s", err, d1, d2)
	}
	writeFile(t, filepath.Join(d2, "paris_checkins.csv"), "48.85,2.35\n")
	if p, err := FindPoints("paris", dirs); err != nil || p != filepath.Join(d2, "paris_checkins.csv") {
		t.Errorf("only in the second dir: %q, %v", p, err)
	}
	writeFile(t, filepath.Join(d1, "paris_checkins.csv"), "48.86,2.36\n48.87,2.37\n")
	lat, lon, src, err := PointsFrom("paris", dirs)
	if err != nil || src != filepath.Join(d1, "paris_checkins.csv") || !reflect.DeepEqual(lat, []float64{48.86, 48.87}) || len(lon) != 2 {
		t.Errorf("in both dirs: %v %v %q %v; want the first dir's", lat, lon, src, err)
	}
	if _, err := FindPoints("rome", dirs); err == nil || !strings.Contains(err.Error(), "paris, sf") {
		t.Errorf("unknown city: %v", err)
	}
	if _, err := FindPoints("sf", nil); !errors.Is(err, ErrNoPoints) || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("no dirs: %v", err)
	}
	// A directory of the file's name is not the file; a path that cannot
	// be a directory (a file in its place) is an error, not an absence.
	d3 := t.TempDir()
	if err := os.Mkdir(filepath.Join(d3, "paris_checkins.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := FindPoints("paris", []string{d3}); !errors.Is(err, ErrNoPoints) {
		t.Errorf("a directory named paris_checkins.csv: %v, want ErrNoPoints", err)
	}
	notDir := filepath.Join(d2, "paris_checkins.csv")
	if _, err := FindPoints("paris", []string{notDir, d1}); err == nil || errors.Is(err, ErrNoPoints) || !strings.Contains(err.Error(), "raw check-ins of paris: ") {
		t.Errorf("a file in place of a directory: %v, want the stat error", err)
	}
	writeFile(t, filepath.Join(d1, "sf_checkins.csv"), "37.78,-122.41\n37.78,abc\n")
	if _, _, _, err := PointsFrom("sf", dirs); err == nil || !strings.Contains(err.Error(), "sf_checkins.csv:2: longitude") {
		t.Errorf("malformed raw file: %v", err)
	}
}

func TestPointsEnvFirst(t *testing.T) {
	env := t.TempDir()
	writeFile(t, filepath.Join(env, "sf_checkins.csv"), "37.75,-122.45\n")
	t.Setenv(EnvData, env)
	lat, lon, src, err := Points("sf")
	if err != nil || src != filepath.Join(env, "sf_checkins.csv") || lat[0] != 37.75 || lon[0] != -122.45 {
		t.Fatalf("Points(sf) with $%s set: %v %v %q %v", EnvData, lat, lon, src, err)
	}
}

func TestPointsShared(t *testing.T) {
	dir := sharedGowalla(t)
	t.Setenv(EnvData, "")
	wd, _ := os.Getwd()
	root, _ := ModuleRoot(wd)
	if _, err := os.Stat(filepath.Join(CacheDir(root), "paris_checkins.csv")); err == nil {
		t.Skipf("SKIPPING: %s holds a fetched subset, which takes precedence over the shared one", CacheDir(root))
	}
	lat, lon, src, err := Points("paris")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "paris_checkins.csv"); filepath.Clean(src) != filepath.Clean(want) {
		t.Errorf("source %q, want %q", src, want)
	}
	if len(lat) != 10991 || len(lon) != 10991 {
		t.Errorf("%d points, README says 10991", len(lat))
	}
}

// TestPointsModuleCache: without $PRIVIC_DATA, Points finds the module
// root above the working directory and reads the fetched copy in its
// datasets/cache (a module tree of its own here).
func TestPointsModuleCache(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module privic\n")
	if err := os.MkdirAll(filepath.Join(root, "datasets", "cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "datasets", "cache", "sf_checkins.csv"), "37.75,-122.45\n37.76,-122.44\n")
	sub := filepath.Join(root, "experiments")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	t.Setenv(EnvData, "")
	lat, _, src, err := Points("sf")
	if err != nil || len(lat) != 2 || filepath.Base(filepath.Dir(src)) != "cache" {
		t.Errorf("Points(sf) = %v from %q, %v; want the 2 points of the module's cache", lat, src, err)
	}
}
