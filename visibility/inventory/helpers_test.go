package inventory

import (
	"math/rand/v2"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// pfx reads IPs and CIDRs as netip prefixes, exactly as written.
var pfx = istiotest.Prefixes

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// fieldErrors returns every problem joined in err as a FieldError value.
var fieldErrors = istiotest.FieldErrors
