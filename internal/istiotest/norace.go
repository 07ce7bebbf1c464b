//go:build !race

package istiotest

// Race reports whether the test is built with -race (see race.go).
const Race = false
