package chain

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/internal/longtest"
)

// refPeerExport is the peer-export check read literally, with linear scans: the resolvers
// reachable from the service, visited breadth-first in the order first reached — its own (or,
// without one, the partition members of its partition's DefaultForFailover group); then of
// each, its redirect, its failover sections by sorted key with their Service or Targets in
// order (peer targets not followed), a sameness group's partition members after the section's
// own Service — and the first problem of the first resolver that has one, "" when none has.
// It restates the problems peerUnsafe names, in Consul's words, on purpose: the reference
// stays independent of the code it checks.
func refPeerExport(rs []ServiceResolver, groups []exports.SamenessGroup, start exports.ServiceName) string {
	find := func(partition, namespace, name string) *ServiceResolver {
		for i := range rs {
			if rs[i].Name == name && def(rs[i].Namespace) == def(namespace) && def(rs[i].Partition) == def(partition) {
				return &rs[i]
			}
		}
		return nil
	}
	var queue []*ServiceResolver
	reach := func(r *ServiceResolver) {
		if r != nil && !slices.Contains(queue, r) {
			queue = append(queue, r)
		}
	}
	members := func(name, service, namespace string, dff bool) {
		for _, g := range groups {
			if def(g.Partition) != start.Partition || (dff && !g.DefaultForFailover) || (!dff && g.Name != name) {
				continue
			}
			if g.IncludeLocal {
				reach(find(g.Partition, namespace, service))
			}
			for _, m := range g.Members {
				if m.Peer == "" {
					reach(find(m.Partition, namespace, service))
				}
			}
		}
	}
	if own := find(start.Partition, start.Namespace, start.Name); own != nil {
		reach(own)
	} else {
		members("", start.Name, start.Namespace, true)
	}
	or := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	for i := 0; i < len(queue); i++ { // queue grows as the walk reaches resolvers
		r := queue[i]
		if rd := r.Redirect; rd != nil {
			switch {
			case rd.Datacenter != "":
				return "cross-datacenter resolver redirect"
			case rd.Peer != "":
				return "cross-peer resolver redirect"
			case rd.Partition != "" && def(rd.Partition) != def(r.Partition):
				return "cross-partition resolver redirect"
			}
		}
		for _, k := range sortedKeys(r.Failover) {
			f := r.Failover[k]
			if len(f.Datacenters) > 0 || slices.ContainsFunc(f.Targets, func(t FailoverTarget) bool { return t.Datacenter != "" }) {
				return "cross-datacenter failover"
			}
		}
		if rd := r.Redirect; rd != nil {
			reach(find(or(rd.Partition, r.Partition), or(rd.Namespace, r.Namespace), or(rd.Service, r.Name)))
			if rd.SamenessGroup != "" {
				members(rd.SamenessGroup, r.Name, r.Namespace, false) // the resolver's own service, as Consul reads it
			}
		}
		for _, k := range sortedKeys(r.Failover) {
			f := r.Failover[k]
			if len(f.Targets) == 0 {
				reach(find(r.Partition, or(f.Namespace, r.Namespace), or(f.Service, r.Name)))
				if f.SamenessGroup != "" {
					members(f.SamenessGroup, r.Name, r.Namespace, false)
				}
			}
			for _, t := range f.Targets {
				if t.Peer == "" {
					reach(find(or(t.Partition, r.Partition), or(t.Namespace, or(f.Namespace, r.Namespace)), or(t.Service, r.Name)))
				}
			}
		}
	}
	return ""
}

var (
	safetyPartitions = []string{"default", "ap1", "ap2"}
	safetyNamespaces = []string{"default", "ns1"}
	safetyServices   = []string{"a", "b", "c", "d", "e"}
)

