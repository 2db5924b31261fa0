package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"privic/harness/kinds"
)

// TestDatasetCommand: privic dataset prints a declared dataset's grid from
// a file of datasets alone (no kind), the presets when asked, and writes
// a counts file that a counts dataset reads back to the same grid.
func TestDatasetCommand(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "p.csv"), "lat,lon,n\n0.9,1.9,3\n0.1,0.1,2\n0.75,1.5,1\n7,7,4\n")
	spec := write(t, filepath.Join(dir, "data.toml"), `[datasets.tiny]
points = "p.csv"
weight_column = "n"
bbox = [0, 1, 0, 2]
cell_deg = [0.25, 0.5]
places = {A = [3, 3]}
`)
	all := kinds.All()
	status, out, errOut := runCLI(t, all, "dataset", spec)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	// 4 x 4 cells of 0.25 x 0.5 degrees; (0.75, 1.5) lies on interior
	// edges: the cell to its north and east, (0, 0), with (0.9, 1.9).
	for _, want := range []string{"tiny (tiny): p.csv (csv)", "4 x 4 = 16 cells", "rows          4 read, 3 kept, 1 dropped (outside the region)",
		"weight        10 read, 6 kept, 4 dropped (outside the region)", "check-ins     6, the kept weight",
		"2 of 16 cells", "densest cell  (0, 0): 4 check-ins", "place A       (3, 3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	status, out, _ = runCLI(t, all, "dataset", spec, "paris")
	if status != 0 || !strings.Contains(out, "11 x 15 = 165 cells") || !strings.Contains(out, "10991 read, 10078 kept, 913 dropped") {
		t.Errorf("paris: status %d\n%s", status, out)
	}
	counts := filepath.Join(dir, "out", "tiny.csv")
	if status, _, errOut := runCLI(t, all, "dataset", "--counts", counts, spec, "tiny"); status != 0 {
		t.Fatalf("--counts: %s", errOut)
	}
	b, err := os.ReadFile(counts)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 17 || lines[0] != "row,col,count" || lines[1] != "0,0,4" || lines[16] != "3,3,2" {
		t.Errorf("counts file:\n%s", b)
	}
	back := write(t, filepath.Join(dir, "back.toml"), "[datasets.back]\ncounts = \"out/tiny.csv\"\ngrid = [4, 4]\n")
	if status, out, errOut := runCLI(t, all, "dataset", back); status != 0 || !strings.Contains(out, "6 read, 6 kept, 0 dropped") {
		t.Errorf("counts read back: status %d, %s%s", status, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dataset", spec, "lyon"}, `unknown dataset "lyon": known datasets are paris, sf, tiny`},
		{[]string{"dataset", "--counts", counts, spec, "tiny", "paris"}, "--counts writes one dataset"},
		{[]string{"dataset", "--rows", "some", spec}, "--rows"},
		{[]string{"dataset"}, "no spec given"},
		{[]string{"dataset", write(t, filepath.Join(dir, "bad.toml"), "[datasets.x]\npoints = \"p.csv\"\ncell_m = -1\n")}, "datasets.x.cell_m = -1"},
	} {
		status, _, errOut := runCLI(t, all, c.args...)
		if status == 0 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q, want one line with %q", c.args, status, errOut, c.want)
		}
	}
}

// TestDatasetRowsWeightAndExtent: privic dataset tells rows from weight
// (fractional weights, apportioned to whole check-ins, say by how much
// the shares move), and a region that keeps nothing is an error giving
// the points' own extent and the lat/lon swap it looks like.
func TestDatasetRowsWeightAndExtent(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "stops.txt"), "Name;Lat;Lon;Pop\n\"Bad Wilsnack; Bhf\";52,95;11,94;0,5\nB;52,1;11,2;1,25\nC;52,2;11,3;2,25\n")
	spec := write(t, filepath.Join(dir, "data.toml"), `[datasets.stops]
points = "stops.txt"
decimal = ","
weight_column = "pop"
cell_deg = [0.5, 0.5]
`)
	status, out, errOut := runCLI(t, kinds.All(), "dataset", spec)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	for _, want := range []string{"stops.txt (csv, ';'-separated, decimal ',')", "rows          3 read, 3 kept, 0 dropped",
		"weight        4 read, 4 kept, 0 dropped", "check-ins     4: the kept weight apportioned to whole check-ins (largest remainders); the cells' shares move by 0.125 in total variation"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	swapped := write(t, filepath.Join(dir, "swapped.toml"), "[datasets.stops]\npoints = \"stops.txt\"\ndecimal = \",\"\nweight_column = \"pop\"\nbbox = [11, 12, 52, 53]\ncell_m = 500\n")
	status, _, errOut = runCLI(t, kinds.All(), "dataset", swapped)
	for _, want := range []string{"no check-in inside the region lat [11, 12], lon [52, 53]: 3 rows read, weight 4, none inside it",
		"the points span lat [52.1, 52.95], lon [11.2, 11.94]", "with latitude and longitude swapped they would meet"} {
		if status == 0 || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("swapped bbox: status %d, stderr %q lacks %q", status, errOut, want)
		}
	}
}
