package intentions

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	testTD   = "1111.consul"
	eastTD   = "eeee.consul"
	westTD   = "aaaa.consul"
	testPath = "/api/v1"
)

var testPeers = map[string]Peer{
	"east": {TrustDomain: eastTD, Datacenter: "dc-east"},
	"west": {TrustDomain: westTD, Partition: "part-w", Datacenter: "dc-west"},
}

func l4(src, peer, dest string, a Action) Intention {
	return Intention{SourceName: src, SourcePeer: peer, DestinationName: dest, Action: a}
}

func l7(src, peer string, perms ...Permission) Intention {
	return Intention{SourceName: src, SourcePeer: peer, DestinationName: "api", Permissions: perms}
}

func pathPrefix(a Action, prefix string) Permission {
	return Permission{Action: a, HTTP: &HTTPMatch{PathPrefix: prefix}}
}

func sidecar(protocol, chain string, bundles []string, list ...Intention) Sidecar {
	return Sidecar{Service: "api", TrustDomain: testTD, Datacenter: "dc1", Intentions: list, Protocol: protocol,
		ChainProtocol: chain, TrustBundles: bundles, Peers: testPeers}
}

// TestDecide holds the decisions SPEC-like facts of Envoy's RBAC describe, one scenario each,
// under the default policy named: allowed or not, the intention that decided (-1: the default),
// and the outcome of the intention the scenario is about.
func TestDecide(t *testing.T) {
	get := Request{Method: "GET", Path: testPath}
	web, webEast := Caller{Service: "web"}, Caller{Service: "web", Peer: "east"}
	for _, tc := range []struct {
		name    string
		s       Sidecar
		caller  Caller
		req     Request
		def     Action
		allowed bool
		by      int // index in Intentions of the deciding intention, -1 for the default
		about   int // the intention whose outcome is checked
		outcome Outcome
	}{
		{"*→api deny does not shadow web→* allow under default deny",
			sidecar("tcp", "tcp", nil, l4("*", "", "api", Deny), l4("web", "", "*", Allow)), web, Request{}, Deny, true, 1, 0, SameAsDefault},
		{"*→api allow and web→* deny both apply under default allow",
			sidecar("tcp", "tcp", nil, l4("*", "", "api", Allow), l4("web", "", "*", Deny)), web, Request{}, Allow, false, 1, 0, SameAsDefault},
		{"an exact source subtracts itself from a later *",
			sidecar("tcp", "tcp", nil, l4("web", "", "api", Deny), l4("*", "", "api", Allow)), web, Request{}, Deny, false, -1, 1, Subtracted},
		{"the first permission that fits decides",
			sidecar("http", "http", nil, l7("web", "", pathPrefix(Deny, "/api/v1"), pathPrefix(Allow, "/api"))), web, get, Deny, false, -1, 0, PermissionDefault},
		{"no permission fits: no fall-through to a shadowed *",
			sidecar("http", "http", nil, l7("web", "", pathPrefix(Allow, "/other")), l4("*", "", "api", Allow)), web, get, Deny, false, -1, 1, Subtracted},
		{"a network filter reads permissions as a deny",
			sidecar("tcp", "tcp", nil, l7("web", "", pathPrefix(Allow, "/"))), web, Request{}, Allow, false, 0, 0, Decides},
		{"a peer's intention on a grpc sidecar: the header is stripped",
			sidecar("grpc", "grpc", []string{"east"}, l4("web", "east", "api", Allow)), webEast, get, Deny, false, -1, 0, NotPresented},
		{"a peer's intention with the mesh's sanitize setting",
			func() Sidecar {
				s := sidecar("http", "http", []string{"east"}, l4("web", "east", "api", Allow))
				s.SanitizeXFCC = true
				return s
			}(),
			webEast, get, Deny, false, -1, 0, NotPresented},
		{"a peer's intention on an http sidecar of an http chain: the header behind the gateway",
			sidecar("http", "http", []string{"east"}, l4("web", "east", "api", Allow)), webEast, get, Deny, true, 0, 0, Decides},
		{"a tcp chain on an http sidecar: the caller's own certificate fails the gateway match",
			sidecar("http", "tcp", []string{"east"}, l4("web", "east", "api", Allow)), webEast, get, Deny, false, -1, 0, NotPresented},
		{"an http chain on a tcp sidecar: the gateway's certificate",
			sidecar("tcp", "http", []string{"east"}, l4("web", "east", "api", Allow)), webEast, Request{}, Deny, false, -1, 0, NotPresented},
		{"a tcp chain on a tcp sidecar: the caller's own certificate",
			sidecar("tcp", "tcp", []string{"east"}, l4("web", "east", "api", Allow)), webEast, Request{}, Deny, true, 0, 0, Decides},
		{"no trust bundle: skipped silently",
			sidecar("tcp", "tcp", nil, l4("web", "east", "api", Allow)), webEast, Request{}, Deny, false, -1, 0, NoTrustBundle},
		{"a peer exporting from a partition",
			sidecar("tcp", "tcp", []string{"west"}, l4("web", "west", "api", Deny)), Caller{Service: "web", Peer: "west"}, Request{}, Allow, false, 0, 0, Decides},
		{"a peered caller in another namespace matches nothing",
			sidecar("tcp", "tcp", []string{"east"}, l4("*", "east", "api", Deny)), Caller{Service: "web", Peer: "east", Namespace: "ns1"}, Request{}, Allow, true, -1, 0, NotPresented},
		{"the same source to api and to *: the less precedent is dropped",
			sidecar("tcp", "tcp", nil, l4("web", "", "api", Allow), l4("web", "", "*", Deny)), web, Request{}, Allow, true, -1, 1, Duplicate},
		{"a local source does not name a peered caller",
			sidecar("tcp", "tcp", []string{"east"}, l4("web", "", "api", Deny)), webEast, Request{}, Allow, true, -1, 0, OtherSource},
		{"a '.' in a source name matches any character",
			sidecar("tcp", "tcp", nil, l4("w.b", "", "api", Deny)), web, Request{}, Allow, false, 0, 0, Decides},
		{"a path matcher reads the path without its query",
			sidecar("http", "http", nil, l7("web", "", Permission{Action: Allow, HTTP: &HTTPMatch{PathExact: "/a"}})), web, Request{Method: "GET", Path: "/a?b=/c"}, Deny, true, 0, 0, Decides},
		{"an inverted header match on an absent header does not match",
			sidecar("http", "http", nil, l7("web", "", Permission{Action: Allow, HTTP: &HTTPMatch{Header: []HeaderMatch{{Name: "x-a", Exact: "1", Invert: true}}}})), web, get, Deny, false, -1, 0, NoPermission},
		{"an inverted Present matches an absent header",
			sidecar("http", "http", nil, l7("web", "", Permission{Action: Allow, HTTP: &HTTPMatch{Header: []HeaderMatch{{Name: "X-A", Present: true, Invert: true}}}})), web, get, Deny, true, 0, 0, Decides},
		{"methods match exactly",
			sidecar("http", "http", nil, l7("web", "", Permission{Action: Allow, HTTP: &HTTPMatch{Methods: []string{"GET"}}})), web, Request{Method: "get"}, Deny, false, -1, 0, NoPermission},
		{"a regex matches the whole value",
			sidecar("http", "http", nil, l7("web", "", Permission{Action: Allow, HTTP: &HTTPMatch{PathRegex: "/api"}})), web, get, Deny, false, -1, 0, NoPermission},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compile(tc.s)
			require.NoError(t, err)
			acl := ACL{DefaultPolicy: tc.def}
			dec, err := d.Decide(tc.caller, tc.req, acl)
			require.NoError(t, err)
			require.Equal(t, tc.allowed, dec.Allowed, "%+v", dec)
			require.Equal(t, tc.by, dec.Intention, "%+v", dec)
			x, err := d.Explain(tc.caller, tc.req, acl)
			require.NoError(t, err)
			require.Equal(t, dec, x.Decision)
			require.Equal(t, tc.outcome, x.Steps[tc.about].Outcome, "%s", x)
			require.Empty(t, unexplained(x), "%s", x)
			allowed, _, _ := refDecide(tc.s, tc.caller, tc.req, tc.def)
			require.Equal(t, allowed, dec.Allowed, "the reference agrees")
		})
	}
}

