package chain

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"

	"github.com/meshscope/meshscope/internal/longtest"
)

// refTarget and the functions below are a slow, literal reading of the resolution rules the
// package documentation lists (a peer's target goes through the local resolver of its name;
// redirect, then default subset, then the subset check; failover candidates resolved but not
// failed over; repeats kept), recursive and with linear scans, that Compile is checked
// against.
type refTarget struct{ Service, Subset, Namespace, Partition, Datacenter, Peer string }

func (t refTarget) ID() string {
	if t.Peer != "" {
		return fmt.Sprintf("%s.%s.%s.external.%s", t.Service, t.Namespace, t.Partition, t.Peer)
	}
	if t.Subset != "" {
		return fmt.Sprintf("%s.%s.%s.%s.%s", t.Subset, t.Service, t.Namespace, t.Partition, t.Datacenter)
	}
	return fmt.Sprintf("%s.%s.%s.%s", t.Service, t.Namespace, t.Partition, t.Datacenter)
}

func def(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

// refFind finds a target's resolver by service, namespace and partition — never the peer.
func refFind(rs []ServiceResolver, t refTarget) *ServiceResolver {
	for i := range rs {
		r := &rs[i]
		if r.Name == t.Service && def(r.Namespace) == t.Namespace && def(r.Partition) == t.Partition {
			return r
		}
	}
	return nil
}

// refOpts are the fields of a Redirect, a failover section or a failover target.
type refOpts struct{ svc, subset, ns, part, dc, peer string }

// refReq is where the request is made.
type refReq struct{ partition, datacenter string }

func refRewrite(t refTarget, req refReq, o refOpts) refTarget {
	svc, subset, ns, part, dc, peer := o.svc, o.subset, o.ns, o.part, o.dc, o.peer
	n := t
	if svc != "" && svc != t.Service {
		n.Service = svc
		n.Subset = ""
	}
	if subset != "" {
		n.Subset = subset
	}
	if part != "" {
		n.Partition = part
	}
	if dc != "" {
		n.Datacenter = dc
	}
	if ns != "" || peer != "" {
		n.Namespace = def(ns)
	}
	n.Peer = peer
	if peer != "" {
		n.Datacenter, n.Partition = "", req.partition
	} else if n.Datacenter == "" {
		n.Datacenter = req.datacenter
	}
	return n
}

func refResolve(rs []ServiceResolver, req refReq, t refTarget, visited []string) (refTarget, string) {
	r := refFind(rs, t)
	if slices.Contains(visited, t.ID()) {
		return t, "cycle"
	}
	visited = append(visited, t.ID())
	if r != nil && r.Redirect != nil && r.Redirect.SamenessGroup == "" { // a sameness redirect is a failover
		d := r.Redirect
		n := refRewrite(t, req, refOpts{svc: d.Service, subset: d.ServiceSubset, ns: d.Namespace, part: d.Partition, dc: d.Datacenter, peer: d.Peer})
		if n.ID() != t.ID() {
			return refResolve(rs, req, n, visited)
		}
	}
	if t.Subset == "" && r != nil && r.DefaultSubset != "" {
		return refResolve(rs, req, refRewrite(t, req, refOpts{subset: r.DefaultSubset}), visited)
	}
	if t.Subset != "" {
		if r == nil {
			return t, "subset"
		}
		if _, ok := r.Subsets[t.Subset]; !ok {
			return t, "subset"
		}
	}
	return t, ""
}

// refCompile returns the start ID, the failover IDs and the first error kind ("cycle",
// "subset", "missing"), or "" when resolution succeeds.
func refCompile(req Request, rs []ServiceResolver, groups ...exports.SamenessGroup) (string, []string, string) {
	rs = refRead(req, rs, groups)
	p := def(req.Service.Partition)
	rq := refReq{p, req.Datacenter}
	request := refTarget{Service: req.Service.Name, Namespace: def(req.Service.Namespace), Partition: p, Datacenter: req.Datacenter}
	start, err := refResolve(rs, rq, request, nil)
	if err != "" {
		return "", nil, err
	}
	group := func(name string) *exports.SamenessGroup {
		for i := range groups {
			if groups[i].Name == name && def(groups[i].Partition) == p {
				return &groups[i]
			}
		}
		return nil
	}
	var cands []refTarget
	r := refFind(rs, start)
	switch {
	case r == nil:
		if refFind(rs, request) != nil || start.Peer != "" {
			return start.ID(), nil, ""
		}
		for i := range groups {
			if groups[i].DefaultForFailover && def(groups[i].Partition) == p {
				cands = refSameness(start, rq, &groups[i], start.Service, start.Namespace, "", "")
			}
		}
	case r.Redirect != nil && r.Redirect.SamenessGroup != "":
		g := group(r.Redirect.SamenessGroup)
		if g == nil {
			return start.ID(), nil, "missing"
		}
		cands = refSameness(start, rq, g, r.Name, def(r.Namespace), r.Redirect.Service, r.Redirect.Namespace)
	default:
		f, ok := r.Failover[start.Subset]
		if !ok || start.Subset == "" {
			f, ok = r.Failover["*"]
		}
		if !ok {
			return start.ID(), nil, ""
		}
		switch {
		case f.SamenessGroup != "":
			g := group(f.SamenessGroup)
			if g == nil {
				return start.ID(), nil, "missing"
			}
			cands = refSameness(start, rq, g, r.Name, def(r.Namespace), f.Service, f.Namespace)
		case len(f.Datacenters) > 0:
			for _, dc := range f.Datacenters {
				cands = append(cands, refRewrite(start, rq, refOpts{svc: f.Service, subset: f.ServiceSubset, ns: f.Namespace, dc: dc}))
			}
		case len(f.Targets) > 0:
			for _, x := range f.Targets {
				cands = append(cands, refRewrite(start, rq, refOpts{svc: x.Service, subset: x.ServiceSubset, ns: x.Namespace, part: x.Partition, dc: x.Datacenter, peer: x.Peer}))
			}
		default:
			cands = append(cands, refRewrite(start, rq, refOpts{svc: f.Service, subset: f.ServiceSubset, ns: f.Namespace}))
		}
	}
	var out []string
	firstErr := ""
	for _, c := range cands {
		if c.ID() == start.ID() {
			continue
		}
		got, err := refResolve(rs, rq, c, nil)
		if err != "" {
			if firstErr == "" {
				firstErr = err
			}
			continue
		}
		if got.ID() == start.ID() {
			continue
		}
		out = append(out, got.ID())
	}
	return start.ID(), out, firstErr
}

// refRead returns the resolvers Consul's server reads for the request's chain, read
// literally from the package documentation: from the requested service, repeatedly, the
// services each read resolver names (its redirect, each failover section's Service or its
// own name, each failover target not on a peer, and its own name in the partition members
// of the sameness groups it names), and for a service without a resolver its name in the
// partition members of its partition's DefaultForFailover group; until nothing is added.
func refRead(req Request, rs []ServiceResolver, groups []exports.SamenessGroup) []ServiceResolver {
	type svc struct{ name, ns, part string }
	read := map[svc]bool{{req.Service.Name, def(req.Service.Namespace), def(req.Service.Partition)}: true}
	members := func(g exports.SamenessGroup, s svc) {
		if g.IncludeLocal {
			read[svc{s.name, s.ns, def(g.Partition)}] = true
		}
		for _, m := range g.Members {
			if m.Peer == "" {
				read[svc{s.name, s.ns, def(m.Partition)}] = true
			}
		}
	}
	for {
		n := len(read)
		for s := range read {
			var r *ServiceResolver
			for i := range rs {
				if rs[i].Name == s.name && def(rs[i].Namespace) == s.ns && def(rs[i].Partition) == s.part {
					r = &rs[i]
				}
			}
			or := func(a, b string) string {
				if a != "" {
					return a
				}
				return b
			}
			group := func(name string) {
				for _, g := range groups {
					if name != "" && g.Name == name && def(g.Partition) == def(req.Service.Partition) {
						members(g, s)
					}
				}
			}
			if r == nil {
				for _, g := range groups {
					if g.DefaultForFailover && def(g.Partition) == s.part {
						members(g, s)
					}
				}
				continue
			}
			if d := r.Redirect; d != nil {
				read[svc{or(d.Service, r.Name), def(or(d.Namespace, r.Namespace)), def(or(d.Partition, r.Partition))}] = true
				group(d.SamenessGroup)
			}
			for _, f := range r.Failover {
				if len(f.Targets) == 0 {
					read[svc{or(f.Service, r.Name), def(or(f.Namespace, r.Namespace)), def(r.Partition)}] = true
				}
				for _, t := range f.Targets {
					if t.Peer == "" {
						read[svc{or(t.Service, r.Name), def(or(t.Namespace, or(f.Namespace, r.Namespace))), def(or(t.Partition, r.Partition))}] = true
					}
				}
				group(f.SamenessGroup)
			}
		}
		if len(read) == n {
			break
		}
	}
	var out []ServiceResolver
	for _, r := range rs {
		if read[svc{r.Name, def(r.Namespace), def(r.Partition)}] {
			out = append(out, r)
		}
	}
	return out
}

// refSameness is the group expansion read literally: for each member in order (with
// IncludeLocal the group's partition first), the start rewritten with the section's service
// (else the resolver's), its namespace (else the resolver's), and the member's partition or
// peer.
func refSameness(start refTarget, req refReq, g *exports.SamenessGroup, rName, rNamespace, sService, sNamespace string) []refTarget {
	svc, ns := sService, sNamespace
	if svc == "" {
		svc = rName
	}
	if ns == "" {
		ns = rNamespace
	}
	members := g.Members
	if g.IncludeLocal {
		members = append([]exports.SamenessMember{{Partition: def(g.Partition)}}, members...)
	}
	var out []refTarget
	for _, m := range members {
		if m.Peer != "" {
			out = append(out, refRewrite(start, req, refOpts{svc: svc, ns: ns, peer: m.Peer}))
		} else {
			out = append(out, refRewrite(start, req, refOpts{svc: svc, ns: ns, part: def(m.Partition)}))
		}
	}
	return out
}

var (
	randServices   = []string{"main", "a", "b", "c"}
	randNamespaces = []string{"default", "ns1"}
	randSubsets    = []string{"v1", "v2"}
)

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

func maybe(r *rand.Rand, p float64, s string) string {
	if r.Float64() < p {
		return s
	}
	return ""
}

// randomResolvers builds a random resolver graph; invalid resolvers are dropped.
func randomResolvers(r *rand.Rand, redirects, failovers bool) []ServiceResolver {
	var out []ServiceResolver
	for _, svc := range randServices {
		for _, ns := range randNamespaces {
			if r.Float64() < 0.3 {
				continue
			}
			res := ServiceResolver{Name: svc, Namespace: ns}
			if r.IntN(2) == 0 {
				res.Subsets = map[string]Subset{}
				for _, s := range randSubsets {
					if r.IntN(3) > 0 {
						res.Subsets[s] = Subset{}
					}
				}
				if len(res.Subsets) > 0 && r.IntN(2) == 0 {
					res.DefaultSubset = pick(r, slices.Sorted(maps.Keys(res.Subsets))...)
				}
			}
			switch {
			case redirects && r.IntN(2) == 0:
				rd := &Redirect{Service: maybe(r, 0.8, pick(r, randServices...))}
				if rd.Service != "" {
					rd.ServiceSubset = maybe(r, 0.3, pick(r, randSubsets...))
					rd.Namespace = maybe(r, 0.3, pick(r, randNamespaces...))
					if rd.ServiceSubset == "" && r.IntN(8) == 0 {
						rd.Peer = "p1"
					}
				}
				if rd.Peer == "" {
					rd.Datacenter = maybe(r, 0.2, "dc2")
				}
				res.Redirect = rd
			case failovers:
				res.Failover = map[string]Failover{}
				for _, k := range append([]string{"*"}, randSubsets...) {
					if r.IntN(2) == 0 {
						continue
					}
					var f Failover
					switch r.IntN(3) {
					case 0:
						f.Datacenters = []string{pick(r, "dc1", "dc2"), pick(r, "dc2", "dc3")}
						f.Service = maybe(r, 0.3, pick(r, randServices...))
					case 1:
						for range 1 + r.IntN(3) {
							ft := FailoverTarget{Service: maybe(r, 0.7, pick(r, randServices...)), Namespace: maybe(r, 0.3, pick(r, randNamespaces...))}
							switch r.IntN(4) {
							case 0:
								ft.Peer = "p1"
							case 1:
								ft.Datacenter = pick(r, "dc1", "dc2")
								ft.ServiceSubset = maybe(r, 0.3, pick(r, randSubsets...))
							case 2:
								ft.Partition = "ap1"
							}
							f.Targets = append(f.Targets, ft)
						}
					default:
						f.Service = maybe(r, 0.7, pick(r, randServices...))
						f.ServiceSubset = maybe(r, 0.3, pick(r, randSubsets...))
						f.Namespace = maybe(r, 0.3, pick(r, randNamespaces...))
						if f.Service == "" && f.ServiceSubset == "" && f.Namespace == "" {
							f.Service = "b"
						}
					}
					res.Failover[k] = f
				}
				if len(res.Failover) == 0 {
					res.Failover = nil
				}
			}
			if res.Validate() == nil {
				out = append(out, res)
			}
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// checkChain asserts the structural properties every compiled chain has.
func checkChain(t *testing.T, c *Chain) {
	t.Helper()
	start, ok := c.Targets[c.Start]
	require.True(t, ok, "the start is a target")
	require.Equal(t, "request", start.Via[0].Field)
	for _, id := range start.Failover {
		ft, ok := c.Targets[id]
		require.True(t, ok, "failover %s is a target", id)
		require.Nil(t, ft.Failover)
		require.Equal(t, c.Start, ft.Via[0].From, "failover targets are reached from the start")
	}
	distinct := map[string]bool{c.Start: true}
	for _, id := range start.Failover {
		distinct[id] = true
	}
	require.Len(t, c.Targets, len(distinct), "targets are the start and its failover")
	for id, tg := range c.Targets {
		require.Equal(t, id, tg.Via[len(tg.Via)-1].To)
		for i := 1; i < len(tg.Via); i++ {
			require.Equal(t, tg.Via[i-1].To, tg.Via[i].From, "steps connect")
		}
		if tg.Peer == "" {
			require.NotEmpty(t, tg.SNI)
			require.NotEmpty(t, tg.SpiffeID)
		} else {
			require.Empty(t, tg.SNI)
			require.Empty(t, tg.Datacenter)
		}
		require.NotZero(t, tg.ConnectTimeout, "every target has a connect timeout, peer targets too")
	}
	ids := c.TargetIDs()
	require.True(t, slices.IsSorted(ids))
}

// TestAgainstReference compiles random resolver graphs and compares with the reference.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	var ok, failed int
	n := longtest.N(1500, 20000)
	for range n {
		rs := randomResolvers(r, true, true)
		req := Request{Service: exports.ServiceName{Namespace: pick(r, "", "ns1"), Name: pick(r, randServices...)}, Datacenter: "dc1", TrustDomain: td}
		wantStart, wantFailover, wantErr := refCompile(req, rs)
		c, err := Compile(req, Entries{Resolvers: rs})
		if wantErr != "" {
			require.Error(t, err, "reference fails with %s for %+v", wantErr, rs)
			if wantStart == "" {
				kind := map[string]string{"cycle": "circular resolver redirect", "subset": "does not have a subset"}[wantErr]
				require.Contains(t, err.Error(), kind)
			}
			failed++
			continue
		}
		require.NoError(t, err, "%s", mustJSON(rs))
		require.Equal(t, wantStart, c.Start, "%s", mustJSON(rs))
		require.Equal(t, wantFailover, c.Targets[c.Start].Failover, "%s", mustJSON(rs))
		checkChain(t, c)
		ok++
	}
	require.Greater(t, ok, n/4)
	require.Greater(t, failed, n/40)
}

// TestFailoverLoopsNeverFail: with no redirects and no subsets, nothing can fail, however
// the failover sections point at each other.
func TestFailoverLoopsNeverFail(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for range longtest.N(500, 5000) {
		rs := randomResolvers(r, false, true)
		for i := range rs {
			rs[i].Subsets, rs[i].DefaultSubset = nil, ""
			for k, f := range rs[i].Failover {
				if k != "*" {
					delete(rs[i].Failover, k)
					continue
				}
				f.ServiceSubset = ""
				for j := range f.Targets {
					f.Targets[j].ServiceSubset = ""
				}
				if f.Service == "" && f.Namespace == "" && len(f.Datacenters) == 0 && len(f.Targets) == 0 {
					f.Service = "a"
				}
				rs[i].Failover[k] = f
			}
		}
		c, err := Compile(Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}, Entries{Resolvers: rs})
		require.NoError(t, err, "%s", mustJSON(rs))
		checkChain(t, c)
	}
}

// TestRedirectCyclesAlwaysFail: a redirect cycle reachable from the request is always an
// error, whatever its length and namespaces.
func TestRedirectCyclesAlwaysFail(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for range longtest.N(300, 2000) {
		n := 1 + r.IntN(6)
		type svc struct{ name, ns string }
		cycle := make([]svc, n)
		for i := range cycle {
			cycle[i] = svc{fmt.Sprintf("s%d", i), pick(r, randNamespaces...)}
		}
		var rs []ServiceResolver
		for i, s := range cycle {
			next := cycle[(i+1)%n]
			if n == 1 {
				next = svc{"x", s.ns} // a self-loop needs a hop: s0 -> x -> s0
				rs = append(rs, ServiceResolver{Name: "x", Namespace: s.ns, Redirect: &Redirect{Service: s.name, Namespace: s.ns}})
			}
			rs = append(rs, ServiceResolver{Name: s.name, Namespace: s.ns, Redirect: &Redirect{Service: next.name, Namespace: next.ns}})
		}
		entry := cycle[r.IntN(n)]
		rs = append(rs, ServiceResolver{Name: "main", Redirect: &Redirect{Service: entry.name, Namespace: entry.ns}})
		r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		_, err := Compile(Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}, Entries{Resolvers: rs})
		require.Error(t, err)
		require.True(t, strings.HasPrefix(err.Error(), "detected circular resolver redirect: [main.default.default.dc1 -> "), err.Error())
	}
}
