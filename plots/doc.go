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
package plots
