package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds"
)

type datasetFlags struct {
	counts string
	rows   string
}

func (f *datasetFlags) set() *flag.FlagSet {
	fs := newFlagSet("dataset")
	fs.StringVar(&f.counts, "counts", "", "write the per-cell counts of the dataset to `FILE` (row,col,count; - for stdout)")
	fs.StringVar(&f.rows, "rows", "header-quirk", "row `POLICY` of the presets (header-quirk or all-rows)")
	return fs
}

// cmdDataset prints the grids of a spec's datasets, so that data can be
// checked before a long run, and can write one dataset's per-cell counts.
func cmdDataset(ctx context.Context, e *env, args []string) error {
	var f datasetFlags
	ops, err := operands(f.set(), args, "spec")
	if err != nil {
		return err
	}
	rows, err := datasets.ParseRowPolicy(f.rows)
	if err != nil {
		return usagef("--rows: %v", err)
	}
	path, names := ops[0], ops[1:]
	reg, err := kinds.Registry(e.kinds...)
	if err != nil {
		return err
	}
	hc, err := reg.LoadData(path)
	if err != nil {
		return err
	}
	cat, ok := hc.(*datasets.Catalog)
	if !ok {
		return fmt.Errorf("%s: the datasets' catalog is a %T", path, hc)
	}
	if len(names) == 0 {
		names = declared(cat)
	}
	if f.counts != "" && len(names) != 1 {
		return usagef("--counts writes one dataset: name it (the spec has %s)", strings.Join(cat.Names(), ", "))
	}
	var all []*datasets.Dataset
	for _, n := range names {
		if err := cat.Check(n); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ds, err := cat.Load(n, rows)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		all = append(all, ds)
	}
	if f.counts != "" {
		return writeCounts(e, f.counts, all[0])
	}
	for i, ds := range all {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		describe(e.stdout, ds)
	}
	return nil
}

// declared lists the datasets the spec declares, or the presets when it
// declares none.
func declared(cat *datasets.Catalog) []string {
	var out []string
	for _, n := range cat.Names() {
		if !cat.IsPreset(n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return cat.Names()
	}
	return out
}

// writeCounts writes the counts file of ds to path (atomically) or to
// stdout ("-").
func writeCounts(e *env, path string, ds *datasets.Dataset) error {
	if path == "-" {
		return datasets.WriteCellCounts(e.stdout, ds)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--counts: %w", err)
		}
	}
	if err := harness.WriteFileAtomic(path, countsBytes(ds)); err != nil {
		return fmt.Errorf("--counts: %w", err)
	}
	fmt.Fprintf(e.stdout, "%s: %d x %d cells, %d check-ins -> %s\n", ds.Name, ds.Grid.Rows, ds.Grid.Cols, ds.N, path)
	return nil
}

func countsBytes(ds *datasets.Dataset) []byte {
	var b strings.Builder
	datasets.WriteCellCounts(&b, ds) // a strings.Builder does not fail
	return []byte(b.String())
}

// describe prints what a user checks of a dataset before a run.
func describe(w io.Writer, ds *datasets.Dataset) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintf(tw, "%s (%s): %s\n", ds.Name, ds.Title, ds.Source)
	fmt.Fprintf(tw, "  grid\t%d x %d = %d cells, %s\n", ds.Grid.Rows, ds.Grid.Cols, ds.Grid.Len(), cellWords(ds))
	if ds.Frame != nil {
		fmt.Fprintf(tw, "  region\t%v\n", ds.Frame.Region)
	}
	if !ds.Preset && ds.Frame != nil {
		describeRead(tw, ds.Read)
	} else {
		rd := ds.Read
		line := fmt.Sprintf("%d read, %d kept, %d dropped", rd.Checkins, rd.Kept, rd.Dropped)
		if ds.Preset {
			line += " (outside every cell, and the first line under the header quirk)"
		}
		fmt.Fprintf(tw, "  check-ins\t%s\n", line)
	}
	occupied, best := ds.Occupancy()
	fmt.Fprintf(tw, "  occupied\t%d of %d cells (%s)\n", occupied, ds.Grid.Len(), harness.FormatPct(float64(occupied)/float64(ds.Grid.Len())))
	r, c := ds.Grid.Abs(best)
	dense := fmt.Sprintf("(%d, %d): %d check-ins (%s)", r, c, ds.Counts[best], harness.FormatPct(float64(ds.Counts[best])/float64(ds.N)))
	if ds.Frame != nil {
		lat, lon := ds.Frame.Centre(r, c)
		dense += fmt.Sprintf(", centre lat %.5f, lon %.5f", lat, lon)
	}
	fmt.Fprintf(tw, "  densest cell\t%s\n", dense)
	for _, p := range ds.Places {
		where := ""
		if ds.Frame != nil {
			lat, lon := ds.Frame.Centre(p.Row, p.Col)
			where = fmt.Sprintf(", centre lat %.6f, lon %.6f", lat, lon)
		}
		fmt.Fprintf(tw, "  place %s\t(%d, %d)%s: %s\n", p.Name, p.Row, p.Col, where, p.About)
	}
}

// describeRead prints what reading a points file gave: the rows, the
// weights (with a weight column) and the check-ins the kinds count.
func describeRead(tw io.Writer, rd datasets.ReadStats) {
	rows := fmt.Sprintf("%d read, %d kept, %d dropped (outside the region)", rd.Rows, rd.RowsKept, rd.Rows-rd.RowsKept)
	if rd.Malformed > 0 {
		rows += fmt.Sprintf("; %d malformed lines skipped", rd.Malformed)
	}
	fmt.Fprintf(tw, "  rows\t%s\n", rows)
	if !rd.Weighted {
		fmt.Fprintf(tw, "  check-ins\t%d, one per row kept\n", rd.Kept)
		return
	}
	fmt.Fprintf(tw, "  weight\t%s read, %s kept, %s dropped (outside the region)\n", datasets.FormatWeight(rd.Weight), datasets.FormatWeight(rd.WeightKept), datasets.FormatWeight(rd.WeightDropped))
	switch {
	case !rd.Apportioned:
		fmt.Fprintf(tw, "  check-ins\t%d, the kept weight\n", rd.Kept)
	case rd.Rounding == 0:
		fmt.Fprintf(tw, "  check-ins\t%d: the kept weight apportioned to whole check-ins (largest remainders), every cell's share exact\n", rd.Kept)
	default:
		fmt.Fprintf(tw, "  check-ins\t%d: the kept weight apportioned to whole check-ins (largest remainders); the cells' shares move by %s in total variation\n",
			rd.Kept, harness.FormatSig(rd.Rounding, 3))
	}
}

func cellWords(ds *datasets.Dataset) string {
	switch {
	case ds.CellM == 0:
		return "cell size unknown (give cell_m)"
	case ds.CellHeightM == ds.CellWidthM:
		return fmt.Sprintf("cells of %s m", harness.FormatSig(ds.CellM, 6))
	}
	return fmt.Sprintf("cells of %s x %s m (%s m as one size)", harness.FormatSig(ds.CellHeightM, 4), harness.FormatSig(ds.CellWidthM, 4), harness.FormatSig(ds.CellM, 4))
}