func TestEnvoyError(t *testing.T) {
	bad := Permission{Action: Allow, HTTP: &HTTPMatch{PathRegex: "/api/[a-z"}}
	for _, tc := range []struct {
		name       string
		perms      []Permission
		deny, allo bool // refused under default deny, under default allow
	}{
		{"an allow permission: in the rules under default deny only", []Permission{bad}, true, false},
		{"pruned under default allow, but subtracted from a later deny", []Permission{bad, pathPrefix(Deny, "/")}, true, true},
		{"pruned after the last permission kept under default allow: never read", []Permission{pathPrefix(Deny, "/"), bad}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compile(sidecar("http", "http", nil, l7("web", "", tc.perms...)))
			require.NoError(t, err)
			for def, want := range map[Action]bool{Deny: tc.deny, Allow: tc.allo} {
				dec, err := d.Decide(Caller{Service: "web"}, Request{Method: "GET"}, ACL{DefaultPolicy: def})
				require.NoError(t, err)
				if !want {
					require.Empty(t, dec.EnvoyError, "default %s", def)
					continue
				}
				require.Equal(t, `safe_regex matcher "/api/[a-z" is invalid`, dec.EnvoyError, "default %s", def)
				require.False(t, dec.Allowed)
			}
			// On a network filter the permissions are never compiled.
			d, err = Compile(sidecar("tcp", "tcp", nil, l7("web", "", tc.perms...)))
			require.NoError(t, err)
			dec, _ := d.Decide(Caller{Service: "web"}, Request{}, ACL{DefaultPolicy: Deny})
			require.Empty(t, dec.EnvoyError)
		})
	}
}

