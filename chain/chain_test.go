package chain

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/testkit"
)

const td = "11111111-2222-3333-4444-555555555555.consul"

var mainReq = Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}

func compileOK(t testing.TB, req Request, e Entries) *Chain {
	t.Helper()
	c, err := Compile(req, e)
	require.NoError(t, err)
	return c
}

func resolvers(rs ...ServiceResolver) Entries { return Entries{Resolvers: rs} }

func TestCompileSpecExamples(t *testing.T) {
	tests := []struct {
		name     string
		e        Entries
		start    string
		failover []string
		targets  []string
	}{
		{"no resolvers", Entries{}, "main.default.default.dc1", nil, []string{"main.default.default.dc1"}},
		{"redirect", resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Service: "other"}}),
			"other.default.default.dc1", nil, []string{"other.default.default.dc1"}},
		{"failover datacenters", resolvers(ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Datacenters: []string{"dc2", "dc4"}}}}),
			"main.default.default.dc1", []string{"main.default.default.dc2", "main.default.default.dc4"},
			[]string{"main.default.default.dc1", "main.default.default.dc2", "main.default.default.dc4"}},
		{"failover through a redirect", resolvers(
			ServiceResolver{Name: "backup", Redirect: &Redirect{Service: "actual"}},
			ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Service: "backup"}}},
		), "main.default.default.dc1", []string{"actual.default.default.dc1"}, []string{"actual.default.default.dc1", "main.default.default.dc1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compileOK(t, mainReq, tt.e)
			assert.Equal(t, tt.start, c.Start)
			assert.Equal(t, tt.failover, c.Targets[c.Start].Failover)
			assert.Equal(t, tt.targets, c.TargetIDs())
			for _, id := range tt.failover {
				assert.Nil(t, c.Targets[id].Failover, "failover targets have no failover of their own")
			}
		})
	}
}

func TestCircularRedirect(t *testing.T) {
	_, err := Compile(mainReq, resolvers(
		ServiceResolver{Name: "main", Redirect: &Redirect{Service: "other"}},
		ServiceResolver{Name: "other", Redirect: &Redirect{Service: "main"}},
	))
	assert.EqualError(t, err, "detected circular resolver redirect: [main.default.default.dc1 -> other.default.default.dc1 -> main.default.default.dc1]")

	_, err = Compile(mainReq, resolvers(
		ServiceResolver{Name: "main", Redirect: &Redirect{Service: "a"}},
		ServiceResolver{Name: "a", Redirect: &Redirect{Service: "b"}},
		ServiceResolver{Name: "b", Redirect: &Redirect{Service: "a"}},
	))
	assert.EqualError(t, err, "detected circular resolver redirect: [main.default.default.dc1 -> a.default.default.dc1 -> b.default.default.dc1 -> a.default.default.dc1]")
}

