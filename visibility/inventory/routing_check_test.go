package inventory

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"

	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
)

// TestValidateRouting: VirtualServices and DestinationRules built in Go are checked by
// Istio's rules, each problem naming the field as the Go value spells it.
func TestValidateRouting(t *testing.T) {
	inv := &Inventory{
		VirtualServices: []VirtualService{
			{Namespace: "shop", Name: "reviews", Hosts: []string{"*.shop.example", "api.shop.example", "*"}, ExportTo: []string{"~"},
				HTTP: []HTTPRoute{{Match: []HTTPMatch{{SourceNamespace: "Web_1", URI: &StringMatch{Regex: "("}}},
					Route:   []Destination{{Host: "*", Subset: "a_b", Port: 70000, Weight: -1}},
					Mirrors: []Destination{{Host: "m.example", Weight: 3}}}}},
			{Namespace: "shop", Name: "overlap", Hosts: []string{"*.shop.example", "api.shop.example"}, TCP: []L4Route{{}}},
			{Namespace: "", Name: "", TLS: []L4Route{{Route: []Destination{{Host: "a.example"}}}}},
			{Namespace: "shop", Name: "mirror", Hosts: []string{"m.shop.example"}, HTTP: []HTTPRoute{{Route: []Destination{{Host: "a.example"}},
				Mirror: &Destination{Host: "*", Weight: 2}, Mirrors: []Destination{{Host: "b.example"}}}}},
		},
		DestinationRules: []DestinationRule{
			{Namespace: "shop", Name: "reviews", Host: "reviews", WorkloadSelector: map[string]string{}, ExportTo: []string{"*"},
				Subsets: []Subset{{Name: "v1", Labels: map[string]string{"version": "v 1"}}, {Name: "v1"}}},
			{Namespace: "Shop", Name: "x", Host: ""},
		},
	}
	err := inv.Validate()
	require.Error(t, err)
	assert.Equal(t, []string{
		`VirtualServices[0] (VirtualService shop/reviews): Hosts[2]: wildcard host * is not allowed for virtual services bound to the mesh gateway`,
		"VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Match[0].URI.Regex: \"uri\": error parsing regexp: missing closing ): `(`; Istio uses RE2 style regex-based match (https://github.com/google/re2/wiki/Syntax)",
		`VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Match[0].SourceNamespace: sourceNamespace match Web_1 is invalid`,
		`VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Mirrors[0].Weight: a mirror has no weight`,
		`VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Route[0].Host: invalid destination host *`,
		`VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Route[0].Subset: subset name is invalid: a_b`,
		`VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Route[0].Port: port number 70000 must be in the range 1..65535`,
		`VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Route[0].Weight: weight -1 < 0`,
		`VirtualServices[0] (VirtualService shop/reviews): ExportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`,
		`VirtualServices[1] (VirtualService shop/overlap): Hosts[1]: duplicate hosts in virtual service: *.shop.example & api.shop.example`,
		`VirtualServices[1] (VirtualService shop/overlap): TCP[0].Route: TCP route is required`,
		`VirtualServices[2] (VirtualService /): Namespace: must not be empty`,
		`VirtualServices[2] (VirtualService /): Name: must not be empty`,
		`VirtualServices[2] (VirtualService /): TLS: delegate virtual service must have no tls route specified`,
		`VirtualServices[3] (VirtualService shop/mirror): HTTP[0].Mirrors: HTTP route cannot contain both mirror and mirrors`,
		`VirtualServices[3] (VirtualService shop/mirror): HTTP[0].Mirror.Host: invalid destination host *`,
		`VirtualServices[3] (VirtualService shop/mirror): HTTP[0].Mirror.Weight: a mirror has no weight`,
		`DestinationRules[0] (DestinationRule shop/reviews): Subsets[0].Labels["version"]: invalid tag value: "v 1"`,
		`DestinationRules[0] (DestinationRule shop/reviews): Subsets[1].Name: duplicate subset names: v1 (it repeats Subsets[0].Name)`,
		`DestinationRules[0] (DestinationRule shop/reviews): ExportTo: destination rule with workload selector cannot have exportTo beyond current namespace`,
		`DestinationRules[1] (DestinationRule Shop/x): Namespace: "Shop" must be lower case`,
		`DestinationRules[1] (DestinationRule Shop/x): Host: empty domain name not allowed`,
	}, strings.Split(err.Error(), "\n"))
}

