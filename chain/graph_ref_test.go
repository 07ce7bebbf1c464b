package chain

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/longtest"
)

// The routers and splitters of a chain, read literally: a slow reference that Compile's graph
// is checked against on random inputs. It is recursive where Compile is iterative, scans
// lists where Compile indexes, follows Consul's steps one by one (build the graph depth first
// recording the first protocol, stop at the first error, look for a cycle along every path,
// flatten outermost first), and reads its resolution rules from refResolve and the failover
// rules from the package documentation.

type refGraphNode struct {
	typ      string
	routes   []string // next nodes
	splits   []refSplit
	target   string
	failover []string
}

type refSplit struct {
	weight   float32
	next     string
	req, res *HTTPHeaderModifiers
}

type refGraph struct {
	rs        []ServiceResolver // the resolvers read
	routers   []ServiceRouter
	splitters []ServiceSplitter
	protos    map[exports.ServiceName]string
	defProto  string
	read      map[exports.ServiceName]bool // the services whose defaults are read
	rq        refReq
	req       Request

	nodes   map[string]*refGraphNode
	proto   string
	routing bool
	err     string // the first error: "protocol", "subset", "redirect", "cycle", "routing"
	panics  bool
}

func refSvc(name, ns, part string) exports.ServiceName {
	return exports.ServiceName{Partition: part, Namespace: ns, Name: name}.Canonical()
}

func (g *refGraph) fail(kind string) {
	if g.err == "" {
		g.err = kind
	}
}

func (g *refGraph) record(s exports.ServiceName) {
	p := g.defProto
	if v, ok := g.protos[s]; ok && g.read[s] {
		p = v
	}
	if p == "" {
		p = "tcp"
	}
	p = strings.ToLower(p)
	if g.proto == "" {
		g.proto = p
	} else if g.proto != p {
		g.fail("protocol")
	}
}

func (g *refGraph) router(s exports.ServiceName) *ServiceRouter {
	for i := range g.routers {
		if g.routers[i].ServiceName() == s {
			return &g.routers[i]
		}
	}
	return nil
}

func (g *refGraph) splitter(s exports.ServiceName) *ServiceSplitter {
	for i := range g.splitters {
		if g.splitters[i].ServiceName() == s {
			return &g.splitters[i]
		}
	}
	return nil
}

// resolveSteps resolves t as refResolve does, recording the protocol of each local target
// it passes.
func (g *refGraph) resolveSteps(t refTarget, visited []string) (refTarget, bool) {
	if t.Peer == "" {
		g.record(refSvc(t.Service, t.Namespace, t.Partition))
	}
	r := refFind(g.rs, t)
	if slices.Contains(visited, t.ID()) {
		g.fail("redirect")
		return t, false
	}
	visited = append(visited, t.ID())
	if r != nil && r.Redirect != nil {
		d := r.Redirect
		n := refRewrite(t, g.rq, refOpts{svc: d.Service, subset: d.ServiceSubset, ns: d.Namespace, part: d.Partition, dc: d.Datacenter, peer: d.Peer})
		if n.ID() != t.ID() {
			return g.resolveSteps(n, visited)
		}
	}
	if t.Subset == "" && r != nil && r.DefaultSubset != "" {
		return g.resolveSteps(refRewrite(t, g.rq, refOpts{subset: r.DefaultSubset}), visited)
	}
	if t.Subset != "" && (r == nil || !r.isSubset(t.Subset)) {
		g.fail("subset")
		return t, false
	}
	return t, true
}

// resolverNode builds the resolver node of target t: resolved, then its failover.
func (g *refGraph) resolverNode(t refTarget) string {
	start, ok := g.resolveSteps(t, nil)
	if !ok {
		return ""
	}
	key := "resolver:" + start.ID()
	if g.nodes[key] != nil {
		return key
	}
	n := &refGraphNode{typ: "resolver", target: start.ID()}
	g.nodes[key] = n
	r := refFind(g.rs, start)
	if r == nil {
		return key
	}
	f, ok := r.Failover[start.Subset]
	if !ok || start.Subset == "" {
		f, ok = r.Failover["*"]
	}
	if !ok {
		return key
	}
	var cands []refTarget
	switch {
	case len(f.Datacenters) > 0:
		for _, dc := range f.Datacenters {
			cands = append(cands, refRewrite(start, g.rq, refOpts{svc: f.Service, subset: f.ServiceSubset, ns: f.Namespace, dc: dc}))
		}
	case len(f.Targets) > 0:
		for _, x := range f.Targets {
			cands = append(cands, refRewrite(start, g.rq, refOpts{svc: x.Service, subset: x.ServiceSubset, ns: x.Namespace, part: x.Partition, dc: x.Datacenter, peer: x.Peer}))
		}
	default:
		cands = append(cands, refRewrite(start, g.rq, refOpts{svc: f.Service, subset: f.ServiceSubset, ns: f.Namespace}))
	}
	for _, c := range cands {
		if c.ID() == start.ID() {
			continue
		}
		got, ok := g.resolveSteps(c, nil)
		if ok && got.ID() != start.ID() {
			n.failover = append(n.failover, got.ID())
		}
	}
	return key
}

