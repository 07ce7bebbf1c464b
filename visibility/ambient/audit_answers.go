package ambient

import (
	"slices"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// differ finds, for Diff, the clients whose answer to a query changes. Its two indexes are
// of one inventory, so a candidate set has one number in both (see build); they differ in
// the entries' decisions only, and so in each set's canonical entry and own entries.
//
// A client namespace's answer depends on two things: its own visible entries on the query's
// path (visible meaning not NONE) and the canonical entries every client falls back on.
// When the canonical answer — what a client owning nothing gets, and the level it comes
// from — is the same before and after, only a namespace whose own entries appear or vanish
// (a visibility going to or from NONE) can get another answer: those are looked up through
// ownSets. Otherwise every namespace owning a visible entry on the reachable path is
// evaluated, and each is written: by name if its answer changes otherwise than the
// canonical one, in Except if it does not change.
type differ struct {
	before, after *Index
	// ownSets lists, per candidate set (of more than one entry), its entries whose
	// visibility goes to or from NONE; flipped marks those entries.
	ownSets map[int32][]int32
	flipped map[int32]bool
}

// ownChanged records entry i, whose visibility goes to or from NONE, in the sets of every key
// it claims.
func (d *differ) ownChanged(i int32) {
	ix := d.before
	if d.flipped == nil {
		d.flipped, d.ownSets = map[int32]bool{}, map[int32][]int32{}
	}
	d.flipped[i] = true
	record := func(c int32, ok bool) {
		if ok && c < single {
			d.ownSets[c] = append(d.ownSets[c], i)
		}
	}
	s := &ix.services[i]
	for _, spec := range s.Hosts {
		h := hosts.Normalize(spec)
		switch suffix, wild := cutWildcard(h); {
		case !s.AnswersFor(spec): // claimed without an address: in no set
		case wild:
			record(lookupSet(ix.t.wild, suffix))
		default:
			record(ix.t.host(h))
		}
	}
	for _, p := range s.AllAddresses() {
		if p = hosts.Canonical(p); p.IsSingleIP() {
			record(ix.t.addr(p.Addr()))
		} else {
			c, ok := ix.t.prefixes[p]
			record(c, ok)
		}
	}
}

// changes appends to out the changes of the answers to query, whose lookup path is levels
// (of the before index; the after index's are the same).
func (d *differ) changes(out []AnswerChange, query string, levels []level) []AnswerChange {
	b, a := d.before, d.after
	starB, atB := b.answer(levels, "") // what a client owning nothing on the path gets
	starA, atA := a.answer(levels, "")
	// Levels past the one the canonical answer comes from are reached by no one, unless it
	// comes from a CIDR (own CIDR entries come first at any length) or from none.
	reach := len(levels) - 1
	if atB >= 0 && atA >= 0 && !levels[atB].cidr && !levels[atA].cidr {
		reach = max(atB, atA)
	}
	sameCanonical := starB == starA && atB == atA
	var clients []string
	for _, l := range levels[:reach+1] {
		if l.set < 0 {
			continue
		}
		if sameCanonical {
			clients = d.flippedNamespaces(clients, l.set)
		} else {
			clients = b.ownNamespaces(clients, l.set)
			clients = a.ownNamespaces(clients, l.set)
		}
	}
	slices.Sort(clients)
	clients = slices.Compact(clients)

	starChanged := starB != starA
	var except []string
	type group struct{ before, after int32 }
	groups := map[group]int{} // index in out of the change of each (before, after)
	for _, c := range clients {
		x, _ := b.answer(levels, c)
		y, _ := a.answer(levels, c)
		switch {
		case x == y:
			if starChanged {
				except = append(except, c)
			}
			continue
		case starChanged && x == starB && y == starA:
			continue // changes as every other namespace's does: covered by "*"
		}
		g := group{x, y}
		if j, ok := groups[g]; ok {
			out[j].Key.Clients = append(out[j].Key.Clients, c)
			continue
		}
		groups[g] = len(out)
		out = append(out, AnswerChange{Key: Question{Query: query, Clients: []string{c}}, Before: b.refOf(x), After: a.refOf(y)})
	}
	if starChanged {
		out = append(out, AnswerChange{Key: Question{Query: query, Clients: []string{AllOtherNamespaces}, Except: except},
			Before: b.refOf(starB), After: a.refOf(starA)})
	}
	return out
}

// flippedNamespaces appends the namespaces of set c's entries whose visibility goes to or
// from NONE.
func (d *differ) flippedNamespaces(out []string, c int32) []string {
	if c >= single {
		if e := c - single; d.flipped[e] {
			out = append(out, d.before.services[e].Namespace)
		}
		return out
	}
	for _, e := range d.ownSets[c] {
		out = append(out, d.before.services[e].Namespace)
	}
	return out
}

// ownNamespaces appends the namespaces that own a visible entry of set c.
func (ix *Index) ownNamespaces(out []string, c int32) []string {
	if c >= single {
		if e := c - single; ix.decisions[e].Visibility != visibility.None {
			out = append(out, ix.services[e].Namespace)
		}
		return out
	}
	sp := ix.t.sets[c].own
	for _, o := range ix.t.bests[sp.start:sp.end] {
		out = append(out, o.namespace)
	}
	return out
}

// refOf returns a fresh reference to entry e, nil for -1.
func (ix *Index) refOf(e int32) *inventory.ServiceRef {
	if e < 0 {
		return nil
	}
	r := ix.services[e].Ref()
	return &r
}

// cutWildcard returns what follows the "*" of a wildcard host — ".b.c" for *.b.c, "x.b.c" for
// the partial wildcard *x.b.c, the suffix every host it matches ends with — and true; or h
// and false.
func cutWildcard(h string) (string, bool) {
	if len(h) > 1 && h[0] == '*' {
		return h[1:], true
	}
	return h, false
}

// lookupSet returns k's candidate set in m, and whether it has one.
func lookupSet[K comparable](m map[K]int32, k K) (int32, bool) {
	c, ok := m[k]
	return c, ok
}
