package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/strict"
)

// nestLists wraps inner in n Lists, each holding it as its only item.
func nestLists(n int, inner string) string {
	return strings.Repeat(`{"kind":"List","items":[`, n) + inner + strings.Repeat(`]}`, n)
}

// TestReadDeepLists: however deeply Lists nest, a problem in an item's kind refuses the
// item whatever the loader reads, and a ConfigMap's name given twice is never silently
// dropped — also where the reader cuts the problem's path short (strict.MaxPathSteps).
func TestReadDeepLists(t *testing.T) {
	for n := range strict.MaxPathSteps/2 + 4 {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := Read([]byte(nestLists(n, `{"kind":"A","kind":"B"}`)), never)
			require.Len(t, s.Objects, 1)
			require.Error(t, s.Objects[0].Err)
			assert.Contains(t, s.Objects[0].Err.Error(), "given twice")
			assert.Empty(t, s.Objects[0].Kind)

			reads := func(o Object, twice func(...string) bool) bool {
				return o.Kind == "ConfigMap" && twice("metadata", "name")
			}
			s = Read([]byte(nestLists(n, `{"kind":"ConfigMap","metadata":{"name":"x","name":"istio"}}`)), reads)
			require.Len(t, s.Objects, 1)
			require.Error(t, s.Objects[0].Err, "the name given twice is lost")
			assert.Contains(t, s.Objects[0].Err.Error(), "given twice")
		})
	}
}

// TestReadDeepPaths: the where of an item of deeply nested Lists is spelt in full.
func TestReadDeepPaths(t *testing.T) {
	n := 200
	s := Read([]byte(nestLists(n, `{"kind":"A"}`)), always)
	require.Len(t, s.Objects, 1)
	want := strings.TrimPrefix(strings.Repeat(".items[0]", n), ".")
	assert.Equal(t, want, s.Objects[0].Where())
}
