package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DefaultDPI is the resolution of PNG output unless Figure.SetDPI changes it.
const DefaultDPI = 150

// Figure is a finished figure: its size and the closure that draws it.
// Builders do all validation up front, so drawing only does layout.
type Figure struct {
	width, height vg.Length
	dpi           int
	render        func(c draw.Canvas) error
}

func newFigure(w, h vg.Length, render func(c draw.Canvas) error) *Figure {
	return &Figure{width: w, height: h, dpi: DefaultDPI, render: render}
}

// Size returns the figure's size (vg.Inch = 72 points).
func (f *Figure) Size() (w, h vg.Length) { return f.width, f.height }

// SetSize overrides the size chosen by the builder; the layout adapts.
func (f *Figure) SetSize(w, h vg.Length) error {
	if !(w > 0 && h > 0) {
		return fmt.Errorf("plots: figure size %v x %v must be positive", w, h)
	}
	f.width, f.height = w, h
	return nil
}

// DPI returns the resolution used for PNG output.
func (f *Figure) DPI() int { return f.dpi }

// SetDPI sets the resolution used for PNG output (SVG is resolution-free).
func (f *Figure) SetDPI(dpi int) error {
	if dpi < 10 || dpi > 1200 {
		return fmt.Errorf("plots: dpi %d outside [10, 1200]", dpi)
	}
	f.dpi = dpi
	return nil
}

// PixelSize returns the size in pixels of the PNG that Encode writes.
func (f *Figure) PixelSize() (w, h int) {
	// vgimg rounds the size in dots to the nearest pixel.
	return int(float64(f.width/vg.Inch)*float64(f.dpi) + 0.5), int(float64(f.height/vg.Inch)*float64(f.dpi) + 0.5)
}

// Encode renders the figure in the given format ("png" or "svg") to w.
func (f *Figure) Encode(w io.Writer, format string) error {
	if f == nil || f.render == nil {
		return errors.New("plots: encode: nil figure")
	}
	switch strings.ToLower(format) {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(f.dpi),
			vgimg.UseBackgroundColor(color.White))
		if err := f.draw(draw.New(c)); err != nil {
			return err
		}
		// Flat-colour figures compress well even at the fastest level, and
		// encoding dominates the cost of a figure at the default level.
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(w, c.Image()); err != nil {
			return fmt.Errorf("plots: writing png: %w", err)
		}
	case "svg":
		c := vgsvg.New(f.width, f.height)
		if err := f.draw(draw.New(c)); err != nil {
			return err
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return fmt.Errorf("plots: rendering svg: %w", err)
		}
		// vgsvg names only the font it measured text with; viewers without
		// Liberation Sans would fall back to a serif font. Liberation Sans
		// is metric-compatible with Arial, so that fallback keeps widths.
		out := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
			[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("plots: writing svg: %w", err)
		}
	default:
		return fmt.Errorf("plots: unknown format %q (want png or svg)", format)
	}
	return nil
}

// draw paints the white background and runs the layout. gonum/plot panics
// on some degenerate geometry (e.g. a canvas too small for its labels);
// builders validate data first, so a panic here means an unusable size, and
// it is turned into an error rather than crashing the caller.
func (f *Figure) draw(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: drawing %v x %v figure: %v", f.width, f.height, r)
		}
	}()
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	return f.render(c)
}
