package store

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/testkit"
)

// vectorCluster is the recording's cluster: its names, its peers' peerings (active, with
// their trust bundles) and the registrations of the case.
func vectorCluster(v *testkit.Intentions, tc testkit.IntentionsCase) Cluster {
	cl := Cluster{TrustDomain: v.TrustDomain, Datacenter: v.Datacenter, Protocols: tc.Protocols()}
	for _, name := range v.PeerNames() {
		p := v.Peers[name]
		cl.Peerings = append(cl.Peerings, Peering{Name: name, State: "ACTIVE",
			Peer: intentions.Peer{TrustDomain: p.TrustDomain, Partition: p.ExportedPartition, Datacenter: p.Datacenter}})
	}
	return cl
}

// summaries are intentions as the recording summarises them.
func summaries(list []intentions.Intention) []testkit.Intention {
	out := []testkit.Intention{}
	for _, x := range list {
		out = append(out, testkit.Intention{SourceName: x.SourceName, SourcePeer: x.SourcePeer, DestinationName: x.DestinationName,
			Precedence: x.Precedence, Action: string(x.Action), Permissions: len(x.Permissions)})
	}
	return out
}

// TestIntentionsAgainstConsul replays every recorded configuration of service-intentions
// through Config.Apply — every write of every kind, its stage and Consul's words — and holds
// what the store says each sidecar has, computed from the entries it stored (Sidecars), to
// what Consul's agent gave it: the chain's and the proxy's protocols, the trust bundles and
// the intentions in Consul's order; then every check-API answer, asked of the sidecar
// compiled from those inputs. (Every request, local and peered, is decided end to end in
// package peermeta's test.)
func TestIntentionsAgainstConsul(t *testing.T) {
	v := testkit.LoadIntentions(t)
	counts := map[string]int{}
	for _, tc := range v.Cases {
		c, problems := replayWrites(tc.Entries, tc.Writes, counts)
		for _, p := range problems {
			t.Errorf("%s: %s", tc.Name, p)
		}
		if len(problems) > 0 {
			continue
		}
		sc, err := c.Sidecars(vectorCluster(v, tc))
		require.NoError(t, err)
		for _, svc := range slices.Sorted(maps.Keys(tc.Services)) {
			if problem := compareSidecar(sc, svc, tc.Services[svc]); problem != "" {
				t.Errorf("%s: %s: %s", tc.Name, svc, problem)
				continue
			}
			counts["sidecar's inputs, computed from the entries, as Consul's"]++
		}
		for i, ck := range tc.Checks {
			d, err := sc.Destination(ck.Destination)
			require.NoError(t, err)
			for def, want := range ck.Allowed {
				got, err := d.Check(ck.Source, intentions.ACL{Enabled: true, DefaultPolicy: intentions.Action(def)})
				require.NoError(t, err)
				var matched *testkit.Intention
				if got.Intention >= 0 {
					matched = &summaries(d.Intentions()[got.Intention : got.Intention+1])[0]
				}
				if got.Allowed != want || got.HasPermissions != ck.HasPermissions || got.HasExact != ck.HasExact ||
					(matched == nil) != (ck.Matched == nil) || matched != nil && *matched != *ck.Matched {
					t.Errorf("%s: Checks[%d] (%s → %s, default %s): got %+v, Consul's allowed %v %+v", tc.Name, i, ck.Source, ck.Destination, def, got, want, ck)
					continue
				}
				counts["check API answer"]++
			}
		}
	}
	testkit.LogCounts(t, counts)
	require.Equal(t, 2500, counts["sidecar's inputs, computed from the entries, as Consul's"])
	require.Equal(t, 5000, counts["check API answer"])
}

// compareSidecar says how the sidecar's inputs the store computes differ from Consul's.
func compareSidecar(sc *Sidecars, svc string, want testkit.Sidecar) string {
	side, err := sc.Sidecar(svc)
	if err != nil {
		return err.Error()
	}
	bundles := slices.Clip(side.TrustBundles)
	switch {
	case side.ChainProtocol != want.ChainProtocol:
		return fmt.Sprintf("chain protocol %q, Consul's %q", side.ChainProtocol, want.ChainProtocol)
	case side.Protocol != want.ProxyProtocol:
		return fmt.Sprintf("proxy protocol %q, Consul's %q", side.Protocol, want.ProxyProtocol)
	case !slices.Equal(bundles, want.TrustBundles):
		return fmt.Sprintf("trust bundles %v, Consul's %v", bundles, want.TrustBundles)
	case !slices.Equal(summaries(side.Intentions), want.Intentions) && len(want.Intentions)+len(side.Intentions) > 0:
		return fmt.Sprintf("intentions %v, Consul's %v", summaries(side.Intentions), want.Intentions)
	}
	return ""
}
