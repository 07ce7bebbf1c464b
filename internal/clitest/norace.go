//go:build !race

package clitest

const raceEnabled = false
