package visibility

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
)

// longAlphabets make long names of long labels, of short ones, of normal ones, and of empty
// ones.
var longAlphabets = [...]string{"abcXYZ0-.", "abcXYZ0", "abcxyz0.", "ab.."}

// TestQuickHost holds the one-pass host check to the detailed one on random strings.
func TestQuickHost(t *testing.T) {
	r := newRand(71, 72)
	const alphabet = "aZ9-.*_ \xc3"
	for k := range longtest.N(20_000, 200_000) {
		// Short strings of every byte class, and long ones of mostly letters (labels near
		// 63 bytes, names near 253, words of eight bytes and the tails after them).
		b := make([]byte, r.IntN(10))
		if k%2 == 1 {
			b = make([]byte, r.IntN(140))
		}
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
			if k%2 == 1 && r.IntN(40) != 0 {
				long := longAlphabets[k%8/2]
				b[i] = long[r.IntN(len(long))]
			}
		}
		h := string(b)
		n := strings.TrimPrefix(normalizeHost(h), "*.")
		slow := n != "" && n != "*" && normalizeHost(h) != "*" && hostSlowOK(n)
		ok, normal := quickHost(h)
		require.Equal(t, slow, ok, "%q", h)
		if ok {
			require.Equal(t, normalizeHost(h) == h, normal, "%q is normal", h)
		}
		require.Equal(t, slow, hostProblem(h) == "", "%q", h)
	}
}

func hostSlowOK(n string) bool {
	for _, l := range strings.Split(n, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return len(n) <= 253
}

// TestParseIPv4 holds the dotted-quad reader to netip.ParseAddr on random strings.
func TestParseIPv4(t *testing.T) {
	r := newRand(73, 74)
	const alphabet = "0123456789.....2551x:"
	for k := range longtest.N(20_000, 200_000) {
		b := make([]byte, r.IntN(18))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if k%2 == 1 { // four fields of one to four digits: most are addresses, some not
			var f [4]string
			for j := range f {
				f[j] = strconv.Itoa(r.IntN(300))
				if r.IntN(8) == 0 {
					f[j] = "0" + f[j]
				}
			}
			s = strings.Join(f[:], ".")
		}
		got, ok := parseIPv4(s)
		want, err := netip.ParseAddr(s)
		if ok {
			require.NoError(t, err, "%q", s)
			require.Equal(t, want, got, "%q", s)
		} else if err == nil {
			require.False(t, want.Is4(), "%q is an IPv4 address netip reads and parseIPv4 does not", s)
		}
	}
}