// splitterNode builds the splitter node of s, if it has a splitter, recursively.
func (g *refGraph) splitterNode(s exports.ServiceName) string {
	key := "splitter:" + nodeName(s)
	if g.nodes[key] != nil {
		return key
	}
	sp := g.splitter(s)
	if sp == nil {
		return ""
	}
	g.routing = true
	n := &refGraphNode{typ: "splitter"}
	g.nodes[key] = n
	for _, split := range sp.Splits {
		t := refSvc(orStr(split.Service, sp.Name), orStr(split.Namespace, sp.Namespace), orStr(split.Partition, sp.Partition))
		rs := refSplit{weight: roundWeight(split.Weight), req: split.RequestHeaders, res: split.ResponseHeaders}
		if t != s && split.ServiceSubset == "" {
			if next := g.splitterNode(t); next != "" {
				rs.next = next
				n.splits = append(n.splits, rs)
				continue
			}
		}
		rs.next = g.resolverNode(refTarget{Service: t.Name, Subset: split.ServiceSubset, Namespace: t.Namespace, Partition: t.Partition, Datacenter: g.rq.datacenter})
		n.splits = append(n.splits, rs)
	}
	return key
}

func orStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// splitterOrResolver is the node a request for s goes to.
func (g *refGraph) splitterOrResolver(s exports.ServiceName) string {
	if k := g.splitterNode(s); k != "" {
		return k
	}
	return g.resolverNode(refTarget{Service: s.Name, Namespace: s.Namespace, Partition: s.Partition, Datacenter: g.rq.datacenter})
}

// findCycle looks along every path from key for a node already on the path.
func (g *refGraph) findCycle(key string, path []string) bool {
	if slices.Contains(path, key) {
		return true
	}
	n := g.nodes[key]
	if n == nil {
		return false
	}
	path = append(path, key)
	for _, k := range n.routes {
		if g.findCycle(k, path) {
			return true
		}
	}
	for _, s := range n.splits {
		if g.findCycle(s.next, path) {
			return true
		}
	}
	return false
}

// flat returns the splits below split s (of weight w and headers req, res), recursively,
// outermost first; panics records a merge Consul's server panics on.
func (g *refGraph) flat(s refSplit) []refSplit {
	n := g.nodes[s.next]
	if n == nil || n.typ != "splitter" {
		return []refSplit{s}
	}
	var out []refSplit
	for _, inner := range n.splits {
		req, p1 := mergeHeaders(s.req, inner.req)
		res, p2 := mergeHeaders(inner.res, s.res)
		g.panics = g.panics || p1 || p2
		w := roundWeight(float32(float32(s.weight*inner.weight) / 100))
		out = append(out, g.flat(refSplit{weight: w, next: inner.next, req: req, res: res})...)
	}
	return out
}

