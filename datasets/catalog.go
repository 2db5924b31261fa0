package datasets

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"privic/kernels"
)

// Catalog is the datasets a spec can name: the presets (paris and sf,
// served from the embedded counts) and the datasets the spec declares in
// [datasets.NAME] tables. NewCatalog reads and grids every declared
// dataset once; Load then hands out the same read-only *Dataset to every
// caller. A Catalog is safe for concurrent use.
type Catalog struct {
	dir     string // relative paths of declarations resolve against it
	decls   map[string]*Decl
	data    map[string]*Dataset // the declared datasets
	sums    map[string]string   // SHA-256 of each declared dataset's file
	mu      sync.Mutex
	presets map[presetKey]*Dataset
}

type presetKey struct {
	name string
	rows RowPolicy
}

// DefaultName is the key of a per-dataset table that applies to the
// datasets without an entry of their own ({paris = 15, default = 10});
// no dataset may be called so.
const DefaultName = "default"

// datasetName is what a declared dataset may be called: exact, like spec
// names, since it becomes part of job keys, table rows and file names.
var datasetName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// Presets returns a catalog of the presets alone.
func Presets() *Catalog { return &Catalog{presets: map[presetKey]*Dataset{}} }

// NewCatalog checks the declarations (keyed by name), reads their files
// (paths relative to dir; $PRIVIC_DATA and a leading ~ expand) and grids
// them. Errors are one line starting with the table's key
// ("datasets.mine.cell_m = 0: ..."), naming the file and line where the
// data is at fault.
func NewCatalog(dir string, decls map[string]*Decl) (*Catalog, error) {
	c := &Catalog{dir: dir, decls: map[string]*Decl{}, data: map[string]*Dataset{}, sums: map[string]string{},
		presets: map[presetKey]*Dataset{}}
	for _, name := range slices.Sorted(maps.Keys(decls)) {
		d := decls[name]
		key := "datasets." + name
		switch {
		case !datasetName.MatchString(name):
			return nil, fmt.Errorf("%s: dataset names use only a-z, 0-9 and '-' (at most 40 characters, starting with a letter or digit)", key)
		case slices.Contains(CityNames(), name):
			return nil, fmt.Errorf("%s: declared twice: %q is a preset (the paper's data); give your dataset another name", key, name)
		case name == DefaultName:
			return nil, fmt.Errorf("%s: %q is reserved (it is the key of per-dataset settings for the other datasets); choose another name", key, name)
		case d == nil:
			return nil, fmt.Errorf("%s: empty declaration", key)
		}
		if err := d.Validate(key); err != nil {
			return nil, err
		}
		ds, sum, err := c.load(name, d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		c.decls[name], c.data[name], c.sums[name] = d, ds, sum
	}
	return c, nil
}

// Names lists the datasets: the presets in their order, then the
// declared ones by name.
func (c *Catalog) Names() []string {
	return append(CityNames(), slices.Sorted(maps.Keys(c.decls))...)
}

// IsPreset reports whether name is a preset.
func (c *Catalog) IsPreset(name string) bool { return slices.Contains(CityNames(), name) }

// Check returns nil when name is a dataset of the catalog, or an error
// listing the known ones.
func (c *Catalog) Check(name string) error {
	if c.IsPreset(name) {
		return nil
	}
	if _, ok := c.decls[name]; ok {
		return nil
	}
	return fmt.Errorf("unknown dataset %q: known datasets are %s (names are exact; declare others in [datasets.NAME])", name, strings.Join(c.Names(), ", "))
}

// Load returns the dataset called name. rows applies to the presets
// only (the reference code's header quirk); declared datasets are what
// their files say.
func (c *Catalog) Load(name string, rows RowPolicy) (*Dataset, error) {
	if ds, ok := c.data[name]; ok {
		return ds, nil
	}
	if err := c.Check(name); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := presetKey{name, rows}
	if ds, ok := c.presets[k]; ok {
		return ds, nil
	}
	ds, err := Load(name, LoadOptions{Rows: rows})
	if err != nil {
		return nil, err
	}
	c.presets[k] = ds
	return ds, nil
}

// Title is the dataset's name for figures and prose ("San Francisco"),
// or its name when it has none (or is unknown).
func (c *Catalog) Title(name string) string {
	if city, err := Lookup(name); err == nil && city.Title != "" {
		return city.Title
	}
	if d, ok := c.decls[name]; ok && d.Title != "" {
		return d.Title
	}
	return name
}

// Fingerprint identifies what the spec declares: the declarations as
// written and the SHA-256 of every file they read, so that a changed
// data file changes it. It is "" when the catalog declares nothing.
func (c *Catalog) Fingerprint() string {
	if len(c.decls) == 0 {
		return ""
	}
	type entry struct {
		Decl   *Decl  `json:"decl"`
		SHA256 string `json:"sha256,omitempty"`
	}
	doc := map[string]entry{}
	for n, d := range c.decls {
		doc[n] = entry{d, c.sums[n]}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		// Decl marshals plain values only; this cannot happen.
		panic("datasets: fingerprint: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// PointsSource is where a dataset's raw check-in points are: the file,
// the path as the spec declares it (or the file for a preset), its format
// and the region whose points the dataset keeps.
type PointsSource struct {
	Path, Declared string
	Format         PointsFormat
	Region         Box
}

// PointsFile returns where a dataset's raw check-in points are: for a
// declared points dataset its file, for a preset the first
// <city>_checkins.csv of dirs (see DataDirs). ok is false for counts and
// synthetic datasets; err wraps ErrNoPoints when a preset's file is
// nowhere to be found.
func (c *Catalog) PointsFile(name string, dirs []string) (src PointsSource, ok bool, err error) {
	if c.IsPreset(name) {
		city, _ := Lookup(name)
		p, err := FindPoints(name, dirs)
		return PointsSource{Path: p, Declared: p, Format: PointsFormat{Lat: ColumnAt(0), Lon: ColumnAt(1)}, Region: city.Box}, err == nil, err
	}
	d, known := c.decls[name]
	if !known || d.Points == "" {
		return PointsSource{}, false, nil
	}
	p, err := expandPath(d.Points, c.dir)
	return PointsSource{Path: p, Declared: d.Points, Format: d.pointsFormat(), Region: c.data[name].Frame.Region}, err == nil, err
}

// load reads and grids one declaration; it returns the dataset and the
// SHA-256 of the file it read ("" for synthetic data).
func (c *Catalog) load(name string, d *Decl) (*Dataset, string, error) {
	var ds *Dataset
	var sum string
	var err error
	switch d.source() {
	case "points":
		ds, sum, err = c.loadPoints(name, d)
	case "counts":
		ds, sum, err = c.loadCounts(name, d)
	default:
		ds, err = loadSynthetic(name, d)
	}
	if err != nil {
		return nil, "", err
	}
	ds.Title = d.Title
	if ds.Title == "" {
		ds.Title = name
	}
	if d.CellM != nil && ds.CellM == 0 {
		ds.CellM, ds.CellHeightM, ds.CellWidthM = *d.CellM, *d.CellM, *d.CellM
	}
	if ds.Places, err = resolvePlaces(d.Places, ds); err != nil {
		return nil, "", err
	}
	return ds, sum, nil
}

// resolvePlaces turns the declared places into cells of ds's grid, by
// name.
func resolvePlaces(decl map[string]PlaceDecl, ds *Dataset) ([]Place, error) {
	var out []Place
	for _, n := range slices.Sorted(maps.Keys(decl)) {
		p := decl[n]
		r, col := p.Row, p.Col
		if !p.IsCell {
			var ok bool
			if r, col, ok = ds.Frame.Locate(p.Lat, p.Lon); !ok {
				return nil, fmt.Errorf("places.%s = %v lies outside the region %v", n, p, ds.Frame.Region)
			}
		}
		if ds.Grid.IndexOf(r, col) < 0 {
			return nil, fmt.Errorf("places.%s = %v: outside the grid of %d x %d cells", n, p, ds.Grid.Rows, ds.Grid.Cols)
		}
		about := "declared as " + p.String()
		out = append(out, Place{Name: n, Row: r, Col: col, About: about})
	}
	return out, nil
}

// expandPath resolves a declared path: a leading ~ is the home
// directory, $PRIVIC_DATA (or ${PRIVIC_DATA}) the value of that variable
// (relative to the working directory when relative), and a relative
// result is relative to dir. A path that starts with
// $PRIVIC_DATA/ while the variable is unset is looked up where the
// datasets kind looks for raw check-ins (DataDirs: datasets/cache and the
// shared data directory beside the module containing dir), so that specs
// on the raw Gowalla points run without setting the variable.
func expandPath(p, dir string) (string, error) {
	for _, v := range []string{"${" + EnvData + "}", "$" + EnvData} {
		if strings.Contains(p, v) {
			val := os.Getenv(EnvData)
			if val == "" {
				return searchDataDirs(p, v, dir)
			}
			// A relative value is relative to the working directory,
			// as the shell that set it has it, not to the spec.
			if abs, err := filepath.Abs(val); err == nil {
				val = abs
			}
			p = strings.ReplaceAll(p, v, val)
		}
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// searchDataDirs resolves p = v/rest (v the spelling of $PRIVIC_DATA in
// p) with the variable unset: the first DataDirs entry of the module
// containing dir that holds rest, else an error saying where it looked.
func searchDataDirs(p, v, dir string) (string, error) {
	rest, ok := strings.CutPrefix(p, v+"/")
	root, err := ModuleRoot(dir)
	if !ok || err != nil {
		return "", fmt.Errorf("%s uses $%s, which is not set", p, EnvData)
	}
	dirs := DataDirs(root, "")
	for _, d := range dirs {
		cand := filepath.Join(d, filepath.FromSlash(rest))
		if st, err := os.Stat(cand); err == nil && st.Mode().IsRegular() {
			return cand, nil
		}
	}
	return "", fmt.Errorf("%s uses $%s, which is not set, and %s is in none of %s", p, EnvData, rest, strings.Join(dirs, ", "))
}

// scanFile streams a points file; with h it also hashes every byte of
// the file.
func scanFile(path string, f PointsFormat, h hash.Hash, fn func(lat, lon, w float64) error) (PointStats, error) {
	fh, err := os.Open(path)
	if err != nil {
		return PointStats{}, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	defer fh.Close()
	var r io.Reader = fh
	if h != nil {
		r = io.TeeReader(fh, h)
	}
	st, err := ScanPoints(r, path, f, fn)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return st, fmt.Errorf("%s: truncated: the file ends in the middle of its compressed stream (after line %d)", path, st.Lines)
	}
	if err != nil {
		return st, err
	}
	if h != nil {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return st, fmt.Errorf("%s: %w", path, err)
		}
	}
	return st, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// extent is the bounding box of the points added to it.
type extent struct {
	box   Box
	empty bool
}

func newExtent() extent { return extent{empty: true} }

func (e *extent) add(lat, lon float64) {
	if e.empty {
		e.box, e.empty = Box{lat, lat, lon, lon}, false
		return
	}
	e.box = Box{min(e.box.LatMin, lat), max(e.box.LatMax, lat), min(e.box.LonMin, lon), max(e.box.LonMax, lon)}
}

// overlaps reports whether boxes a and b share a point.
func overlaps(a, b Box) bool {
	return a.LatMin <= b.LatMax && b.LatMin <= a.LatMax && a.LonMin <= b.LonMax && b.LonMin <= a.LonMax
}

// swapped is b with latitude and longitude exchanged.
func swapped(b Box) Box { return Box{b.LonMin, b.LonMax, b.LatMin, b.LatMax} }

// readWords says what a scan read: rows, and the weight when it is not
// the number of rows.
func readWords(st PointStats, weighted bool) string {
	s := fmt.Sprintf("%d rows read", st.Rows)
	if st.Malformed > 0 {
		s += fmt.Sprintf(" (%d malformed lines skipped)", st.Malformed)
	}
	if weighted {
		s += ", weight " + FormatWeight(st.Weight)
	}
	return s
}

// FormatWeight writes a weight: whole numbers as integers, others with
// up to 6 significant digits.
func FormatWeight(w float64) string {
	if w == math.Trunc(w) && math.Abs(w) < 1e15 {
		return strconv.FormatFloat(w, 'f', 0, 64)
	}
	return strconv.FormatFloat(w, 'g', 6, 64)
}

// emptyRegionError says that no weight of a points file lies in the
// region, what was read, where the points are, and whether the region
// and the points would meet with latitude and longitude swapped.
func emptyRegionError(path string, region Box, st PointStats, weighted bool, ext extent) error {
	msg := fmt.Sprintf("%s: no check-in inside the region %v: %s, none inside it", path, region, readWords(st, weighted))
	if ext.empty {
		return fmt.Errorf("%s (every weight is 0)", msg)
	}
	msg += fmt.Sprintf("; the points span %v", ext.box)
	if overlaps(swapped(region), ext.box) {
		msg += "; with latitude and longitude swapped they would meet: check that bbox is [lat_min, lat_max, lon_min, lon_max] and that lat_column and lon_column are not exchanged"
	}
	return errors.New(msg)
}

// loadPoints grids a points file: a first pass finds the region when the
// declaration gives no bbox, the second counts the check-ins per cell.
func (c *Catalog) loadPoints(name string, d *Decl) (*Dataset, string, error) {
	path, err := expandPath(d.Points, c.dir)
	if err != nil {
		return nil, "", fmt.Errorf("points: %w", err)
	}
	pf := d.pointsFormat()
	// The file is hashed on the first pass over it.
	h := sha256.New()
	pass2 := hash.Hash(h)
	var region Box
	if d.BBox != nil {
		region = d.box()
	} else {
		ext := newExtent()
		st, err := scanFile(path, pf, h, func(lat, lon, w float64) error {
			if w > 0 {
				ext.add(lat, lon)
			}
			return nil
		})
		if err != nil {
			return nil, "", err
		}
		if ext.empty {
			return nil, "", fmt.Errorf("%s: no check-ins: %s", path, readWords(st, pf.HasWeight))
		}
		region, pass2 = ext.box, nil
	}
	cell := d.cellSpec()
	frame, err := NewFrame(region, cell)
	if err != nil {
		return nil, "", err
	}
	g := kernels.Grid{Rows: frame.Rows(), Cols: frame.Cols()}
	if err := g.Validate(); err != nil {
		return nil, "", fmt.Errorf("region %v in cells of %s: %w; give larger cells or a smaller bbox", region, cell, err)
	}
	weights := make([]float64, g.Len())
	var kept, dropped float64
	rowsKept := 0
	ext := newExtent()
	st, err := scanFile(path, pf, pass2, func(lat, lon, w float64) error {
		if w > 0 {
			ext.add(lat, lon)
		}
		r, col, ok := frame.Locate(lat, lon)
		if !ok {
			dropped += w
			return nil
		}
		weights[r*g.Cols+col] += w
		kept += w
		rowsKept++
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if kept == 0 {
		return nil, "", emptyRegionError(path, region, st, pf.HasWeight, ext)
	}
	read := ReadStats{Rows: st.Rows, Malformed: st.Malformed, RowsKept: rowsKept, Weight: st.Weight, WeightKept: kept,
		WeightDropped: dropped, Weighted: pf.HasWeight, Fractional: st.Fractional}
	counts, n, err := countsOf(weights, kept, d.Checkins, &read)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	hm, wm := frame.CellSize()
	if cell.M != 0 {
		hm, wm = cell.M, cell.M // exact, not from the rounded edges
	}
	ds := &Dataset{
		Name: name, Grid: g, Counts: counts, N: n,
		Source: fmt.Sprintf("%s (%s), %v, cells of %s", d.Points, st.Dialect(pf.Decimal), region, cell),
		CellM:  CellM(hm, wm), CellHeightM: hm, CellWidthM: wm, Frame: frame, Read: read,
	}
	return ds, hex.EncodeToString(h.Sum(nil)), nil
}

// countsOf turns the per-cell weights (total kept) into whole check-in
// counts. Whole weights are their own counts unless a number of
// check-ins is declared; otherwise the weights are apportioned to N
// check-ins (declared, or the total rounded) by largest remainders, ties
// to the lower cell index, and read records the rounding.
func countsOf(weights []float64, kept float64, declared *int, read *ReadStats) ([]int, int, error) {
	read.Checkins = int(math.Round(read.Weight))
	read.Dropped = int(math.Round(read.WeightDropped))
	if declared == nil && !read.Fractional {
		counts := make([]int, len(weights))
		for i, w := range weights {
			counts[i] = int(w)
		}
		read.Kept = int(kept)
		return counts, int(kept), nil
	}
	n := int(math.Round(kept))
	if declared != nil {
		n = *declared
	}
	if n < 1 {
		return nil, 0, fmt.Errorf("the kept weight %s rounds to 0 check-ins: give checkins = N, the number of check-ins the weights stand for", FormatWeight(kept))
	}
	counts := apportion(weights, kept, n)
	tv := 0.0
	for i, w := range weights {
		tv += math.Abs(w/kept - float64(counts[i])/float64(n))
	}
	read.Kept, read.Apportioned, read.Rounding = n, true, tv/2
	return counts, n, nil
}

// apportion divides n among the cells in proportion to their weights
// (total sum > 0) by the largest-remainder method: each cell gets the
// integer part of its quota n w/sum, and the check-ins left go one each
// to the largest remainders, ties to the lower index.
func apportion(weights []float64, sum float64, n int) []int {
	counts := make([]int, len(weights))
	rem := make([]float64, len(weights))
	left := n
	for i, w := range weights {
		q := w / sum * float64(n)
		f := math.Floor(q)
		counts[i], rem[i] = int(f), q-f
		left -= int(f)
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for k := 0; left > 0 && k < len(order); k++ {
		if weights[order[k]] > 0 {
			counts[order[k]]++
			left--
		}
	}
	return counts
}

// loadCounts reads a counts file: the header "row,col,count", then one
// line per cell of the grid (cells left out count 0).
func (c *Catalog) loadCounts(name string, d *Decl) (*Dataset, string, error) {
	path, err := expandPath(d.Counts, c.dir)
	if err != nil {
		return nil, "", fmt.Errorf("counts: %w", err)
	}
	g := kernels.Grid{Rows: d.Grid[0], Cols: d.Grid[1]}
	if err := g.Validate(); err != nil {
		return nil, "", fmt.Errorf("grid = %v: %w", d.Grid, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	h := sha256.New()
	counts := make([]int, g.Len())
	seen := make([]bool, g.Len())
	n, header := 0, false
	var fields [3][]byte
	err = eachLine(io.TeeReader(f, h), path, func(line []byte, tooLong bool, no int) error {
		bad := func(format string, a ...any) error {
			return &LineError{File: path, Line: no, Msg: fmt.Sprintf(format, a...)}
		}
		if tooLong {
			return bad("line longer than %d bytes", maxLine)
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			return nil
		}
		if k := splitFields(line, ',', fields[:]); k != 3 {
			return bad("%d fields, want 3 (row,col,count)", k)
		}
		if !header {
			if string(unquote(fields[0])) != "row" || string(unquote(fields[1])) != "col" || string(unquote(fields[2])) != "count" {
				return bad("header %q, want row,col,count", line)
			}
			header = true
			return nil
		}
		var v [3]int
		for i, what := range []string{"row", "col", "count"} {
			var msg string
			if v[i], msg = parseIndex(unquote(fields[i]), what); msg != "" {
				return bad("%s", msg)
			}
		}
		i := g.IndexOf(v[0], v[1])
		switch {
		case i < 0:
			return bad("cell (%d, %d) is outside the grid of %d x %d cells (rows 0-%d, cols 0-%d)", v[0], v[1], g.Rows, g.Cols, g.Rows-1, g.Cols-1)
		case seen[i]:
			return bad("cell (%d, %d) listed twice", v[0], v[1])
		case v[2] > maxWeight:
			return bad("count %d is larger than %d", v[2], int64(maxWeight))
		}
		seen[i], counts[i] = true, v[2]
		n += v[2]
		return nil
	})
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, "", fmt.Errorf("%s: truncated: the file ends in the middle of its compressed stream", path)
	}
	if err != nil {
		return nil, "", err
	}
	switch {
	case !header:
		return nil, "", fmt.Errorf("%s: empty: want the header row,col,count and one line per cell", path)
	case n == 0:
		return nil, "", fmt.Errorf("%s: no check-ins (every count is 0)", path)
	}
	ds := &Dataset{Name: name, Grid: g, Counts: counts, N: n, Source: fmt.Sprintf("%s (per-cell counts), %d x %d cells", d.Counts, g.Rows, g.Cols),
		Read: ReadStats{Rows: countNonZero(seen), Checkins: n, Kept: n}}
	return ds, hex.EncodeToString(h.Sum(nil)), nil
}

func countNonZero(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// loadSynthetic draws a synthetic city from its own stream, PCG seeded
// with (seed, 0).
func loadSynthetic(name string, d *Decl) (*Dataset, error) {
	s := d.Synthetic
	if s.Seed < 0 {
		return nil, fmt.Errorf("synthetic.seed = %d: must be >= 0", s.Seed)
	}
	ds, err := Synthetic(rand.New(rand.NewPCG(uint64(s.Seed), 0)), SyntheticOptions{
		Name: name, Rows: s.Rows, Cols: s.Cols, N: s.N, Hotspots: s.Hotspots, Sigma: s.Sigma,
		Background: s.Background, Spots: s.Spots,
	})
	if err != nil {
		return nil, err
	}
	ds.Read = ReadStats{Checkins: ds.N, Kept: ds.N}
	return ds, nil
}

// WriteCellCounts writes ds's per-cell counts as a counts file: the
// header "row,col,count", then every cell of the grid row-major (zeros
// included) in the grid's absolute indexing. A dataset declared with
// counts = that file and grid = [rows, cols] reads them back.
func WriteCellCounts(w io.Writer, ds *Dataset) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "row,col,count")
	for i, k := range ds.Counts {
		r, c := ds.Grid.Abs(i)
		fmt.Fprintf(bw, "%d,%d,%d\n", r, c, k)
	}
	return bw.Flush()
}
