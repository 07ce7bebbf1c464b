// Package growth measures the work a call does in counts rather than time, for tests that
// pin how an operation grows with its input: run it at n and at 4n and compare what
// Allocated returns (4x for linear work, 16x for quadratic).
//
//	small, _ := growth.Allocated(func() { Compile(entry(500)) })
//	large, _ := growth.Allocated(func() { Compile(entry(2000)) })
//	if large > 5*small { t.Errorf(...) }
//
// Allocations and bytes are counted over the whole process, so a test that uses them must
// not run in parallel with others.
package growth

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// runs is how many calls Allocated measures, after one call to warm up.
const runs = 5

// Allocated returns the heap allocations and the bytes one call of f makes: the fewest that
// any of a few calls made after a first one (which may fill caches and is not counted). The
// counters are the whole process's, so the runtime or a race detector allocating beside f
// can only add to a call's count; the fewest is the call's own.
func Allocated(f func()) (allocs, bytes float64) {
	var before, after runtime.MemStats
	f()
	allocs, bytes = math.Inf(1), math.Inf(1)
	for range runs {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		allocs = min(allocs, float64(after.Mallocs-before.Mallocs))
		bytes = min(bytes, float64(after.TotalAlloc-before.TotalAlloc))
	}
	return allocs, bytes
}

// StackGrown returns the bytes of goroutine stack one call of f grows: the fewest of a few
// calls, each in a subtest of t (so on a goroutine of its own, whose stack starts small),
// counted with the collector off (it would shrink the stack before it is counted). The
// collector scans every goroutine's stack in every cycle, frame by frame, so a reader whose
// stack grows with the depth of its input does work per cycle that grows with it too: over a
// whole input, more than linear.
func StackGrown(t *testing.T, f func()) float64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	grown := math.Inf(1)
	for range 3 {
		t.Run("stack", func(*testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			f()
			runtime.ReadMemStats(&after)
			grown = min(grown, float64(after.StackInuse)-float64(before.StackInuse))
		})
	}
	return grown
}
