package intentions

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/meshscope/meshscope/spiffe"
)

// The reference: a literal, slow reading of how Consul's xds code builds a sidecar's RBAC rules
// (principals as regular expressions over SPIFFE IDs and the x-forwarded-client-cert header,
// earlier sources and permissions subtracted as NOT terms) and of how Envoy's RBAC, as grpc-go
// implements it, evaluates them on a request whose certificate and header are spelt out in
// full. It shares nothing with the fast code but the input types.

// refNode is a principal or permission as Envoy's RBAC config writes it.
type refNode struct {
	op    string // "and", "or", "not", "any", "cert", "header", "path"
	kids  []*refNode
	name  string // header name
	regex string // for cert, header (regex), path (regex)
	// header and path matchers other than a regex
	exact, prefix, suffix string
	present, invert       bool
}

type refSource struct{ name, peer, td, ap string }

type refPerm struct {
	action Action
	perm   *refNode
	not    []*refNode
}

type refIntention struct {
	src        refSource
	notSources []refSource
	action     string // "allow", "deny", "l7"
	perms      []*refPerm
}

type refPolicy struct {
	name        string
	principals  []*refNode
	permissions []*refNode
}

// refRules builds the RBAC rules of a sidecar under default def, as Consul's makeRBACRules.
func refRules(s Sidecar, def Action) []refPolicy {
	ixns := slices.Clone(s.Intentions)
	for i := range ixns {
		ixns[i].Precedence = refPrecedence(ixns[i])
	}
	sort.SliceStable(ixns, func(i, j int) bool {
		a, b := ixns[i], ixns[j]
		if a.Precedence != b.Precedence {
			return a.Precedence > b.Precedence
		}
		if a.SourcePeer != b.SourcePeer {
			return a.SourcePeer < b.SourcePeer
		}
		if a.SourceName != b.SourceName {
			return a.SourceName < b.SourceName
		}
		return a.DestinationName < b.DestinationName
	})
	isHTTP := s.Protocol == "http" || s.Protocol == "http2" || s.Protocol == "grpc"
	expectXFCC := false
	if isHTTP && len(s.TrustBundles) > 0 {
		for _, x := range ixns {
			if x.SourcePeer != "" {
				expectXFCC = true
			}
		}
	}
	// removeSameSourceIntentions, then the trust bundle filter.
	seen := map[[2]string]bool{}
	var rixns []*refIntention
	for _, x := range ixns {
		k := [2]string{x.SourceName, x.SourcePeer}
		if seen[k] {
			continue
		}
		seen[k] = true
		src := refSource{name: x.SourceName, peer: x.SourcePeer, td: s.TrustDomain}
		if x.SourcePeer != "" {
			if !slices.Contains(s.TrustBundles, x.SourcePeer) {
				continue
			}
			p := s.Peers[x.SourcePeer]
			src.td, src.ap = p.TrustDomain, p.Partition
		}
		r := &refIntention{src: src, action: string(x.Action)}
		if len(x.Permissions) > 0 {
			if isHTTP {
				r.action = "l7"
				for _, p := range x.Permissions {
					r.perms = append(r.perms, &refPerm{action: p.Action, perm: refPermission(p)})
				}
			} else {
				r.action = "deny"
			}
		}
		rixns = append(rixns, r)
	}
	// removeSourcePrecedence
	skip := make([]bool, len(rixns))
	for i := len(rixns) - 1; i >= 0; i-- {
		for j := i + 1; j < len(rixns); j++ {
			if !skip[j] && refSourceMatches(rixns[i].src, rixns[j].src) {
				rixns[j].notSources = append(rixns[j].notSources, rixns[i].src)
			}
		}
		skip[i] = rixns[i].action == string(def)
	}
	var kept []*refIntention
	for i, r := range rixns {
		if skip[i] {
			continue
		}
		// removePermissionPrecedence
		if r.action == "l7" {
			var perms []*refPerm
			pskip := make([]bool, len(r.perms))
			for i := len(r.perms) - 1; i >= 0; i-- {
				for j := i + 1; j < len(r.perms); j++ {
					if !pskip[j] {
						r.perms[j].not = append(r.perms[j].not, r.perms[i].perm)
					}
				}
				pskip[i] = r.perms[i].action == def
			}
			for i, p := range r.perms {
				if !pskip[i] {
					perms = append(perms, p)
				}
			}
			if len(perms) == 0 {
				continue
			}
			r.perms = perms
		}
		kept = append(kept, r)
	}
	var out []refPolicy
	l4 := refPolicy{name: "consul-intentions-layer4", permissions: []*refNode{{op: "any"}}}
	for i, r := range kept {
		principal := refPrincipal(r, expectXFCC, s.TrustDomain)
		if r.action != "l7" {
			l4.principals = append(l4.principals, principal)
			continue
		}
		pol := refPolicy{name: fmt.Sprintf("consul-intentions-layer7-%d", i), principals: []*refNode{principal}}
		for _, p := range r.perms {
			n := p.perm
			if len(p.not) > 0 {
				n = &refNode{op: "and", kids: []*refNode{p.perm}}
				for _, q := range p.not {
					n.kids = append(n.kids, &refNode{op: "not", kids: []*refNode{q}})
				}
			}
			pol.permissions = append(pol.permissions, n)
		}
		out = append(out, pol)
	}
	if len(l4.principals) > 0 {
		out = append(out, l4)
	}
	return out
}

