// Package datasets provides the check-in data of privic: readers for the
// SNAP Gowalla file and the curated city subsets, the paper's grid
// discretisation, per-cell counts embedded in the binary, synthetic
// cities, the datasets a spec declares, and the island and
// adversarial-injection transforms of priors.
//
// # Presets and declared datasets
//
// The paper's two datasets are the presets paris and sf (Cities, Load):
// their grids, counts and named places (Paris's A and B) are fixed here.
// Any other dataset is declared in a spec's [datasets.NAME] table, which
// decodes into a Decl: check-in points of a CSV file (named or numbered
// columns, an optional weight column) or a SNAP file, per-cell counts of a
// grid, or a synthetic city; the region (bbox, default the points'
// extent); the cells (cell_m metres or cell_deg degrees); named places,
// by latitude and longitude or [row, col]. NewCatalog checks and grids
// the declarations of a spec (ScanPoints streams each file in constant
// memory, once with a bbox, twice without), and a Catalog serves them
// beside the presets by exact name, with a Fingerprint of the
// declarations and the SHA-256 of their files for the spec hash.
//
// Points files are CSV by RFC 4180's rules (encoding/csv: quoted fields
// may hold the delimiter, line breaks and doubled quotes), separated by
// commas, semicolons, tabs or '|' (given, or the first of tab, ';', '|'
// found in the first line, else ','), with decimal points or commas; or
// SNAP. Without a format, the first non-blank line decides: a SNAP line
// makes the file SNAP, a well-formed record of two or more fields CSV,
// anything else is refused naming both. Named columns match exactly,
// else case-insensitively when one column alone matches. Weights are
// numbers >= 0: whole weights are the cells' counts; fractional weights
// (or a declared number of check-ins N) are apportioned to N whole
// check-ins by largest remainders, since the kinds obfuscate whole
// check-ins, and ReadStats records the rounding (the total variation
// distance between the weights' shares and the counts').
//
// Point data are gridded by a Frame laid from the region's north-east
// corner (NewFrame): row 0 is the northern band and column 0 the eastern
// band, as in the presets; rows = ceil(height / cell) and cols =
// ceil(width / cell); a point on an interior edge belongs to the cell to
// its north and east; the region's edges are inside. Cells of M metres
// are measured on a local equirectangular projection at the region's
// centre, with the WGS 84 ellipsoid's lengths of a degree there
// (MetresPerDegree). Every Dataset records its cell size in metres
// (CellM: for degree cells and the presets, the side of the square of
// the mean cell's area), so that distances in cells convert to metres.
//
// # Data flow
//
// The SNAP file loc-gowalla_totalCheckins.txt.gz (6,442,890 lines) is cut
// into city subsets by bounding box (FilterSNAP, BuildSubsets, Fetch). A
// subset <city>_checkins.csv ("lat,lon") is discretised with the city's
// preset (Lookup, City.Discretizer): cell edges are NumPy
// arange(min, max, step) values reproduced bit for bit (Arange), sorted
// descending, so row 0 is the northernmost band and column 0 the
// easternmost; Paris matches edge[i+1] < v <= edge[i], San Francisco
// edge[i+1] <= v <= edge[i], where a point on an interior edge yields one
// line per matching cell as in the reference code. Replaying this over the
// curated subsets reproduces the reference grid files <city>_grid_cells.csv
// line for line (the tests check it when ../shared is present). On these
// data the exact arange matters and the boundary rules do not: no point
// lies on an edge, but edges computed naively as min + k*step put San
// Francisco points on interior edges (21 extra lines) and break parity.
//
// # Embedded counts
//
// counts/paris.csv and counts/sf.csv hold the per-cell counts of every line
// of the reference grid files, with a comment header giving provenance
// (source file and SHA-256, box, steps, rule, the parity check, the line
// count and the file's first line). They are produced by WriteCounts via
//
//	go run ./datasets/internal/gencounts   (./run.sh datasets)
//
// and embedded with go:embed, so Load needs no file. Because the first line
// is stored separately, both row policies are served from the same file:
// HeaderQuirk (the default, the reference code's behaviour of taking the
// first line for a CSV header: N = 10,078 Paris, 123,025 SF) and AllRows
// (N = 10,079 and 123,026). The domain is the full rectangle of the row and
// column indices that occur: 11 x 15 (Paris) and 16 x 24 (SF) cells,
// indexed row-major.
//
// # Raw points
//
// Of the presets, only the check-in scatter (Fig. 6a) needs raw points.
// Points looks for <city>_checkins.csv in $PRIVIC_DATA, then
// datasets/cache/ and ../shared/datasets/gowalla relative to the module
// root; when none exists
// the error wraps ErrNoPoints and lists the places searched, so callers can
// skip the figure and say why. `go run ./datasets/internal/fetchdata`
// (./run.sh fetch-data) downloads the SNAP file, shows progress, and writes
// the subsets into datasets/cache/. The project records no SHA-256 of the
// SNAP file, so there is no built-in expected digest: pass -sha256 to
// verify; without it the computed digest is printed and the file is
// reported as not verified.
// Subsets cut from the SNAP file keep its line order and the coordinates'
// digits; whether they are byte-identical to the curated files has not been
// checked here.
//
// # Malformed input
//
// The SNAP reader skips and counts malformed lines (wrong field count,
// non-numeric fields, NaN, latitude outside [-90, 90], longitude outside
// [-180, 180]) and keeps the first MaxExamples with their line numbers. The
// curated-file readers stop at the first malformed line with a LineError
// ("file:line: what is wrong"). A box that keeps no check-in is an error
// naming the box; an unknown city name is an error listing the known ones.
//
// # The island prior
//
// The elastic and adversarial experiments plant an isolated "vulnerable"
// location A, the Paris preset's place A = (6, 3) (index 93 on the
// 11 x 15 grid; City.Places), by zeroing the 5 x 5 block rows 4-8, cols
// 1-5 around it (Chebyshev radius 2). On the
// Paris prior with the header quirk that block holds 1,387 of the 10,078
// check-ins (mass 0.137627) and A itself 2 (mass 0.000198). The paper's
// text moves the block's mass onto A (MoveMass: A = 0.137627, the other
// 140 cells unchanged). The reference code instead gives A the mass 0.01
// and rescales the other 140 cells to total 0.99 (SetMass with Mass 0.01:
// a factor 0.99/0.862373 = 1.147994); ReferenceIsland and PaperIsland
// return both settings. A's cell lies in the south-east of the Paris box
// (see the preset); the paper, drawing column 0 on the left, calls it
// south-western.
// Inject then adds adversarial reports at a cell:
// (1-f)*prior + f*delta_cell.
package datasets
