package incremental

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/sync/errgroup"

	"privic/datasets"
	"privic/harness"
	"privic/plots"
)

// Verdicts allowed in claims.csv.
const (
	reproduced    = harness.Reproduced
	partly        = harness.Partly
	notReproduced = harness.NotReproduced
)

// claim is one row of claims.csv.
type claim = harness.Claim

// writeCSV writes a header and rows as CSV through out.
func writeCSV(out *harness.Output, rel string, header []string, rows [][]string) error {
	return out.WriteCSV(rel, header, rows)
}

func writeClaims(out *harness.Output, claims []claim) error { return harness.WriteClaims(out, claims) }

// writeSkipped writes skipped.csv; with no rows it still writes the header
// so that a rerun clears an older entry.
func writeSkipped(out *harness.Output, rows [][]string) error {
	return writeCSV(out, "skipped.csv", []string{"figure", "reason"}, rows)
}

func writeText(out *harness.Output, rel, text string) error { return out.WriteText(rel, text) }

// figureSaver writes figures as <base>.png and <base>.svg, different
// figures concurrently: rendering dominates a Finish, which often runs
// while the other cores have no job left. The two files of one figure are
// encoded one after the other (a figure is not safe for concurrent
// encoding). The zero value is ready; call wait before returning.
type figureSaver struct {
	g    errgroup.Group
	init sync.Once
}

// save queues fig for writing; errors are reported by wait.
func (s *figureSaver) save(out *harness.Output, base string, fig *plots.Figure) {
	s.init.Do(func() { s.g.SetLimit(runtime.GOMAXPROCS(0)) })
	s.g.Go(func() error { return harness.WriteFigure(out, base, fig) })
}

// wait waits for every queued figure and returns the first error.
func (s *figureSaver) wait() error { return s.g.Wait() }

// drawFigures runs draw, which queues figures on s, and waits for them
// even when draw fails, so no encoding outlives the Finish.
func drawFigures(s *figureSaver, draw func() error) error {
	err := draw()
	if werr := s.wait(); err == nil {
		err = werr
	}
	return err
}

// mdTable renders a Markdown table.
func mdTable(header []string, rows [][]string) string { return harness.MarkdownTable(header, rows) }

// meanSD returns the mean and the sample standard deviation (n-1
// denominator, 0 for one value) of the non-NaN values, and their count.
func meanSD(v []float64) (mean, sd float64, n int) {
	kept := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) {
			kept = append(kept, x)
		}
	}
	mean, sd = harness.MeanSD(kept)
	return mean, sd, len(kept)
}

// fmtG formats a number for prose and Markdown with digits significant
// digits ("–" for a missing value).
func fmtG(v float64, digits int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return harness.FormatSig(v, digits)
}

// fmtF formats with a fixed number of decimals.
func fmtF(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// pm formats mean ± sd with fixed decimals.
func pm(mean, sd float64, decimals int) string {
	if math.IsNaN(mean) {
		return "–"
	}
	return fmtF(mean, decimals) + " ± " + fmtF(sd, decimals)
}

// columns maps column names to their positions in t.
func columns(t *harness.Table, names ...string) (map[string]int, error) {
	return harness.Columns(t, names...)
}

// cell reads a numeric cell, naming the table, row and column on error.
func cell(t *harness.Table, row []string, col map[string]int, name string, line int) (float64, error) {
	v, err := harness.ParseFloat(row[col[name]])
	if err != nil {
		return 0, fmt.Errorf("table %s row %d column %s: %w", t.Name, line+2, name, err)
	}
	return v, nil
}

// intCell reads an integer cell.
func intCell(t *harness.Table, row []string, col map[string]int, name string, line int) (int, error) {
	v, err := strconv.Atoi(row[col[name]])
	if err != nil {
		return 0, fmt.Errorf("table %s row %d column %s: %q is not an integer", t.Name, line+2, name, row[col[name]])
	}
	return v, nil
}

// variantOf reads the variant columns of a row.
func variantOf(row []string, col map[string]int) variant {
	return variant{
		FirstMechanism: row[col["first_mechanism"]],
		IBUStart:       row[col["ibu_start"]],
		Mixing:         row[col["mixing"]],
		Batches:        row[col["batches"]],
	}
}

// cityTitle is a city's display name.
func cityTitle(city string) string {
	if c, err := datasets.Lookup(city); err == nil {
		return c.Title
	}
	return city
}

// betaText formats beta for titles ("0.5", "1").
func betaText(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }
