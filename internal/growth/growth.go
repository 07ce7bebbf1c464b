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

import "runtime"

// runs is how many calls Allocated averages over, after one call to warm up.
const runs = 3

// Allocated returns the heap allocations and the bytes one call of f makes, averaged over a
// few calls after a first one (which may fill caches and is not counted).
func Allocated(f func()) (allocs, bytes float64) {
	var before, after runtime.MemStats
	f()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / runs, float64(after.TotalAlloc-before.TotalAlloc) / runs
}
