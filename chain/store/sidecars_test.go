package store

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/intentions"
)

const (
	localTD = "11111111-2222-3333-4444-555555555555.consul"
	eastTD  = "eeeeeeee-1111-4111-8111-eeeeeeeeeeee.consul"
	westTD  = "aaaaaaaa-2222-4222-8222-aaaaaaaaaaaa.consul"
)

// cluster is a cluster in dc1 with the peerings east (default partition) and west (exporting
// from part-w), active with their trust bundles, and north, whose bundle never came.
func cluster() Cluster {
	return Cluster{TrustDomain: localTD, Datacenter: "dc1", Peerings: []Peering{
		{Name: "east", State: "ACTIVE", Peer: intentions.Peer{TrustDomain: eastTD, Datacenter: "dc-east"}},
		{Name: "west", State: "FAILING", Peer: intentions.Peer{TrustDomain: westTD, Partition: "part-w", Datacenter: "dc-west"}},
		{Name: "north", State: "PENDING"},
	}}
}

func sidecars(t *testing.T, config string, cl Cluster) *Sidecars {
	t.Helper()
	c, err := Load([]byte(config))
	require.NoError(t, err)
	sc, err := c.Sidecars(cl)
	require.NoError(t, err)
	return sc
}

func TestSidecarProtocols(t *testing.T) {
	config := `{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"http2"}}
{"Kind":"service-defaults","Name":"api","Protocol":"GRPC"}
{"Kind":"service-defaults","Name":"db","Protocol":""}
{"Kind":"mesh","HTTP":{"SanitizeXForwardedClientCert":true}}`
	cl := cluster()
	cl.Protocols = map[string]string{"api": "tcp", "web": ""}
	sc := sidecars(t, config, cl)
	for _, tt := range []struct{ service, protocol, chain string }{
		{"api", "tcp", "grpc"},    // the registration's own protocol wins
		{"db", "http2", "tcp"},    // an empty service-defaults protocol: proxy-defaults' for the proxy, tcp for the chain
		{"web", "http2", "http2"}, // so does an empty registration protocol
	} {
		s, err := sc.Sidecar(tt.service)
		require.NoError(t, err)
		assert.Equal(t, tt.protocol, s.Protocol, tt.service)
		assert.Equal(t, tt.chain, s.ChainProtocol, tt.service)
		assert.True(t, s.SanitizeXFCC)
		assert.Equal(t, []string{"east", "west"}, slices.Sorted(maps.Keys(s.Peers)), "the peers whose trust bundle came")
	}
}

