package inventory

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/strict"
)

// randomValue is a value as strict's parsers give them, with strings of every kind of
// character JSON escapes.
func randomValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(7); {
	case depth > 3 || k == 0:
		runes := []string{"a", "\"", "\\", "\n", "\x01", "<", "&", "é", "\u2028", "\xff", "\U0001F600", "\t", "\x7f"}
		s := ""
		for range r.IntN(6) {
			s += runes[r.IntN(len(runes))]
		}
		return s
	case k == 1:
		return json.Number([]string{"0", "-1.5", "1e9", "42"}[r.IntN(4)])
	case k == 2:
		return r.IntN(2) == 0
	case k == 3:
		return nil
	case k == 4:
		l := make([]any, r.IntN(3))
		for i := range l {
			l[i] = randomValue(r, depth+1)
		}
		return l
	}
	f := strict.Fields{}
	for i := range r.IntN(4) {
		f = append(f, strict.Member{Key: string(rune('a'+i)) + "\"<", Value: randomValue(r, depth+1)})
	}
	return f
}

// TestAppendJSONIsJSONMarshal: appendJSON writes what json.Marshal writes, on random
// values.
func TestAppendJSONIsJSONMarshal(t *testing.T) {
	r := newRand(32, 13)
	for range longtest.N(1000, 5000) {
		v := randomValue(r, 0)
		want, err := json.Marshal(v)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendJSON(nil, v)))
	}
}

// BenchmarkTrafficPolicyJSON: what Load keeps of a traffic policy, beside json.Marshal.
func BenchmarkTrafficPolicyJSON(b *testing.B) {
	docs, err := strict.ParseYAML([]byte("connectionPool: {http: {http1MaxPendingRequests: 100}, tcp: {maxConnections: 100}}\noutlierDetection: {baseEjectionTime: 30s, consecutive5xxErrors: 5, interval: 10s}\ntls: {mode: ISTIO_MUTUAL}\nloadBalancer: {simple: LEAST_REQUEST}\n"), "")
	require.NoError(b, err)
	policy := docs[0].Value
	b.Run("appendJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			appendJSON(nil, policy)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(policy); err != nil {
				b.Fatal(err)
			}
		}
	})
}
