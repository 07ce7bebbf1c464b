package intentions

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/spiffe"
)

// Destination is a destination's sidecar compiled once: its intentions in Consul's order, what
// Consul's xds code keeps of them, the RBAC policies it builds under each default policy, and
// indexes that answer Decide and Check without allocating. It is immutable and safe for
// concurrent use.
type Destination struct {
	side  Sidecar
	list  []Intention    // Consul's order
	perms [][]permission // per list entry, its permissions compiled
	fate  []fate         // per list entry
	kept  []kept         // the intentions the rules are built from, in order
	// http: the RBAC filter is HTTP; forwardXFCC: it sees the x-forwarded-client-cert
	// header; viaGateway: peered callers arrive through the mesh gateway's HTTP listener.
	http, forwardXFCC, viaGateway bool
	// expectXFCC: Consul matches peer sources on the header behind the gateway's certificate.
	expectXFCC bool
	gatewayID  []byte   // the local mesh gateway's identity (read-only)
	gwPrefix   string   // its pattern: gwPrefix + [^/]+
	groups     []group  // one per source peer of the kept intentions ("": local), as they come
	rules      [2]rules // per default policy (index policyIndex)
	// The check API's index: the first local source per name, and the first local "*".
	checkName     map[string]int32
	checkWildcard int32
}

// fate is what became of one intention of the sidecar's list before the rules were built.
type fate struct {
	kept int32 // index in kept, or -1
	// why it was left out: a more precedent intention with the same source (dup), or no
	// trust bundle for its peer.
	dup      int32 // index in list of that intention, or -1
	noBundle bool
}

// kept is one intention the rules are built from.
type kept struct {
	at    int32  // index in list
	group int32  // its source's group
	name  string // the source name pattern; "" for "*"
	// action is the intention's L4 action as the filter reads it: an L7 intention counts as
	// deny on a network filter. "" for an L7 intention on an HTTP filter (perms).
	action Action
	perms  []permission
}

// permission is a permission compiled: its matchers, regular expressions anchored.
type permission struct {
	action  Action
	path    pathMatch
	headers []headerMatch
	methods []string
	// bad is Envoy's refusal of the first regular expression that does not compile, "" if
	// none: a path's first, then the headers' in order.
	bad string
}

type pathMatch struct {
	kind  matchKind
	value string
	re    *regexp.Regexp
}

type headerMatch struct {
	name   string // lower case
	kind   matchKind
	value  string
	re     *regexp.Regexp
	invert bool
}

type matchKind uint8

const (
	matchNone matchKind = iota // no path matcher
	matchExact
	matchPrefix
	matchSuffix
	matchRegex
	matchPresent
)

// group holds the kept intentions of one source peer ("" local): the pattern their sources'
// identities share and an index of their names.
type group struct {
	// prefix: "spiffe://<trust domain>[/ap/<partition>]/ns/default/dc/", followed in the
	// pattern by [^/]+, "/svc/" and the name; '.' matches any character.
	prefix string
	// xfcc: the sources are matched on the x-forwarded-client-cert header's first element,
	// behind the local mesh gateway's certificate, instead of on the caller's certificate.
	xfcc     bool
	exact    map[string]int32 // name (without '.') → kept index
	dotted   []int32          // kept indices of names with '.'
	wildcard int32            // kept index of "*", or -1
}

// rules are the RBAC rules under one default policy.
type rules struct {
	// policy is the name of the policy each kept intention is in ("" when the rules leave it
	// out): "consul-intentions-layer4" or "consul-intentions-layer7-<i>".
	policy []string
	// envoyError is Envoy's refusal of the rules, "" when it takes them.
	envoyError string
}

// The names of Consul's RBAC policies.
const (
	PolicyLayer4       = "consul-intentions-layer4"
	policyLayer7Prefix = "consul-intentions-layer7-"
)

