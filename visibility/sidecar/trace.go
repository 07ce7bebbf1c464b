package sidecar

import (
	"cmp"
	"slices"
)

// trace is what the builder records of one host beyond what Proxy needs — the losers —
// while it decides: every service claiming the host at each step and what became of it,
// every VirtualService whose host covers it on the listeners that import it, and the host's
// DestinationRule lookup. ExplainHost asks for it; Proxy does not, and pays nothing.
type trace struct {
	host   string
	steps  []traceStep
	holder mark // the candidate holding the host so far; step -1: none
	routes []routeTrace
	rules  ruleLookup
}

func newTrace(host string) *trace {
	return &trace{host: host, holder: mark{-1, -1}, rules: ruleLookup{answered: -1}}
}

// mark places a candidate of a trace: a step and an index in it.
type mark struct{ step, cand int }

// traceStep is one step the candidates of the host go through: a listener's egress hosts
// (vs -1), or the destinations of one of its VirtualServices (vs).
type traceStep struct {
	listener int // the listener's index in the record
	vs       int32
	own      bool // a destination: the service is the proxy's own namespace's
	cands    []traced
}

// traced is a candidate service at one step, and its fate.
type traced struct {
	id   int32
	fate fate
	out  outcome // with reached: what it did to what the proxy had (other)
	// other is the service its fate concerns: the one an exact-host listener looks at, the
	// one the proxy had, the Kubernetes Service that replaced it.
	other int32
	at    int      // the egress host that excludes it; the step where it was replaced
	ports []uint32 // a destination's: the ports the routes give
}

// fate is what became of a candidate at one step.
type fate uint8

const (
	undecided     fate = iota
	notExported        // its exportTo does not export it to the proxy's namespace
	notIndexed         // an exact-host listener looks at another service of its host and namespace (other)
	excludedBy         // an exclusion covers it (at)
	uncovered          // no import covers it; a destination: the routes give none of its ports
	lacksPort          // the listener's port is not among its ports
	heldElsewhere      // another namespace holds the host in the listener
	reached            // it reached what the proxy has (out)
	replacedLater      // a later Kubernetes Service replaced it (other, at step at)
)

// beginListener opens the step of a listener's egress hosts: every service claiming the
// host — exported to the proxy's namespace by name, public, then the others, each in
// Istio's order — with what exportTo and the listener make of it (listener.admit).
func (t *trace) beginListener(b *builder, l *listener) {
	x, n := &b.v.services, b.rec.ns
	ids := slices.Clone(x.byHost[t.host])
	slices.SortStableFunc(ids, func(a, c int32) int { return cmp.Compare(x.group(a, n), x.group(c, n)) })
	step := traceStep{listener: len(b.rec.listeners), vs: -1, cands: make([]traced, len(ids))}
	for i, id := range ids {
		c := traced{id: id}
		s := &x.svcs[id]
		svc := &x.inv[s.svc]
		o, _ := x.indexed(s.host, svc.Namespace)
		switch why, at, _ := l.admit(s.host, svc.Namespace, svc.Ports); {
		case !s.exportedTo(n):
			c.fate = notExported
		case l.exactOnly && o != id:
			c.fate, c.other = notIndexed, o
		case why == excluded:
			c.fate, c.at = excludedBy, at
		case why == notCovered:
			c.fate = uncovered
		case why == portMissing:
			c.fate = lacksPort
		}
		step.cands[i] = c
	}
	t.steps = append(t.steps, step)
}

// group places a service among a listener's candidates for namespace n, as
// builder.candidates orders them: up to 1.30.2 n's own first (0); exported to n by name (1),
// public (2), not exported to n (3).
func (x *serviceIndex) group(id int32, n string) int {
	s := &x.svcs[id]
	switch {
	case s.exp.Public():
		return 2
	case !s.exportedTo(n):
		return 3
	case x.reading.ownFirst && x.inv[s.svc].Namespace == n:
		return 0
	}
	return 1
}

// last returns where candidate id is in the last step; cand -1 when it is not there.
func (t *trace) last(id int32) mark {
	at := len(t.steps) - 1
	return mark{at, slices.IndexFunc(t.steps[at].cands, func(c traced) bool { return c.id == id })}
}