// TestSidecarTrustBundles: a sidecar trusts the peers of the most exact rule of every service
// whose chain targets it, with an active peering and its bundle.
func TestSidecarTrustBundles(t *testing.T) {
	for _, tt := range []struct {
		name, rules, more string
		want              map[string][]string // service -> its bundles
	}{
		{"the most exact rule, not the union", `[{"Name":"*","Consumers":[{"Peer":"east"}]},{"Name":"api","Consumers":[{"Peer":"west"}]}]`, "",
			map[string][]string{"api": {"west"}, "db": {"east"}}},
		{"a rule of namespace * is the least exact", `[{"Name":"*","Namespace":"*","Consumers":[{"Peer":"west"},{"Partition":"ap1"}]},{"Name":"*","Consumers":[{"Peer":"east"}]}]`, "",
			map[string][]string{"api": {"east"}}},
		{"a chain that targets the service gives its peers; its own chain, redirected away, does not",
			`[{"Name":"web","Consumers":[{"Peer":"east"}]},{"Name":"api","Consumers":[{"Peer":"west"}]}]`,
			`{"Kind":"service-resolver","Name":"web","Redirect":{"Service":"db"}}
{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"db"}}`,
			map[string][]string{"db": {"east", "west"}, "api": nil, "web": nil}},
		{"failover targets count, through chains that name each other", `[{"Name":"web","Consumers":[{"Peer":"east"}]}]`,
			`{"Kind":"service-resolver","Name":"web","Redirect":{"Service":"api"}}
{"Kind":"service-resolver","Name":"api","Failover":{"*":{"Service":"db"}}}`,
			map[string][]string{"db": {"east"}, "api": {"east"}}},
		{"a peering not active, or without its bundle, gives none", `[{"Name":"*","Consumers":[{"Peer":"north"},{"Peer":"south"},{"Peer":"east"}]}]`, "",
			map[string][]string{"api": {"east"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			config := `{"Kind":"exported-services","Name":"default","Services":` + tt.rules + "}\n" + tt.more
			sc := sidecars(t, config, cluster())
			for svc, want := range tt.want {
				s, err := sc.Sidecar(svc)
				require.NoError(t, err)
				assert.Equal(t, want, s.TrustBundles, svc)
			}
		})
	}
	cl := cluster()
	cl.Peerings[0].State = "DELETING"
	sc := sidecars(t, `{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"Peer":"east"}]}]}`, cl)
	s, err := sc.Sidecar("api")
	require.NoError(t, err)
	assert.Empty(t, s.TrustBundles, "a peering being deleted is not active")
}

func TestClusterValidate(t *testing.T) {
	cl := Cluster{TrustDomain: "Not A Domain", Datacenter: "dc1", Peerings: []Peering{{Name: "east"}, {Name: "east", State: "UP"}, {Name: "*"},
		{Name: "west", Peer: intentions.Peer{TrustDomain: westTD}}}, Protocols: map[string]string{"api": "mongo"}}
	err := cl.Validate()
	require.Error(t, err)
	for _, want := range []string{"TrustDomain", `Peerings[1].Name: peering "east" is given twice`, `Peerings[1].State: "UP" is not a state`,
		"Peerings[2].Name: a peering needs a name without '*'", "Peerings[3].Peer.Datacenter", `Protocols["api"]: "mongo" is not a protocol Consul has`} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = Config{}.Sidecars(cl)
	assert.Error(t, err)
}

func TestSidecarErrors(t *testing.T) {
	sc := sidecars(t, `{"Kind":"service-resolver","Name":"web","Redirect":{"Service":"api"}}
{"Kind":"service-defaults","Name":"api","Protocol":"http"}`, cluster())
	_, err := sc.Sidecar("*")
	assert.ErrorContains(t, err, `Service: must name a service, got "*"`)
	_, err = sc.Destination("api")
	assert.ErrorContains(t, err, `the trust bundles of api's sidecar: the chain of web, which names it, does not compile`)
	_, err = sc.Decide("web", intentions.Caller{Service: "x"}, intentions.Request{}, intentions.ACL{})
	assert.ErrorContains(t, err, "the chain of web:")
}

// manyIntentions is a configuration whose api has n intentions, one per source, and the
// cluster's sidecars of it.
func manyIntentions(tb testing.TB, n int) *Sidecars {
	var b strings.Builder
	b.WriteString(`{"Kind":"service-defaults","Name":"api","Protocol":"http"}` + "\n")
	b.WriteString(`{"Kind":"service-intentions","Name":"api","Sources":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"Name":"s%d","Permissions":[{"Action":"allow","HTTP":{"PathPrefix":"/v%d"}}]}`, i, i)
	}
	b.WriteString("]}")
	c, err := Load([]byte(b.String()))
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := c.Sidecars(cluster())
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

var (
	benchCaller  = intentions.Caller{Service: "s999"}
	benchRequest = intentions.Request{Method: "GET", Path: "/v999/x"}
	benchACL     = intentions.ACL{DefaultPolicy: intentions.Deny}
)

// TestSidecarsDecideAllocatesNothing: a decision on a destination with 1,000 intentions,
// compiled on first use, allocates nothing after, from any goroutine.
func TestSidecarsDecideAllocatesNothing(t *testing.T) {
	sc := manyIntentions(t, 1000)
	dec, err := sc.Decide("api", benchCaller, benchRequest, benchACL)
	require.NoError(t, err)
	require.True(t, dec.Allowed)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = sc.Decide("api", benchCaller, benchRequest, benchACL) }))

	fresh := manyIntentions(t, 10)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			dec, err := fresh.Decide("api", intentions.Caller{Service: fmt.Sprintf("s%d", i)}, intentions.Request{Method: "GET", Path: fmt.Sprintf("/v%d", i)}, benchACL)
			assert.NoError(t, err)
			assert.True(t, dec.Allowed)
		})
	}
	wg.Wait()
}

// BenchmarkSidecarsDecide1000: Envoy's decision through the store on a destination with 1,000
// intentions (compiled once); BenchmarkSidecarsDecide1000Naive, the baseline, computes the
// sidecar's inputs and compiles them for every decision.
func BenchmarkSidecarsDecide1000(b *testing.B) {
	sc := manyIntentions(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if dec, err := sc.Decide("api", benchCaller, benchRequest, benchACL); err != nil || !dec.Allowed {
			b.Fatal(dec, err)
		}
	}
}

func BenchmarkSidecarsDecide1000Naive(b *testing.B) {
	sc := manyIntentions(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		side, err := sc.sidecar("api")
		if err != nil {
			b.Fatal(err)
		}
		d, err := intentions.Compile(side)
		if err != nil {
			b.Fatal(err)
		}
		if dec, err := d.Decide(benchCaller, benchRequest, benchACL); err != nil || !dec.Allowed {
			b.Fatal(dec, err)
		}
	}
}
