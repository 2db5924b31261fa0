//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package scale

import "os"

// maxRSS is unknown here: the table's peak_rss_bytes stays empty.
func maxRSS(*os.ProcessState) int64 { return 0 }
