package chain

import (
	"fmt"
	"strings"
)

// A walk is one resolution: the steps it took from the target it started at, and where it
// came to rest — by itself, or by joining an earlier walk at a target that walk had passed.
// The targets a walk passes are remembered with their tail (the steps from there on), so
// that a redirect path shared by many failover candidates is walked once and each later
// candidate joins it in constant time.

// tail is the rest of a resolution from one target on: its steps in one walk, then the
// tail of the walk it joined, if any.
type tail struct {
	steps []Step
	next  *tail
}

// joined is a remembered target: its tail and where it comes to rest.
type joined struct {
	tail
	end   key
	endID string
}

// via returns prefix followed by the steps of t, in a new slice.
func (t tail) via(prefix []Step) []Step {
	n := len(prefix)
	for cur := &t; cur != nil; cur = cur.next {
		n += len(cur.steps)
	}
	out := make([]Step, 0, n)
	out = append(out, prefix...)
	for cur := &t; cur != nil; cur = cur.next {
		out = append(out, cur.steps...)
	}
	return out
}

// resolve follows redirects and default subsets from t (whose ID is id) until it rests, and returns the
// target it rests at, its ID and the tail of steps that reached it. It is iterative (a long
// redirect chain costs time, not stack) and remembers the targets it passes: a later
// resolution reaching one of them joins this one instead of walking the rest again.
// A sameness-group redirect is not a rewrite (it is the start target's failover; see
// failover), so resolve ignores it.
//
// A peer's target goes through the local resolver of its service, namespace and partition,
// as in Consul, whose resolver lookup does not include the peer: its redirect (which, naming
// no peer, makes the target local), its default subset (the same), its subset check and its
// part in cycle detection; only the protocol check skips it. What such a resolver changes
// is recorded for the chain's findings.
func (c *compiler) resolve(t key, id string) (key, string, tail, error) {
	var steps []Step // allocated by the first step only
	var kbuf [8]key
	visited := kbuf[:0] // the targets this walk passed, in order; step j leaves visited[j]
	var seen map[key]bool
	for {
		if prev, ok := c.memo[t]; ok {
			return c.rest(visited, steps, &prev.tail, prev.end, prev.endID)
		}
		ik := t.idKey() // a revisit is a revisit of the ID
		if seen[ik] || seen == nil && contains(visited, ik) {
			return key{}, "", tail{}, c.cycle(visited, id)
		}
		visited = append(visited, ik)
		if len(visited) > 16 && seen == nil {
			seen = make(map[key]bool, 64)
			for _, v := range visited {
				seen[v] = true
			}
		} else if seen != nil {
			seen[ik] = true
		}
		if t.peer == "" { // a peer's protocol is the peer's to say
			c.touch(t.ServiceName)
		}
		r, found := c.resolverOf(t.ServiceName)
		if found && r.Redirect != nil && r.Redirect.SamenessGroup == "" {
			n := c.rewrite(t, redirectOptions(r.Redirect))
			if nid := n.id(); nid != id {
				steps = append(steps, c.step(t, r, "Redirect", id, nid))
				t, id = n, nid
				continue
			}
		}
		if t.subset == "" && found && r.DefaultSubset != "" {
			n := c.rewrite(t, options{subset: r.DefaultSubset})
			nid := n.id()
			steps = append(steps, c.step(t, r, "DefaultSubset", id, nid))
			t, id = n, nid
			continue
		}
		if t.subset != "" && (!found || !r.isSubset(t.subset)) {
			return key{}, "", tail{}, &FieldError{Value: t.subset, Detail: fmt.Sprintf("service %q does not have a subset named %q", t.Name, t.subset), Err: errUnknownSubset}
		}
		return c.rest(visited, steps, nil, t, id)
	}
}

// rest remembers the tails of the walk's targets and returns the walk's answer. It
// remembers only the targets a step left after the first: a later walk reaching the first
// target takes one step to a remembered one, and one reaching the target this walk rests at
// rests there at once, so every walk is still joined in constant time, and a walk of one
// step or none (the common case) remembers nothing.
func (c *compiler) rest(visited []key, steps []Step, next *tail, end key, endID string) (key, string, tail, error) {
	if len(visited) > 2 && len(steps) > 1 {
		if c.memo == nil {
			c.memo = make(map[key]*joined, 4*len(visited))
		}
		for j := 1; j < len(visited) && j < len(steps); j++ {
			c.memo[visited[j]] = &joined{tail{steps[j:], next}, end, endID}
		}
	}
	return end, endID, tail{steps, next}, nil
}

func contains(keys []key, k key) bool {
	for _, v := range keys {
		if v == k {
			return true
		}
	}
	return false
}

// step is the step resolver r's field takes from t (ID from) to the target with ID to,
// recorded as a change to a peer's target when t is one.
func (c *compiler) step(t key, r *indexed, field, from, to string) Step {
	if t.peer != "" {
		c.changes = append(c.changes, peerChange{target: from, resolver: r.id, field: field, to: to})
	}
	return Step{Resolver: r.id, Field: field, From: from, To: to}
}

// cycle is the error of a walk that came back to a target it had passed.
func (c *compiler) cycle(visited []key, id string) error {
	ids := make([]string, 0, len(visited)+1)
	for _, v := range visited {
		ids = append(ids, v.id())
	}
	ids = append(ids, id)
	return &FieldError{Value: id, Detail: fmt.Sprintf("detected circular resolver redirect: [%s]", strings.Join(ids, " -> ")), Err: ErrRedirectCycle}
}
