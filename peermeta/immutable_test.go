package peermeta

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// TestOwnedValuesDoNotAlias mutates every slice, map and pointer that Replicate, Diff,
// Build and Upstream return — all of them the caller's — and checks
// that the caller's input and every later answer are unchanged.
func TestOwnedValuesDoNotAlias(t *testing.T) {
	in := replicationInput(t)
	after := replicationInput(t)
	after.Entries.Resolvers = append(after.Entries.Resolvers, chain.ServiceResolver{Name: "db", Redirect: &chain.Redirect{Service: "db2"}})
	importer, err := chain.Compile(chain.Request{Service: exports.ServiceName{Name: "db"}, Datacenter: "dc2", TrustDomain: td}, chain.Entries{
		Resolvers: []chain.ServiceResolver{{Name: "db", Redirect: &chain.Redirect{Service: "db", Peer: "east"}}},
	})
	require.NoError(t, err)
	answers := func() string {
		type all struct {
			Replication Replication
			Diff        ReplicationDiff
			Imported    Imported
			Input       []CheckServiceNode
		}
		var a all
		a.Replication, err = Replicate(in)
		require.NoError(t, err)
		a.Diff, err = Diff(in, after)
		require.NoError(t, err)
		a.Imported, err = Upstream(importer, importer.Start, a.Replication.Services[0].PeerMeta)
		require.NoError(t, err)
		a.Input = in.Gateways
		b, err := json.Marshal(a)
		require.NoError(t, err)
		return string(b)
	}
	before := answers()

	r, err := Replicate(in)
	require.NoError(t, err)
	require.NotEmpty(t, r.Services)
	for i := range r.Services {
		e := &r.Services[i]
		e.PeerMeta.SNI[0], e.PeerMeta.SpiffeID[0] = "evil", "evil"
		for j := range e.Origins {
			e.Origins[j].SpiffeID = "evil"
			if len(e.Origins[j].Targets) > 0 {
				e.Origins[j].Targets[0] = "evil"
			}
			if len(e.Origins[j].Via) > 0 {
				e.Origins[j].Via[0].To = "evil"
			}
		}
		for _, n := range e.Instances {
			n.Node.Node = "evil"
			if n.Node.TaggedAddresses != nil {
				n.Node.TaggedAddresses["wan"] = "evil"
			}
			if n.Service.TaggedAddresses != nil {
				n.Service.TaggedAddresses["evil"] = ServiceAddress{}
			}
			n.Service.Connect.PeerMeta.SpiffeID[0] = "evil"
			n.Service.Connect.PeerMeta.SNI = nil
			n.Service.Proxy.DestinationServiceName = "evil"
			for _, c := range n.Checks {
				c.Status = "evil"
			}
		}
	}
	for i := range r.Plain {
		r.Plain[i] = exports.ServiceName{Name: "evil"}
	}
	for i := range r.Excluded {
		r.Excluded[i].Err = errors.New("evil")
	}
	d, err := Diff(in, after)
	require.NoError(t, err)
	for i := range d.Services {
		s := &d.Services[i]
		for _, l := range [][]string{s.Gained, s.Lost, s.Before.SpiffeIDs, s.After.SpiffeIDs, s.Before.Instances, s.After.Instances} {
			if len(l) > 0 {
				l[0] = "evil"
			}
		}
	}
	for i := range d.Refused {
		d.Refused[i] = "evil"
	}
	imp, err := Upstream(importer, importer.Start, r.Services[0].PeerMeta)
	require.NoError(t, err)
	imp.SpiffeIDs[0] = "evil"

	c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}, in.Entries)
	require.NoError(t, err)
	m := Build(in.Exporter, c)
	m.SpiffeID[0] = "evil"
	assert.Equal(t, before, answers(), "changing returned values")
}
