package peermeta

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// benchInput exports 10,000 services over 100 namespaces to the peer east; every tenth fails
// over to two datacenters, every hundredth is http; three mesh gateway instances.
func benchInput(b *testing.B) Input {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "*", Namespace: "*", Consumers: []exports.Consumer{{Peer: "east"}}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	in := Input{Exporter: Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}, Exports: x,
		Entries: chain.Entries{Protocols: map[chain.ServiceKey]string{}}}
	for i := range 10_000 {
		s := exports.ServiceName{Namespace: fmt.Sprintf("ns%d", i%100), Name: fmt.Sprintf("svc%d", i)}
		in.Catalog = append(in.Catalog, s)
		if i%10 == 0 {
			in.Entries.Resolvers = append(in.Entries.Resolvers, chain.ServiceResolver{Name: s.Name, Namespace: s.Namespace,
				Failover: map[string]chain.Failover{"*": {Datacenters: []string{"dc2", "dc3"}}}})
		}
		if i%100 == 0 {
			in.Entries.Protocols[chain.ServiceKey{Namespace: s.Namespace, Service: s.Name}] = "http"
		}
	}
	if err := json.Unmarshal([]byte(gatewaysJSON), &in.Gateways); err != nil {
		b.Fatal(err)
	}
	in.Gateways = append(in.Gateways, in.Gateways[0])
	return in
}

func BenchmarkReplicate10000(b *testing.B) {
	in := benchInput(b)
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Replicate(in)
		if err != nil || len(rep.Services) != 10_000 {
			b.Fatal(err, len(rep.Services))
		}
	}
}

// BenchmarkReplicate10000Naive is the baseline: compile each chain from the raw entries with
// chain.Compile, validating all 1,000 resolvers again for every service.
func BenchmarkReplicate10000Naive(b *testing.B) {
	in := benchInput(b)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, s := range in.Exports.ForPeer("east", in.Catalog) {
			c, err := chain.Compile(chain.Request{Service: s.Name, Namespace: s.Namespace, Datacenter: "dc1", TrustDomain: td}, in.Entries)
			if err != nil {
				b.Fatal(err)
			}
			m := Build(in.Exporter, c)
			_ = Synthesize(s, m, in.Gateways)
			n++
		}
		if n != 10_000 {
			b.Fatal(n)
		}
	}
}
