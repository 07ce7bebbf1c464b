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

// Case is what every recorded case has: its name. A test's type of case embeds it.
type Case struct{ Name string }

// CaseName returns the case's name.
func (c Case) CaseName() string { return c.Name }

// Compare holds every case to its recording: compare says what disagrees in one case and
// counts the classes of what agrees. Compare reports each disagreement under its case's name,
// logs the counts (LogCounts) and returns them.
func Compare[C interface{ CaseName() string }](t testing.TB, cases []C, compare func(tc C, counts map[string]int) []string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, tc := range cases {
		for _, problem := range compare(tc, counts) {
			t.Errorf("%s: %s", tc.CaseName(), problem)
		}
	}
	LogCounts(t, counts)
	return counts
}
