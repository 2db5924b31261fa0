package resolution

import (
	"strings"

	"privic/harness"
	"privic/kernels/mechanism"
)

// volatile lists what `privic compare` leaves out of a resolution
// experiment: the rows of in_metres.csv that re-express a mechanisms
// experiment's LP mechanisms (the optimal mechanism, on a spanner or on
// blocks). Whether such a row exists depends on whether its source job's
// LP solve finished within lp.time_limit, which depends on the machine's
// speed and load, not on the spec; the source experiment's own tables are
// compared, with its time-limited jobs left out.
func volatile(...harness.TableSet) []harness.Exclusion {
	var lp []string
	for _, e := range mechanism.Builtin() {
		if e.Coarsen {
			lp = append(lp, e.Name)
		}
	}
	return []harness.Exclusion{{
		Table: "in_metres",
		Why:   "rows of LP mechanisms, present only when their source job's LP solve finished within lp.time_limit",
		Rows: func(row map[string]string) bool {
			if row["study"] != "mechanisms" {
				return false
			}
			// A mechanisms series is "<calibration> <mechanism> <value>".
			f := strings.Fields(row["series"])
			if len(f) < 2 {
				return false
			}
			for _, name := range lp {
				if f[1] == name || strings.HasPrefix(f[1], name+"-") {
					return true
				}
			}
			return false
		},
	}}
}