// Compile validates a sidecar's inputs (Sidecar.Validate) and compiles them: the intentions in
// Consul's order, the ones Consul keeps (the most precedent of each source; a peer's only with
// its trust bundle), the policies under each default policy, Envoy's refusal of a regular
// expression, and the indexes Decide and Check read.
func Compile(s Sidecar) (*Destination, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	d := &Destination{side: s}
	d.side.Intentions = nil
	d.side.TrustBundles = slices.Clone(s.TrustBundles)
	d.side.Peers = maps.Clone(s.Peers)
	d.list = make([]Intention, len(s.Intentions))
	for i, x := range s.Intentions {
		x.Precedence = Precedence(x.SourceName, x.DestinationName)
		x.Permissions = clonePermissions(x.Permissions)
		x.JWT = x.JWT.clone()
		d.list[i] = x
	}
	Sort(d.list)
	d.http = httpLike(s.Protocol)
	d.forwardXFCC = d.http && s.Protocol != "grpc" && !s.SanitizeXFCC
	d.viaGateway = httpLike(s.ChainProtocol)
	gw := spiffe.MeshGateway{TrustDomain: s.TrustDomain, Datacenter: s.Datacenter}
	d.gatewayID = []byte(gw.String())
	d.gwPrefix = "spiffe://" + s.TrustDomain + "/gateway/mesh/dc/"
	d.expectXFCC = d.http && len(s.TrustBundles) > 0 && slices.ContainsFunc(d.list, func(x Intention) bool { return x.SourcePeer != "" })
	d.perms = make([][]permission, len(d.list))
	rx := regexes{}
	for i, x := range d.list {
		for _, p := range x.Permissions {
			d.perms[i] = append(d.perms[i], rx.permission(p))
		}
	}
	d.keep()
	for _, def := range []Action{Deny, Allow} {
		d.rules[policyIndex(def)] = d.buildRules(def)
	}
	d.checkIndex()
	return d, nil
}

// policyIndex is the index of a default policy in Destination.rules.
func policyIndex(def Action) int {
	if def == Allow {
		return 1
	}
	return 0
}

// keep decides which intentions the rules are built from, as Consul's xds code does: of the
// intentions with one source (name and peer) only the most precedent, and a peer's only when
// the sidecar has the peer's trust bundle. It compiles them and indexes them by group.
func (d *Destination) keep() {
	first := map[[2]string]int32{}
	groupOf := map[string]int32{}
	d.fate = make([]fate, len(d.list))
	for i, x := range d.list {
		f := fate{kept: -1, dup: -1}
		src := [2]string{x.SourceName, x.SourcePeer}
		j, seen := first[src]
		if !seen {
			first[src] = int32(i)
		}
		switch {
		case seen:
			f.dup = j
		case x.SourcePeer != "" && !slices.Contains(d.side.TrustBundles, x.SourcePeer):
			f.noBundle = true
		default:
			g, ok := groupOf[x.SourcePeer]
			if !ok {
				g = int32(len(d.groups))
				groupOf[x.SourcePeer] = g
				d.groups = append(d.groups, d.newGroup(x.SourcePeer))
			}
			f.kept = int32(len(d.kept))
			d.kept = append(d.kept, d.compileKept(int32(i), g))
			d.groups[g].add(d.kept[f.kept].name, f.kept)
		}
		d.fate[i] = f
	}
}

// newGroup makes the group of a source peer ("" local): the pattern of its sources' identities
// as Consul writes it (a peer's trust domain and, unless default, its partition lower-cased).
func (d *Destination) newGroup(peer string) group {
	g := group{wildcard: -1, exact: map[string]int32{}}
	td, ap := d.side.TrustDomain, ""
	if peer != "" {
		p := d.side.Peers[peer]
		td, ap = p.TrustDomain, strings.ToLower(p.Partition)
		g.xfcc = d.expectXFCC
	}
	g.prefix = "spiffe://" + td
	if ap != "" && ap != "default" {
		g.prefix += "/ap/" + ap
	}
	g.prefix += "/ns/default/dc/"
	return g
}

// add indexes kept intention k whose source name pattern is name ("" for "*").
func (g *group) add(name string, k int32) {
	switch {
	case name == "":
		g.wildcard = k
	case strings.Contains(name, "."):
		g.dotted = append(g.dotted, k)
	default:
		g.exact[name] = k
	}
}

// compileKept compiles intention list[i] of group g.
func (d *Destination) compileKept(i, g int32) kept {
	x := d.list[i]
	k := kept{at: i, group: g, action: x.Action}
	if x.SourceName != Wildcard {
		k.name = x.SourceName
	}
	if x.L7() {
		if !d.http {
			k.action = Deny // Consul's xds code reads an L7 intention on a network filter as a deny
			return k
		}
		k.action, k.perms = "", d.perms[i]
	}
	return k
}

