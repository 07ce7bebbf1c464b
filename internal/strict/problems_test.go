package strict

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/growth"
)

// TestProblemPathsAreLinear: the path a problem names costs O(n) for a value n deep, in
// every reader — the block reader, yaml.v3's nodes, JSON: a problem 4n deep allocates about
// 4 times what one n deep does (spelling each parent's path first made it 16 times).
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
				docs, err := ParseYAML(data)
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
