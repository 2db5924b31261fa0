package paper

import "testing"

func TestUtilityWinnerRanges(t *testing.T) {
	for _, tc := range []struct {
		city string
		beta float64
		want string
	}{
		{"paris", 0.2, ""}, {"paris", 0.4, ""}, {"paris", 0.6, "ba"}, {"paris", 1.4, "ba"}, {"paris", 1.6, "lap"},
		{"sf", 0.2, "ba"}, {"sf", 0.8, "ba"}, {"sf", 1.0, "lap"}, {"sf", 5, "lap"},
	} {
		f, ok := Of(tc.city)
		if !ok {
			t.Fatalf("no facts for %s", tc.city)
		}
		// 1.4 as a sweep value is 0.2*7 rounded to 12 digits: exactly 1.4.
		if got := f.Utility.Winner(tc.beta); got != tc.want {
			t.Errorf("%s: Winner(%v) = %q, want %q", tc.city, tc.beta, got, tc.want)
		}
	}
	if _, ok := Of("rome"); ok {
		t.Error("facts for a data set the paper does not have")
	}
	for _, city := range []string{"paris", "sf"} {
		f, _ := Of(city)
		c0, ok := f.Table.Cycle0()
		// The first row of both tables equals EMD(uniform, pi): the same in
		// every round and for both betas.
		for _, beta := range []float64{0.5, 1} {
			for _, v := range f.Table.Cycle(beta, 0) {
				if !ok || v != c0 {
					t.Errorf("%s: cycle 0 at beta %v has %v, want %v", city, beta, v, c0)
				}
			}
		}
	}
}

// TestSchedules: the paper's PRIVIC schedules (Sec. V) per dataset.
func TestSchedules(t *testing.T) {
	for key, want := range map[string]map[string]int{
		"cycles":          {"paris": 15, "sf": 8},
		"ba_iterations":   {"paris": 8, "sf": 5},
		"ibu_iterations":  {"paris": 10, "sf": 5},
		"gibu_iterations": {"paris": 10, "sf": 5},
	} {
		got := Schedule(key)
		if len(got) != len(want) || got["paris"] != want["paris"] || got["sf"] != want["sf"] {
			t.Errorf("Schedule(%q) = %v, want %v", key, got, want)
		}
	}
	f, _ := Of("sf")
	if f.Fig7[0.5] != "7c" || f.Fig89[1] != "9b" || f.Table.Name != "Table IV" || f.Seconds["ibu"] != 128.192 {
		t.Errorf("SF facts read back wrong: %+v", f)
	}
}
