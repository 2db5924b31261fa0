package tomlval

// Kind names a decoded TOML value's type with its article ("a string",
// "an array", ...); any value the decoder does not give for a string,
// boolean, number, array or table is a date or time.
func Kind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return "a date/time"
}