func TestCompile(t *testing.T) {
	subsets := map[string]Subset{"v1": {}, "v2": {}}
	tests := []struct {
		name     string
		req      Request
		e        Entries
		start    string
		failover []string
		targets  []string
	}{
		{"default subset", mainReq, resolvers(ServiceResolver{Name: "main", Subsets: subsets, DefaultSubset: "v1"}),
			"v1.main.default.default.dc1", nil, []string{"v1.main.default.default.dc1"}},
		{"redirect to a subset of another service", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "api", ServiceSubset: "v2"}},
			ServiceResolver{Name: "api", Subsets: subsets, DefaultSubset: "v1"},
		), "v2.api.default.default.dc1", nil, []string{"v2.api.default.default.dc1"}},
		{"redirect then default subset", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "api"}},
			ServiceResolver{Name: "api", Subsets: subsets, DefaultSubset: "v1"},
		), "v1.api.default.default.dc1", nil, []string{"v1.api.default.default.dc1"}},
		{"redirect to datacenter only is a no-op after one hop", mainReq, resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Datacenter: "dc2"}}),
			"main.default.default.dc2", nil, []string{"main.default.default.dc2"}},
		{"redirect to self is a no-op", mainReq, resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Service: "main"}}),
			"main.default.default.dc1", nil, []string{"main.default.default.dc1"}},
		{"redirect to namespace", mainReq, resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Service: "main", Namespace: "ops"}}),
			"main.ops.default.dc1", nil, []string{"main.ops.default.dc1"}},
		{"redirect to peer", mainReq, resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Service: "main", Peer: "east"}}),
			"main.default.default.external.east", nil, []string{"main.default.default.external.east"}},
		{"a peer target goes through the local resolver of its name", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "api", Peer: "east"}},
			ServiceResolver{Name: "api", Redirect: &Redirect{Service: "nowhere"}},
		), "nowhere.default.default.dc1", nil, []string{"nowhere.default.default.dc1"}},
		{"a peer target without a local resolver of its name rests", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "api", Peer: "east"}},
		), "api.default.default.external.east", nil, []string{"api.default.default.external.east"}},
		{"failover per subset, else wildcard", mainReq, resolvers(ServiceResolver{Name: "main", Subsets: subsets, DefaultSubset: "v1",
			Failover: map[string]Failover{"v1": {ServiceSubset: "v2"}, "*": {Datacenters: []string{"dc9"}}}}),
			"v1.main.default.default.dc1", []string{"v2.main.default.default.dc1"}, []string{"v1.main.default.default.dc1", "v2.main.default.default.dc1"}},
		{"wildcard failover keeps the subset", mainReq, resolvers(ServiceResolver{Name: "main", Subsets: subsets, DefaultSubset: "v2",
			Failover: map[string]Failover{"v1": {ServiceSubset: "v2"}, "*": {Datacenters: []string{"dc9"}}}}),
			"v2.main.default.default.dc1", []string{"v2.main.default.default.dc9"}, []string{"v2.main.default.default.dc1", "v2.main.default.default.dc9"}},
		{"failover targets with a peer", mainReq, resolvers(ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{
			{Datacenter: "dc2"}, {Peer: "east"}, {Service: "other", Namespace: "ops"}, {Partition: "ap1"},
		}}}}), "main.default.default.dc1",
			[]string{"main.default.default.dc2", "main.default.default.external.east", "other.ops.default.dc1", "main.default.ap1.dc1"},
			[]string{"main.default.ap1.dc1", "main.default.default.dc1", "main.default.default.dc2", "main.default.default.external.east", "other.ops.default.dc1"}},
		{"candidate equal to the target is dropped before resolution", mainReq, resolvers(ServiceResolver{Name: "main",
			Failover: map[string]Failover{"*": {Datacenters: []string{"dc1", "dc2"}}}}),
			"main.default.default.dc1", []string{"main.default.default.dc2"}, []string{"main.default.default.dc1", "main.default.default.dc2"}},
		{"candidate resolving to the target is dropped", mainReq, resolvers(
			ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "alias"}, {Service: "b"}}}}},
			ServiceResolver{Name: "alias", Redirect: &Redirect{Service: "main"}},
		), "main.default.default.dc1", []string{"b.default.default.dc1"}, []string{"b.default.default.dc1", "main.default.default.dc1"}},
		{"repeats are kept, as Consul keeps them", mainReq, resolvers(
			ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "a"}, {Service: "b"}, {Service: "a"}}}}},
			ServiceResolver{Name: "b", Redirect: &Redirect{Service: "a"}},
		), "main.default.default.dc1", []string{"a.default.default.dc1", "a.default.default.dc1", "a.default.default.dc1"}, []string{"a.default.default.dc1", "main.default.default.dc1"}},
		{"a repeated datacenter is listed twice", mainReq, resolvers(ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Datacenters: []string{"dc2", "dc2"}}}}),
			"main.default.default.dc1", []string{"main.default.default.dc2", "main.default.default.dc2"}, []string{"main.default.default.dc1", "main.default.default.dc2"}},
		{"a loop through failover is fine", mainReq, resolvers(
			ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Service: "b"}}},
			ServiceResolver{Name: "b", Failover: map[string]Failover{"*": {Service: "main"}}},
		), "main.default.default.dc1", []string{"b.default.default.dc1"}, []string{"b.default.default.dc1", "main.default.default.dc1"}},
		{"failover of the redirected target", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "api"}},
			ServiceResolver{Name: "api", Failover: map[string]Failover{"*": {Datacenters: []string{"dc2"}}}},
		), "api.default.default.dc1", []string{"api.default.default.dc2"}, []string{"api.default.default.dc1", "api.default.default.dc2"}},
		{"request in a partition and namespace", Request{Service: exports.ServiceName{Partition: "ap", Namespace: "ns", Name: "main"}, Datacenter: "dc1", TrustDomain: td}, Entries{},
			"main.ns.ap.dc1", nil, []string{"main.ns.ap.dc1"}},
		{"resolvers are found by namespace and partition", Request{Service: exports.ServiceName{Partition: "ap", Namespace: "ns", Name: "main"}, Datacenter: "dc1", TrustDomain: td}, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "x"}},
			ServiceResolver{Name: "main", Namespace: "ns", Partition: "ap", Redirect: &Redirect{Service: "y"}},
		), "y.ns.ap.dc1", nil, []string{"y.ns.ap.dc1"}},
		{"peer target takes the requesting partition", Request{Service: exports.ServiceName{Partition: "ap", Name: "main"}, Datacenter: "dc1", TrustDomain: td}, resolvers(
			ServiceResolver{Name: "main", Partition: "ap", Redirect: &Redirect{Service: "web", Peer: "east", Namespace: "ns"}},
		), "web.ns.ap.external.east", nil, []string{"web.ns.ap.external.east"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compileOK(t, tt.req, tt.e)
			assert.Equal(t, tt.start, c.Start)
			assert.Equal(t, tt.failover, c.Targets[c.Start].Failover)
			assert.Equal(t, tt.targets, c.TargetIDs())
			for id, tg := range c.Targets {
				assert.Equal(t, id, tg.ID)
				assert.Equal(t, id, tg.Via[len(tg.Via)-1].To, "the last step lands on the target")
			}
		})
	}
}