// goFieldsAsWritten spells a Go value's field paths as the objects above write them.
var goFieldsAsWritten = strings.NewReplacer(
	"Hosts", "spec.hosts", "Gateways", "gateways", "ExportTo", "spec.exportTo", "HTTP", "spec.http", "TCP", "spec.tcp", "TLS", "spec.tls",
	".Route[", ".route[", ".Route", ".route", ".Mirrors[", ".mirrors[", ".Mirrors", ".mirrors", ".Host", ".destination.host", ".Subset", ".destination.subset",
	".Port", ".destination.port.number", ".Weight", ".weight", ".Match[", ".match[", ".SourceNamespace", ".sourceNamespace",
	".SourceLabels", ".sourceLabels", ".URI", ".uri", ".Regex", ".regex", ".Headers", ".headers", ".Delegate", ".delegate",
	"Subsets[", "spec.subsets[", ".Name", ".name", ".Labels", ".labels", "WorkloadSelector", "spec.workloadSelector.matchLabels",
	"Host", "spec.host")

// asWritten is a Go value's problem with its paths spelt as the object writes them.
func asWritten(p FieldError) string {
	f := goFieldsAsWritten.Replace(p.Field)
	switch {
	case strings.HasPrefix(f, "gateways"):
		f = "spec." + f
	case strings.Contains(f, ".match[") && strings.HasSuffix(f, ".destination.port.number"):
		f = strings.TrimSuffix(f, ".destination.port.number") + ".port" // a match's port
	case strings.Contains(f, ".match[") && strings.Contains(f, ".gateways"):
	case strings.Contains(f, ".Mirror."):
		f = strings.Replace(strings.Replace(f, ".Mirror.", ".mirror.", 1), ".destination", "", 1) // mirror.host: a destination itself
	case f == "" && strings.Contains(p.Detail, "must be provided"):
		f = "spec"
	}
	detail := p.Detail
	if i := strings.Index(detail, "(it repeats "); i >= 0 {
		detail = detail[:i] + goFieldsAsWritten.Replace(detail[i:])
	}
	return f + ": " + detail
}

// TestRoutingLoadAndValidateAgree: on random VirtualServices and DestinationRules, Load
// (of the object a user writes) and Validate (of the Go value) find the same problems
// with the same words, each naming the field as its input spells it.
func TestRoutingLoadAndValidateAgree(t *testing.T) {
	r := newRand(32, 7)
	refused := 0
	for i := range longtest.N(600, 3000) {
		inv := &Inventory{}
		var object map[string]any
		if i%2 == 0 {
			vs := randomVirtualService(r)
			inv.VirtualServices, object = []VirtualService{vs}, virtualServiceObject(vs)
		} else {
			dr := randomDestinationRule(r)
			inv.DestinationRules, object = []DestinationRule{dr}, destinationRuleObject(dr)
		}
		data, err := yaml.Marshal(object)
		require.NoError(t, err)
		loaded, lerr := Load([]byte("kind: Namespace\nmetadata: {name: shop}\n---\n"+string(data)), "")
		verr := inv.Validate()
		var got, want []string
		for _, p := range fieldErrors(t, lerr) {
			got = append(got, p.Field+": "+p.Detail)
		}
		for _, p := range fieldErrors(t, verr) {
			want = append(want, asWritten(p))
		}
		require.ElementsMatch(t, want, got, "%s", data)
		if lerr == nil {
			require.Equal(t, inv.VirtualServices, loaded.VirtualServices, "%s", data)
			require.Equal(t, inv.DestinationRules, loaded.DestinationRules, "%s", data)
		} else {
			refused++
		}
	}
	n := longtest.N(600, 3000)
	t.Logf("%d of %d refused", refused, n)
	assert.Greater(t, refused, n/5)
	assert.Less(t, refused, 4*n/5)
}

// Istio's name rules as its validation writes them, with regular expressions: the
// reference the byte loops are held to.
var (
	refTagKey     = regexp.MustCompile(`^([a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?)*/)?((?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`)
	refTagValue   = regexp.MustCompile(`^((?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	refHeaderName = regexp.MustCompile("^[!#$%&'*+-.^_`|~A-Za-z0-9]+$")
)

