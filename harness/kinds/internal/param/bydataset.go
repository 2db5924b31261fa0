package param

import (
	"fmt"
	"maps"
	"slices"

	"privic/datasets"
	"privic/internal/tomlval"
)

// ByDataset is a per-dataset setting: a table keyed by dataset name with a
// "default" entry for the datasets without one (params.<key> = {paris =
// 15, default = 10}), or one plain value for every dataset
// (params.<key> = 10). A table is merged into the kind's default table,
// so that a spec can change one dataset and keep the others' defaults; a
// plain value replaces every entry, the kind's defaults for the presets
// included, and the default entry. Every other value is refused: the
// TOML decoder alone would drop a plain value bound for a map without a
// word. V is int, float64 or a type with its own UnmarshalTOML.
type ByDataset[V any] map[string]V

// UnmarshalTOML takes a table of values or one value.
func (m *ByDataset[V]) UnmarshalTOML(data any) error {
	if *m == nil {
		*m = ByDataset[V]{}
	}
	tab, ok := data.(map[string]any)
	if !ok {
		v, err := decodeValue[V](data)
		if err != nil {
			return fmt.Errorf("%w (one for every dataset) or a table of them by dataset {NAME = .., %s = ..}", err, datasets.DefaultName)
		}
		for k := range *m {
			(*m)[k] = v
		}
		(*m)[datasets.DefaultName] = v
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(tab)) {
		v, err := decodeValue[V](tab[k])
		if err != nil {
			return tomlval.SubKey(k, err)
		}
		(*m)[k] = v
	}
	return nil
}

// decodeValue decodes one decoded TOML value into a V.
func decodeValue[V any](data any) (V, error) {
	var v V
	switch p := any(&v).(type) {
	case *int:
		i, ok := data.(int64)
		if !ok {
			return v, fmt.Errorf("wrong type: got %s, want an integer", tomlval.Kind(data))
		}
		*p = int(i)
	case *float64:
		switch x := data.(type) {
		case int64:
			*p = float64(x)
		case float64:
			*p = x
		default:
			return v, fmt.Errorf("wrong type: got %s, want a number", tomlval.Kind(data))
		}
	case interface{ UnmarshalTOML(any) error }:
		if err := p.UnmarshalTOML(data); err != nil {
			return v, err
		}
	default:
		// A kind declared a per-dataset setting of a type this reader does
		// not know: a programming error, refused rather than dropped.
		return v, fmt.Errorf("per-dataset values of type %T cannot be read", v)
	}
	return v, nil
}
