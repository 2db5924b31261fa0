package harness

import (
	"fmt"
	"io"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// FigureDPI is the resolution every kind gives its PNG figures: enough for
// 9 pt text to stay crisp, with about half the pixels (and half the
// rendering and PNG encoding time) of the plots package's default 150 dpi.
const FigureDPI = 110

// Figure is what WriteFigures needs of a figure (plots.Figure has it; the
// harness does not import plots, which knows nothing of runs).
type Figure interface {
	SetDPI(dpi int) error
	Encode(w io.Writer, format string) error
}

// NamedFigure is a figure and the base name of its files.
type NamedFigure struct {
	Base string
	Fig  Figure
}

// Figures are the figures of a Section, which the harness writes.
type Figures []NamedFigure

// Add appends fig under the base name base; when err (the error of
// making fig) is not nil, it returns it naming base and appends nothing.
func (f *Figures) Add(base string, fig Figure, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", base, err)
	}
	*f = append(*f, NamedFigure{Base: base, Fig: fig})
	return nil
}

// WriteFigures sets every figure to FigureDPI and writes it as <base>.png
// and <base>.svg. Different figures are encoded concurrently (rendering
// dominates a kind's Finish, which often runs when the other cores have
// nothing left to do); the two files of one figure are encoded one after
// the other, as a figure is not safe for concurrent encoding.
func (o *Output) WriteFigures(figs ...NamedFigure) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, f := range figs {
		g.Go(func() error { return o.writeFigure(f) })
	}
	return g.Wait()
}

func (o *Output) writeFigure(f NamedFigure) error {
	if err := f.Fig.SetDPI(FigureDPI); err != nil {
		return fmt.Errorf("figure %s: %w", f.Base, err)
	}
	for _, format := range []string{"png", "svg"} {
		if err := o.Create(f.Base+"."+format, func(w io.Writer) error { return f.Fig.Encode(w, format) }); err != nil {
			return fmt.Errorf("figure %s.%s: %w", f.Base, format, err)
		}
	}
	return nil
}
