package chain

import (
	"fmt"
	"strings"
)

// maxSplits (65,536) bounds the splits one splitter node holds once nested splitters are
// flattened into it. Consul has no bound; nested splitters that each split twice to the
// next double the splits at each level, so a bound is what keeps the cost linear in what is
// read: a chain over it is refused, which is meshscope's difference from Consul.
const maxSplits = 1 << 16

// checkCycles finds a route or split that leads back to a node on its own path, as Consul's
// compiler does before it flattens: depth first from the start node, the last route or split
// of a node first, and reports the path in Consul's words:
//
//	detected circular reference: [splitter:a.default.default -> splitter:b.default.default -> splitter:a.default.default]
func (c *compiler) checkCycles(ch *Chain) {
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(ch.Nodes))
	type frame struct {
		key  string
		next []string
		i    int
	}
	nexts := func(k string) []string {
		n := ch.Nodes[k]
		if n == nil {
			return nil
		}
		out := make([]string, 0, len(n.Routes)+len(n.Splits))
		for i := len(n.Routes) - 1; i >= 0; i-- {
			out = append(out, n.Routes[i].NextNode)
		}
		for i := len(n.Splits) - 1; i >= 0; i-- {
			out = append(out, n.Splits[i].NextNode)
		}
		return out
	}
	stack := []frame{{key: ch.StartNode, next: nexts(ch.StartNode)}}
	color[ch.StartNode] = grey
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i == len(f.next) {
			color[f.key] = black
			stack = stack[:len(stack)-1]
			continue
		}
		k := f.next[f.i]
		f.i++
		switch color[k] {
		case grey:
			path := make([]string, 0, len(stack)+1)
			for _, g := range stack {
				path = append(path, g.key)
			}
			path = append(path, k)
			c.errs = append(c.errs, &FieldError{Value: k, Detail: fmt.Sprintf("detected circular reference: [%s]", strings.Join(path, " -> ")), Err: errCircularReference})
			return
		case white:
			color[k] = grey
			stack = append(stack, frame{key: k, next: nexts(k)})
		}
	}
}

// flatten replaces, in every splitter node a route or the start leads to, each split to a
// nested splitter by that splitter's splits, as Consul's compiler does: the weight is the
// outer weight times the inner over 100, rounded again (float32, roundWeight), and the
// definition is the inner split's with the outer split's header changes merged in (see
// ServiceSplit.underParent), outermost first. Then the nodes nothing reaches go: the nested
// splitters, which only splits reached. Where a merge is one Consul 1.16.0's server panics
// on, the chain's findings say so (HeaderMergePanics).
func (c *compiler) flatten(ch *Chain) {
	roots := []string{ch.StartNode}
	if n := ch.Nodes[ch.StartNode]; n != nil {
		for _, r := range n.Routes {
			roots = append(roots, r.NextNode)
		}
	}
	flat := make(map[string][]Split)
	for _, k := range roots {
		n := ch.Nodes[k]
		if _, done := flat[k]; done || n == nil || n.Type != NodeSplitter || !c.nested(ch, n) {
			continue
		}
		out, panics := c.flattenNode(ch, n)
		if out == nil {
			return // too many splits: recorded
		}
		flat[k] = out
		if panics != "" && c.panicAt == "" {
			c.panicAt = panics + " into " + k
		}
	}
	c.checkMergePanics(ch)
	for k, splits := range flat {
		ch.Nodes[k].Splits = splits
	}
	keep := make(map[string]bool, len(ch.Nodes))
	for _, k := range ch.nodeOrder() {
		keep[k] = true
	}
	for k := range ch.Nodes {
		if !keep[k] {
			delete(ch.Nodes, k)
		}
	}
}

// nested reports whether a split of n leads to a splitter node.
func (c *compiler) nested(ch *Chain, n *Node) bool {
	for _, s := range n.Splits {
		if next := ch.Nodes[s.NextNode]; next != nil && next.Type == NodeSplitter {
			return true
		}
	}
	return false
}

// flattenNode returns n's splits with nested splitters flattened into them, outermost first,
// and, when a merge is one Consul 1.16.0 panics on, the nested splitter it merges; nil when
// there are more than maxSplits (the error is recorded).
func (c *compiler) flattenNode(ch *Chain, n *Node) ([]Split, string) {
	type frame struct {
		parent Split // the flattened split leading to the splitter whose splits are below
		splits []Split
		i      int
	}
	var out []Split
	panics := ""
	stack := []frame{{splits: n.Splits}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i == len(f.splits) {
			stack = stack[:len(stack)-1]
			continue
		}
		s := f.splits[f.i]
		f.i++
		if len(stack) > 1 { // below a nested splitter: merge the parent in
			def, p := s.Definition.underParent(f.parent.Definition)
			if p && panics == "" {
				panics = f.parent.NextNode
			}
			s = Split{Definition: &def, Weight: roundWeight(float32(float32(f.parent.Weight*s.Weight) / 100)), NextNode: s.NextNode}
		}
		if next := ch.Nodes[s.NextNode]; next != nil && next.Type == NodeSplitter {
			stack = append(stack, frame{parent: s, splits: next.Splits})
			continue
		}
		if len(out) == maxSplits {
			c.errs = append(c.errs, &FieldError{Value: n.key(), Detail: fmt.Sprintf("flattening the nested splitters of %s gives more than %d splits", n.key(), maxSplits), Err: errTooManySplits})
			return nil, ""
		}
		out = append(out, s)
	}
	return out, panics
}

// checkMergePanics looks, in every splitter node before it is flattened, for a split to a
// nested splitter whose merge with one of that splitter's own splits is one Consul 1.16.0's
// server panics on: Consul flattens every splitter node it built, nested ones too, one level
// at a time and in map order. The first found is recorded (panicAt) unless one is already.
func (c *compiler) checkMergePanics(ch *Chain) {
	if c.panicAt != "" {
		return
	}
	// What in a splitter's own splits a parent's merge can trip on.
	type summary struct{ reqAdd, reqSet, respNilAdd, respNilSet bool }
	sums := map[string]summary{}
	sum := func(n *Node) summary {
		if s, ok := sums[n.key()]; ok {
			return s
		}
		var s summary
		for _, t := range n.Splits {
			rq, rs := t.Definition.RequestHeaders, t.Definition.ResponseHeaders
			s.reqAdd = s.reqAdd || rq != nil && len(rq.Add) > 0
			s.reqSet = s.reqSet || rq != nil && len(rq.Set) > 0
			s.respNilAdd = s.respNilAdd || !rs.isZero() && rs.Add == nil
			s.respNilSet = s.respNilSet || !rs.isZero() && rs.Set == nil
		}
		sums[n.key()] = s
		return s
	}
	for _, k := range c.splitOrder {
		n := ch.Nodes[k]
		for _, sp := range n.Splits {
			next := ch.Nodes[sp.NextNode]
			if next == nil || next.Type != NodeSplitter {
				continue
			}
			s, rq, rs := sum(next), sp.Definition.RequestHeaders, sp.Definition.ResponseHeaders
			if !rq.isZero() && (rq.Add == nil && s.reqAdd || rq.Set == nil && s.reqSet) ||
				rs != nil && (len(rs.Add) > 0 && s.respNilAdd || len(rs.Set) > 0 && s.respNilSet) {
				c.panicAt = next.key() + " into " + k
				return
			}
		}
	}
}
