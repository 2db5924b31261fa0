package harness

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// MachineMemory returns the machine's total memory in bytes from
// /proc/meminfo, or 0 where that file does not exist.
func MachineMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "MemTotal:       24621480 kB"
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// DefaultMemLimit is half the machine's memory, or 0 (no limit) where it
// cannot be read: a job estimated above it is refused before it runs.
func DefaultMemLimit() int64 { return MachineMemory() / 2 }

var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1}, {"", 1},
}

// ParseBytes parses a size such as "8GiB", "512MiB", "1.5G", "2GB" or
// "1048576" (K, M, G, T alone are binary units). "off", "none" and "0"
// give 0.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "off" || t == "none" {
		return 0, nil
	}
	for _, u := range byteUnits {
		if !strings.HasSuffix(t, u.suffix) {
			continue
		}
		num := strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || num == "" {
			break
		}
		b := v * u.mult
		if math.IsNaN(b) || b < 0 || b >= math.MaxInt64 {
			return 0, fmt.Errorf("size %q: out of range", s)
		}
		return int64(b), nil
	}
	return 0, fmt.Errorf("size %q: want a number of bytes with an optional unit (e.g. 512MiB, 8GiB, 2GB) or off", s)
}

// FormatBytes prints n in binary units with three significant digits, or
// whole units from 100 up (1000 MiB, not 1e+03 MiB).
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n)
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	if v >= 100 { // three digits or four, never an exponent (1000 MiB)
		return fmt.Sprintf("%.0f %s", v, units[i])
	}
	return fmt.Sprintf("%.3g %s", v, units[i])
}
