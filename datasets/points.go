package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EnvData names the environment variable that points at a directory of
// raw check-in subsets (<city>_checkins.csv); it is searched first.
const EnvData = "PRIVIC_DATA"

// ErrNoPoints is returned (wrapped) by Points and FindPoints when no raw
// check-in file exists in any searched directory; callers that only need
// the points for a figure skip the figure and say why.
var ErrNoPoints = errors.New("datasets: raw check-ins not found")

// ModuleRoot walks up from dir to the directory holding the go.mod of
// module privic.
func ModuleRoot(dir string) (string, error) {
	start, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := start; ; {
		if isPrivicModule(filepath.Join(d, "go.mod")) {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod of module privic in %s or above", start)
		}
		d = up
	}
}

func isPrivicModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == "privic"
		}
	}
	return false
}

// SharedDir is where the project's shared inputs live relative to the
// module root: the sibling directory ../shared.
func SharedDir(root string) string { return filepath.Join(root, "..", "shared") }

// CacheDir is the git-ignored directory fetch-data fills.
func CacheDir(root string) string { return filepath.Join(root, "datasets", "cache") }

// DataDirs is the search order for raw check-ins: env (the value of
// $PRIVIC_DATA, skipped when empty), then, when the module root is known,
// datasets/cache/ and ../shared/datasets/gowalla.
func DataDirs(root, env string) []string {
	var dirs []string
	if env != "" {
		dirs = append(dirs, env)
	}
	if root != "" {
		dirs = append(dirs, CacheDir(root), filepath.Join(SharedDir(root), filepath.FromSlash(sharedSubdir)))
	}
	return dirs
}

// FindPoints returns the first dirs[i]/<city>_checkins.csv that exists.
// When none does, the error wraps ErrNoPoints and lists where it looked.
func FindPoints(city string, dirs []string) (string, error) {
	c, err := Lookup(city)
	if err != nil {
		return "", err
	}
	name := CheckinsFile(c.Name)
	for _, d := range dirs {
		p := filepath.Join(d, name)
		st, err := os.Stat(p)
		if err == nil && st.Mode().IsRegular() {
			return p, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("raw check-ins of %s: %w", c.Name, err)
		}
	}
	where := "nowhere (no $" + EnvData + " and no module root)"
	if len(dirs) > 0 {
		where = strings.Join(dirs, ", ")
	}
	return "", fmt.Errorf("%w: no %s in %s; set $%s, or run ./run.sh fetch-data on a machine with internet access",
		ErrNoPoints, name, where, EnvData)
}

// PointsFrom reads the raw check-ins of a city from the first directory of
// dirs that holds them, and returns the path it read.
func PointsFrom(city string, dirs []string) (lat, lon []float64, source string, err error) {
	p, err := FindPoints(city, dirs)
	if err != nil {
		return nil, nil, "", err
	}
	lat, lon, err = ReadPointsFile(p)
	if err != nil {
		return nil, nil, "", err
	}
	return lat, lon, p, nil
}

// Points returns the raw check-in points of a city (for the scatter of
// Fig. 6a), searching $PRIVIC_DATA, then datasets/cache/ and
// ../shared/datasets/gowalla relative to the module root found above the
// working directory. Without a module root only $PRIVIC_DATA is searched.
func Points(city string) (lat, lon []float64, source string, err error) {
	root := ""
	if wd, err := os.Getwd(); err == nil {
		if r, err := ModuleRoot(wd); err == nil {
			root = r
		}
	}
	return PointsFrom(city, DataDirs(root, os.Getenv(EnvData)))
}