// refBuild compiles the graph of req literally; the answer is the graph (splitters flattened,
// unreached nodes kept apart) or the first error.
func refBuild(req Request, e Entries) *refGraph {
	start := req.service()
	g := &refGraph{routers: e.Routers, splitters: e.Splitters, defProto: e.DefaultProtocol, nodes: map[string]*refGraphNode{},
		rq: refReq{start.Partition, req.Datacenter}, req: req, protos: map[exports.ServiceName]string{}}
	for k, p := range e.Protocols {
		g.protos[k.Canonical()] = p
	}
	// What is read: the router; the splitters from the router's services (or the request's)
	// and from the services splits name; each of those services' resolvers and what they name.
	var seeds []exports.ServiceName
	if r := g.router(start); r != nil {
		seeds = append(seeds, start)
		for _, route := range r.Routes {
			if d := route.Destination; d != nil {
				seeds = append(seeds, refSvc(orStr(d.Service, r.Name), orStr(d.Namespace, r.Namespace), orStr(d.Partition, r.Partition)))
			}
		}
	} else {
		seeds = append(seeds, start)
	}
	for i := 0; i < len(seeds); i++ {
		if sp := g.splitter(seeds[i]); sp != nil {
			for _, split := range sp.Splits {
				t := refSvc(orStr(split.Service, sp.Name), orStr(split.Namespace, sp.Namespace), orStr(split.Partition, sp.Partition))
				if !slices.Contains(seeds, t) {
					seeds = append(seeds, t)
				}
			}
		}
	}
	g.read = map[exports.ServiceName]bool{}
	for _, s := range seeds {
		sub := req
		sub.Service = s
		for _, r := range refRead(sub, e.Resolvers, nil) {
			if !slices.ContainsFunc(g.rs, func(x ServiceResolver) bool { return x.ServiceName() == r.ServiceName() }) {
				g.rs = append(g.rs, r)
			}
		}
		g.read[s] = true
	}
	for _, r := range g.rs {
		g.read[r.ServiceName()] = true
		for _, t := range refNamed(&r) {
			g.read[t] = true
		}
	}
	startKey := ""
	if r := g.router(start); r != nil {
		g.routing = true
		g.record(start)
		n := &refGraphNode{typ: "router"}
		for _, route := range r.Routes {
			svc := start
			subset := ""
			if d := route.Destination; d != nil {
				svc = refSvc(orStr(d.Service, start.Name), orStr(d.Namespace, r.Namespace), orStr(d.Partition, r.Partition))
				subset = d.ServiceSubset
			}
			if subset == "" {
				n.routes = append(n.routes, g.splitterOrResolver(svc))
			} else {
				n.routes = append(n.routes, g.resolverNode(refTarget{Service: svc.Name, Subset: subset, Namespace: svc.Namespace, Partition: svc.Partition, Datacenter: req.Datacenter}))
			}
		}
		n.routes = append(n.routes, g.splitterOrResolver(start))
		startKey = "router:" + nodeName(start)
		g.nodes[startKey] = n
	} else {
		startKey = g.splitterOrResolver(start)
	}
	if g.err != "" {
		return g
	}
	if g.findCycle(startKey, nil) {
		g.fail("cycle")
		return g
	}
	// Flatten the start and every node a route leads to; look for a panic in every splitter
	// node's own splits too, one level down, as Consul flattens them all.
	for _, n := range g.nodes {
		for _, s := range n.splits {
			if inner := g.nodes[s.next]; inner != nil && inner.typ == "splitter" {
				for _, t := range inner.splits {
					_, p1 := mergeHeaders(s.req, t.req)
					_, p2 := mergeHeaders(t.res, s.res)
					g.panics = g.panics || p1 || p2
				}
			}
		}
	}
	kept := map[string]*refGraphNode{}
	var walk func(k string, root bool)
	walk = func(k string, root bool) {
		n := g.nodes[k]
		if n == nil || kept[k] != nil {
			return
		}
		m := *n
		if n.typ == "splitter" && root {
			m.splits = nil
			for _, s := range n.splits {
				m.splits = append(m.splits, g.flat(s)...)
			}
		}
		kept[k] = &m
		for _, r := range m.routes {
			walk(r, true)
		}
		for _, s := range m.splits {
			walk(s.next, false)
		}
	}
	walk(startKey, true)
	g.nodes = kept
	g.nodes[""] = &refGraphNode{typ: "start", routes: []string{startKey}}
	if g.routing && !IsHTTPLike(g.proto) {
		g.fail("routing")
	}
	return g
}

// refNamed is what a resolver names: its redirect, its failover sections' services and its
// failover targets not on a peer.
func refNamed(r *ServiceResolver) []exports.ServiceName {
	var out []exports.ServiceName
	if d := r.Redirect; d != nil {
		out = append(out, refSvc(orStr(d.Service, r.Name), orStr(d.Namespace, r.Namespace), orStr(d.Partition, r.Partition)))
	}
	for _, f := range r.Failover {
		if len(f.Targets) == 0 {
			out = append(out, refSvc(orStr(f.Service, r.Name), orStr(f.Namespace, r.Namespace), r.Partition))
		}
		for _, t := range f.Targets {
			if t.Peer == "" {
				out = append(out, refSvc(orStr(t.Service, r.Name), orStr(t.Namespace, orStr(f.Namespace, r.Namespace)), orStr(t.Partition, r.Partition)))
			}
		}
	}
	return out
}

var refErrs = map[string]error{"protocol": ErrProtocolMismatch, "subset": errUnknownSubset, "redirect": ErrRedirectCycle,
	"cycle": errCircularReference, "routing": errRoutingProtocol}

