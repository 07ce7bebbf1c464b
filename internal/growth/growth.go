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
