package peermeta

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/intentions"
)

func TestLoadPeerings(t *testing.T) {
	got, err := LoadPeerings([]byte(`[
 {"ID":"1","Name":"east","State":"ACTIVE","PeerServerName":"server.dc-east.peering.eeee.consul","Remote":{"Partition":"default","Datacenter":"dc-east"},"StreamStatus":{}},
 {"Name":"west","State":"PENDING","Remote":{"Partition":"part-w","Datacenter":"dc-west"}},
 {"Name":"old","State":"ACTIVE","DeletedAt":"2024-05-01T10:00:00Z","Remote":{"Datacenter":"dc9"}}]`), map[string]string{"west": "aaaa.consul"})
	require.NoError(t, err)
	assert.Equal(t, []store.Peering{
		{Name: "east", State: "ACTIVE", Peer: intentions.Peer{TrustDomain: "eeee.consul", Partition: "default", Datacenter: "dc-east"}},
		{Name: "west", State: "PENDING", Peer: intentions.Peer{TrustDomain: "aaaa.consul", Partition: "part-w", Datacenter: "dc-west"}},
		{Name: "old", State: "DELETING", Peer: intentions.Peer{Datacenter: "dc9"}},
	}, got)
	assert.False(t, got[2].Active(), "a peering marked for deletion is not active")

	none, err := LoadPeerings([]byte(`[]`), nil)
	require.NoError(t, err)
	assert.NotNil(t, none)

	for _, tt := range []struct {
		in  string
		tds map[string]string
		err string
	}{
		{`{}`, nil, "must be a list of peerings"},
		{`[{"Name":"east","PeerServerName":"east.consul"}]`, nil, `[0].PeerServerName: "east.consul" is not a peering server name`},
		{`[{"Name":"east","Partition":"ap1"}]`, nil, `a peering of partition "ap1"`},
		{`[{"State":"ACTIVE"}]`, nil, "[0].Name"},
		{`[{"Name":"east","PeerServerName":"server.dc1.peering.eeee.consul"}]`, map[string]string{"east": "ffff.consul"}, `its server name says trust domain "eeee.consul"; "ffff.consul" was given`},
		{`[{"Name":"east"}]`, map[string]string{"west": "aaaa.consul", "east": "Not Valid"}, `a trust domain for peering "west", which the output does not list`},
		{`[{"Name":"east"}]`, map[string]string{"east": ""}, `trust domains["east"]: "" must not be empty`},
		{`[{"Name":7}]`, nil, "[0].Name"},
	} {
		_, err := LoadPeerings([]byte(tt.in), tt.tds)
		assert.ErrorContains(t, err, tt.err, tt.in)
	}
}

func FuzzLoadPeerings(f *testing.F) {
	f.Add([]byte(`[{"Name":"east","State":"ACTIVE","PeerServerName":"server.dc-east.peering.eeee.consul","Remote":{"Partition":"default","Datacenter":"dc-east"}}]`))
	f.Add([]byte(`[{"Name":"west","DeletedAt":"2024-05-01T10:00:00Z"},{"Name":"x","PeerServerName":"server."}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := LoadPeerings(data, nil)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Name == "" {
				t.Fatalf("a peering without a name: %+v", p)
			}
		}
	})
}

func FuzzParseCall(f *testing.F) {
	for _, s := range []string{"east/web api", "web api", "east/ns1/web api", "a/b/c/d x", " web  api ", "web"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, svc, err := ParseCall(s)
		if err != nil {
			return
		}
		if c.Service == "" || svc == "" {
			t.Fatalf("%q: an empty name: %+v %q", s, c, svc)
		}
		again, err := ParseCaller(callerName(c))
		if err != nil || again != c {
			t.Fatalf("%q: %+v writes back as %q, read %+v (%v)", s, c, callerName(c), again, err)
		}
	})
}
