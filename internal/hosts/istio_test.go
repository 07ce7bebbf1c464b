package hosts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
)

// TestProblemsEveryField has a row per edge case of Istio's host rules, with what each field
// says of it: the all-numeric top level domain, wildcards whole and partial, a trailing dot,
// upper case, the limits on a label and a name, IPs, "*" alone and short names. A field
// not named in a row's want accepts the host.
func TestProblemsEveryField(t *testing.T) {
	label63, label64 := strings.Repeat("a", 63), strings.Repeat("a", 64)
	name255 := strings.Repeat(label63+".", 3) + label63
	name256 := "b" + name255
	// all is one problem for every field, but for those given.
	all := func(problem string, but map[Field][]string) map[Field][]string {
		out := map[Field][]string{}
		for _, f := range fields {
			out[f.f] = []string{problem}
		}
		for f, p := range but {
			out[f] = p
		}
		return out
	}
	egress := func(h string) string { return "shop/" + h }
	const (
		se   = ServiceEntryHosts
		mvs  = MeshVirtualServiceHosts
		gvs  = GatewayVirtualServiceHosts
		dr   = DestinationRuleHost
		dst  = RouteDestinationHost
		sc   = SidecarEgressHosts
		ss   = ServiceSettingsHosts
		fqdn = FQDN
	)
	numeric := `domain name "123" invalid (top level domain "123" cannot be all-numeric)`
	for _, tt := range []struct {
		name, host string
		want       map[Field][]string // the fields that refuse the host; SidecarEgressHosts reads "shop/"+host
	}{
		{"an exact host", "api.example.com", nil},
		{"an all-numeric top level domain", "db.123", map[Field][]string{se: {numeric}, mvs: {numeric}, gvs: {numeric}, dr: {numeric}, dst: {numeric}, sc: {numeric}, ss: {numeric},
			fqdn: {`domain name "db.123" invalid (top level domain "123" cannot be all-numeric)`}}},
		{"a number too large for an int is a label", "db.99999999999999999999", nil},
		{"a signed number is a number", "db.-1", all(`domain name "-1" invalid (top level domain "-1" cannot be all-numeric)`, map[Field][]string{
			fqdn: {`domain name "db.-1" invalid (top level domain "-1" cannot be all-numeric)`}})},
		{"a trailing dot makes the top level domain empty", "db.123.", nil},
		{"one all-numeric label is a first label", "123", map[Field][]string{sc: {"short names (non FQDN) are not allowed"}, fqdn: {numeric}}},
		{"a short name", "db", map[Field][]string{sc: {"short names (non FQDN) are not allowed"}}},
		{"upper case", "API.Example.COM", nil},
		{"a trailing dot", "api.example.com.", nil},
		{"a wildcard", "*.example.com", map[Field][]string{fqdn: {`domain name "*.example.com" invalid (label "*" invalid)`}}},
		{"a partial wildcard", "*x.example.com", map[Field][]string{sc: {`partial wildcard "*x.example.com" not allowed`}, fqdn: {`domain name "*x.example.com" invalid (label "*x" invalid)`}}},
		{"a partial wildcard after a dash", "*-x.example.com", map[Field][]string{sc: {`partial wildcard "*-x.example.com" not allowed`}, fqdn: {`domain name "*-x.example.com" invalid (label "*-x" invalid)`}}},
		{"a partial wildcard of one label", "*x", map[Field][]string{sc: {"short names (non FQDN) are not allowed", `partial wildcard "*x" not allowed`}, fqdn: {`domain name "*x" invalid (label "*x" invalid)`}}},
		{"* inside a first label", "a*.example.com", map[Field][]string{se: {`domain name "a*.example.com" invalid (label "a*" invalid)`},
			mvs: {`domain name "a*.example.com" invalid (label "a*" invalid)`}, gvs: {`domain name "a*.example.com" invalid (label "a*" invalid)`},
			dr: {`domain name "a*.example.com" invalid (label "a*" invalid)`}, dst: {`domain name "a*.example.com" invalid (label "a*" invalid)`},
			sc: {`domain name "a*.example.com" invalid (label "a*" invalid)`, `partial wildcard "a*.example.com" not allowed`},
			ss: {`domain name "a*.example.com" invalid (label "a*" invalid)`}, fqdn: {`domain name "a*.example.com" invalid (label "a*" invalid)`}}},
		{"* in a later label: Istio names the rest", "api.*.example.com", map[Field][]string{se: {`domain name "*.example.com" invalid (label "*" invalid)`},
			mvs: {`domain name "*.example.com" invalid (label "*" invalid)`}, gvs: {`domain name "*.example.com" invalid (label "*" invalid)`},
			dr: {`domain name "*.example.com" invalid (label "*" invalid)`}, dst: {`domain name "*.example.com" invalid (label "*" invalid)`},
			sc: {`domain name "*.example.com" invalid (label "*" invalid)`, `partial wildcard "api.*.example.com" not allowed`},
			ss: {`domain name "*.example.com" invalid (label "*" invalid)`}, fqdn: {`domain name "api.*.example.com" invalid (label "*" invalid)`}}},
		{"* alone", "*", map[Field][]string{se: {"invalid host *"}, mvs: {"wildcard host * is not allowed for virtual services bound to the mesh gateway"},
			dst: {"invalid destination host *"}, fqdn: {`domain name "*" invalid (label "*" invalid)`}}},
		{"*. (meshscope refuses it where hosts compare without the dot)", "*.", map[Field][]string{se: {`"*." is a wildcard without a domain`},
			ss: {`"*." is a wildcard without a domain`}, fqdn: {`domain name "*." invalid (label "*" invalid)`}}},
		{"an empty label", "a..b", map[Field][]string{se: {`domain name ".b" invalid (label "" invalid)`}, mvs: {`domain name ".b" invalid (label "" invalid)`},
			gvs: {`domain name ".b" invalid (label "" invalid)`}, dr: {`domain name ".b" invalid (label "" invalid)`}, dst: {`domain name ".b" invalid (label "" invalid)`},
			sc: {`domain name ".b" invalid (label "" invalid)`}, ss: {`domain name ".b" invalid (label "" invalid)`}, fqdn: {`domain name "a..b" invalid (label "" invalid)`}}},
		{"a label of 63", label63 + ".example.com", nil},
		{"a first label of 64", label64 + ".example.com", map[Field][]string{se: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`},
			mvs: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`}, gvs: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`},
			dr: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`}, dst: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`},
			sc: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`}, ss: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`},
			fqdn: {`domain name "` + label64 + `.example.com" invalid (label "` + label64 + `" invalid)`}}},
		{"a name of 255", name255, nil},
		{"a name of 256", name256, all(`domain name "`+name256+`" too long (max 255)`, map[Field][]string{
			sc: {`domain name "` + name256 + `" too long (max 255)`}})},
		{"an IPv4 address: a VirtualService's host", "10.1.2.3", all(`domain name "1.2.3" invalid (top level domain "3" cannot be all-numeric)`, map[Field][]string{
			mvs: nil, gvs: nil, fqdn: {`domain name "10.1.2.3" invalid (top level domain "3" cannot be all-numeric)`}})},
		{"an IPv6 address: a VirtualService's host", "2001:db8::1", all(`domain name "2001:db8::1" invalid (label "2001:db8::1" invalid)`, map[Field][]string{
			mvs: nil, gvs: nil, sc: {"short names (non FQDN) are not allowed", `domain name "2001:db8::1" invalid (label "2001:db8::1" invalid)`}})},
		{"empty", "", all("empty domain name not allowed", map[Field][]string{
			sc: {"config namespace and dnsName in host entry cannot be empty", "short names (non FQDN) are not allowed", "empty domain name not allowed"}})},
		{"an SNI host of a gateway's TLS route: not checked on a VirtualService bound to gateways", "outbound_.80_._.api.example.com",
			all(`domain name "outbound_.80_._.api.example.com" invalid (label "outbound_" invalid)`, map[Field][]string{gvs: nil})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range fields {
				h := tt.host
				if f.f == SidecarEgressHosts {
					h = egress(h)
				}
				got := Problems(h, f.f)
				require.Equal(t, refProblems(h, f.f), got, "%s %q: as Istio's validation reads it", f.name, h)
				assert.Equal(t, tt.want[f.f], got, "%s %q", f.name, h)
			}
		})
	}
	t.Run("IPs: a VirtualService's hosts, nothing else", func(t *testing.T) {
		for _, ip := range []string{"10.1.2.3", "2001:db8::1"} {
			for _, f := range fields {
				want := f.f == MeshVirtualServiceHosts || f.f == GatewayVirtualServiceHosts
				assert.Equal(t, want, Problems(ip, f.f) == nil, "%s %q", f.name, ip)
			}
		}
	})
	t.Run("a Sidecar's namespace part", func(t *testing.T) {
		for h, want := range map[string][]string{
			"*/*": nil, "./api.example.com": nil, "~shop/*": nil, "~/*": nil, "Shop/*": nil, "~*/*": nil,
			"api.example.com":   {"host must be of form namespace/dnsName"},
			"/api.example.com":  {"config namespace and dnsName in host entry cannot be empty"},
			"shop/":             {"config namespace and dnsName in host entry cannot be empty", "short names (non FQDN) are not allowed", "empty domain name not allowed"},
			"sh_op/*":           {`invalid namespace value "sh_op" in sidecar`},
			"~~shop/*":          {`invalid namespace value "~~shop" in sidecar`},
			"shop/a/b.example":  {`domain name "a/b.example" invalid (label "a/b" invalid)`},
			"shop/api.example/": {`domain name "example/" invalid (label "example/" invalid)`},
		} {
			assert.Equal(t, want, Problems(h, SidecarEgressHosts), "%q", h)
			assert.Equal(t, refProblems(h, SidecarEgressHosts), Problems(h, SidecarEgressHosts), "%q", h)
		}
	})
}

// randomHost is a string of the bytes hosts are made of, and a few others: short ones of
// every byte class, and long ones of mostly letters (labels near 63 bytes, names near 255).
func randomHost(r interface{ IntN(int) int }, k int) string {
	const alphabet = "aZ9-.*_/~ \xc3:"
	longs := [...]string{"abcXYZ0-.", "abcXYZ0", "abcxyz0.", "ab..", "0123456789."}
	n := r.IntN(12)
	if k%2 == 1 {
		n = r.IntN(300)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
		if k%2 == 1 && r.IntN(40) != 0 {
			long := longs[k%10/2]
			b[i] = long[r.IntN(len(long))]
		}
	}
	return string(b)
}

// TestProblemsMatchReference holds Problems, for every field, to Istio's rules read literally
// on random strings.
func TestProblemsMatchReference(t *testing.T) {
	r := newRand(71, 72)
	for k := range longtest.N(1500, 200_000) {
		h := randomHost(r, k)
		for _, f := range fields {
			require.Equal(t, refProblems(h, f.f), Problems(h, f.f), "%s %q", f.name, h)
		}
		require.Equal(t, refFQDN(h) != "", DomainProblem(h) != "", "%q", h)
	}
}

// FuzzProblems holds Problems to the reference for every field.
func FuzzProblems(f *testing.F) {
	for _, s := range []string{"api.example.com", "db.123", "db.123.", "*", "*.", "*.example.com", "*x.example.com", "*-x", "a..b", "10.1.2.3", "::1",
		"shop/*", "~shop/*.example.com", "./db", "outbound_.80_._.a.com", strings.Repeat("a.", 128), "a.+1", "a.99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		for _, fl := range fields {
			if got, want := Problems(h, fl.f), refProblems(h, fl.f); !equalStrings(got, want) {
				t.Fatalf("%s %q: %q, want %q", fl.name, h, got, want)
			}
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// realisticHosts are hosts as ServiceEntries and routes hold them.
var realisticHosts = []string{"api.example.com", "reviews.shop.svc.cluster.local", "*.googleapis.com", "db-primary.prod.internal", "reviews", "payments.corp.example.com."}

var problemsSink []string

// BenchmarkProblems checks realistic ServiceEntry hosts with the one-pass check, beside the
// reference's regular expressions (the baseline).
func BenchmarkProblems(b *testing.B) {
	for _, way := range []struct {
		name  string
		check func(string, Field) []string
	}{{"one pass", Problems}, {"reference", refProblems}} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				problemsSink = way.check(realisticHosts[i%len(realisticHosts)], ServiceEntryHosts)
				i++
			}
		})
	}
}
