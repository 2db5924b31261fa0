package resolution

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"privic/harness"
	"privic/kernels/mechanism"
	"privic/plots"
)

// TestChange: every pair of verdicts, against the order reproduced >
// partly > not reproduced written out by hand; undecided on one side is
// neither stronger nor weaker.
func TestChange(t *testing.T) {
	r, p, n, u := harness.Reproduced, harness.Partly, harness.NotReproduced, harness.Undecided
	for _, tc := range []struct{ paper, fine, want string }{
		{r, r, Same}, {p, p, Same}, {n, n, Same}, {u, u, Same},
		{r, p, Weaker}, {r, n, Weaker}, {p, n, Weaker},
		{p, r, Stronger}, {n, r, Stronger}, {n, p, Stronger},
		{r, u, UndecidedFine}, {n, u, UndecidedFine},
		{u, r, DecidedFine}, {u, n, DecidedFine},
		{"", r, FineOnly}, {"", n, FineOnly}, {"", u, FineOnly},
		{r, "", NotRunFine}, {n, "", NotRunFine}, {u, "", NotRunFine},
		{"", "", NotRun}, {"maybe", r, FineOnly},
	} {
		if got := Change(tc.paper, tc.fine); got != tc.want {
			t.Errorf("Change(%q, %q) = %q, want %q", tc.paper, tc.fine, got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	// The paper's beta 0.2 on 499.4 m cells and the fine spec's 0.04005
	// on 100 m cells: 0.40048 and 0.4005 per km.
	xs := []float64{0.1, 0.40048, 2}
	if v, ok := Match(xs, 0.4005); !ok || v != 0.40048 {
		t.Errorf("Match 0.4005 = %v, %v; want 0.40048", v, ok)
	}
	if _, ok := Match(xs, 0.41); ok {
		t.Error("0.41 matched 0.40048 (2.4% apart)")
	}
	if _, ok := Match(nil, 1); ok {
		t.Error("matched in an empty list")
	}
}

func TestFindClaim(t *testing.T) {
	cl := []harness.Claim{{Claim: "A one"}, {Claim: "B two", Data: "Paris"}, {Claim: "B three", Data: "San Francisco"}}
	if c, ok := FindClaim(cl, "B", ""); !ok || c.Claim != "B two" {
		t.Errorf("FindClaim B = %v, %v; want the first, B two", c, ok)
	}
	if c, ok := FindClaim(cl, "B", "San Francisco"); !ok || c.Claim != "B three" {
		t.Errorf("FindClaim B on San Francisco = %v, %v; want B three", c, ok)
	}
	if _, ok := FindClaim(cl, "C", ""); ok {
		t.Error("found a claim starting C")
	}
	if _, ok := FindClaim(cl, "A", "Paris"); ok {
		t.Error("found A on Paris")
	}
}

// writeExp writes an experiment directory as the harness would: a
// manifest, claims.csv and the given tables.
func writeExp(t *testing.T, root, name string, claims []harness.Claim, tables map[string]string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"manifest.json": `{"format": 1, "name": "` + name + `", "kind": "x"}`}
	if claims != nil {
		var b strings.Builder
		b.WriteString("claim,evidence,verdict\n")
		for _, c := range claims {
			b.WriteString(`"` + c.Claim + `","` + c.Evidence + `",` + c.Verdict + "\n")
		}
		files["claims.csv"] = b.String()
		files["section.md"] = "## " + name + "\n"
	}
	for n, body := range tables {
		files[n+".csv"] = body
	}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFinish: two hand-made experiments on grids of 500 m and 100 m
// cells. The claims' verdicts meet by their text; the EMDs in cells
// become metres (2 cells of 500 m = 1000 m, 7 cells of 100 m = 700 m) at
// the same beta per km (0.5 per 500 m cell = 0.1 per 100 m cell = 1 per
// km); the PRIVIC curves are the rounds' means of the chosen variant.
func TestFinish(t *testing.T) {
	root := t.TempDir()
	writeExp(t, root, "coarse", []harness.Claim{
		{Claim: "X holds (Sec. 1)", Evidence: "coarse evidence", Verdict: harness.Reproduced},
		{Claim: "Y holds", Evidence: "y coarse", Verdict: harness.Partly},
	}, map[string]string{
		"utility_summary": "city,mechanism,beta,emd_mean\nc,ba,0.5,2\nc,lap,0.5,3\nc,ba,1,1\nc,lap,1,0.5\n",
		"emd_by_cycle": "city,beta,first_mechanism,ibu_start,mixing,batches,emd_reference,round,cycle,emd\n" +
			"c,0.5,ba-uniform,previous,weighted,iid,population,1,1,2\n" +
			"c,0.5,ba-uniform,previous,weighted,iid,population,2,1,4\n" +
			"c,0.5,ba-uniform,previous,none,iid,population,1,1,100\n" +
			"c,0.5,ba-uniform,previous,weighted,iid,batch,1,1,100\n" +
			"c,0.5,ba-uniform,previous,weighted,iid,population,1,2,1\n" +
			"c,0.5,ba-uniform,previous,weighted,iid,population,2,2,1\n",
	})
	writeExp(t, root, "fine", []harness.Claim{
		{Claim: "X holds, at 100 m", Evidence: "fine evidence", Verdict: harness.NotReproduced},
		{Claim: "Y holds", Evidence: "y fine", Verdict: harness.Partly},
		{Claim: "Z holds", Evidence: "z fine", Verdict: harness.Reproduced},
	}, map[string]string{
		"utility_summary": "city,mechanism,beta,emd_mean\nf,ba,0.1,7\nf,lap,0.1,5\n",
		"emd_by_cycle": "city,beta,first_mechanism,ibu_start,mixing,batches,emd_reference,round,cycle,emd\n" +
			"f,0.1,ba-uniform,previous,weighted,iid,population,1,1,30\n" +
			"f,0.1,ba-uniform,previous,weighted,iid,population,1,2,20\n",
	})
	p := &Params{
		CellM: map[string]float64{"c": 500, "f": 100},
		Claims: []ClaimSpec{
			{Claim: "X", City: "Town", Paper: []string{"coarse", "X holds"}, Fine: []string{"fine", "X holds"}},
			{Claim: "Y", City: "Town", Paper: []string{"coarse", "Y holds"}, Fine: []string{"fine", "Y holds"}},
			{Claim: "Z", City: "Town", Fine: []string{"fine", "Z holds"}},
			{Claim: "W", City: "Town", Paper: []string{"coarse", "W"}, Fine: []string{"absent", "W"}},
		},
		BAvsLAP: []Pair{{Title: "Town", Paper: []string{"coarse", "c"}, Fine: []string{"fine", "f"}}},
		PRIVIC:  []Pair{{Title: "Town", Paper: []string{"coarse", "c"}, Fine: []string{"fine", "f"}, Variant: "ba-uniform/previous/weighted/iid"}},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(root, "cmp")
	out, err := harness.NewOutput(outDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := def{}.Finish(context.Background(), p, out)
	if err != nil {
		t.Fatal(err)
	}
	vt, err := out.ReadTable("verdicts")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"X", harness.Reproduced, harness.NotReproduced, Weaker},
		{"Y", harness.Partly, harness.Partly, Same},
		{"Z", "not checked", harness.Reproduced, FineOnly},
		{"W", "not run", "not run", NotRun},
	}
	rd, _ := vt.Reader("claim", "paper_verdict", "fine_verdict", "change")
	for i, w := range want {
		got := []string{rd.Str(i, "claim"), rd.Str(i, "paper_verdict"), rd.Str(i, "fine_verdict"), rd.Str(i, "change")}
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("verdict row %d = %v, want %v", i, got, w)
		}
	}
	// In metres.
	mt, err := out.ReadTable("in_metres")
	if err != nil {
		t.Fatal(err)
	}
	mr, _ := mt.Reader("study", "grid", "x", "series", "value_m")
	got := map[string]float64{}
	for i := range mt.Rows {
		got[mr.Str(i, "study")+"/"+mr.Str(i, "grid")+"/"+mr.Str(i, "series")+"/"+mr.Str(i, "x")] = mr.Float(i, "value_m")
	}
	for k, v := range map[string]float64{
		"ba-vs-lap/paper/ba/1":         1000, // 2 cells x 500 m at beta 0.5 / 500 m
		"ba-vs-lap/paper/lap/1":        1500,
		"ba-vs-lap/paper/ba/2":         500,
		"ba-vs-lap/paper/lap/2":        250,
		"ba-vs-lap/fine/ba/1":          700, // 7 cells x 100 m at beta 0.1 / 100 m
		"ba-vs-lap/fine/lap/1":         500,
		"privic/paper/beta_per_km=1/1": 1500, // rounds 2 and 4 cells: mean 3 x 500
		"privic/paper/beta_per_km=1/2": 500,
		"privic/fine/beta_per_km=1/1":  3000,
		"privic/fine/beta_per_km=1/2":  2000,
	} {
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9*v {
			t.Errorf("in_metres %s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if len(got) != 10 {
		t.Errorf("in_metres has %d rows, want 10: %v", len(got), got)
	}
	md := sec.Markdown
	for _, s := range []string{
		"## At finer resolution",
		"| X | Town | **reproduced** (`coarse`) | **not reproduced** (`fine`) | weaker at fine resolution |",
		// Town is none of the paper's datasets, and no claim names one
		// (paper_data): the coarse side is the coarse grid.
		"| claim | data | coarse grid | fine grid | change |",
		"- **X** (Town): **reproduced** on the coarse grid (coarse), **not reproduced** at fine resolution (fine): weaker at fine resolution.",
		"  - Coarse grid: coarse evidence\n  - Fine grid: fine evidence",
		"| 1 | 1000 | 1500 | BA | 700 | 500 | LAP |",
		"| Town | 1 | 2 | 1500 | 500 | 0.333 | 2 | 3000 | 2000 | 0.667 |",
		"absent/claims.csv is not in the results", "4 claims compared: 1 keep their verdict, 0 are stronger and 1 weaker",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("section lacks %q\n%s", s, md)
		}
	}
	if len(sec.Figures) != 2 {
		t.Errorf("%d figures, want 2", len(sec.Figures))
	}
}

// TestAboutPaper: the comparison is the paper's when a claim names the
// paper's dataset it is checked on (paper_data) or a pair's coarse side
// is a preset, and only then.
func TestAboutPaper(t *testing.T) {
	pair := func(coarse string) []Pair {
		return []Pair{{Title: "t", Paper: []string{"e", coarse}, Fine: []string{"f", "town50"}}}
	}
	for _, tc := range []struct {
		name string
		p    Params
		want bool
	}{
		{"own data", Params{Claims: []ClaimSpec{{Claim: "c", City: "Town"}}, BAvsLAP: pair("town")}, false},
		{"paper_data", Params{Claims: []ClaimSpec{{Claim: "c", City: "Paris", PaperData: "Paris"}}}, true},
		{"a pair on sf", Params{Claims: []ClaimSpec{{Claim: "c", City: "SF"}}, PRIVIC: pair("sf")}, true},
		{"a pair on paris", Params{Mechanisms: pair("paris")}, true},
	} {
		if got := tc.p.aboutPaper(); got != tc.want {
			t.Errorf("%s: aboutPaper = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := func() *Params {
		return &Params{CellM: map[string]float64{"c": 500, "f": 100},
			Claims:  []ClaimSpec{{Claim: "X", City: "T", Fine: []string{"fine", "X"}}},
			BAvsLAP: []Pair{{Title: "T", Paper: []string{"a", "c"}, Fine: []string{"b", "f"}}},
			PRIVIC:  []Pair{{Title: "T", Paper: []string{"a", "c"}, Fine: []string{"b", "f"}, Variant: "ba-uniform/previous/weighted/iid"}}}
	}
	if err := ok().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mod  func(p *Params)
		want string
	}{
		{func(p *Params) { p.Claims = nil }, "params.claim"},
		{func(p *Params) { p.Claims[0].Fine = []string{"fine"} }, "params.claim[0].fine"},
		{func(p *Params) { p.Claims[0].Paper = []string{"../x", "X"} }, "params.claim[0].paper: experiment \"../x\""},
		{func(p *Params) { p.Claims[0].City = " " }, "params.claim[0]: claim and city"},
		{func(p *Params) { p.CellM["c"] = 0 }, "params.cell_m.c"},
		{func(p *Params) { p.BAvsLAP[0].Fine[1] = "g" }, "params.ba_vs_lap[0].fine: dataset \"g\" has no params.cell_m"},
		{func(p *Params) { p.BAvsLAP[0].Variant = "x" }, "params.ba_vs_lap[0].variant"},
		{func(p *Params) { p.PRIVIC[0].Variant = "ba-uniform/previous" }, "params.privic[0].variant"},
		{func(p *Params) { p.PRIVIC[0].Title = "" }, "params.privic[0].title"},
	} {
		p := ok()
		tc.mod(p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
}

// TestGridStyle: the metre figures draw BA and LAP in their registry
// styles on the paper's grid, and in the same colour and marker, dotted,
// on the fine grid.
func TestGridStyle(t *testing.T) {
	for _, m := range []string{"ba", "lap"} {
		reg, _ := mechanism.StyleOf(m)
		paper, fine := gridStyle(m, false), gridStyle(m, true)
		if !reflect.DeepEqual(paper, plots.Style(reg)) {
			t.Errorf("%s on the paper's grid: %+v, want its registry style %+v", m, paper, reg)
		}
		if fine.Color != reg.Color || fine.Marker != reg.Marker || reflect.DeepEqual(fine.Dash, reg.Dash) {
			t.Errorf("%s on the fine grid: %+v, want %s's colour and marker with another dash", m, fine, m)
		}
	}
}
