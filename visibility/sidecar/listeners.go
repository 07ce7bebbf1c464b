package sidecar

import (
	"math"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// listener is an egress listener read for a proxy namespace, as a release reads it: its
// entries by namespace ("." resolved; "*" for every namespace).
type listener struct {
	egress  *inventory.Egress
	index   int
	byNS    map[string]*hostClass
	classes []*hostClass // those of byNS, in the order the hosts name them
	wild    *hostClass   // byNS["*"]: the imports and exclusions of every namespace; nil for none
	// exactOnly: every import is an exact host of a named namespace, and the release looks
	// such a listener's hosts up one by one (ExactHostListeners).
	exactOnly bool
}

// hostClass is what a listener imports from one namespace (or "*").
type hostClass struct {
	ns       string
	exact    []string    // exact hosts imported
	all      []string    // every host imported, exact and wildcard
	excluded []exclusion // hosts excluded ("~")
}

// exclusion is an excluded host and the index of the egress host that excludes it.
type exclusion struct {
	host string
	at   int
}

// egressHost is one parsed entry of an egress listener's hosts.
type egressHost struct {
	namespace string // a name, "." or "*"
	host      string
	exclude   bool
}

// egressReading is how a release reads a Sidecar's egress hosts.
//
//   - exclusions (SidecarExclusions, 1.31 on): "~ns/host" excludes the host of ns ("~/host":
//     of every namespace; "~*/…" and "~./…" too). Before, the release's validation refuses a
//     Sidecar holding "~ns/…" (New refuses it: inventory.Inventory.ValidateFor), and reads
//     "~/host" as an import of the host from the literal namespace "~", which holds no
//     service: it imports nothing and excludes nothing.
//   - exactHosts (ExactHostListeners, 1.31 on): a listener whose imports are all exact hosts
//     of named namespaces (exclusions aside) looks up, per (namespace, host), the one service
//     istiod indexes. Before, every listener considers every service exported to the proxy's
//     namespace.
type egressReading struct{ exclusions, exactHosts bool }

// readingFor is how release r reads egress hosts.
func readingFor(r mesh.Release) egressReading {
	return egressReading{exclusions: r.Has(mesh.SidecarExclusions), exactHosts: r.Has(mesh.ExactHostListeners)}
}

// parse splits "ns/host" ("~ns/host" for an exclusion when the release has them; "~/host"
// is every namespace). The inventory validated it.
func (rd egressReading) parse(s string) egressHost {
	ns, h, _ := strings.Cut(s, "/")
	e := egressHost{namespace: ns, host: h}
	if rest, ok := strings.CutPrefix(ns, "~"); ok && rd.exclusions {
		e.exclude, e.namespace = true, rest
		if rest == "" {
			e.namespace = names.Wildcard
		}
	}
	return e
}

// defaultEgress is the listener of a proxy no Sidecar applies to (a gateway's too), or of a
// Sidecar without egress listeners.
var defaultEgress = []inventory.Egress{{Hosts: []string{"*/*"}}}

func egressOf(sc *inventory.Sidecar) []*inventory.Egress {
	es := defaultEgress
	if sc != nil && len(sc.Egress) > 0 {
		es = sc.Egress
	}
	out := make([]*inventory.Egress, len(es))
	for i := range es {
		out[i] = &es[i]
	}
	return out
}

// namesOwnNamespace reports whether an egress listener names "." among its hosts.
func (rd egressReading) namesOwnNamespace(e inventory.Egress) bool {
	return slices.ContainsFunc(e.Hosts, func(raw string) bool { return rd.parse(raw).namespace == "." })
}

// listeners reads the egress listeners of the Sidecar sc (nil: none applies) for a proxy in
// namespace n.
func (rd egressReading) listeners(sc *inventory.Sidecar, n string) []listener {
	es := egressOf(sc)
	out := make([]listener, len(es))
	for i, e := range es {
		out[i] = rd.listener(e, i, n)
	}
	return out
}

// listener resolves the egress hosts of a listener for a proxy in namespace n.
func (rd egressReading) listener(e *inventory.Egress, index int, n string) listener {
	l := listener{egress: e, index: index, byNS: make(map[string]*hostClass, len(e.Hosts)), exactOnly: rd.exactHosts}
	for at, raw := range e.Hosts {
		h := rd.parse(raw)
		if h.namespace == "." {
			h.namespace = n
		}
		hc := l.byNS[h.namespace]
		if hc == nil {
			hc = &hostClass{ns: h.namespace}
			l.byNS[h.namespace] = hc
			l.classes = append(l.classes, hc)
		}
		if h.exclude {
			hc.excluded = append(hc.excluded, exclusion{h.host, at})
			continue
		}
		if isWildcard(h.host) {
			l.exactOnly = false
		} else if !slices.Contains(hc.exact, h.host) {
			hc.exact = append(hc.exact, h.host)
		}
		if h.namespace == names.Wildcard {
			l.exactOnly = false
		}
		hc.all = append(hc.all, h.host)
	}
	l.wild = l.byNS[names.Wildcard]
	return l
}

// isWildcard reports whether a host starts with "*", as Istio's host names do.
func isWildcard(h string) bool { return h != "" && h[0] == '*' }

// wildcard is the listener's imports and exclusions of every namespace ("*/", "~/"); nil
// for none.
func (l *listener) wildcard() *hostClass { return l.wild }

// importsEverything reports whether the listener imports "*/*".
func (l *listener) importsEverything() bool {
	w := l.wildcard()
	return w != nil && slices.Contains(w.all, names.Wildcard)
}

// refusal is why a listener does not import a service host it considers; admitted when it
// does.
type refusal uint8

const (
	admitted    refusal = iota
	excluded            // an exclusion of the service's namespace or of "*" covers it
	notCovered          // no import of the service's namespace or of "*" covers it
	portMissing         // the listener has a port the service does not declare
)

// admit decides whether the listener imports host of a service of namespace ns declaring
// ports: an exclusion of ns or of "*" beats any import (at is the index of the first egress
// host that excludes it); else an import of ns, or of "*", must cover it; and a listener
// with a port brings that port of the services that declare it, and nothing of the others.
// Admitted, it returns the ports the service brings.
func (l *listener) admit(host, ns string, ports []uint32) (why refusal, at int, brings []uint32) {
	hc, w := l.byNS[ns], l.wildcard()
	if at := min(hc.excluder(host), w.excluder(host)); at != math.MaxInt {
		return excluded, at, nil
	}
	if _, ok := hc.imports(host); !ok {
		if _, ok := w.imports(host); !ok {
			return notCovered, 0, nil
		}
	}
	if matchesPort(l.egress) {
		if !slices.Contains(ports, l.egress.Port) {
			return portMissing, 0, nil
		}
		ports = []uint32{l.egress.Port}
	}
	return admitted, 0, ports
}

// excluder returns the index of the first egress host of the class that excludes h;
// math.MaxInt for none.
func (hc *hostClass) excluder(h string) int {
	if hc != nil {
		for _, x := range hc.excluded {
			if hosts.Covers(x.host, h) {
				return x.at
			}
		}
	}
	return math.MaxInt
}

// excludes reports whether an exclusion of the class covers h.
func (hc *hostClass) excludes(h string) bool { return hc.excluder(h) != math.MaxInt }

// imports reports whether the class imports h (Istio's hostClassification.Matches: the
// exact hosts, then the patterns of which at least one side is a wildcard), and the pattern
// that does.
func (hc *hostClass) imports(h string) (string, bool) {
	if hc == nil {
		return "", false
	}
	if slices.Contains(hc.exact, h) {
		return h, true
	}
	for _, o := range hc.all {
		if !isWildcard(h) && !isWildcard(o) {
			continue
		}
		if hosts.Covers(o, h) {
			return o, true
		}
	}
	return "", false
}

// matchesPort reports whether the listener filters services by its port: it has one, and
// its protocol is not HTTP_PROXY (an outbound HTTP proxy imports services whatever their
// ports).
func matchesPort(e *inventory.Egress) bool {
	return e.Port != 0 && !strings.EqualFold(e.Protocol, "HTTP_PROXY")
}