func TestTargetNames(t *testing.T) {
	c := compileOK(t, Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}, resolvers(ServiceResolver{Name: "main",
		Subsets: map[string]Subset{"v1": {}}, DefaultSubset: "v1",
		Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "db", Namespace: "data", Partition: "ap1"}, {Peer: "east"}}}}}))
	start := c.Targets["v1.main.default.default.dc1"]
	assert.Equal(t, &Target{ID: "v1.main.default.default.dc1", Service: exports.ServiceName{Partition: "default", Namespace: "default", Name: "main"}, Subset: "v1", Datacenter: "dc1",
		SNI: "v1.main.default.dc1.internal." + td, SpiffeID: "spiffe://" + td + "/ns/default/dc/dc1/svc/main",
		Failover:       []string{"db.data.ap1.dc1", "main.default.default.external.east"},
		Via:            []Step{{Field: "request", To: "main.default.default.dc1"}, {Resolver: "default/default/main", Field: "DefaultSubset", From: "main.default.default.dc1", To: "v1.main.default.default.dc1"}},
		ConnectTimeout: defaultConnectTimeout,
	}, start)
	db := c.Targets["db.data.ap1.dc1"]
	assert.Equal(t, "db.data.ap1.dc1.internal-v1."+td, db.SNI)
	assert.Equal(t, "spiffe://"+td+"/ap/ap1/ns/data/dc/dc1/svc/db", db.SpiffeID)
	assert.Equal(t, []Step{{Resolver: "default/default/main", Field: `Failover["*"].Targets[0]`, From: "v1.main.default.default.dc1", To: "db.data.ap1.dc1"}}, db.Via)
	peer := c.Targets["main.default.default.external.east"]
	assert.Equal(t, &Target{ID: "main.default.default.external.east", Service: exports.ServiceName{Partition: "default", Namespace: "default", Name: "main"}, Subset: "v1", Peer: "east",
		Via:            []Step{{Resolver: "default/default/main", Field: `Failover["*"].Targets[1]`, From: "v1.main.default.default.dc1", To: "main.default.default.external.east"}},
		ConnectTimeout: defaultConnectTimeout}, peer, "the peer target keeps the subset, as Consul's does, and has the 5s default")
	assert.Empty(t, c.Findings(), "the local resolver main changes nothing of the peer target")
	assert.Equal(t, `chain default/default/main (tcp)
  start v1.main.default.default.dc1: request main.default.default.dc1, DefaultSubset of default/default/main -> v1.main.default.default.dc1
  failover 1 db.data.ap1.dc1: Failover["*"].Targets[0] of default/default/main -> db.data.ap1.dc1
  failover 2 main.default.default.external.east: Failover["*"].Targets[1] of default/default/main -> main.default.default.external.east`, c.Explain())
}

