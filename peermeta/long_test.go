package peermeta

import "os"

// rounds returns how many times a property or reference test runs: full when the
// environment sets MESHSCOPE_LONG=1 (CI runs that step separately), else short, so that
// `go test ./...` stays quick and still exercises every path.
func rounds(short, full int) int {
	if os.Getenv("MESHSCOPE_LONG") == "1" {
		return full
	}
	return short
}
