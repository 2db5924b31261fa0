package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"privic/internal/tomlval"
)

// tomlDoc is a spec file decoded twice: into generic values, whose types
// privic checks against the Go types they are to fill (check), and into
// those types, with the decoder's metadata (md).
type tomlDoc struct {
	path    string
	data    string
	generic map[string]any
	md      toml.MetaData
}

// decodeTOML parses a spec file (syntax errors: "file:line: syntax
// error: ..."), refuses a datasets key that is not a table of tables,
// checks the types of the top-level values against raw's fields and
// decodes the file into raw.
func decodeTOML(path string, data []byte, raw any) (*tomlDoc, error) {
	d := &tomlDoc{path: path, data: string(data)}
	if _, err := toml.Decode(d.data, &d.generic); err != nil {
		return nil, syntaxError(path, data, err)
	}
	if err := checkDatasetsTables(path, d.generic); err != nil {
		return nil, err
	}
	if err := d.check(nil, raw); err != nil {
		return nil, err
	}
	md, err := toml.Decode(d.data, raw)
	if err != nil {
		return nil, decodeError(path, err)
	}
	d.md = md
	return d, nil
}

// decode checks the types of the table at key and decodes it, kept as p
// by the first decoding, into v.
func (d *tomlDoc) decode(key toml.Key, p toml.Primitive, v any) error {
	if err := d.check(key, v); err != nil {
		return err
	}
	if err := d.md.PrimitiveDecode(p, v); err != nil {
		return decodeError(d.path, err)
	}
	return nil
}

// check compares the value at key (the whole file for an empty key) with
// the Go value v it is to be decoded into, and names the first value of
// the wrong type, in key order: "file:line: key: wrong type: got a
// string, want an integer".
func (d *tomlDoc) check(key toml.Key, v any) error {
	var val any = d.generic
	for _, k := range key {
		m, ok := val.(map[string]any)
		if !ok {
			return nil
		}
		if val, ok = m[k]; !ok {
			return nil
		}
	}
	bad := checkType(val, reflect.TypeOf(v), keyPath{name: key.String(), line: key})
	if bad == nil {
		return nil
	}
	loc := d.path
	if line := keyLine(d.data, bad.at.line); line > 0 {
		loc += ":" + strconv.Itoa(line)
	}
	return fmt.Errorf("%s: %s: wrong type: got %s, want %s", loc, bad.at.name, tomlval.Kind(bad.got), bad.want)
}

// keyPath is where checkType is: the key as the user reads it
// ("params.tags[1]") and, for keyLine, the key of the value's line (the
// same key without indices; below an array, the array's key).
type keyPath struct {
	name    string
	line    toml.Key
	inArray bool
}

func (p keyPath) field(name string) keyPath {
	q := keyPath{name: toml.Key{name}.String(), line: p.line, inArray: p.inArray}
	if p.name != "" {
		q.name = p.name + "." + q.name
	}
	if !p.inArray {
		q.line = append(slices.Clone(p.line), name)
	}
	return q
}

func (p keyPath) index(i int) keyPath {
	return keyPath{name: fmt.Sprintf("%s[%d]", p.name, i), line: p.line, inArray: true}
}

// mismatch is a value of the wrong type.
type mismatch struct {
	at   keyPath
	got  any
	want string // "an integer"
}

var (
	durationType   = reflect.TypeOf(time.Duration(0))
	jsonNumberType = reflect.TypeOf(json.Number(""))
)

// checkType checks the decoded value v against the Go type t the way
// the decoder maps values to types: integers fill integer fields,
// integers and floats fill float fields, tables fill structs and maps,
// arrays fill slices and arrays, and strings, booleans and numbers fill
// a text unmarshaler. A type with its own toml.Unmarshaler, an
// interface and a toml.Primitive take any value (the unmarshaler does
// its own checks). Struct keys that match no field are left to
// checkKeys. It returns the first mismatch, in key order, or nil.
func checkType(v any, t reflect.Type, at keyPath) *mismatch {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t == primitiveType || t.Kind() == reflect.Interface || implements(t, unmarshalerType) {
		return nil
	}
	want := ""
	switch {
	case implements(t, textUnmarshalerType):
		switch v.(type) {
		case map[string]any, []any, []map[string]any:
			want = "a string"
		}
	case t == durationType:
		switch v.(type) {
		case string, int64:
		default:
			want = `a duration ("1h30m")`
		}
	case t == jsonNumberType:
		switch v.(type) {
		case int64, float64:
		default:
			want = "a number"
		}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		if _, ok := v.(int64); !ok {
			want = "an integer"
		}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		switch v.(type) {
		case int64, float64:
		default:
			want = "a number"
		}
	case t.Kind() == reflect.String:
		if _, ok := v.(string); !ok {
			want = "a string"
		}
	case t.Kind() == reflect.Bool:
		if _, ok := v.(bool); !ok {
			want = "a boolean"
		}
	case t.Kind() == reflect.Struct || t.Kind() == reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			want = "a table"
			break
		}
		return checkEntries(m, t, at)
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		s := reflect.ValueOf(v)
		if s.Kind() != reflect.Slice {
			want = "an array"
			break
		}
		for i := range s.Len() {
			if bad := checkType(s.Index(i).Interface(), t.Elem(), at.index(i)); bad != nil {
				return bad
			}
		}
	}
	if want != "" {
		return &mismatch{at: at, got: v, want: want}
	}
	return nil
}

// checkEntries checks the entries of a table bound for a struct or a map.
func checkEntries(m map[string]any, t reflect.Type, at keyPath) *mismatch {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var et reflect.Type
		if t.Kind() == reflect.Map {
			et = t.Elem()
		} else if et = fieldType(t, k); et == nil {
			continue
		}
		if bad := checkType(m[k], et, at.field(k)); bad != nil {
			return bad
		}
	}
	return nil
}

// fieldType is the type of struct t's field for key, matched as the
// decoder does (the exact name, else the first that differs only in
// case), or nil.
func fieldType(t reflect.Type, key string) reflect.Type {
	names, types := structFields(t)
	if i := slices.Index(names, key); i >= 0 {
		return types[i]
	}
	for i, n := range names {
		if strings.EqualFold(n, key) {
			return types[i]
		}
	}
	return nil
}

// errLineProbe is what lineProbe says, to be recognised in keyLine.
var errLineProbe = errors.New("harness: line probe")

// lineProbe is a toml.Unmarshaler that fails on any value.
type lineProbe struct{}

func (*lineProbe) UnmarshalTOML(any) error { return errLineProbe }

// keyLine is the line of data on which key is set, or 0. The decoder
// knows the line of every key but tells it only in the error of an
// unmarshaler, so keyLine decodes data into a struct whose only path of
// fields leads to key, where a lineProbe fails.
func keyLine(data string, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	t := reflect.TypeOf(lineProbe{})
	for i := len(key) - 1; i >= 0; i-- {
		tag := `toml:` + strconv.Quote(key[i])
		if strings.Contains(key[i], ",") {
			return 0 // a tag cannot name it
		}
		t = reflect.StructOf([]reflect.StructField{{Name: "F", Type: t, Tag: reflect.StructTag(tag)}})
	}
	_, err := toml.Decode(data, reflect.New(t).Interface())
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Message == errLineProbe.Error() && pe.LastKey == key.String() {
		return pe.Position.Line
	}
	return 0
}
