package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"privic/internal/atomicfile"
)

// SNAPFile is the name under which fetch-data keeps the downloaded file in
// the cache, so that a second run does not download it again.
const SNAPFile = "loc-gowalla_totalCheckins.txt.gz"

// FetchOptions configures Fetch.
type FetchOptions struct {
	// URL of the SNAP file; empty means SNAPURL.
	URL string
	// SHA256 is the expected hex digest of the SNAP file. No verified
	// digest is known to this project, so there is no default: when empty
	// the file is not verified and the computed digest is reported, to be
	// pinned by whoever checks it.
	SHA256 string
	// From is a local copy of the SNAP file; when set nothing is
	// downloaded.
	From string
	// Dir receives the download (SNAPFile) and the subsets
	// (<city>_checkins.csv); normally datasets/cache under the module root.
	Dir string
	// Force downloads again even when Dir already holds SNAPFile.
	Force bool
	// Cities to cut; nil means every preset.
	Cities []City
	// Progress receives progress lines (nil: silent).
	Progress io.Writer
	// Client makes the request; nil means a client without timeout (the
	// file is large), cancelled through the context.
	Client *http.Client
}

// Subset is one city file written by BuildSubsets.
type Subset struct {
	City   string
	Path   string
	Points int
}

// FetchResult reports what Fetch did.
type FetchResult struct {
	Archive    string // the SNAP file read
	Downloaded bool   // false when an existing file was used
	SHA256     string // its computed digest
	Verified   bool   // the digest matched FetchOptions.SHA256
	Stats      SNAPStats
	Subsets    []Subset
}

