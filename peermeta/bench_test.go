package peermeta

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/spiffe"
)

// benchInput exports 10,000 connect services over 100 namespaces to the peer east; every
// tenth fails over to two other partitions, one in a hundred (none of those) is http; three mesh gateway
// instances.
func benchInput(b *testing.B) Input {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "*", Namespace: "*", Consumers: []exports.Consumer{{Peer: "east"}}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	in := Input{Exporter: Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}, Exports: x,
		Entries: chain.Entries{Protocols: map[exports.ServiceName]string{}}}
	for i := range 10_000 {
		s := exports.ServiceName{Namespace: fmt.Sprintf("ns%d", i%100), Name: fmt.Sprintf("svc%d", i)}
		in.Catalog = append(in.Catalog, s)
		in.Connect = append(in.Connect, s)
		if i%10 == 0 {
			in.Entries.Resolvers = append(in.Entries.Resolvers, chain.ServiceResolver{Name: s.Name, Namespace: s.Namespace,
				Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Partition: "ap2"}, {Partition: "ap3"}}}}})
		}
		if i%100 == 5 {
			in.Entries.Protocols[s] = "http"
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
			c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Namespace: s.Namespace, Name: s.Name}, Datacenter: "dc1", TrustDomain: td}, in.Entries)
			if err != nil {
				b.Fatal(err)
			}
			m := Build(in.Exporter, c)
			_ = synthesize(s, m, in.Gateways)
			n++
		}
		if n != 10_000 {
			b.Fatal(n)
		}
	}
}

// diffInputs returns benchInput and a change to it: a tenth of the resolvers gain a third
// failover target, and every hundredth service loses its sidecar.
func diffInputs(b *testing.B) (Input, Input) {
	before := benchInput(b)
	after := before
	after.Entries.Resolvers = slices.Clone(before.Entries.Resolvers)
	for i := 0; i < len(after.Entries.Resolvers); i += 10 {
		r := &after.Entries.Resolvers[i]
		r.Failover = map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Partition: "ap2"}, {Partition: "ap3"}, {Partition: "ap4"}}}}
	}
	after.Connect = nil
	for i, s := range before.Connect {
		if i%100 != 0 {
			after.Connect = append(after.Connect, s)
		}
	}
	return before, after
}

func BenchmarkDiff10000(b *testing.B) {
	before, after := diffInputs(b)
	b.ReportAllocs()
	for b.Loop() {
		d, err := Diff(before, after)
		if err != nil || len(d.Services) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiff10000Naive is the baseline: replicate both sides, then for each service of
// one side find the other side's by a linear scan, and compare identity lists the same way.
func BenchmarkDiff10000Naive(b *testing.B) {
	before, after := diffInputs(b)
	b.ReportAllocs()
	for b.Loop() {
		bs, err := Replicate(before)
		if err != nil {
			b.Fatal(err)
		}
		as, err := Replicate(after)
		if err != nil {
			b.Fatal(err)
		}
		changed := 0
		for _, a := range as.Services {
			found := false
			for _, o := range bs.Services {
				if o.Service == a.Service {
					found = true
					for _, id := range a.PeerMeta.SpiffeID {
						if !slices.Contains(o.PeerMeta.SpiffeID, id) {
							changed++
							break
						}
					}
				}
			}
			if !found {
				changed++
			}
		}
		if changed == 0 {
			b.Fatal("no change")
		}
	}
}

// failoverChain is a tcp chain of main failing over to n datacenters.
func failoverChain(tb testing.TB, n int) *chain.Chain {
	dcs := make([]string, n)
	for i := range dcs {
		dcs[i] = fmt.Sprintf("dc%d", i+2)
	}
	c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td},
		chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "main", Failover: map[string]chain.Failover{"*": {Datacenters: dcs}}}}})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func benchmarkBuild(b *testing.B, n int) {
	c := failoverChain(b, n)
	x := Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		if m := Build(x, c); len(m.SpiffeID) != n+2 {
			b.Fatal(len(m.SpiffeID))
		}
	}
}

// BenchmarkBuildFailover{500,2000}: a tcp chain failing over to n datacenters, at n and 4n.
func BenchmarkBuildFailover500(b *testing.B)  { benchmarkBuild(b, 500) }
func BenchmarkBuildFailover2000(b *testing.B) { benchmarkBuild(b, 2000) }

// BenchmarkBuildFailover500Naive is the baseline: de-duplicating each ID by scanning the IDs
// already collected.
func BenchmarkBuildFailover500Naive(b *testing.B) {
	c := failoverChain(b, 500)
	x := Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		var ids []string
		for _, id := range c.TargetIDs() {
			if t := c.Targets[id]; t.Peer == "" {
				s := spiffe.Service{TrustDomain: x.TrustDomain, Partition: t.Service.Partition, Namespace: t.Service.Namespace, Datacenter: t.Datacenter, Service: t.Service.Name}.String()
				if !slices.Contains(ids, s) {
					ids = append(ids, s)
				}
			}
		}
		if len(ids) != 501 {
			b.Fatal(len(ids))
		}
	}
}
