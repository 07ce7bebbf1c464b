package intentions

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandings: the intentions a sidecar never applies, whatever the request, and why.
func TestStandings(t *testing.T) {
	east := l4("web", "east", "api", Allow)
	for _, tt := range []struct {
		name   string
		s      Sidecar
		want   []Outcome
		reason Reason // of the last intention
	}{
		{"a more precedent intention has the source", sidecar("tcp", "tcp", nil, l4("web", "", "api", Allow), l4("web", "", "*", Deny)),
			[]Outcome{0, Duplicate}, 0},
		{"no trust bundle", sidecar("tcp", "tcp", nil, east), []Outcome{NoTrustBundle}, ReasonNoTrustBundle},
		{"a tcp chain to a tcp sidecar: the caller's own certificate", sidecar("tcp", "tcp", []string{"east"}, east), []Outcome{0}, 0},
		{"an http chain to an http sidecar: the header behind the gateway", sidecar("http", "http", []string{"east"}, east), []Outcome{0}, 0},
		{"a grpc sidecar strips the header", sidecar("grpc", "grpc", []string{"east"}, east), []Outcome{NotPresented}, ReasonStrippedHeader},
		{"an http chain to a tcp sidecar: the gateway's certificate", sidecar("tcp", "http", []string{"east"}, east), []Outcome{NotPresented}, ReasonPresentation},
		{"a tcp chain to an http sidecar: no header", sidecar("http", "tcp", []string{"east"}, east), []Outcome{NotPresented}, ReasonPresentation},
		{"a peer's *", sidecar("grpc", "grpc", []string{"east"}, l4("*", "east", "api", Allow)), []Outcome{NotPresented}, ReasonStrippedHeader},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Compile(tt.s)
			require.NoError(t, err)
			st := d.Standings()
			require.Len(t, st, len(tt.want))
			for i, s := range st {
				assert.Equal(t, tt.want[i], s.Outcome, "Intentions[%d]: %s", i, s.Why)
			}
			last := st[len(st)-1]
			assert.Equal(t, tt.reason, last.Reason, last.Why)
			if last.Outcome == Duplicate {
				assert.Equal(t, 0, last.Of)
			}
		})
	}
	s := sidecar("http", "http", nil, l7("web", "", Permission{Action: Deny, HTTP: &HTTPMatch{PathRegex: "/a/[z"}}))
	d, err := Compile(s)
	require.NoError(t, err)
	assert.Equal(t, `safe_regex matcher "/a/[z" is invalid`, d.RegexError(ACL{DefaultPolicy: Allow}))
	assert.Equal(t, "", d.RegexError(ACL{DefaultPolicy: Deny}), "a permission with the default's action is left out of the rules")
}
