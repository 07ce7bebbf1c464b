package peermeta

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/testkit"
)

// vectorCalls builds, for one recorded case, what a program builds: the entries written to a
// store as Consul's server took them, the cluster (its peerings and the registrations'
// protocols), the replication input (every service of the case in the catalog, each with a
// sidecar) and the answers.
func vectorCalls(t *testing.T, v *testkit.Intentions, tc testkit.IntentionsCase) *Calls {
	t.Helper()
	all, err := json.Marshal(tc.Entries)
	require.NoError(t, err)
	var c store.Config
	_, err = c.Apply(all)
	require.NoError(t, err)
	peerings := []store.Peering{}
	for _, name := range v.PeerNames() {
		p := v.Peers[name]
		peerings = append(peerings, store.Peering{Name: name, Peer: intentions.Peer{TrustDomain: p.TrustDomain, Partition: p.ExportedPartition, Datacenter: p.Datacenter}})
	}
	sc, err := c.Sidecars(store.Cluster{TrustDomain: v.TrustDomain, Datacenter: v.Datacenter, Protocols: tc.Protocols(), Peerings: peerings})
	require.NoError(t, err)
	x, err := exports.CompileGroups(c.Entries.SamenessGroups, c.Exports...)
	require.NoError(t, err)
	var catalog []exports.ServiceName
	for _, svc := range slices.Sorted(maps.Keys(tc.Services)) {
		catalog = append(catalog, exports.ServiceName{Name: svc})
	}
	in := Input{Exporter: Exporter{Datacenter: v.Datacenter, TrustDomain: v.TrustDomain}, Exports: x, Catalog: catalog, Connect: catalog, Entries: c.Entries}
	calls, err := NewCalls(in, sc)
	require.NoError(t, err)
	return calls
}

// TestCallsAgainstConsul asks, of every recorded request, whether its caller — local, or a
// peer's, in namespace default or another — may call the destination, with everything
// computed from the case's entries: what each peer reaches (Consul's ExportedServicesForPeer
// and the local services their chains target), whether the request can arrive, how the caller
// arrives (its certificate and the forwarded header's first URI) and Envoy's decision under
// each default policy.
func TestCallsAgainstConsul(t *testing.T) {
	v := testkit.LoadIntentions(t)
	counts := map[string]int{}
	for _, tc := range v.Cases {
		calls := vectorCalls(t, v, tc)
		for _, peer := range v.PeerNames() {
			var exported []string
			for _, r := range calls.exportedTo(peer) {
				exported = append(exported, r.Service.Name)
			}
			if want := tc.Exports[peer].Services; !slices.Equal(exported, want) && len(exported)+len(want) > 0 {
				t.Errorf("%s: exported to %s: %v; Consul's %v", tc.Name, peer, exported, want)
			} else {
				counts["what Consul exports to a peer (ExportedServicesForPeer)"]++
			}
			var reached []string
			for s := range calls.reach(peer) {
				reached = append(reached, s.Name)
			}
			slices.Sort(reached)
			if want := tc.Exports[peer].Reaches; !slices.Equal(reached, want) && len(reached)+len(want) > 0 {
				t.Errorf("%s: peer %s reaches %v; Consul's chains %v", tc.Name, peer, reached, want)
				continue
			}
			counts["what a peer reaches"]++
		}
		for i, r := range tc.Requests {
			caller := intentions.Caller{Service: r.Caller.Service, Peer: r.Caller.Peer, Namespace: r.Caller.Namespace}
			req := intentions.Request{Method: r.Method, Path: r.Path, Headers: r.Headers}
			for _, def := range slices.Sorted(maps.Keys(r.Envoy)) {
				want := r.Envoy[def]
				call, err := calls.May(caller, r.Destination, req, intentions.ACL{DefaultPolicy: intentions.Action(def)})
				require.NoError(t, err)
				x := call.Explanation
				dec := x.Decision
				switch {
				case call.Reachable != r.Reachable:
					t.Errorf("%s: Requests[%d] (%+v → %s): reachable %v, Consul's %v: %v", tc.Name, i, r.Caller, r.Destination, call.Reachable, r.Reachable, call.Notes)
				case x.Arrival.String() != r.Via || x.Certificate != r.URISAN || x.XFCC != r.XFCCURI():
					t.Errorf("%s: Requests[%d] (%+v → %s): arrives %s %s %q, recorded %s %s %q", tc.Name, i, r.Caller, r.Destination, x.Arrival, x.Certificate, x.XFCC, r.Via, r.URISAN, r.XFCCURI())
				case !want.Agrees(dec.Allowed, dec.EnvoyError, dec.Policy):
					t.Errorf("%s: Requests[%d] (%+v → %s %s %s, default %s): %s, Envoy's %+v", tc.Name, i, r.Caller, r.Destination, r.Method, r.Path, def, dec, want)
				case call.Allowed != (r.Reachable && want.Allowed):
					t.Errorf("%s: Requests[%d]: allowed %v", tc.Name, i, call.Allowed)
				default:
					kind := "local"
					if caller.Peer != "" {
						kind = "peered"
					}
					counts["request, "+kind+": reachable, arrival, Envoy's decision"]++
				}
			}
		}
	}
	testkit.LogCounts(t, counts)
	require.Equal(t, 1000, counts["what a peer reaches"])
	require.Equal(t, 1000, counts["what Consul exports to a peer (ExportedServicesForPeer)"])
	require.Equal(t, 8000, counts["request, local: reachable, arrival, Envoy's decision"]+counts["request, peered: reachable, arrival, Envoy's decision"])
}