func TestCheck(t *testing.T) {
	d, err := Compile(sidecar("http", "http", []string{"east"},
		l4("web", "east", "api", Allow), l7("db", "", pathPrefix(Allow, "/")), l4("*", "", "api", Deny), l4("web", "", "*", Allow)))
	require.NoError(t, err)
	for _, tc := range []struct {
		source string
		acl    ACL
		want   CheckAnswer
	}{
		// *→api (8) comes before web→* (6); web@east is not asked.
		{"web", ACL{Enabled: true, DefaultPolicy: Allow}, CheckAnswer{Allowed: false, Intention: 2}},
		{"db", ACL{Enabled: true, DefaultPolicy: Allow}, CheckAnswer{Intention: 0, HasPermissions: true, HasExact: true}},
		{"api", ACL{Enabled: true, DefaultPolicy: Allow}, CheckAnswer{Intention: 2}},
	} {
		got, err := d.Check(tc.source, tc.acl)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.source)
	}
	empty, err := Compile(sidecar("tcp", "tcp", nil))
	require.NoError(t, err)
	for acl, want := range map[ACL]bool{{}: true, {DefaultPolicy: Deny}: true, {Enabled: true, DefaultPolicy: Deny}: false, {Enabled: true}: true} {
		got, err := empty.Check("web", acl)
		require.NoError(t, err)
		require.Equal(t, CheckAnswer{Allowed: want, Intention: -1}, got, "%+v", acl)
	}
}