// heldElsewhere records that another namespace holds the host in the listener.
func (t *trace) heldElsewhere(id int32) {
	if m := t.last(id); m.cand >= 0 {
		t.steps[m.step].cands[m.cand].fate = heldElsewhere
	}
}

// received records what service id did to what the proxy had (service had, -1: nothing).
func (t *trace) received(id int32, o outcome, had int32) {
	m := t.last(id)
	if m.cand < 0 {
		return
	}
	c := &t.steps[m.step].cands[m.cand]
	if c.fate == reached {
		return // listed twice (up to 1.30.2, as its namespace's own by "." and by name): its first arrival stands
	}
	c.fate, c.out, c.other = reached, o, had
	if o != firstOfHost && o != replacing {
		return
	}
	if o == replacing && t.holder.step >= 0 {
		old := &t.steps[t.holder.step].cands[t.holder.cand]
		old.fate, old.other, old.at = replacedLater, id, m.step
	}
	t.holder = m
}

// destination opens the step of VirtualService k's destinations to the host: the service
// istiod takes (id, when found; own: of the proxy's namespace) and what the listener's port
// or the routes' ports (ports) make of it.
func (t *trace) destination(b *builder, k, id int32, found, own bool, why refusal, ports []uint32) {
	step := traceStep{listener: len(b.rec.listeners), vs: k, own: own}
	if found {
		c := traced{id: id, ports: ports}
		switch why {
		case portMissing:
			c.fate = lacksPort
		case notCovered:
			c.fate = uncovered
		}
		step.cands = []traced{c}
	}
	t.steps = append(t.steps, step)
}

// routeTrace is, for a listener that imports the host, every VirtualService with a host
// covering it and what became of it.
type routeTrace struct {
	listener int
	best     int32  // the VirtualService that routes the host
	bestHost string // its host that does
	cands    []routeCand
}

// routeCand is a VirtualService (k) whose host covers the explained one, its most specific
// such host, and what became of it.
type routeCand struct {
	k       int32
	host    string
	fate    vsFate
	matched string // excluded: the host of it an import matches
}

// vsFate is what became of a VirtualService for a host.
type vsFate uint8

const (
	vsGatewaysOnly vsFate = iota // its gateways do not name mesh
	vsNotExported                // not exported to the proxy's namespace
	vsExcluded                   // an exclusion covers the host an import matches
	vsUncovered                  // no import matches one of its hosts
	vsRoutes                     // it routes the host
	vsSameHost                   // another gives the same host first
	vsLessSpecific               // another's host covers the host more specifically
)

// endListener records, when the listener imports the host, every VirtualService with a
// host covering it: not applying to sidecars, not exported, not selected (listener.selects),
// routing it, or outranked (routeIndex).
func (t *trace) endListener(b *builder, lr *listenerRecord) {
	x := &b.v.services
	if !b.rec.kind.routed() || !slices.ContainsFunc(lr.imported, func(is importedService) bool { return x.svcs[is.id].host == t.host }) {
		return // Istio routes a host on the listeners that import it
	}
	best, bestHost, _ := lr.routes.lookup(t.host)
	rt := routeTrace{listener: len(b.rec.listeners) - 1, best: best, bestHost: bestHost}
	for k := range b.v.vss.vss {
		r := &b.v.vss.vss[k]
		h, ok := mostSpecificOf(slices.Values(r.hosts), t.host)
		if !ok {
			continue
		}
		c := routeCand{k: int32(k), host: h}
		switch {
		case !r.mesh:
			c.fate = vsGatewaysOnly
		case !r.exp.To(b.rec.ns):
			c.fate = vsNotExported
		case !slices.Contains(lr.vss, int32(k)):
			c.fate = vsUncovered
			if why, matched := lr.l.selects(r); why == excluded {
				c.fate, c.matched = vsExcluded, matched
			}
		case int32(k) == best:
			c.fate = vsRoutes
		case h == bestHost:
			c.fate = vsSameHost
		default:
			c.fate = vsLessSpecific
		}
		rt.cands = append(rt.cands, c)
	}
	t.routes = append(t.routes, rt)
}
