package strict

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
)

func TestResolveTag(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a word", "api", tagStr},
		{"a boolean", "True", tagBool},
		{"yes stays a string", "yes", tagStr},
		{"null", "~", tagNull},
		{"an integer", "443", tagInt},
		{"a negative integer", "-17", tagInt},
		{"a uid starting 0b", "0b1ad2c3-aaaa-4bbb-8ccc-000000000001", tagStr},
		{"a uid starting with digits", "0123abcd-0000-4000-8000-000000000000", tagStr},
		{"an IP address", "10.96.0.1", tagStr},
		{"a date", "2024-01-02", tagTimestamp},
		{"a date and time", "2024-01-02T03:04:05Z", tagTimestamp},
		{"four digits and a dash", "1234-x", tagStr},
		{"a fraction", "1.5", tagFloat},
		{"an exponent", "1e3", tagFloat},
		{"too large for a float", "1e400", tagStr},
		{"hex", "0x1F", tagInt},
		{"binary", "0b101", tagInt},
		{"octal as YAML 1.1 wrote it", "0777", tagInt},
		{"underscores", "1_000", tagInt},
		{"the point alone", ".", tagStr},
		{"infinity", "-.inf", tagFloat},
		{"a merge key", "<<", tagMerge},
		{"an option", "--verbose", tagStr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, resolveTag(tt.in))
			assert.Equal(t, yamlTag(tt.in), resolveTag(tt.in), "yaml.v3 resolves it otherwise")
		})
	}
}

// TestResolveTagAgreesWithYAMLv3 holds resolveTag's shortcuts, and plainValue's, to yaml.v3's
// resolver on scalars made of the characters numbers, timestamps and uids are made of.
func TestResolveTagAgreesWithYAMLv3(t *testing.T) {
	const alphabet = "0123456789012345678901234567890123456789abcdefxXoObBeE+-._:T Z~ntfyNTF"
	rng := rand.New(rand.NewPCG(11, 12))
	n := longtest.N(30000, 5000000)
	for i := range n {
		b := make([]byte, 1+rng.IntN(12))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		if i%3 == 0 { // a uid, or a date
			b = []byte(uidLike(rng))
		}
		s := string(b)
		want := yamlTag(s)
		require.Equal(t, want, resolveTag(s), "the tag of %q", s)
		v, ok, err := plainValue(s)
		wv, wok, werr := scalarValue(want, s)
		require.Equal(t, wok, ok, "%q", s)
		require.Equal(t, wv, v, "the value of %q", s)
		require.Equal(t, werr, err, "the problem with %q", s)
	}
}

// uidLike is a random uid, date or timestamp, now and then cut short.
func uidLike(rng *rand.Rand) string {
	var s string
	switch rng.IntN(3) {
	case 0:
		s = "0123456789abcdef"[rng.IntN(16):] + "-1111-4a4a-8c8c-0123456789ab"
	case 1:
		s = "2024-0" + string(rune('1'+rng.IntN(9))) + "-1" + string(rune('0'+rng.IntN(9))) + "T03:04:05.5+01:00"
	default:
		s = "1.2.3-rc.1+build"
	}
	return s[:1+rng.IntN(len(s))]
}