// Fetch obtains the SNAP check-in file (downloading it unless From is set
// or Dir already holds it), checks its SHA-256 when an expected digest is
// given, and cuts the city subsets into Dir with BuildSubsets.
func Fetch(ctx context.Context, opt FetchOptions) (*FetchResult, error) {
	if opt.Dir == "" {
		return nil, errors.New("fetch: no output directory")
	}
	want := strings.ToLower(strings.TrimSpace(opt.SHA256))
	if want != "" {
		if b, err := hex.DecodeString(want); err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("fetch: expected SHA-256 %q is not 64 hex digits", opt.SHA256)
		}
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	res := &FetchResult{Archive: opt.From}
	var err error
	switch {
	case opt.From != "":
		res.SHA256, err = fileSHA256(opt.From)
	default:
		res.Archive = filepath.Join(opt.Dir, SNAPFile)
		_, statErr := os.Stat(res.Archive)
		if statErr == nil && !opt.Force {
			progressf(opt.Progress, "using %s (already downloaded; -force downloads again)\n", res.Archive)
			res.SHA256, err = fileSHA256(res.Archive)
		} else {
			if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
				return nil, fmt.Errorf("fetch: %w", statErr)
			}
			url := opt.URL
			if url == "" {
				url = SNAPURL
			}
			res.SHA256, err = download(ctx, opt.Client, url, res.Archive, want, opt.Progress)
			res.Downloaded = err == nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	if want != "" {
		if res.SHA256 != want {
			return nil, fmt.Errorf("fetch: %s has SHA-256 %s, expected %s", res.Archive, res.SHA256, want)
		}
		res.Verified = true
	}
	f, err := os.Open(res.Archive)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	defer f.Close()
	cities := opt.Cities
	if cities == nil {
		cities = Cities()
	}
	res.Stats, res.Subsets, err = BuildSubsets(f, res.Archive, cities, opt.Dir, opt.Progress)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	return res, nil
}

// download writes url to path through a temporary file, showing progress,
// and returns the hex SHA-256 of the bytes. A download whose digest does
// not match want (when want is set) is deleted, never renamed into place.
func download(ctx context.Context, client *http.Client, url, path, want string, progress io.Writer) (string, error) {
	if client == nil {
		client = &http.Client{}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Abort() // a no-op after Commit
	h := sha256.New()
	pw := &progressWriter{out: progress, what: "downloading " + url, total: resp.ContentLength, every: time.Second}
	_, err = io.Copy(io.MultiWriter(f, h, pw), resp.Body)
	pw.done()
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if want != "" && sum != want {
		return "", fmt.Errorf("download of %s has SHA-256 %s, expected %s (deleted)", url, sum, want)
	}
	if err := f.Commit(); err != nil {
		return "", err
	}
	return sum, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// BuildSubsets scans a SNAP file once and writes, for each city, the
// check-ins inside its box (bounds inclusive) to dir/<city>_checkins.csv
// as "lat,lon" lines with the coordinates' digits exactly as in the SNAP
// file, in file order. Files are written atomically. A city whose box keeps
// no check-in is an error naming the box, and then no file is replaced.
// The returned Stats.Kept counts every well-formed line; Subset.Points
// counts each city's.
func BuildSubsets(r io.Reader, name string, cities []City, dir string, progress io.Writer) (SNAPStats, []Subset, error) {
	if len(cities) == 0 {
		return SNAPStats{}, nil, errors.New("no cities to cut")
	}
	type out struct {
		city City
		f    *atomicfile.File
		n    int
	}
	outs := make([]*out, 0, len(cities))
	defer func() {
		for _, o := range outs {
			o.f.Abort() // a no-op after Commit
		}
	}()
	for _, c := range cities {
		if err := c.Validate(); err != nil {
			return SNAPStats{}, nil, err
		}
		f, err := atomicfile.Create(filepath.Join(dir, CheckinsFile(c.Name)))
		if err != nil {
			return SNAPStats{}, nil, err
		}
		outs = append(outs, &out{city: c, f: f})
	}
	last := time.Now()
	lines := 0
	st, err := ScanSNAP(r, name, func(c *Checkin) error {
		lines++
		if progress != nil && lines%(1<<20) == 0 && time.Since(last) > time.Second {
			last = time.Now()
			progressf(progress, "scanning %s: %d lines\n", name, lines)
		}
		for _, o := range outs {
			if !o.city.Box.Contains(c.Lat, c.Lon) {
				continue
			}
			o.n++
			o.f.Write(c.LatText) // errors are sticky in the buffer; Commit reports them
			o.f.WriteByte(',')
			o.f.Write(c.LonText)
			o.f.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return st, nil, err
	}
	progressf(progress, "scanned %s: %v\n", name, st)
	var empty []string
	for _, o := range outs {
		if o.n == 0 {
			empty = append(empty, fmt.Sprintf("%s (box %v)", o.city.Name, o.city.Box))
		}
	}
	if len(empty) > 0 {
		return st, nil, fmt.Errorf("%s: no check-in inside the box of %s", name, strings.Join(empty, "; "))
	}
	subsets := make([]Subset, 0, len(outs))
	for _, o := range outs {
		if err := o.f.Commit(); err != nil {
			return st, nil, err
		}
		dst := filepath.Join(dir, CheckinsFile(o.city.Name))
		subsets = append(subsets, Subset{City: o.city.Name, Path: dst, Points: o.n})
		progressf(progress, "wrote %s: %d check-ins\n", dst, o.n)
	}
	return st, subsets, nil
}

func progressf(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format, a...)
	}
}

// progressWriter counts bytes and prints a progress line at most once per
// interval, and a final one from done.
type progressWriter struct {
	out   io.Writer
	what  string
	total int64 // -1 when unknown
	n     int64
	every time.Duration
	last  time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	if p.out != nil && time.Since(p.last) >= p.every {
		p.last = time.Now()
		p.print()
	}
	return len(b), nil
}

func (p *progressWriter) print() {
	const mib = 1 << 20
	if p.total > 0 {
		fmt.Fprintf(p.out, "%s: %.1f / %.1f MiB (%.0f%%)\n", p.what, float64(p.n)/mib, float64(p.total)/mib, 100*float64(p.n)/float64(p.total))
	} else {
		fmt.Fprintf(p.out, "%s: %.1f MiB\n", p.what, float64(p.n)/mib)
	}
}

func (p *progressWriter) done() {
	if p.out != nil {
		p.print()
	}
}
