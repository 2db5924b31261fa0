package datasets_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"privic/datasets"
)

// writeMillion writes a CSV of one million check-ins (lat,lon,w with a
// header) spread over San Francisco's region, drawn from a fixed stream.
func writeMillion(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "million.csv"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "lat,lon,w")
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000000 {
		fmt.Fprintf(w, "%.10f,%.10f,%d\n", 37.7228+r.Float64()*0.0718, -122.5153+r.Float64()*0.1364, 1+r.IntN(3))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkGridCSV1M reads and grids one million CSV rows into 100 m
// cells (80 x 121 over San Francisco's region), the whole path of a
// declared points dataset: the file read and hashed, the rows parsed and
// located. "bbox" reads the file once; "extent" (no bbox) twice, the
// first pass finding the region.
func BenchmarkGridCSV1M(b *testing.B) {
	dir := writeMillion(b)
	for _, c := range []struct {
		name string
		bbox []float64
	}{{"bbox", []float64{37.7228, 37.7946, -122.5153, -122.3789}}, {"extent", nil}} {
		b.Run(c.name, func(b *testing.B) {
			decl := &datasets.Decl{Points: "million.csv", WeightColumn: &datasets.ColumnDecl{Column: datasets.ColumnNamed("w")},
				BBox: c.bbox, CellM: new(100.0)}
			b.SetBytes(fileSize(b, filepath.Join(dir, "million.csv")))
			for b.Loop() {
				cat, err := datasets.NewCatalog(dir, map[string]*datasets.Decl{"m": decl})
				if err != nil {
					b.Fatal(err)
				}
				if ds, _ := cat.Load("m", datasets.HeaderQuirk); ds.Read.Rows != 1000000 {
					b.Fatalf("%d rows", ds.Read.Rows)
				}
			}
		})
	}
}

func fileSize(b *testing.B, p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}
