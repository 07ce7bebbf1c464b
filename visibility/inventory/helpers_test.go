package inventory

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/stretchr/testify/require"
)

// pfx reads IPs and CIDRs as netip prefixes, an IP as a /32 or /128, exactly as written:
// IPv4 mapped into IPv6 stays mapped and host bits stay set.
func pfx(addrs ...string) []netip.Prefix {
	if addrs == nil {
		return nil
	}
	out := make([]netip.Prefix, len(addrs))
	for i, a := range addrs {
		if strings.Contains(a, "/") {
			out[i] = netip.MustParsePrefix(a)
		} else {
			ip := netip.MustParseAddr(a)
			out[i] = netip.PrefixFrom(ip, ip.BitLen())
		}
	}
	return out
}

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// fieldErrors returns every problem joined in err as a FieldError value, failing the test if
// one is of another type.
func fieldErrors(t *testing.T, err error) []FieldError {
	t.Helper()
	var out []FieldError
	for _, e := range fielderr.Split(err) {
		fe, ok := e.(*FieldError)
		require.True(t, ok, "%T is not a *FieldError: %v", e, e)
		out = append(out, *fe)
	}
	return out
}
