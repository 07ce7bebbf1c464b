package chain

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

// The graph is built as Consul's compiler builds it, depth first in entry order: the router
// of the requested service, if any, with one route per Routes[i] and the catch-all last;
// each route's destination gets a resolver node (a destination with a subset) or its
// service's splitter, else its resolver; each split of a splitter a nested splitter (a split
// to another service without a subset, when that service has one) or a resolver node. The
// order matters: the chain's protocol is that of the first service a router or resolver
// reaches. Nested splitters are built with an explicit stack, so nesting of any depth
// costs time, not stack.

// origin is the route or split a resolver node is built for, which an error names when its
// target does not resolve: route or split i of the router or splitter of entry. The zero
// origin is the request itself, named by no error.
type origin struct {
	kind     string // routerKind or splitterKind; "" for the request
	entry    exports.ServiceName
	i        int
	catchAll bool // the route is the catch-all Consul adds after the router's routes
}

// where names o for an error; "" for the request.
func (o origin) where() string {
	switch o.kind {
	case "":
		return ""
	case routerKind:
		return fmt.Sprintf("%s of %s %s", routeLabel(o.i, o.catchAll), o.kind, o.entry)
	}
	return fmt.Sprintf("Splits[%d] of %s %s", o.i, o.kind, o.entry)
}

// nodeName is the name of a router or splitter node of service s (canonical):
// "name.namespace.partition".
func nodeName(s exports.ServiceName) string { return s.Name + "." + s.Namespace + "." + s.Partition }

// assemble builds the graph from the requested service and returns the start node's key.
func (c *compiler) assemble(ch *Chain) string {
	sid := c.req.service()
	r := c.routers[sid]
	if r == nil {
		return c.splitterOrResolver(ch, sid, origin{})
	}
	c.routing = true
	c.touch(sid)
	node := &Node{Type: NodeRouter, Name: nodeName(sid), Routes: make([]Route, 0, len(r.Routes)+1)}
	for i := range r.Routes {
		route := r.Routes[i].clone()
		svc, subset := r.destination(&route)
		from := origin{kind: routerKind, entry: sid, i: i}
		var next string
		if subset == "" {
			next = c.splitterOrResolver(ch, svc, from)
		} else {
			next = c.resolverNode(ch, key{ServiceName: svc, subset: subset, datacenter: c.req.Datacenter}, from)
		}
		node.Routes = append(node.Routes, Route{Definition: &route, NextNode: next})
	}
	catchAll := &ServiceRoute{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{PathPrefix: "/"}},
		Destination: &ServiceRouteDestination{Service: sid.Name, Namespace: sid.Namespace, Partition: sid.Partition}}
	node.Routes = append(node.Routes, Route{Definition: catchAll, NextNode: c.splitterOrResolver(ch, sid, origin{kind: routerKind, entry: sid, i: len(r.Routes), catchAll: true})})
	ch.Nodes[node.key()] = node
	return node.key()
}

// splitterOrResolver returns the key of the node a request for svc (canonical) from route or
// request from goes to: its splitter's, else its resolver's.
func (c *compiler) splitterOrResolver(ch *Chain, svc exports.ServiceName, from origin) string {
	if k := c.splitterNode(ch, svc); k != "" {
		return k
	}
	return c.resolverNode(ch, key{ServiceName: svc, datacenter: c.req.Datacenter}, from)
}