func TestCallProblems(t *testing.T) {
	d, err := Compile(sidecar("http", "http", nil))
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		c    Caller
		r    Request
		acl  ACL
		is   error
		msg  string
	}{
		{"no service", Caller{}, Request{Method: "GET"}, ACL{}, nil, `Caller.Service: "" must not be empty`},
		{"a service that is not a name", Caller{Service: "a/b"}, Request{Method: "GET"}, ACL{}, nil, `Caller.Service: "a/b" must not contain "/" (the path separator) (allowed: a-z, A-Z, 0-9, ".", "-" and "_")`},
		{"an unknown peer", Caller{Service: "web", Peer: "north"}, Request{Method: "GET"}, ACL{}, ErrUnknownPeer, `Caller.Peer: no peering "north" is described in the sidecar's inputs`},
		{"no method on an HTTP filter", Caller{Service: "web"}, Request{}, ACL{}, nil, `Request.Method: the sidecar of "api" filters HTTP requests: give the request's method`},
		{"an upper-case header", Caller{Service: "web"}, Request{Method: "GET", Headers: map[string]string{"X-A": "1"}}, ACL{}, nil,
			`Request.Headers: header name "X-A" must be in lower case, as HTTP/2 and Envoy's matchers write it`},
		{"the header Envoy computes", Caller{Service: "web"}, Request{Method: "GET", Headers: map[string]string{"x-forwarded-client-cert": "By=x"}}, ACL{}, nil,
			`Request.Headers: header "x-forwarded-client-cert" is not an input: it is read from the method, the path or how the caller arrives`},
		{"a default policy", Caller{Service: "web"}, Request{Method: "GET"}, ACL{DefaultPolicy: "Deny"}, nil, `ACL.DefaultPolicy: must be "allow" or "deny", got "Deny"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Decide(tc.c, tc.r, tc.acl)
			require.EqualError(t, err, tc.msg)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			_, err = d.Explain(tc.c, tc.r, tc.acl)
			require.EqualError(t, err, tc.msg)
		})
	}
	_, err = d.Check("*", ACL{})
	require.EqualError(t, err, `Source: must name a service, got "*"`)
}

func TestSidecarProblems(t *testing.T) {
	s := Sidecar{Service: "*", TrustDomain: "A.consul", Protocol: "https", TrustBundles: []string{"north", "north"},
		Peers: map[string]Peer{"east": {TrustDomain: eastTD}},
		Intentions: []Intention{
			{SourceName: "web", DestinationName: "db", Action: Allow},
			{SourceName: "a(b", DestinationName: "*", Action: Allow, Precedence: 9},
			{SourceName: "web", DestinationName: "db", Action: Deny},
			{SourceName: "web", DestinationName: "*", Permissions: []Permission{{Action: Allow, HTTP: &HTTPMatch{PathExact: "/"}}}},
		}}
	_, err := Compile(s)
	require.Error(t, err)
	var msgs []string
	for _, e := range splitErrs(err) {
		msgs = append(msgs, e.Error())
	}
	require.Equal(t, []string{
		`Service: must name the destination service, got "*"`,
		`TrustDomain: "A.consul" must not contain upper case 'A' (allowed: a-z, 0-9, ".", "-" and "_")`,
		`Datacenter: "" must not be empty`,
		`Protocol: "https" is not a protocol Consul has: want tcp (or ""), http, http2 or grpc`,
		`Peers["east"].Datacenter: "" must not be empty`,
		`TrustBundles[0]: no peer "north" is described in Peers`,
		`TrustBundles[1]: no peer "north" is described in Peers`,
		`TrustBundles[1]: peer "north" is listed twice`,
		`Intentions[0].DestinationName: the sidecar of "*" receives only intentions to it or to "*"`,
		`Intentions[1].Precedence: Consul gives a(b → * (9, allow) precedence 6`,
		`Intentions[1].SourceName: "a(b": meshscope models source names of letters, digits, '.', '-' and '_' (Consul writes the name into a regular expression unescaped)`,
		`Intentions[2].DestinationName: the sidecar of "*" receives only intentions to it or to "*"`,
		`Intentions[2]: the same source and destination as Intentions[0]`,
		`Intentions[3].Permissions: Intentions[3].Permissions cannot be specified on intentions with wildcarded destinations`,
	}, msgs)
	require.ErrorIs(t, err, ErrNotModelled)
	require.ErrorIs(t, err, ErrUnknownPeer)

	jwt := sidecar("http", "http", nil, Intention{SourceName: "web", DestinationName: "api", Action: Allow, JWT: &JWTRequirement{Providers: []JWTProvider{{Name: "okta"}}}})
	_, err = Compile(jwt)
	require.ErrorIs(t, err, ErrNotModelled)
	jwt.Protocol = "tcp"
	_, err = Compile(jwt)
	require.NoError(t, err, "a network filter does not read JWT requirements")
}

func splitErrs(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitErrs(e)...)
		}
		return out
	}
	return []error{err}
}
