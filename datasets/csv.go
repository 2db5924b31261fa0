package datasets

import (
	"fmt"
	"io"
	"os"
)

// The curated files (<city>_checkins.csv: "lat,lon"; <city>_grid_cells.csv:
// "row,col") have no header. Unlike the SNAP reader, their readers stop at
// the first malformed line: these files are fixed inputs, so any damage
// must be fixed, not skipped.

// ReadPoints streams a "lat,lon" file (plain or gzip), calling fn for each
// line. name labels errors ("name:line: what is wrong"). It returns the
// number of points read.
func ReadPoints(r io.Reader, name string, fn func(lat, lon float64) error) (int, error) {
	return readPairs(r, name, "lat,lon", func(a, b []byte) (string, error) {
		lat, msg := parseCoord(a, "latitude", 90)
		if msg != "" {
			return msg, nil
		}
		lon, msg := parseCoord(b, "longitude", 180)
		if msg != "" {
			return msg, nil
		}
		return "", fn(lat, lon)
	})
}

// ReadCells streams a "row,col" file (plain or gzip), calling fn for each
// line; rows and columns must be non-negative integers.
func ReadCells(r io.Reader, name string, fn func(Cell) error) (int, error) {
	return readPairs(r, name, "row,col", func(a, b []byte) (string, error) {
		row, msg := parseIndex(a, "row")
		if msg != "" {
			return msg, nil
		}
		col, msg := parseIndex(b, "col")
		if msg != "" {
			return msg, nil
		}
		return "", fn(Cell{Row: row, Col: col})
	})
}

// readPairs streams a headerless two-field CSV file (plain or gzip),
// stopping at the first malformed line. parse gets the two fields and
// returns what is wrong with them ("" if nothing) or the caller's error;
// columns names the fields in the field-count message.
func readPairs(r io.Reader, name, columns string, parse func(a, b []byte) (string, error)) (int, error) {
	var f [2][]byte
	n := 0
	err := eachLine(r, name, func(line []byte, tooLong bool, no int) error {
		bad := func(msg string) error { return &LineError{File: name, Line: no, Msg: msg} }
		if tooLong {
			return bad(fmt.Sprintf("line longer than %d bytes", maxLine))
		}
		if k := splitFields(line, ',', f[:]); k != 2 {
			return bad(fmt.Sprintf("%d fields, want 2 (%s)", k, columns))
		}
		msg, err := parse(f[0], f[1])
		if msg != "" {
			return bad(msg)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, no, err)
		}
		n++
		return nil
	})
	return n, err
}

// ReadPointsFile reads a whole "lat,lon" file. Errors name the file's path.
func ReadPointsFile(path string) (lat, lon []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	_, err = ReadPoints(f, path, func(a, b float64) error {
		lat = append(lat, a)
		lon = append(lon, b)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(lat) == 0 {
		return nil, nil, fmt.Errorf("%s: no points", path)
	}
	return lat, lon, nil
}

// ReadCellsFile reads a whole "row,col" file, in file order.
func ReadCellsFile(path string) ([]Cell, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cells []Cell
	if _, err := ReadCells(f, path, func(c Cell) error { cells = append(cells, c); return nil }); err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("%s: no cells", path)
	}
	return cells, nil
}

// CheckinsFile and CellsFile are the curated file names of a city.
func CheckinsFile(city string) string { return city + "_checkins.csv" }

// CellsFile is the name of the reference grid-cell file of a city.
func CellsFile(city string) string { return city + "_grid_cells.csv" }

// sharedSubdir is where the curated files sit inside the shared tree
// (slash-separated; see filepath.FromSlash).
const sharedSubdir = "datasets/gowalla"