// splitterNode returns the key of the splitter node of svc (canonical), building it and the
// nodes it leads to on first use; "" when svc has no splitter.
func (c *compiler) splitterNode(ch *Chain, svc exports.ServiceName) string {
	if k, ok := c.splitNodes[svc]; ok {
		return k
	}
	s := c.splitters[svc]
	if s == nil {
		return ""
	}
	type frame struct {
		node *Node
		s    *splitter
		own  exports.ServiceName
		i    int
		lb   bool // the node has its load balancer
	}
	open := func(svc exports.ServiceName, s *splitter) frame {
		c.routing = true
		n := &Node{Type: NodeSplitter, Name: nodeName(svc), Splits: make([]Split, 0, len(s.Splits))}
		ch.Nodes[n.key()] = n
		c.splitNodes[svc] = n.key()
		c.splitOrder = append(c.splitOrder, n.key())
		return frame{node: n, s: s, own: svc}
	}
	root := open(svc, s)
	stack := []frame{root}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i == len(f.s.Splits) {
			stack = stack[:len(stack)-1]
			continue
		}
		split := f.s.Splits[f.i].clone()
		f.i++
		t := f.s.service(&split)
		sp := Split{Definition: &split, Weight: split.Weight}
		if t != f.own && split.ServiceSubset == "" {
			if k, ok := c.splitNodes[t]; ok {
				sp.NextNode = k
				f.node.Splits = append(f.node.Splits, sp)
				continue
			}
			if inner := c.splitters[t]; inner != nil {
				child := open(t, inner)
				sp.NextNode = child.node.key()
				f.node.Splits = append(f.node.Splits, sp)
				stack = append(stack, child)
				continue
			}
		}
		sp.NextNode = c.resolverNode(ch, key{ServiceName: t, subset: split.ServiceSubset, datacenter: c.req.Datacenter}, origin{kind: splitterKind, entry: f.own, i: f.i - 1})
		f.node.Splits = append(f.node.Splits, sp)
		if n := ch.Nodes[sp.NextNode]; !f.lb && n != nil && n.LoadBalancer.hashBased() {
			f.node.LoadBalancer, f.lb = n.LoadBalancer.clone(), true
		}
	}
	return root.node.key()
}

// hashBased reports whether lb hashes (ring_hash or maglev).
func (lb *LoadBalancer) hashBased() bool {
	return lb != nil && (lb.Policy == "ring_hash" || lb.Policy == "maglev")
}

// resolverNode returns the key of the resolver node a request for target k comes to,
// building it on first use: k resolved (redirects, default subset, subset check), its target
// added, and its failover worked out. "" when k does not resolve: the error is recorded, placed
// at from, the route or split that first leads to k.
func (c *compiler) resolverNode(ch *Chain, k key, from origin) string {
	id := k.id()
	if nk, ok := c.resNodes[id]; ok {
		return nk
	}
	t, tid, rest, err := c.resolve(k, id)
	if err != nil {
		c.errs = append(c.errs, fielderr.In(from.where(), err))
		c.resNodes[id] = ""
		return ""
	}
	nk := string(NodeResolver) + ":" + tid
	c.resNodes[id] = nk
	if _, built := ch.Nodes[nk]; built {
		return nk
	}
	r, found := c.resolverOf(t.ServiceName)
	rn := &ResolverNode{Target: tid, ConnectTimeout: defaultConnectTimeout, Default: !found && !c.defaultGroupApplies(t)}
	node := &Node{Type: NodeResolver, Name: tid, Resolver: rn}
	if found {
		rn.Default = r.isDefault()
		rn.ConnectTimeout = cmp.Or(r.ConnectTimeout, defaultConnectTimeout)
		rn.RequestTimeout = r.RequestTimeout
		node.LoadBalancer = r.LoadBalancer.clone()
	}
	ch.Nodes[nk] = node
	if _, ok := ch.Targets[tid]; !ok {
		c.add(ch, tid, t, rest.via([]Step{{Field: "request", To: id}}))
	} else if c.collides(ch, tid, t) {
		return nk
	}
	failover, policy := c.failover(ch, t, tid)
	if len(failover) > 0 {
		rn.Failover = &NodeFailover{Targets: failover, Policy: policy.clone()}
		tg := ch.Targets[tid]
		tg.Failover, tg.FailoverPolicy = slices.Clone(failover), policy.clone()
	}
	return nk
}

// isDefault is Consul's IsDefault: the resolver sets nothing that changes resolution.
func (r *ServiceResolver) isDefault() bool {
	return r.DefaultSubset == "" && len(r.Subsets) == 0 && r.Redirect == nil && len(r.Failover) == 0 &&
		r.ConnectTimeout == 0 && r.RequestTimeout == 0 && r.LoadBalancer == nil && r.PrioritizeByLocality == nil
}

// startTarget returns the target of the start resolver node (see Chain.Start).
func startTarget(ch *Chain) string {
	k := ch.StartNode
	for range len(ch.Nodes) {
		n := ch.Nodes[k]
		switch {
		case n == nil:
			return ""
		case n.Type == NodeResolver:
			return n.Resolver.Target
		case n.Type == NodeRouter && len(n.Routes) > 0:
			k = n.Routes[len(n.Routes)-1].NextNode
		case n.Type == NodeSplitter && len(n.Splits) > 0:
			best := 0
			for i, s := range n.Splits {
				if s.Weight > n.Splits[best].Weight {
					best = i
				}
			}
			k = n.Splits[best].NextNode
		default:
			return ""
		}
	}
	return ""
}
