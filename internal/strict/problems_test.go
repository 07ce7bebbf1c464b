package strict

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/growth"
)

// TestProblemPathsAreLinear: the path a problem names costs at most O(n) for a value n deep,
// in every reader — the block reader, yaml.v3's nodes, JSON: a problem 4n deep allocates at
// most about 4 times what one n deep does (spelling each parent's path first would make it
// 16 times).
func TestProblemPathsAreLinear(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input func(n int) string
		json  bool
		want  string // the problem's path at depth 2
	}{
		{"block sequences", func(n int) string { return strings.Repeat("- ", n) + "01\n" }, false, "[0][0]"},
		{"flow sequences", func(n int) string { return strings.Repeat("[", n) + "01" + strings.Repeat("]", n) }, false, "[0][0]"},
		{"flow mappings with keys that are not names", func(n int) string {
			return strings.Repeat(`{"a.b": `, n) + "{x: 1, x: 2}" + strings.Repeat("}", n)
		}, false, `["a.b"]["a.b"].x`},
		{"yaml.v3's nodes (an anchor)", func(n int) string { return "&a " + strings.Repeat("[", n) + "01" + strings.Repeat("]", n) }, false, "[0][0]"},
		{"json", func(n int) string { return strings.Repeat(`{"a":`, n) + `{"x":1,"x":2}` + strings.Repeat("}", n) }, true, "a.a.x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse := func(data []byte) error {
				if tc.json {
					_, err := ParseJSON(data)
					return err
				}
				docs, err := ParseYAML(data, "")
				require.NoError(t, err)
				require.Len(t, docs, 1)
				return docs[0].Err
			}
			err := parse([]byte(tc.input(2)))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want+": "), "%v", err)
			work := func(n int) float64 {
				data := []byte(tc.input(n))
				_, bytes := growth.Allocated(func() { require.Error(t, parse(data)) })
				return bytes
			}
			small, large := work(300), work(1200)
			assert.Less(t, large, 6*small, "bytes allocated at depth 300: %v, at 1200: %v", small, large)
		})
	}
}

// TestProblemPathsAreBounded: a problem deeper than MaxPathSteps keeps the first
// MaxPathSteps steps of its path and names the first and last half of them, in every reader,
// so that n problems n deep cost O(n): 4x the problems, 4x as deep, allocate about 4x (16x
// if every problem kept and spelt its whole path).
func TestProblemPathsAreBounded(t *testing.T) {
	const depth = MaxPathSteps + 36 // the problems are 100 or 101 steps deep
	half := strings.Repeat("[0]", MaxPathSteps/2)
	for _, tc := range []struct {
		name  string
		input func(depth, problems int) string
		json  bool
		want  string // the first problem at depth
	}{
		{"block reader", func(d, n int) string {
			return strings.Repeat("[", d) + strings.Repeat("01, ", n) + strings.Repeat("]", d)
		}, false, half + "…36 steps…" + half + ": 01 is ambiguous"},
		{"yaml.v3's nodes (an anchor)", func(d, n int) string {
			return "&a " + strings.Repeat("[", d) + strings.Repeat("01, ", n) + strings.Repeat("]", d)
		}, false, half + "…36 steps…" + half + ": 01 is ambiguous"},
		{"block reader, keys given twice", func(d, n int) string {
			return strings.Repeat("[", d) + "{" + strings.Repeat("a.b: 1, ", n+1) + "}" + strings.Repeat("]", d)
		}, false, half + "…37 steps…" + half[3:] + `["a.b"]: given twice (lines 1 and 1)`},
		{"json", func(d, n int) string {
			return strings.Repeat("[", d) + "{" + strings.Repeat(`"a.b": 1, `, n) + `"a.b": 1}` + strings.Repeat("]", d)
		}, true, half + "…37 steps…" + half[3:] + `["a.b"]: given twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse := func(data []byte) ([]Problem, error) {
				if tc.json {
					_, err := ParseJSON(data)
					return nil, err
				}
				docs, err := ParseYAML(data, "")
				require.NoError(t, err)
				require.Len(t, docs, 1)
				return docs[0].Problems, docs[0].Err
			}
			problems, err := parse([]byte(tc.input(depth, 2)))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), "%v", err)
			for _, p := range problems {
				assert.Len(t, p.Path, MaxPathSteps)
			}
			work := func(n int) float64 {
				data := []byte(tc.input(n, n))
				_, bytes := growth.Allocated(func() { _, err := parse(data); require.Error(t, err) })
				return bytes
			}
			small, large := work(250), work(1000)
			assert.Less(t, large, 6*small, "bytes allocated for 250 problems 250 deep: %v, for 1000 1000 deep: %v", small, large)
		})
	}
}
