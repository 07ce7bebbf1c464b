// Package longtest sizes the module's long property and reference tests: short by default,
// so that the README's `go test -race ./...` stays about a minute on a small machine, and at
// full length when the environment variable MESHSCOPE_LONG is 1 (as .ci/run sets it for a
// second, longer pass).
package longtest

import (
	"os"
	"strconv"
)

// Long reports whether the long runs were asked for: MESHSCOPE_LONG=1.
func Long() bool { return os.Getenv("MESHSCOPE_LONG") == "1" }

// N returns long when the long runs were asked for, else short.
func N(short, long int) int {
	if Long() {
		return long
	}
	return short
}

// Every spells a step through a test's cases for its log: "every case", "every 3rd case".
func Every(step int) string {
	switch {
	case step <= 1:
		return "every case"
	case step%10 == 2 && step%100 != 12:
		return "every " + strconv.Itoa(step) + "nd case"
	case step%10 == 3 && step%100 != 13:
		return "every " + strconv.Itoa(step) + "rd case"
	}
	return "every " + strconv.Itoa(step) + "th case"
}