// TestExplainRepeats: a target the failover list holds twice is explained once, at its first
// place; the repeat says it is one (its steps would name the first candidate's field).
func TestExplainRepeats(t *testing.T) {
	c := compileOK(t, mainReq, resolvers(ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Datacenters: []string{"dc2", "dc3", "dc2"}}}}))
	assert.Equal(t, `chain default/default/main (tcp)
  start main.default.default.dc1: request main.default.default.dc1
  failover 1 main.default.default.dc2: Failover["*"].Datacenters[0] of default/default/main -> main.default.default.dc2
  failover 2 main.default.default.dc3: Failover["*"].Datacenters[1] of default/default/main -> main.default.default.dc3
  failover 3 main.default.default.dc2: again, as Consul lists a repeat (first as failover 1)`, c.Explain())
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		e    Entries
		errs []string
	}{
		{"request fields", Request{}, Entries{}, []string{"Request.Service.Name: is required", "Request.Datacenter: is required", "Request.TrustDomain: is required"}},
		{"invalid and duplicate resolvers", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{}},
			ServiceResolver{Name: "a"},
			ServiceResolver{Name: "a", Namespace: "default"},
		), []string{
			"Resolvers[0] (default/default/main): Redirect: Redirect is empty",
			"Resolvers[2] (default/default/a): duplicate of Resolvers[1]; one resolver per service",
		}},
		{"missing subset", mainReq, resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Service: "api", ServiceSubset: "v3"}}), []string{
			`service "api" does not have a subset named "v3"`,
		}},
		{"failover errors are collected", mainReq, resolvers(
			ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "a", ServiceSubset: "x"}, {Service: "b"}, {Service: "c"}}}}},
			ServiceResolver{Name: "b", Redirect: &Redirect{Service: "c"}},
			ServiceResolver{Name: "c", Redirect: &Redirect{Service: "b"}},
		), []string{
			`failover of main.default.default.dc1 by Failover["*"].Targets[0] of default/default/main: service "a" does not have a subset named "x"`,
			`failover of main.default.default.dc1 by Failover["*"].Targets[1] of default/default/main: detected circular resolver redirect: [b.default.default.dc1 -> c.default.default.dc1 -> b.default.default.dc1]`,
			`failover of main.default.default.dc1 by Failover["*"].Targets[2] of default/default/main: detected circular resolver redirect: [c.default.default.dc1 -> b.default.default.dc1 -> c.default.default.dc1]`,
		}},
		{"inconsistent protocols", mainReq, Entries{
			Resolvers: []ServiceResolver{
				{Name: "main", Redirect: &Redirect{Service: "api"}},
				{Name: "api", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "db"}, {Service: "cache", Namespace: "ops"}, {Peer: "east"}}}}},
			},
			Protocols:       map[exports.ServiceName]string{{Name: "main"}: "HTTP", {Name: "api"}: "http", {Namespace: "default", Name: "db"}: ""},
			DefaultProtocol: "grpc",
		}, []string{
			`discovery chain "main" uses inconsistent protocols; service "db" has "tcp" which is not "http"`,
			`discovery chain "main" uses inconsistent protocols; service "default/ops/cache" has "grpc" which is not "http"`,
		}},
		{"conflicting protocol keys", mainReq, Entries{Protocols: map[exports.ServiceName]string{{Name: "a"}: "http", {Partition: "default", Namespace: "default", Name: "a"}: "tcp"}}, []string{
			`Protocols: default/default/a is given twice, as "http" and "tcp"`,
		}},
		{"names that cannot be an SNI", Request{Service: exports.ServiceName{Name: "Main"}, Datacenter: "dc1", TrustDomain: td}, Entries{}, []string{
			`target Main.default.default.dc1: SNI: Service: "Main" must be lower case`,
		}},
		{"a peer's names are checked like local ones", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "Billing", Peer: "east.dc"}},
		), []string{
			`target Billing.default.default.external.east.dc: Service: "Billing" must be lower case`,
			`target Billing.default.default.external.east.dc: Peer: "east.dc" must not contain "." (the label separator)`,
		}},
		{"ID collision", Request{Service: exports.ServiceName{Partition: "c", Namespace: "b", Name: "a"}, Datacenter: "d", TrustDomain: td}, resolvers(
			ServiceResolver{Name: "a", Namespace: "b", Partition: "c", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{
				{Peer: "d", Namespace: "b"},
				{Service: "b", Namespace: "c", Partition: "external", ServiceSubset: "a"},
			}}}},
			ServiceResolver{Name: "b", Namespace: "c", Partition: "external", Subsets: map[string]Subset{"a": {}}},
		), []string{
			`target ID "a.b.c.external.d" names two different targets ({service:a subset: namespace:b partition:c datacenter: peer:d} and {service:b subset:a namespace:c partition:external datacenter:d peer:}); rename one`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.req, tt.e)
			testkit.ErrLines(t, err, tt.errs)
		})
	}
}

