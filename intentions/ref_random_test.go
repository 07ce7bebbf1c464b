package intentions

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/longtest"
)

// randomWorld draws sidecar inputs, callers and requests over a small alphabet, so that sources,
// callers, peers and matchers often meet: names with '.', peers without a bundle or a peering,
// a peer exporting from a partition spelt in capitals, every protocol, and regular expressions
// that do not compile.
type randomWorld struct{ r *rand.Rand }

var (
	randNames   = []string{"web", "api", "db", "w.b", "wxb", "*"}
	randPeers   = []string{"", "", "east", "west", "north", "ghost"}
	randMethods = []string{"GET", "POST", "DELETE", "get"}
	randPaths   = []string{"/", "/api", "/api/v1", "/admin?x=1", "/api#frag", "api", ""}
	randRegexes = []string{"/api/.*", "/[a-z]+", "/api/[a-z", "v[12]", "a)|(b", ".*"}
	randValues  = []string{"v1", "v2", "curl/7", "bot", "", "x.internal"}
	randHeaders = []string{"x-a", "x-b", "User-Agent"}
)

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

func (w randomWorld) peers() map[string]Peer {
	return map[string]Peer{
		"east":  {TrustDomain: "eeee.consul", Datacenter: "dc-east"},
		"west":  {TrustDomain: "aaaa.consul", Partition: "part-w", Datacenter: "dc-west"},
		"north": {TrustDomain: "nnnn.consul", Partition: "Part-N", Datacenter: "dc-north"},
	}
}

func (w randomWorld) sidecar() Sidecar {
	r := w.r
	s := Sidecar{Service: "api", TrustDomain: "1111.consul", Datacenter: "dc1", Peers: w.peers(),
		Protocol: pick(r, protocols), ChainProtocol: pick(r, protocols), SanitizeXFCC: r.IntN(4) == 0}
	for _, p := range []string{"east", "west", "north"} {
		if r.IntN(3) > 0 {
			s.TrustBundles = append(s.TrustBundles, p)
		}
	}
	seen := map[[3]string]bool{}
	for range r.IntN(9) {
		x := Intention{SourceName: pick(r, randNames), SourcePeer: pick(r, randPeers), DestinationName: "api"}
		if r.IntN(3) == 0 {
			x.DestinationName = "*"
		}
		k := [3]string{x.SourceName, x.SourcePeer, x.DestinationName}
		if seen[k] {
			continue
		}
		seen[k] = true
		if x.DestinationName != "*" && r.IntN(2) == 0 {
			for range 1 + r.IntN(3) {
				x.Permissions = append(x.Permissions, w.permission())
			}
		} else {
			x.Action = pick(r, []Action{Allow, Deny})
		}
		s.Intentions = append(s.Intentions, x)
	}
	return s
}

func (w randomWorld) permission() Permission {
	r := w.r
	h := &HTTPMatch{}
	switch r.IntN(4) {
	case 0:
		h.PathExact = pick(r, []string{"/api", "/", "/admin"})
	case 1:
		h.PathPrefix = pick(r, []string{"/api", "/", "/adm"})
	case 2:
		h.PathRegex = pick(r, randRegexes)
	}
	for range r.IntN(3) {
		m := HeaderMatch{Name: pick(r, randHeaders), Invert: r.IntN(3) == 0}
		v := pick(r, randValues[:4])
		switch r.IntN(5) {
		case 0:
			m.Present = true
		case 1:
			m.Exact = v
		case 2:
			m.Prefix = v
		case 3:
			m.Suffix = v
		default:
			m.Regex = pick(r, randRegexes)
		}
		h.Header = append(h.Header, m)
	}
	for _, m := range httpMethods[:4] {
		if r.IntN(4) == 0 {
			h.Methods = append(h.Methods, m)
		}
	}
	if h.PathExact == "" && h.PathPrefix == "" && h.PathRegex == "" && len(h.Header) == 0 && len(h.Methods) == 0 {
		h.Methods = []string{"GET"}
	}
	return Permission{Action: pick(r, []Action{Allow, Deny}), HTTP: h}
}