// TestGraphAgainstReference compiles random routers, splitters and resolvers and holds the
// graph — start node, protocol, every node, every route and every flattened split with its
// weight and header changes, every resolver node's target and failover, the panic finding —
// to the reference, and the first error the reference meets to be among Compile's.
func TestGraphAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 4))
	var ok, failed, nested, panics int
	n := longtest.N(2000, 40000)
	for range n {
		e := Entries{Resolvers: randomResolvers(r, true, true)}
		e.Routers, e.Splitters = randomRouting(r)
		e.Protocols, e.DefaultProtocol = randomProtocols(r)
		req := Request{Service: exports.ServiceName{Namespace: pick(r, "", "ns1"), Name: pick(r, randServices...)}, Datacenter: "dc1", TrustDomain: td}
		want := refBuild(req, e)
		c, err := Compile(req, e)
		if want.err != "" {
			require.Error(t, err, "the reference fails (%s): %s", want.err, dump(e))
			require.True(t, errors.Is(err, refErrs[want.err]), "the reference's first error (%s) is among %v: %s", want.err, err, dump(e))
			failed++
			continue
		}
		require.NoError(t, err, "%s", dump(e))
		compareRefGraph(t, want, c, e)
		if len(want.nodes) > 2 {
			nested++
		}
		if want.panics {
			panics++
		}
		ok++
	}
	t.Logf("%d chains agree (%d with nested nodes, %d with a merge Consul panics on), %d fail as the reference does", ok, nested, panics, failed)
	require.Greater(t, panics, n/200)
	require.Greater(t, ok, n/4)
	require.Greater(t, failed, n/20)
	require.Greater(t, nested, n/20)
}

// dump renders entries for a failure message, only when one is printed.
type dump Entries

func (d dump) String() string {
	protos := map[string]string{}
	for k, v := range d.Protocols {
		protos[k.String()] = v
	}
	e := Entries(d)
	e.Protocols = nil
	return mustJSON(e) + " protocols " + mustJSON(protos)
}

func compareRefGraph(t *testing.T, want *refGraph, c *Chain, e Entries) {
	t.Helper()
	require.Equal(t, want.nodes[""].routes[0], c.StartNode, "%s", dump(e))
	require.Equal(t, want.proto, c.Protocol, "%s", dump(e))
	require.Len(t, c.Nodes, len(want.nodes)-1, "%s", dump(e))
	for k, w := range want.nodes {
		if k == "" {
			continue
		}
		n := c.Nodes[k]
		require.NotNil(t, n, "node %s: %s", k, dump(e))
		require.Equal(t, w.typ, string(n.Type))
		var routes []string
		for _, r := range n.Routes {
			routes = append(routes, r.NextNode)
		}
		require.Equal(t, w.routes, routes, "%s routes: %s", k, dump(e))
		require.Len(t, n.Splits, len(w.splits), "%s splits: %s", k, dump(e))
		for i, s := range w.splits {
			got := n.Splits[i]
			require.Equal(t, s.next, got.NextNode)
			require.Equal(t, s.weight, got.Weight, "%s split %d: %s", k, i, dump(e))
			require.Equal(t, s.req, got.Definition.RequestHeaders, "%s split %d", k, i)
			require.Equal(t, s.res, got.Definition.ResponseHeaders, "%s split %d", k, i)
		}
		if w.typ == "resolver" {
			require.Equal(t, w.target, n.Resolver.Target)
			var failover []string
			if n.Resolver.Failover != nil {
				failover = n.Resolver.Failover.Targets
			}
			require.Equal(t, w.failover, failover, "%s failover: %s", k, dump(e))
		}
	}
	panics := slices.ContainsFunc(c.Findings(), func(f Finding) bool { return f.Code == HeaderMergePanics })
	require.Equal(t, want.panics, panics, "the panic finding: %s", dump(e))
}

// TestRoundWeight holds roundWeight to Consul's rounding, computed here in float64 from the
// decimal: half away from zero, in hundredths.
func TestRoundWeight(t *testing.T) {
	for _, tc := range []struct{ in, want float32 }{{99.999, 100}, {0.001, 0}, {33.335, 33.34}, {33.333, 33.33}, {16.665, 16.67}, {50, 50}, {0.005, 0.01}} {
		require.Equal(t, tc.want, roundWeight(tc.in), fmt.Sprint(tc.in))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		w := float32(r.IntN(100001)) / 1000
		want := float32(math.Round(float64(w*100))) / 100
		require.Equal(t, want, roundWeight(w))
	}
}
