package mechanisms

import (
	"strings"

	"privic/harness"
)

// timeLimited is the prefix of a calibration status (and a skipped
// figure's reason) when an LP solve of the job reached lp.time_limit.
const timeLimited = "time limit"

// volatile lists what `privic compare` leaves out of a mechanisms
// experiment: the LP solves' seconds, and every row of a job whose LP
// solve was cut by lp.time_limit in either of the runs compared (where a
// solve stops depends on the machine's speed and load, not on the spec).
// A job counts as cut when its calibration stopped on the limit (its
// status) or when a later solve did, such as the channel on the island
// prior for the identification of A (its missing column).
func volatile(sides ...harness.TableSet) []harness.Exclusion {
	type key struct{ city, mech, cal, level string }
	cut := map[key]bool{}
	levels := map[[3]string]bool{} // city, calibration, level
	for _, s := range sides {
		t := s["calibration"]
		if t == nil {
			continue
		}
		r, err := t.Reader("city", "mechanism", "calibration", "level", "status", "missing")
		if err != nil {
			continue
		}
		for i := range t.Rows {
			if strings.HasPrefix(r.Str(i, "status"), timeLimited) || strings.Contains(r.Str(i, "missing"), timeLimited) {
				cut[key{r.Str(i, "city"), r.Str(i, "mechanism"), r.Str(i, "calibration"), r.Str(i, "level")}] = true
				levels[[3]string{r.Str(i, "city"), r.Str(i, "calibration"), r.Str(i, "level")}] = true
			}
		}
	}
	why := "rows of jobs whose LP solve was cut by lp.time_limit"
	out := []harness.Exclusion{harness.ColumnRule("lp_solves", "LP solve times", "seconds")}
	if len(cut) == 0 {
		return out
	}
	for _, table := range []string{"calibration", "frontier", "frontier_summary", "lp_solves"} {
		out = append(out, harness.Exclusion{Table: table, Why: why, Rows: func(row map[string]string) bool {
			return cut[key{row["city"], row["mechanism"], row["calibration"], row["level"]}]
		}})
	}
	out = append(out,
		harness.Exclusion{Table: "winners", Why: "levels where a job's LP solve was cut by lp.time_limit", Rows: func(row map[string]string) bool {
			return levels[[3]string{row["city"], row["calibration"], row["level"]}]
		}},
		harness.Exclusion{Table: "skipped", Why: why, Rows: func(row map[string]string) bool {
			return strings.Contains(row["reason"], timeLimited)
		}})
	return out
}
