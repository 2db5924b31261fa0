package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSectionRoundTrip writes a Section the way the harness does after
// Finish and reads it back as the report does.
func TestSectionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	out, err := NewOutput(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Section{
		Markdown: "## S\n\ntext\n",
		Claims: []Claim{
			{Claim: "EMD falls, as in \"Fig. 9\"", Data: "Paris", Rule: "last < first", Simulations: "5 rounds", Evidence: "1, 2", Verdict: Reproduced},
			{Claim: "c2", Data: "SF", Rule: "r", Simulations: Exact, Evidence: "e2", Verdict: Undecided, Reason: "too few, to tell"},
		},
		Skipped: []Skip{{Figure: "fig6a (Paris)", Reason: "no points, anywhere"}},
	}
	if err := out.writeSection(want, nil); err != nil {
		t.Fatal(err)
	}
	// RFC 4180 quoting: fields with ',' or '"' are quoted, '"' doubled.
	for name, text := range map[string]string{
		"claims.csv": "claim,data,rule,simulations,evidence,verdict,reason\n\"EMD falls, as in \"\"Fig. 9\"\"\",Paris,last < first,5 rounds,\"1, 2\",reproduced,\n" +
			"c2,SF,r,none: exact computation,e2,undecided,\"too few, to tell\"\n",
		"skipped.csv": "figure,reason\nfig6a (Paris),\"no points, anywhere\"\n",
		"section.md":  "## S\n\ntext\n",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != text {
			t.Errorf("%s = %q, want %q", name, b, text)
		}
	}
	got, found, err := ReadSection(dir)
	if err != nil || !found {
		t.Fatalf("ReadSection: found %v, %v", found, err)
	}
	if got.Markdown != want.Markdown || len(got.Claims) != 2 || got.Claims[0] != want.Claims[0] || got.Claims[1] != want.Claims[1] ||
		len(got.Skipped) != 1 || got.Skipped[0] != want.Skipped[0] {
		t.Errorf("ReadSection = %+v, want %+v", got, want)
	}
	// claims.csv of the older three-column format is still read.
	old := t.TempDir()
	if err := os.WriteFile(filepath.Join(old, "claims.csv"), []byte("claim,evidence,verdict\nc,\"e, f\",partly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err = ReadSection(old)
	if err != nil || len(got.Claims) != 1 || got.Claims[0] != (Claim{Claim: "c", Evidence: "e, f", Verdict: Partly}) {
		t.Errorf("old claims.csv: %+v, %v", got.Claims, err)
	}
}

// TestSectionFilesFollowOutputs: claims.csv and skipped.csv are written,
// header only, when the kind lists them and has no rows (so a rerun clears
// older rows), and not at all otherwise.
func TestSectionFilesFollowOutputs(t *testing.T) {
	dir := t.TempDir()
	out, _ := NewOutput(dir, nil)
	if err := out.writeSection(Section{Markdown: "## S\n"}, []string{"section.md", "skipped.csv"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "skipped.csv")); err != nil || string(b) != "figure,reason\n" {
		t.Errorf("skipped.csv = %q, %v; want the header alone", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "claims.csv")); err == nil {
		t.Error("claims.csv written for a kind that does not list it and has no claims")
	}
	if _, found, err := ReadSection(t.TempDir()); found || err != nil {
		t.Errorf("ReadSection of an empty directory: found %v, %v", found, err)
	}
}

func TestSectionContract(t *testing.T) {
	out, _ := NewOutput(t.TempDir(), nil)
	bad := Section{Markdown: "## S\n", Claims: []Claim{{Claim: "c", Evidence: "e", Verdict: "maybe"}}}
	if err := out.writeSection(bad, nil); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("verdict maybe: %v", err)
	}
	if err := out.writeSection(Section{}, []string{"section.md"}); err == nil {
		t.Error("a kind listing section.md returned none: no error")
	}
	// Kinds cannot write the report files themselves: the harness does.
	for _, name := range []string{"section.md", "claims.csv", "skipped.csv"} {
		if err := out.WriteText(name, "x"); err == nil {
			t.Errorf("WriteText(%s): no error", name)
		}
	}
	if err := out.writeSection(Section{Markdown: "## S\n", Claims: []Claim{{Claim: "c", Verdict: Undecided}}}, nil); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Errorf("undecided without a reason: %v", err)
	}
	if CountVerdict(2, 2) != Reproduced || CountVerdict(1, 2) != Partly || CountVerdict(0, 2) != NotReproduced || CountVerdict(0, 0) != NotReproduced {
		t.Error("CountVerdict")
	}
}