func refPrecedence(x Intention) int {
	max := 9
	if x.DestinationName == "*" {
		max = 6
	}
	if x.SourceName == "*" {
		return max - 1
	}
	return max
}

// refSourceMatches is ixnSourceMatches: tester is strictly narrower than against.
func refSourceMatches(tester, against refSource) bool {
	wild := func(s refSource) int {
		if s.name == "*" {
			return 1
		}
		return 0
	}
	if wild(tester) >= wild(against) {
		return false
	}
	return tester.peer == against.peer && (tester.name == against.name || against.name == "*")
}

// refSpiffePattern is makeSpiffePattern: the source's identity as a regular expression.
func refSpiffePattern(s refSource) string {
	svc := s.name
	if svc == "*" {
		svc = `[^/]+`
	}
	path := fmt.Sprintf("/ns/%s/dc/%s/svc/%s", "default", `[^/]+`, svc)
	if ap := strings.ToLower(s.ap); ap != "" && ap != "default" {
		path = "/ap/" + ap + path
	}
	return fmt.Sprintf(`^%s://%s%s$`, "spiffe", s.td, path)
}

func refPrincipal(r *refIntention, expectXFCC bool, td string) *refNode {
	one := func(s refSource, xfcc bool) *refNode {
		p := refSpiffePattern(s)
		if !xfcc {
			return &refNode{op: "cert", regex: p}
		}
		return &refNode{op: "header", name: "x-forwarded-client-cert", regex: `^[^,]+;URI=` + p[1:len(p)-1] + `(?:,.*)?$`}
	}
	xfcc := expectXFCC && r.src.peer != ""
	n := one(r.src, xfcc)
	if len(r.notSources) > 0 {
		n = &refNode{op: "and", kids: []*refNode{n}}
		for _, s := range r.notSources {
			n.kids = append(n.kids, &refNode{op: "not", kids: []*refNode{one(s, xfcc)}})
		}
	}
	if xfcc {
		gw := &refNode{op: "cert", regex: fmt.Sprintf(`^spiffe://%s/gateway/mesh/dc/%s$`, td, `[^/]+`)}
		n = &refNode{op: "and", kids: []*refNode{gw, n}}
	}
	return n
}

