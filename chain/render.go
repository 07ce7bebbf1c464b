package chain

import (
	"fmt"
	"strings"
)

// nodeOrder returns the chain's node keys in the order a walk from the start node first
// reaches them through routes and splits, each once; nil for a chain without a start node.
func (c *Chain) nodeOrder() []string {
	if c == nil || c.Nodes[c.StartNode] == nil {
		return nil
	}
	seen := map[string]bool{c.StartNode: true}
	order := []string{c.StartNode}
	visit := func(k string) {
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	for i := 0; i < len(order); i++ {
		n := c.Nodes[order[i]]
		if n == nil {
			continue
		}
		for _, r := range n.Routes {
			visit(r.NextNode)
		}
		for _, s := range n.Splits {
			visit(s.NextNode)
		}
	}
	return order
}

// isCatchAll reports whether route i of router n is its last, the catch-all Consul adds.
func (n *Node) isCatchAll(i int) bool { return i == len(n.Routes)-1 }

// routeLabel names route i of a router for a person: "catch-all" for the catch-all, else
// Routes[i].
func routeLabel(i int, catchAll bool) string {
	if catchAll {
		return "catch-all"
	}
	return fmt.Sprintf("Routes[%d]", i)
}

// Graph renders the chain's graph as text, a node a paragraph in the order a walk from the
// start node reaches them: each router's routes with their matches, each splitter's splits
// with their weights, each resolver node's target and failover targets.
//
//	chain default/default/web (http), start router:web.default.default
//	router:web.default.default
//	  Routes[0] PathPrefix /api -> splitter:api.default.default
//	  catch-all PathPrefix / -> resolver:web.default.default.dc1
//	splitter:api.default.default
//	  90% -> resolver:v1.api.default.default.dc1
//	  10% -> resolver:v2.api.default.default.dc1
//	resolver:web.default.default.dc1
//	  target web.default.default.dc1 (default resolver)
func (c *Chain) Graph() string {
	if c == nil {
		return "chain <nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chain %s (%s), start %s", c.Service, c.Protocol, c.StartNode)
	for _, k := range c.nodeOrder() {
		n := c.Nodes[k]
		if n == nil {
			continue
		}
		fmt.Fprintf(&b, "\n%s", k)
		for i, r := range n.Routes {
			fmt.Fprintf(&b, "\n  %s %s -> %s", routeLabel(i, n.isCatchAll(i)), describeMatch(r.Definition), r.NextNode)
		}
		for _, s := range n.Splits {
			fmt.Fprintf(&b, "\n  %s%% -> %s", fmtWeight(s.Weight), s.NextNode)
		}
		if r := n.Resolver; r != nil {
			fmt.Fprintf(&b, "\n  target %s", r.Target)
			if r.Default {
				b.WriteString(" (default resolver)")
			}
			if r.Failover != nil {
				fmt.Fprintf(&b, "\n  failover %s", strings.Join(r.Failover.Targets, ", "))
			}
		}
	}
	return b.String()
}

// DOT renders the chain's graph in Graphviz's DOT language, for `dot -Tsvg`: routers as
// boxes, splitters as diamonds, resolver nodes as ellipses; a route's edge is labelled with
// its match, a split's with its weight; each failover target is a note, reached by a dashed
// edge labelled with its place in the list.
func (c *Chain) DOT() string {
	var b strings.Builder
	name := "chain"
	if c != nil {
		name = fmt.Sprintf("chain %s", c.Service)
	}
	fmt.Fprintf(&b, "digraph %s {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n", dotQuote(name))
	if c != nil {
		fmt.Fprintf(&b, "  label=%s;\n  labelloc=t;\n", dotQuote(fmt.Sprintf("%s (%s)", c.Service, c.Protocol)))
	}
	shapes := map[NodeType]string{NodeRouter: "box", NodeSplitter: "diamond", NodeResolver: "ellipse"}
	notes := map[string]bool{}
	for _, k := range c.nodeOrder() {
		n := c.Nodes[k]
		if n == nil {
			continue
		}
		fmt.Fprintf(&b, "  %s [shape=%s, label=%s];\n", dotQuote(k), shapes[n.Type], dotQuote(string(n.Type)+"\n"+n.Name))
		for i, r := range n.Routes {
			fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", dotQuote(k), dotQuote(r.NextNode), dotQuote(routeLabel(i, n.isCatchAll(i))+"\n"+describeMatch(r.Definition)))
		}
		for _, s := range n.Splits {
			fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", dotQuote(k), dotQuote(s.NextNode), dotQuote(fmtWeight(s.Weight)+"%"))
		}
		if r := n.Resolver; r != nil && r.Failover != nil {
			for i, t := range r.Failover.Targets {
				id := "target:" + t
				if !notes[id] {
					notes[id] = true
					fmt.Fprintf(&b, "  %s [shape=note, label=%s];\n", dotQuote(id), dotQuote(t))
				}
				fmt.Fprintf(&b, "  %s -> %s [style=dashed, label=%s];\n", dotQuote(k), dotQuote(id), dotQuote(fmt.Sprintf("failover %d", i+1)))
			}
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote writes s as a DOT quoted string: backslashes and quotes escaped, line breaks as
// DOT's \n.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}
