package chain

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/meshscope/meshscope/exports"
)

// mustJSON is v as JSON, for test messages.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// FuzzCompile compiles whatever resolvers the input decodes to and holds every chain that
// compiles to the package's invariants (checkChain) and to the literal reference: the same
// start target and the same failover list.
func FuzzCompile(f *testing.F) {
	f.Add([]byte(`[{"Name":"main","Failover":{"*":{"Datacenters":["dc2"]}}}]`))
	f.Add([]byte(`[{"Name":"main","Redirect":{"Service":"a"}},{"Name":"a","Redirect":{"Service":"main"}}]`))
	f.Add([]byte(`[{"Name":"main","Subsets":{"v1":{}},"DefaultSubset":"v1","Failover":{"v1":{"Targets":[{"Peer":"east"},{"Service":"b","ServiceSubset":"x"}]}}}]`))
	// Peer targets through the local resolver of their name: a redirect, a default subset, a
	// cycle back through the peer, failover of a peer start, repeats.
	f.Add([]byte(`[{"Name":"main","Redirect":{"Service":"api","Peer":"east"}},{"Name":"api","Redirect":{"Datacenter":"dc2"}}]`))
	f.Add([]byte(`[{"Name":"main","Redirect":{"Service":"api","Peer":"east"}},{"Name":"api","Subsets":{"v1":{"Filter":"x"}},"DefaultSubset":"v1","ConnectTimeout":"2s"}]`))
	f.Add([]byte(`[{"Name":"main","Redirect":{"Service":"api","Peer":"east"}},{"Name":"api","Redirect":{"Service":"main","ServiceSubset":"v2"}},{"Name":"main","Namespace":"x"}]`))
	f.Add([]byte(`[{"Name":"main","Redirect":{"Service":"api","Peer":"east"}},{"Name":"api","Failover":{"*":{"Targets":[{"Peer":"west"},{"Datacenter":"dc2"},{"Peer":"west"}]}}}]`))
	f.Add([]byte(`[{"Name":"main","Subsets":{"v2":{}},"DefaultSubset":"v2","Failover":{"v2":{"Targets":[{"Peer":"east"},{"Peer":"east","Service":"main"},{"Service":"b","Peer":"east"}]}}},{"Name":"b","DefaultSubset":"v9","Subsets":{"v9":{}}}]`))
	f.Add([]byte(`[{"Name":"main","Failover":{"*":{"Datacenters":["dc2","dc2","dc1"]}}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var rs []ServiceResolver
		if err := json.Unmarshal(data, &rs); err != nil || len(rs) > 50 {
			return
		}
		for i := range rs {
			_ = rs[i].Validate()
		}
		req := Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}
		c, err := Compile(req, Entries{Resolvers: rs})
		if err != nil {
			return
		}
		checkChain(t, c)
		start, failover, refErr := refCompile(req, rs)
		if refErr != "" || start != c.Start || !slices.Equal(failover, c.Targets[c.Start].Failover) {
			t.Fatalf("reference: %s %v %q; Compile: %s %v", start, failover, refErr, c.Start, c.Targets[c.Start].Failover)
		}
	})
}