// regexes are the regular expressions of one sidecar's permissions, each compiled once: as
// Envoy's RE2 compiles it (as written), anchored to match the whole value; nil for one that
// does not compile (an expression such as "a)|(b" compiles only anchored, and is refused).
type regexes map[string]*regexp.Regexp

func (rx regexes) get(expr string) *regexp.Regexp {
	re, ok := rx[expr]
	if !ok {
		if _, err := regexp.Compile(expr); err == nil {
			re = regexp.MustCompile("^(?:" + expr + ")$")
		}
		rx[expr] = re
	}
	return re
}

// permission compiles a valid permission's matchers as Envoy reads them.
func (rx regexes) permission(p Permission) permission {
	out := permission{action: p.Action}
	h := p.HTTP
	regex := func(expr string) *regexp.Regexp {
		re := rx.get(expr)
		if re == nil && out.bad == "" {
			out.bad = fmt.Sprintf("safe_regex matcher %q is invalid", expr)
		}
		return re
	}
	switch {
	case h.PathExact != "":
		out.path = pathMatch{kind: matchExact, value: h.PathExact}
	case h.PathPrefix != "":
		out.path = pathMatch{kind: matchPrefix, value: h.PathPrefix}
	case h.PathRegex != "":
		out.path = pathMatch{kind: matchRegex, value: h.PathRegex, re: regex(h.PathRegex)}
	}
	for _, hdr := range h.Header {
		m := headerMatch{name: strings.ToLower(hdr.Name), invert: hdr.Invert}
		switch {
		case hdr.Exact != "":
			m.kind, m.value = matchExact, hdr.Exact
		case hdr.Regex != "":
			m.kind, m.value, m.re = matchRegex, hdr.Regex, regex(hdr.Regex)
		case hdr.Prefix != "":
			m.kind, m.value = matchPrefix, hdr.Prefix
		case hdr.Suffix != "":
			m.kind, m.value = matchSuffix, hdr.Suffix
		default:
			m.kind = matchPresent
		}
		out.headers = append(out.headers, m)
	}
	out.methods = slices.Clone(h.Methods)
	return out
}

// buildRules builds the rules under default policy def, as Consul's xds code does: an L4
// intention whose action is the default is left out (the default does what it would); an L7
// one is left out when every permission has the default's action. The rest are numbered in
// order: the L4 ones share one policy, each L7 one has its own. Envoy refuses the rules when a
// regular expression in them does not compile: a permission is in them when it or a later
// permission of its intention has an action other than the default (an earlier permission is
// subtracted from every later one).
func (d *Destination) buildRules(def Action) rules {
	r := rules{policy: make([]string, len(d.kept))}
	n := 0
	for i, k := range d.kept {
		if k.perms == nil {
			if k.action != def {
				r.policy[i] = PolicyLayer4
				n++
			}
			continue
		}
		last := len(k.perms) - 1
		for last >= 0 && k.perms[last].action == def {
			last--
		}
		if last < 0 {
			continue
		}
		r.policy[i] = fmt.Sprintf("%s%d", policyLayer7Prefix, n)
		n++
		for _, p := range k.perms[:last+1] {
			if p.bad != "" && r.envoyError == "" {
				r.envoyError = p.bad
			}
		}
	}
	return r
}

// checkIndex indexes the local sources for the check API: the first intention of each local
// source name, and the first local "*".
func (d *Destination) checkIndex() {
	d.checkName = map[string]int32{}
	d.checkWildcard = -1
	for i, x := range d.list {
		switch {
		case x.SourcePeer != "":
		case x.SourceName == Wildcard:
			if d.checkWildcard < 0 {
				d.checkWildcard = int32(i)
			}
		default:
			if _, ok := d.checkName[x.SourceName]; !ok {
				d.checkName[x.SourceName] = int32(i)
			}
		}
	}
}

// Intentions returns the sidecar's intentions in Consul's order: the list Decision,
// CheckAnswer and Explanation index. It is read-only.
func (d *Destination) Intentions() []Intention { return d.list }

// Sidecar returns the inputs d was compiled from, Intentions in Consul's order. Its slices and
// map are read-only.
func (d *Destination) Sidecar() Sidecar {
	s := d.side
	s.Intentions = d.list
	return s
}

// Policies returns the names of the RBAC policies the sidecar's rules hold under default
// policy def, sorted.
func (d *Destination) Policies(def Action) []string {
	var out []string
	for _, p := range d.rules[policyIndex(def)].policy {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