// randomSafety returns valid resolvers over three partitions that redirect and fail over to
// each other, to peers, other datacenters and sameness groups, and a sameness group of every
// partition (g, some DefaultForFailover) whose partition members hold more of them.
func randomSafety(r *rand.Rand) ([]ServiceResolver, []exports.SamenessGroup) {
	var rs []ServiceResolver
	for _, part := range safetyPartitions {
		for _, ns := range safetyNamespaces {
			for _, svc := range safetyServices {
				if r.IntN(3) == 0 {
					continue
				}
				res := ServiceResolver{Name: svc, Namespace: ns, Partition: part}
				other := func() string { return pick(r, safetyServices...) }
				switch r.IntN(4) {
				case 0:
					rd := &Redirect{Service: other(), Namespace: maybe(r, 0.3, pick(r, safetyNamespaces...))}
					switch r.IntN(6) {
					case 0:
						rd.Datacenter = "dc2"
					case 1:
						rd.Peer, rd.Namespace = "east", ""
					case 2:
						rd.Partition = pick(r, safetyPartitions...)
					case 3:
						rd.SamenessGroup = "g"
					}
					res.Redirect = rd
				case 1, 2:
					res.Failover = map[string]Failover{}
					for _, k := range []string{"*", "v1"} {
						if k == "v1" {
							if r.IntN(2) == 0 {
								continue
							}
							res.Subsets = map[string]Subset{"v1": {}}
						}
						var f Failover
						switch r.IntN(5) {
						case 0:
							f.Datacenters = []string{"dc2"}
						case 1:
							f.SamenessGroup, f.Service = "g", maybe(r, 0.4, other())
						case 2:
							f.Service, f.Namespace = other(), maybe(r, 0.3, pick(r, safetyNamespaces...))
						default:
							for range 1 + r.IntN(3) {
								t := FailoverTarget{Service: maybe(r, 0.7, other())}
								switch r.IntN(4) {
								case 0:
									t.Peer = "west"
								case 1:
									t.Datacenter = maybe(r, 0.5, "dc3")
								default:
									t.Partition = maybe(r, 0.7, pick(r, safetyPartitions...))
								}
								f.Targets = append(f.Targets, t)
							}
						}
						res.Failover[k] = f
					}
				}
				if res.Validate() == nil {
					rs = append(rs, res)
				}
			}
		}
	}
	var groups []exports.SamenessGroup
	for _, part := range safetyPartitions {
		g := exports.SamenessGroup{Name: "g", Partition: part, IncludeLocal: r.IntN(2) == 0, DefaultForFailover: r.IntN(2) == 0}
		for _, m := range []exports.SamenessMember{{Partition: "default"}, {Partition: "ap1"}, {Partition: "ap2"}, {Peer: "east"}} {
			if r.IntN(2) == 0 && !(g.IncludeLocal && m.Partition == part) {
				g.Members = append(g.Members, m)
			}
		}
		r.Shuffle(len(g.Members), func(i, j int) { g.Members[i], g.Members[j] = g.Members[j], g.Members[i] })
		if g.DefaultForFailover && !g.IncludeLocal && !slices.Contains(g.Members, exports.SamenessMember{Partition: part}) {
			g.IncludeLocal = true
		}
		if len(g.Members) == 0 {
			g.Members = []exports.SamenessMember{{Peer: "north"}}
		}
		groups = append(groups, g)
	}
	r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
	return rs, groups
}

// TestCheckPeerExportAgainstReference: for every service of every partition of random
// resolver graphs, the compiler's answer is the literal walk's.
func TestCheckPeerExportAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	var unsafe, safe int
	for trial := range longtest.N(300, 4000) {
		rs, groups := randomSafety(r)
		cc, err := NewCompiler(Entries{Resolvers: rs, SamenessGroups: groups})
		require.NoError(t, err)
		for _, part := range safetyPartitions {
			for _, ns := range safetyNamespaces {
				for _, svc := range safetyServices {
					s := exports.ServiceName{Partition: part, Namespace: ns, Name: svc}
					want := refPeerExport(rs, groups, s)
					got := ""
					if err := cc.checkPeerExport(s, []exports.ServiceName{s.Canonical()}, ""); err != nil {
						got = err.(*FieldError).Detail
						unsafe++
					} else {
						safe++
					}
					if want != "" {
						want = fmt.Sprintf("peer exported service %q contains %s", s.Short(), want)
					}
					if got != want {
						t.Fatalf("trial %d, %s: want %q, got %q for %s %s", trial, s, want, got, mustJSON(rs), mustJSON(groups))
					}
				}
			}
		}
	}
	require.Greater(t, unsafe, safe/4)
	require.Greater(t, safe, unsafe/4)
}

