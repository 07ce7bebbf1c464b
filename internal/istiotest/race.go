//go:build race

package istiotest

// Race reports whether the test is built with -race, under which sync.Pool drops what it
// holds at random: code that takes from a pool (regexp's matchers) allocates, so a test
// pinning allocations to none leaves such code out.
const Race = true
