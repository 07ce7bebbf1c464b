package growth_test

import (
	"fmt"
	"testing"

	"github.com/meshscope/meshscope/internal/growth"
)

var sink [][]byte

// quadratic makes n slices of n bytes.
func quadratic(n int) {
	sink = make([][]byte, n)
	for i := range sink {
		sink[i] = make([]byte, n)
	}
}

func TestAllocated(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n          int
		wantAllocs float64
		minBytes   float64
	}{
		{"none", 0, 1, 0},
		{"ten", 10, 11, 10 * 10},
		{"hundred", 100, 101, 100 * 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocs, bytes := growth.Allocated(func() { quadratic(tc.n) })
			if allocs != tc.wantAllocs && !(tc.n == 0 && allocs == 0) {
				t.Errorf("allocations = %v, want %v", allocs, tc.wantAllocs)
			}
			if bytes < tc.minBytes {
				t.Errorf("bytes = %v, want at least %v", bytes, tc.minBytes)
			}
		})
	}
}

func ExampleAllocated() {
	small, _ := growth.Allocated(func() { quadratic(50) })
	large, _ := growth.Allocated(func() { quadratic(200) })
	fmt.Printf("4x the input: %.0fx the allocations\n", large/small)
	// Output: 4x the input: 4x the allocations
}
