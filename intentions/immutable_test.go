package intentions

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompiledIsImmutable changes every input after Compile and runs decisions concurrently
// (go test -race): the compiled destination keeps its answers.
func TestCompiledIsImmutable(t *testing.T) {
	s := fuzzSidecar()
	d, err := Compile(s)
	require.NoError(t, err)
	c, r := Caller{Service: "web"}, Request{Method: "GET", Path: "/api/x", Headers: map[string]string{"x-tenant": "acme-1"}}
	want, err := d.Explain(c, r, ACL{DefaultPolicy: Deny})
	require.NoError(t, err)
	require.True(t, want.Decision.Allowed)

	s.Intentions[0].Permissions[1].HTTP.PathPrefix = "/other/"
	s.Intentions[0].SourceName = "db"
	s.TrustBundles[0] = "west"
	s.Peers["east"] = Peer{TrustDomain: "x.consul", Datacenter: "x"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, err := d.Explain(c, r, ACL{DefaultPolicy: Deny})
				require.NoError(t, err)
				require.Equal(t, want.Decision, got.Decision)
				require.Equal(t, want.Steps, got.Steps)
				dec, err := d.Decide(Caller{Service: "w1b", Peer: "west"}, r, ACL{})
				require.NoError(t, err)
				require.False(t, dec.Allowed, "w.b@west denies")
				_, err = d.Check("api", ACL{})
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, []string{"east", "west"}, d.Sidecar().TrustBundles)
}