// refPermission is convertPermission.
func refPermission(p Permission) *refNode {
	h := p.HTTP
	var parts []*refNode
	switch {
	case h.PathExact != "":
		parts = append(parts, &refNode{op: "path", exact: h.PathExact})
	case h.PathPrefix != "":
		parts = append(parts, &refNode{op: "path", prefix: h.PathPrefix})
	case h.PathRegex != "":
		parts = append(parts, &refNode{op: "path", regex: h.PathRegex})
	}
	for _, hdr := range h.Header {
		n := &refNode{op: "header", name: hdr.Name, invert: hdr.Invert}
		switch {
		case hdr.Exact != "":
			n.exact = hdr.Exact
		case hdr.Regex != "":
			n.regex = hdr.Regex
		case hdr.Prefix != "":
			n.prefix = hdr.Prefix
		case hdr.Suffix != "":
			n.suffix = hdr.Suffix
		case hdr.Present:
			n.present = true
		}
		parts = append(parts, n)
	}
	if len(h.Methods) > 0 {
		parts = append(parts, &refNode{op: "header", name: ":method", regex: strings.Join(h.Methods, "|")})
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return &refNode{op: "and", kids: parts}
}

// refData is what grpc-go's RBAC engine reads of a request.
type refData struct {
	cert string
	md   map[string]string // lower-case header names
	path string            // without its query
}

// refRequest spells out a request as the destination's filter receives it.
func refRequest(s Sidecar, c Caller, r Request) refData {
	var id spiffe.Service
	if c.Peer == "" {
		id = spiffe.Service{TrustDomain: s.TrustDomain, Namespace: c.Namespace, Datacenter: s.Datacenter, Service: c.Service}
	} else {
		p := s.Peers[c.Peer]
		id = spiffe.Service{TrustDomain: p.TrustDomain, Partition: p.Partition, Namespace: c.Namespace, Datacenter: p.Datacenter, Service: c.Service}
	}
	gw := spiffe.MeshGateway{TrustDomain: s.TrustDomain, Datacenter: s.Datacenter}.String()
	self := spiffe.Service{TrustDomain: s.TrustDomain, Datacenter: s.Datacenter, Service: s.Service}.String()
	element := func(by, uri string) string {
		return "By=" + by + ";Hash=ab12;Cert=\"-----BEGIN%20CERTIFICATE-----%0AMIIB%0A-----END%20CERTIFICATE-----%0A\";Chain=\"x\";Subject=\"\";URI=" + uri
	}
	d := refData{cert: id.String(), md: map[string]string{}}
	xfcc := ""
	if c.Peer != "" && (s.ChainProtocol == "http" || s.ChainProtocol == "http2" || s.ChainProtocol == "grpc") {
		d.cert = gw
		xfcc = element(gw, id.String()) + ","
	}
	xfcc += element(self, d.cert)
	isHTTP := s.Protocol == "http" || s.Protocol == "http2" || s.Protocol == "grpc"
	if !isHTTP {
		return d
	}
	if s.Protocol != "grpc" && !s.SanitizeXFCC {
		d.md["x-forwarded-client-cert"] = xfcc
	}
	for k, v := range r.Headers {
		d.md[k] = v
	}
	if r.Method != "" {
		d.md[":method"] = r.Method
	}
	if r.Path != "" {
		d.md[":path"] = r.Path
	}
	d.path, _, _ = strings.Cut(r.Path, "?")
	d.path, _, _ = strings.Cut(d.path, "#")
	return d
}

// refMatch evaluates a node as grpc-go does; a regular expression that does not compile is
// recorded in bad.
func refMatch(n *refNode, d refData, bad map[string]bool) bool {
	re := func(expr string) *regexp.Regexp {
		r := refRegexp(expr)
		if r == nil {
			bad[expr] = true
		}
		return r
	}
	switch n.op {
	case "any":
		return true
	case "and":
		ok := true
		for _, k := range n.kids {
			ok = refMatch(k, d, bad) && ok // every regex is compiled
		}
		return ok
	case "or":
		ok := false
		for _, k := range n.kids {
			ok = refMatch(k, d, bad) || ok
		}
		return ok
	case "not":
		return !refMatch(n.kids[0], d, bad)
	case "cert":
		r := re(n.regex)
		return r != nil && r.MatchString(d.cert)
	case "path":
		switch {
		case n.regex != "":
			r := re(n.regex)
			return r != nil && r.MatchString(d.path)
		case n.prefix != "":
			return strings.HasPrefix(d.path, n.prefix)
		}
		return d.path == n.exact
	case "header":
		var r *regexp.Regexp
		if n.regex != "" {
			r = re(n.regex)
		}
		v, ok := d.md[strings.ToLower(n.name)]
		if n.present {
			return ok != n.invert
		}
		if !ok || (n.regex != "" && r == nil) {
			return false
		}
		var fit bool
		switch {
		case n.regex != "":
			fit = r.MatchString(v)
		case n.exact != "":
			fit = v == n.exact
		case n.prefix != "":
			fit = strings.HasPrefix(v, n.prefix)
		case n.suffix != "":
			fit = strings.HasSuffix(v, n.suffix)
		}
		return fit != n.invert
	}
	panic("unknown node " + n.op)
}

// refRegexps caches the regular expressions the reference compiles, anchored as grpc-go
// anchors them; nil for one that does not compile.
var refRegexps sync.Map

func refRegexp(expr string) *regexp.Regexp {
	if r, ok := refRegexps.Load(expr); ok {
		return r.(*regexp.Regexp)
	}
	var r *regexp.Regexp
	if _, err := regexp.Compile(expr); err == nil {
		r = regexp.MustCompile("^(?:" + expr + ")$")
	}
	refRegexps.Store(expr, r)
	return r
}

// refDecide is Envoy's decision by the reference: allowed, the policies matched, and the
// regular expressions of the rules that do not compile (Envoy then refuses the rules).
func refDecide(s Sidecar, c Caller, r Request, def Action) (allowed bool, policies []string, bad []string) {
	d := refRequest(s, c, r)
	badSet := map[string]bool{}
	for _, p := range refRules(s, def) {
		principal := refMatch(&refNode{op: "or", kids: p.principals}, d, badSet)
		permission := refMatch(&refNode{op: "or", kids: p.permissions}, d, badSet)
		if principal && permission {
			policies = append(policies, p.name)
		}
	}
	for k := range badSet {
		bad = append(bad, k)
	}
	slices.Sort(policies)
	return (def == Allow) == (len(policies) == 0), policies, bad
}