// failoverLine returns n resolvers s0 … s(n-1), each failing over to the next; the last
// redirects to another datacenter, so that every one of them reaches that problem.
func failoverLine(n int) Entries {
	var rs []ServiceResolver
	for i := range n - 1 {
		rs = append(rs, ServiceResolver{Name: fmt.Sprintf("s%d", i), Failover: map[string]Failover{"*": {Service: fmt.Sprintf("s%d", i+1)}}})
	}
	rs = append(rs, ServiceResolver{Name: fmt.Sprintf("s%d", n-1), Redirect: &Redirect{Datacenter: "dc2"}})
	return Entries{Resolvers: rs}
}

// checkAll checks every service of the line, as replicating them all does.
func checkAll(tb testing.TB, cc *Compiler, n int) {
	for i := range n {
		if cc.checkPeerExport(exports.ServiceName{}, []exports.ServiceName{{Partition: "default", Namespace: "default", Name: fmt.Sprintf("s%d", i)}}, "") == nil {
			tb.Fatalf("s%d is safe", i)
		}
	}
}

// TestCheckPeerExportIsLinear: checking every service of a partition, each reaching the far
// end of a long line of resolvers, is linear in the resolvers (a walk per service is
// quadratic).
func TestCheckPeerExportIsLinear(t *testing.T) {
	work := func(n int) float64 {
		e := failoverLine(n)
		allocs, _ := growth.Allocated(func() {
			cc, err := NewCompiler(e)
			require.NoError(t, err)
			checkAll(t, cc, n)
		})
		return allocs
	}
	small, large := work(500), work(2000)
	require.Less(t, large, 6*small, "4x the resolvers: %v allocations beside %v", large, small)
}

func benchmarkCheckAll(b *testing.B, n int) {
	e := failoverLine(n)
	b.ReportAllocs()
	for b.Loop() {
		cc, err := NewCompiler(e)
		if err != nil {
			b.Fatal(err)
		}
		checkAll(b, cc, n)
	}
}

// BenchmarkCheckPeerExportLine{1000,4000}: every service of an n-long failover line checked,
// at n and 4n; linear work grows 4x.
func BenchmarkCheckPeerExportLine1000(b *testing.B) { benchmarkCheckAll(b, 1000) }
func BenchmarkCheckPeerExportLine4000(b *testing.B) { benchmarkCheckAll(b, 4000) }

// BenchmarkCheckPeerExportLine1000Walk is the baseline: a breadth-first walk per service.
func BenchmarkCheckPeerExportLine1000Walk(b *testing.B) {
	cc, err := NewCompiler(failoverLine(1000))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range 1000 {
			if cc.walkPeerExport(exports.ServiceName{Partition: "default", Namespace: "default", Name: fmt.Sprintf("s%d", i)}) == "" {
				b.Fatal("safe")
			}
		}
	}
}

// walkPeerExport is the breadth-first walk over the compiled consults, one per service: the
// baseline the safety table replaces.
func (c *Compiler) walkPeerExport(start exports.ServiceName) string {
	var queue []*indexed
	seen := map[*indexed]bool{}
	reach := func(n *indexed) {
		if !seen[n] {
			seen[n] = true
			queue = append(queue, n)
		}
	}
	if r, ok := c.resolvers[start]; ok {
		reach(r)
	} else if g := c.dff[start.Partition]; g != nil {
		c.members(g, start.Name, start.Namespace, reach)
	}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if r.peerUnsafe != "" {
			return r.peerUnsafe
		}
		for _, k := range r.consults {
			if k.n != nil {
				reach(k.n)
			} else if g := c.groups[[2]string{start.Partition, k.group}]; k.group != "" && g != nil {
				c.members(g, r.Name, orDefault(r.Namespace), reach)
			}
		}
	}
	return ""
}

// BenchmarkNewCompilerLine4000 builds a Compiler over an n-long failover line whose far end is
// not peer-export safe: NewCompiler builds the peer-export table. With
// BenchmarkNewCompilerAndCompileLine4000 (one chain compiled), it is what the table costs a
// caller that never checks one and one that compiles a single chain.
func BenchmarkNewCompilerLine4000(b *testing.B) {
	e := failoverLine(4000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewCompiler(e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewCompilerAndCompileLine4000(b *testing.B) {
	e := failoverLine(4000)
	req := Request{Service: exports.ServiceName{Name: "s0"}, Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		cc, err := NewCompiler(e)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cc.Compile(req); err != nil {
			b.Fatal(err)
		}
	}
}
