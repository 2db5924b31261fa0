package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// wantSubsets are the lines of snapSample inside each box.
var wantSubsets = map[string]string{
	"paris_checkins.csv": "48.8286,2.2855\n48.85000,2.35\n48.8798,2.3909\n48.86,2.34\n",
	"sf_checkins.csv":    "37.78,-122.41\n",
}

func checkSubsets(t *testing.T, dir string) {
	t.Helper()
	for name, want := range wantSubsets {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestBuildSubsets(t *testing.T) {
	dir := t.TempDir()
	var progress bytes.Buffer
	st, subs, err := BuildSubsets(bytes.NewReader(gz(t, snapSample)), "loc.txt.gz", Cities(), dir, &progress)
	if err != nil {
		t.Fatal(err)
	}
	checkSubsets(t, dir)
	if st.Lines != 16 || st.Malformed != 9 {
		t.Errorf("stats %+v", st)
	}
	if len(subs) != 2 || subs[0].Points != 4 || subs[1].Points != 1 {
		t.Errorf("subsets %+v", subs)
	}
	if !strings.Contains(progress.String(), "9 malformed") || !strings.Contains(progress.String(), "loc.txt.gz:7:") {
		t.Errorf("progress does not report the malformed lines:\n%s", progress.String())
	}
	// The subset is a valid curated file and discretises.
	paris, _ := Lookup("paris")
	f, err := os.Open(filepath.Join(dir, "paris_checkins.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cells, points, outside, _, err := Discretize(f, f.Name(), paris)
	if err != nil || points != 4 || outside+len(cells) != 4 {
		t.Errorf("discretising the subset: %d cells, %d points, %d outside, %v", len(cells), points, outside, err)
	}
}

func TestBuildSubsetsEmptyCity(t *testing.T) {
	dir := t.TempDir()
	only := "1\tT\t48.85\t2.35\t1\n"
	_, _, err := BuildSubsets(strings.NewReader(only), "x", Cities(), dir, nil)
	sf, _ := Lookup("sf")
	if err == nil || !strings.Contains(err.Error(), sf.Box.String()) {
		t.Fatalf("no SF check-in: %v, want an error naming %v", err, sf.Box)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("a failed build left %d files behind", len(left))
	}
}

func TestFetch(t *testing.T) {
	payload := gz(t, snapSample)
	sum := sha256.Sum256(payload)
	digest := hex.EncodeToString(sum[:])
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/loc.txt.gz" {
			http.NotFound(w, r)
			return
		}
		w.Write(payload)
	}))
	defer srv.Close()
	ctx := context.Background()
	url := srv.URL + "/loc.txt.gz"

	t.Run("wrong digest", func(t *testing.T) {
		dir := t.TempDir()
		_, err := Fetch(ctx, FetchOptions{URL: url, SHA256: strings.Repeat("0", 64), Dir: dir})
		if err == nil || !strings.Contains(err.Error(), digest) {
			t.Fatalf("wrong digest: %v, want an error giving the computed %s", err, digest)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("a rejected download left %d files", len(left))
		}
	})
	t.Run("verified", func(t *testing.T) {
		dir := t.TempDir()
		var progress bytes.Buffer
		res, err := Fetch(ctx, FetchOptions{URL: url, SHA256: strings.ToUpper(digest), Dir: dir, Progress: &progress})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Verified || !res.Downloaded || res.SHA256 != digest || res.Archive != filepath.Join(dir, SNAPFile) {
			t.Errorf("result %+v", res)
		}
		checkSubsets(t, dir)
		if !strings.Contains(progress.String(), "downloading "+url) || !strings.Contains(progress.String(), "(100%)") {
			t.Errorf("no download progress:\n%s", progress.String())
		}
		// A second run reuses the download.
		before := hits.Load()
		res, err = Fetch(ctx, FetchOptions{URL: url, Dir: dir})
		if err != nil || res.Downloaded || hits.Load() != before || res.Verified || res.SHA256 != digest {
			t.Errorf("second run: %+v, %v, %d requests", res, err, hits.Load()-before)
		}
		// With Force it downloads again over the existing archive.
		res, err = Fetch(ctx, FetchOptions{URL: url, Dir: dir, Force: true})
		if err != nil || !res.Downloaded || hits.Load() != before+1 || res.SHA256 != digest {
			t.Errorf("forced run: %+v, %v, %d requests", res, err, hits.Load()-before)
		}
	})
	t.Run("unverified local copy", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(t.TempDir(), "copy.gz")
		if err := os.WriteFile(src, payload, 0o644); err != nil {
			t.Fatal(err)
		}
		before := hits.Load()
		res, err := Fetch(ctx, FetchOptions{From: src, Dir: dir})
		if err != nil || res.Verified || res.SHA256 != digest || hits.Load() != before || res.Archive != src {
			t.Fatalf("local copy: %+v, %v", res, err)
		}
		checkSubsets(t, dir)
	})
	t.Run("bad requests", func(t *testing.T) {
		if _, err := Fetch(ctx, FetchOptions{URL: srv.URL + "/missing", Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "404") {
			t.Errorf("missing file: %v", err)
		}
		if _, err := Fetch(ctx, FetchOptions{URL: url, SHA256: "abc", Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
			t.Errorf("short digest: %v", err)
		}
		if _, err := Fetch(ctx, FetchOptions{URL: url}); err == nil || !strings.Contains(err.Error(), "fetch: no output directory") {
			t.Errorf("no output directory: error %v", err)
		}
	})
}
