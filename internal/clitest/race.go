//go:build race

package clitest

// raceEnabled: the test is built with -race, so the program is too, and its packages come
// from the same build cache entries as the test's instead of being compiled a second time.
const raceEnabled = true