func TestErrorSentinels(t *testing.T) {
	req := mainReq
	tests := []struct {
		name    string
		req     Request
		entries Entries
		want    error
	}{
		{"redirect cycle", req, Entries{Resolvers: []ServiceResolver{
			{Name: "main", Redirect: &Redirect{Service: "other"}}, {Name: "other", Redirect: &Redirect{Service: "main"}}}}, ErrRedirectCycle},
		{"unknown subset", req, Entries{Resolvers: []ServiceResolver{{Name: "main", Redirect: &Redirect{Service: "other", ServiceSubset: "v9"}}}}, errUnknownSubset},
		{"protocol mismatch", req, Entries{Resolvers: []ServiceResolver{{Name: "main", Redirect: &Redirect{Service: "other"}}},
			Protocols: map[exports.ServiceName]string{{Name: "main"}: "http"}}, ErrProtocolMismatch},
		{"duplicate resolver", req, Entries{Resolvers: []ServiceResolver{{Name: "main"}, {Name: "main", Namespace: "default"}}}, errDuplicate},
		{"incomplete request", Request{Service: exports.ServiceName{Name: "main"}}, Entries{}, errRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.req, tt.entries)
			require.ErrorIs(t, err, tt.want)
			for _, e := range fielderr.Split(err) {
				var fe *FieldError
				assert.ErrorAs(t, e, &fe, "every problem is a FieldError")
			}
		})
	}
}