func refTagKeyProblem(k string) string {
	m := refTagKey.FindStringSubmatch(k)
	switch {
	case m == nil:
		return fmt.Sprintf("invalid tag key: %q", k)
	case len(m[1]) > 0 && len(m[1])-1 > 253:
		return fmt.Sprintf("invalid tag key: %q (DNS prefix is too long)", k)
	case len(m[2]) > 63:
		return fmt.Sprintf("invalid tag key: %q (name is too long)", k)
	}
	return ""
}

// TestIstioNameRulesMatchReference holds the name rules to Istio's regular expressions on
// random strings (its host rules are held to theirs in internal/hosts).
func TestIstioNameRulesMatchReference(t *testing.T) {
	r := newRand(32, 9)
	for range longtest.N(5000, 100000) {
		s := istiotest.NameLike(r)
		require.Equal(t, refTagKeyProblem(s), tagKeyProblem(s), "%q", s)
		require.Equal(t, refTagValue.MatchString(s), s == "" || qualifiedName(s), "%q", s)
		wantHeader := ""
		if !refHeaderName.MatchString(s) && !jwtClaimHeader(s) {
			wantHeader = "header name " + s + " is not a valid header name"
		}
		if s == "" {
			wantHeader = "header name cannot be empty"
		}
		require.Equal(t, wantHeader, headerNameProblem(s), "%q", s)
	}
}

// TestOverlapsMatchNaive: the trie names the pairs of overlapping hosts comparing every pair
// names, the first ones in Istio's order whatever the limit, and counts them alike, on random
// hosts that share suffixes — so which pair a problem names does not depend on how many
// hosts there are.
func TestOverlapsMatchNaive(t *testing.T) {
	r := newRand(32, 11)
	parts := []string{"*", "*.", "a.", "b.", "ab.", "x", ".", "com", "a.com", ".com", "*-a.", "*b"}
	for range longtest.N(300, 2000) {
		hosts := make([]string, r.IntN(40))
		if r.IntN(8) == 0 {
			hosts = make([]string, naiveOverlapsUpTo+r.IntN(60))
		}
		for i := range hosts {
			var b strings.Builder
			for range 1 + r.IntN(3) {
				b.WriteString(pick(r, parts))
			}
			hosts[i] = b.String()
		}
		want, wantN := naiveOverlaps(hosts, 1<<30)
		got, gotN := trieOverlaps(hosts, 1<<30)
		require.Equal(t, wantN, gotN, "%q", hosts)
		require.Equal(t, want, got, "%q", hosts)
		for _, limit := range []int{1, 3, maxOverlaps} {
			want, wantN := naiveOverlaps(hosts, limit)
			got, gotN := trieOverlaps(hosts, limit)
			require.Equal(t, want, got, "the first %d pairs of %q", limit, hosts)
			require.Equal(t, wantN, gotN, "the count does not depend on the limit")
		}
	}
}

// TestOverlappingHostsAreLinear: a VirtualService with 4n hosts costs at most 4.5 times one
// with n — also when every host overlaps every other, where Istio's pairs are quadratic and
// the problems name ten of them and count the rest.
func TestOverlappingHostsAreLinear(t *testing.T) {
	for _, tc := range []struct {
		name string
		host func(i int) string
		fail bool
	}{
		{"distinct hosts", func(i int) string { return fmt.Sprintf("h%d.shop.example.com", i) }, false},
		{"wildcards within wildcards", func(i int) string { return "*" + strings.Repeat("a", i%50) + ".example.com" }, true},
		{"one host again and again", func(int) string { return "*.example.com" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := func(n int) float64 {
				var b strings.Builder
				b.WriteString("kind: Namespace\nmetadata: {name: shop}\n---\nkind: VirtualService\nmetadata: {name: r, namespace: shop}\nspec:\n  tcp: [{route: [{destination: {host: r}}]}]\n  hosts:\n")
				for i := range n {
					b.WriteString("  - \"" + tc.host(i) + "\"\n")
				}
				data := []byte(b.String())
				var err error
				allocs, _ := growth.Allocated(func() { _, err = Load(data, "") })
				if tc.fail {
					require.Error(t, err)
					require.Len(t, strings.Split(err.Error(), "\n"), maxOverlaps+1, "ten pairs, then how many more")
				} else {
					require.NoError(t, err)
				}
				return allocs
			}
			small, large := work(500), work(2000)
			assert.Less(t, large, 4.5*small, "allocations with 500 hosts: %v, with 2000: %v", small, large)
		})
	}
}