func (w randomWorld) call() (Caller, Request) {
	r := w.r
	c := Caller{Service: pick(r, randNames[:5]), Peer: pick(r, randPeers[:5])}
	if r.IntN(8) == 0 {
		c.Namespace = pick(r, []string{"default", "ns1"})
	}
	req := Request{Method: pick(r, randMethods), Path: pick(r, randPaths)}
	for range r.IntN(3) {
		if req.Headers == nil {
			req.Headers = map[string]string{}
		}
		req.Headers[strings.ToLower(pick(r, randHeaders))] = pick(r, randValues)
	}
	return c, req
}

// TestAgainstReference holds Decide and Explain to the reference on random sidecars and
// requests, under both default policies: the answer, the policies matched, and Envoy's refusal
// of a regular expression of the rules.
func TestAgainstReference(t *testing.T) {
	n := longtest.N(600, 100000)
	w := randomWorld{rand.New(rand.NewPCG(62002, 1))}
	refused, differ := 0, 0
	for i := range n {
		s := w.sidecar()
		d, err := Compile(s)
		if err != nil {
			t.Fatalf("case %d: Compile: %v\n%+v", i, err, s)
		}
		for range 4 {
			c, req := w.call()
			for _, acl := range []ACL{{DefaultPolicy: Allow}, {DefaultPolicy: Deny}, {Enabled: true, DefaultPolicy: Deny}} {
				def := acl.DefaultPolicy
				if problem := compareReference(d, s, c, req, acl); problem != "" {
					t.Fatalf("case %d: %+v %+v default %s: %s\nsidecar: %+v", i, c, req, def, problem, s)
				}
				dec, _ := d.Decide(c, req, ACL{DefaultPolicy: def})
				if dec.EnvoyError != "" {
					refused++
				}
				if x, _ := d.Explain(c, req, ACL{DefaultPolicy: def}); x.PrecedentAllowed != dec.Allowed && dec.EnvoyError == "" {
					differ++
				}
			}
		}
	}
	t.Logf("%d sidecars; %d decisions refused by Envoy, %d where the most precedent intention would decide otherwise", n, refused, differ)
}

func compareReference(d *Destination, s Sidecar, c Caller, req Request, acl ACL) string {
	def := acl.Default()
	dec, err := d.Decide(c, req, acl)
	if err != nil {
		return fmt.Sprintf("Decide: %v", err)
	}
	x, err := d.Explain(c, req, acl)
	if err != nil {
		return fmt.Sprintf("Explain: %v", err)
	}
	allowed, policies, bad := refDecide(s, c, req, def)
	p := d.present(&c, nil)
	switch {
	case !slices.Equal(d.candidates(&p, nil), d.matching(&p, nil)):
		return fmt.Sprintf("the index finds %v, the scan %v", d.candidates(&p, nil), d.matching(&p, nil))
	case x.Decision != dec:
		return fmt.Sprintf("Explain's decision %+v, Decide's %+v", x.Decision, dec)
	case (dec.EnvoyError != "") != (len(bad) > 0):
		return fmt.Sprintf("Envoy error %q; the reference's rules hold the invalid expressions %q", dec.EnvoyError, bad)
	case dec.EnvoyError != "":
		if !slices.ContainsFunc(bad, func(b string) bool { return dec.EnvoyError == fmt.Sprintf("safe_regex matcher %q is invalid", b) }) {
			return fmt.Sprintf("Envoy error %q, not one of %q", dec.EnvoyError, bad)
		}
	case dec.Allowed != allowed:
		return fmt.Sprintf("allowed %v (%+v), the reference's %v (policies %v)", dec.Allowed, dec, allowed, policies)
	case !slices.Equal(x.Policies, policies):
		return fmt.Sprintf("policies %v, the reference's %v", x.Policies, policies)
	case dec.Policy != "" && !slices.Contains(policies, dec.Policy):
		return fmt.Sprintf("policy %q not among the reference's %v", dec.Policy, policies)
	}
	return unexplained(x)
}
