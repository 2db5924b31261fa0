// Package plots builds the figures of privic from plain data: grids of
// heat maps of grid distributions (with colour bars and labelled markers),
// line plots with error bars, and scatter plots of point sets.
//
// Builders validate their input and return a *Figure (or an error, never a
// panic); Figure.Encode renders it as PNG or SVG. Builders know nothing about
// CSV files or result directories: callers read their tables and pass slices.
//
// Orientation of heat maps follows the grid convention of package kernels:
// values are row-major, row 0 is the NORTH edge and column 0 is the EAST
// edge. A map is drawn like a map: north up, east right, so row 0 is the top
// row of cells and column 0 the rightmost column. Tick labels show the
// grid's own row and column numbers, so a reader can find cell (6, 3) by
// reading the axes; the column numbers therefore decrease from left to right.
//
// Figures use the Liberation Sans font embedded in gonum/plot, a
// viridis-like perceptually uniform colour map for heat maps, and the
// Okabe-Ito colour-blind-safe palette (plus distinct glyph shapes) for
// series, so they stay legible in greyscale and for colour-blind readers.
// A series may carry its own Style (colour, marker, dash), so that one
// thing, a mechanism say, looks the same in every figure.
//
// What the figures promise, each checked by a test on the drawn image or
// its data: titles are wrapped (or shrunk) to their figure and panel,
// never clipped; a log x axis labels every level of the data, or at least
// the first and the last; a probability axis stays within [0, 1]; a
// marker frames its cell and never covers it; empty cells (value 0) are
// white, apart from the lowest colour, and missing ones grey; scatter
// markers grow with the weight of their place; maps of cells of known
// size have axes in metres or km.
package plots