func TestErrorStructure(t *testing.T) {
	_, err := NewCompiler(Entries{Resolvers: []ServiceResolver{
		{Name: "web", Subsets: map[string]Subset{"V1": {}}, DefaultSubset: "v2"},
		{Name: "api"},
		{Name: "api", Partition: "default"},
	}})
	require.Error(t, err)
	var got []FieldError
	for _, e := range fielderr.Split(err) {
		got = append(got, *e.(*FieldError))
	}
	want := []FieldError{
		{Where: "Resolvers[0] (default/default/web)", Field: `Subsets["V1"]`},
		{Where: "Resolvers[0] (default/default/web)", Field: "DefaultSubset"},
		{Where: "Resolvers[2] (default/default/api)", Value: "default/default/api", Err: errDuplicate},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(FieldError{}, "Detail"), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestProtocol(t *testing.T) {
	c := compileOK(t, mainReq, Entries{DefaultProtocol: "HTTP2"})
	assert.Equal(t, "http2", c.Protocol)
	c = compileOK(t, mainReq, Entries{Protocols: map[exports.ServiceName]string{{Name: "main"}: ""}, DefaultProtocol: "http"})
	assert.Equal(t, "tcp", c.Protocol, "a present empty protocol is tcp")
	c = compileOK(t, mainReq, Entries{Protocols: map[exports.ServiceName]string{{Name: "main"}: "gRPC"}, Resolvers: []ServiceResolver{
		{Name: "main", Redirect: &Redirect{Service: "x", Peer: "east"}},
	}})
	assert.Equal(t, "grpc", c.Protocol, "peer targets are not checked")
}

func TestIsHTTPLike(t *testing.T) {
	for p, want := range map[string]bool{"http": true, "http2": true, "grpc": true, "HTTP": false, "tcp": false, "": false, "grpc-web": false} {
		assert.Equal(t, want, IsHTTPLike(p), p)
	}
}

func TestLongRedirectChainIsIterative(t *testing.T) {
	n := longtest.N(10000, 100000)
	rs := make([]ServiceResolver, n)
	for i := range rs {
		rs[i] = ServiceResolver{Name: name(i), Redirect: &Redirect{Service: name(i + 1)}}
	}
	c := compileOK(t, Request{Service: exports.ServiceName{Name: name(0)}, Datacenter: "dc1", TrustDomain: td}, Entries{Resolvers: rs})
	assert.Equal(t, name(n)+".default.default.dc1", c.Start)
	assert.Len(t, c.Targets[c.Start].Via, n+1)
}

func name(i int) string { return "s" + strconv.Itoa(i) }

func TestCompilerReuse(t *testing.T) {
	e := resolvers(
		ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Datacenters: []string{"dc2"}}}},
		ServiceResolver{Name: "api", Redirect: &Redirect{Service: "main"}},
	)
	cc, err := NewCompiler(e)
	require.NoError(t, err)
	reqs := []Request{mainReq, {Service: exports.ServiceName{Name: "api"}, Datacenter: "dc1", TrustDomain: td}, {Service: exports.ServiceName{Namespace: "ns", Name: "other"}, Datacenter: "dc3", TrustDomain: td}}
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				req := reqs[(g+i)%len(reqs)]
				got, err := cc.Compile(req)
				if err != nil {
					t.Error(err)
					return
				}
				want, _ := Compile(req, e)
				if got.Start != want.Start || len(got.Targets) != len(want.Targets) || fmt.Sprint(got.CheckPeerExport()) != fmt.Sprint(want.CheckPeerExport()) {
					t.Errorf("%+v: %s vs %s", req, got.Start, want.Start)
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	_, err = cc.Compile(Request{Service: exports.ServiceName{Name: "x"}})
	assert.EqualError(t, err, "Request.Datacenter: is required\nRequest.TrustDomain: is required")
	_, err = NewCompiler(resolvers(ServiceResolver{}))
	assert.EqualError(t, err, "Resolvers[0] (default/default/): Name: Name is required")
}

// TestSharedPathIsLinear pins the growth of Compile's work, counted in allocations, when n
// failover candidates share an n-hop redirect path: at 4n it is at most 5 times that at n
// (each candidate joins the path walked once; walking it again per candidate is 16 times).
func TestSharedPathIsLinear(t *testing.T) {
	allocs := func(n int) float64 {
		cc, err := NewCompiler(sharedPath(n))
		require.NoError(t, err)
		return testing.AllocsPerRun(3, func() {
			if _, err := cc.Compile(mainReq); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(100), allocs(400)
	assert.Less(t, large, 5*small, "allocations at n=100: %v, at n=400: %v", small, large)
}
