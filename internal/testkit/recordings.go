package testkit

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// LoadCases reads the cases of the recording at path (relative to the test's package), the
// file's "Cases", each a C, and checks that it is whole: n cases.
func LoadCases[C any](t testing.TB, path string, n int) []C {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v struct{ Cases []C }
	require.NoError(t, json.Unmarshal(data, &v))
	require.Len(t, v.Cases, n)
	return v.Cases
}

// LogCounts logs how many times each class of a comparison with a recording was met, a line
// each, in the order of the classes' names.
func LogCounts(t testing.TB, counts map[string]int) {
	t.Helper()
	width := 0
	for class := range counts {
		width = max(width, len(class))
	}
	for _, class := range slices.Sorted(maps.Keys(counts)) {
		t.Logf("%-*s %5d", width, class, counts[class])
	}
}
