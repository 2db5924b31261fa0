package harness

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// pointerToStruct reports whether p is a non-nil pointer to a struct, as
// Kind.NewParams must return.
func pointerToStruct(p Params) bool {
	rv := reflect.ValueOf(p)
	return p != nil && rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct
}

// keyRoot is a top-level table whose keys map to the fields of a
// struct: [params] (the struct's keys start at depth 1) and
// [datasets.NAME] (depth 2).
type keyRoot struct {
	name  string
	depth int
	typ   reflect.Type
}

// checkKeys reports keys the decoder did not use (unknown keys) and keys
// it matched only case-insensitively (the decoder's fallback, which would
// make `Beta = 1` silently set beta). With only set, it checks only the
// keys of that top-level table.
func checkKeys(md toml.MetaData, only string, roots ...keyRoot) error {
	rootOf := func(key toml.Key) *keyRoot {
		for i := range roots {
			if roots[i].typ != nil && key[0] == roots[i].name {
				return &roots[i]
			}
		}
		return nil
	}
	for _, key := range md.Undecoded() {
		if only != "" && key[0] != only {
			continue
		}
		if root := rootOf(key); root != nil && len(key) > root.depth {
			if _, fields := walkFields(root.typ, key[root.depth:len(key)-1]); fields != nil {
				return unknownKey(key, fields)
			}
		} else if len(key) == 1 {
			return unknownKey(key, topKeys)
		}
		return fmt.Errorf("unknown key %s", key)
	}
	for _, key := range md.Keys() {
		if only != "" && key[0] != only {
			continue
		}
		var fields []string
		if root := rootOf(key); root != nil {
			if len(key) <= root.depth {
				continue
			}
			_, fields = walkFields(root.typ, key[root.depth:len(key)-1])
		} else if len(key) == 1 {
			fields = topKeys
		}
		last := key[len(key)-1]
		if fields == nil || slices.Contains(fields, last) {
			continue
		}
		for _, f := range fields {
			if strings.EqualFold(f, last) {
				want := append(slices.Clone(key[:len(key)-1]), f)
				return fmt.Errorf("unknown key %s (did you mean %s? keys are case-sensitive)", key, toml.Key(want))
			}
		}
		return unknownKey(key, fields)
	}
	return nil
}

func unknownKey(key toml.Key, allowed []string) error {
	table := "the top level"
	if len(key) > 1 {
		table = "[" + toml.Key(key[:len(key)-1]).String() + "]"
	}
	if len(allowed) == 0 {
		return fmt.Errorf("unknown key %s (%s takes no keys)", key, table)
	}
	return fmt.Errorf("unknown key %s (allowed keys in %s: %s)", key, table, strings.Join(allowed, ", "))
}

var (
	unmarshalerType     = reflect.TypeOf((*toml.Unmarshaler)(nil)).Elem()
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
	primitiveType       = reflect.TypeOf(toml.Primitive{})
)

// walkFields follows path through struct fields the way the decoder maps
// keys to fields and returns the type reached and its TOML field names
// (nil fields: not a struct, or something whose keys are free, such as a
// map or a custom unmarshaler).
func walkFields(t reflect.Type, path []string) (reflect.Type, []string) {
	for {
		t = derefType(t)
		names, types := structFields(t)
		if names == nil {
			return t, nil
		}
		if len(path) == 0 {
			return t, names
		}
		i := slices.Index(names, path[0])
		if i < 0 {
			for j, n := range names {
				if strings.EqualFold(n, path[0]) {
					i = j
					break
				}
			}
		}
		if i < 0 {
			return t, nil
		}
		t, path = types[i], path[1:]
	}
}

func derefType(t reflect.Type) reflect.Type {
	for {
		switch {
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !implementsUnmarshaler(t):
			t = t.Elem()
		default:
			return t
		}
	}
}

// implementsUnmarshaler reports whether the decoder hands values of t to
// t's own unmarshaler (toml.Unmarshaler or encoding.TextUnmarshaler)
// instead of mapping keys to fields.
func implementsUnmarshaler(t reflect.Type) bool {
	return implements(t, unmarshalerType) || implements(t, textUnmarshalerType)
}

// implements reports whether t or *t implements iface.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// structFields lists the TOML names of t's fields, following the
// decoder's rules: exported fields, `toml:"name"` tags, "-" skipped,
// untagged embedded structs flattened.
func structFields(t reflect.Type) ([]string, []reflect.Type) {
	if t.Kind() != reflect.Struct || t == primitiveType || implementsUnmarshaler(t) {
		return nil, nil
	}
	names := []string{}
	var types []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("toml")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				n, ty := structFields(ft)
				names = append(names, n...)
				types = append(types, ty...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
		types = append(types, f.Type)
	}
	return names, types
}

// ParamKeys lists the keys a kind's [params] table accepts, as dotted
// paths below params ("beta", "island.mode"), in declaration order;
// nested tables are listed by their keys, maps and custom types by their
// own name. Documentation tests use it to check that every key is
// described.
func ParamKeys(k Kind) []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		names, types := structFields(derefType(t))
		for i, n := range names {
			if sub, fields := walkFields(types[i], nil); fields != nil && sub.Kind() == reflect.Struct {
				walk(types[i], prefix+n+".")
				continue
			}
			keys = append(keys, prefix+n)
		}
	}
	walk(reflect.TypeOf(k.NewParams()), "")
	return keys
}
