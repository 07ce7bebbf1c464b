package intentions

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshscope/meshscope/internal/testkit"
)

// FuzzDecode holds the decoder and Validate to their contracts on any input: no panic; every
// problem a FieldError; a decoded entry encodes back to itself; Validate changes nothing and
// answers as on its normalized form; Normalize is idempotent.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"Kind": "service-intentions", "Name": "api", "Sources": [{"Name": "web", "Action": "allow"}]}`,
		`{"Name": "api", "Sources": [{"Name": "web", "Peer": "east", "Permissions": [{"Action": "deny", "HTTP": {"PathRegex": "/a[", "Header": [{"Name": "x", "Present": true, "Invert": true}], "Methods": ["get"]}}]}]}`,
		`{"Name": "*", "Namespace": "x", "JWT": {"Providers": [{"Name": ""}]}, "Sources": [{"Name": "*", "Partition": "p", "LegacyMeta": {"a": "b"}}]}`,
		`{"name": "a", "sources": [{"name": "b", "sameness_group": "g", "precedence": 3, "legacy_create_time": "2023-01-02T03:04:05Z"}]}`,
		`[]`, `{"Sources": {}}`, `{"Name": 1}`,
	} {
		f.Add([]byte(s))
	}
	for _, tc := range testkit.LoadIntentions(f).Cases[:20] {
		for _, raw := range tc.Entries {
			f.Add([]byte(raw))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Decode(data)
		if err != nil {
			for _, one := range splitErrs(err) {
				var fe *FieldError
				if !errors.As(one, &fe) {
					t.Fatalf("a problem that is not a FieldError: %v", one)
				}
			}
			return
		}
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(again)
		if err != nil {
			t.Fatalf("an entry does not decode from its own JSON: %v\n%s", err, again)
		}
		if d := cmp.Diff(e, back); d != "" {
			t.Fatalf("round trip: %s", d)
		}
		before := e.clone()
		verr := e.Validate()
		if d := cmp.Diff(before, e); d != "" {
			t.Fatalf("Validate changed the entry: %s", d)
		}
		n := e.clone()
		n.Normalize()
		if nerr := n.Validate(); (nerr == nil) != (verr == nil) || (nerr != nil && nerr.Error() != verr.Error()) {
			t.Fatalf("Validate on the normalized entry: %v, on the entry: %v", nerr, verr)
		}
		twice := n.clone()
		twice.Normalize()
		if d := cmp.Diff(n, twice); d != "" {
			t.Fatalf("Normalize is not idempotent: %s", d)
		}
	})
}

// fuzzSidecar has permissions on paths, headers and methods (regular expressions among them),
// sources of two peers, and an HTTP filter that forwards the x-forwarded-client-cert header.
func fuzzSidecar() Sidecar {
	h := func(m HTTPMatch) *HTTPMatch { return &m }
	return sidecar("http", "http", []string{"east", "west"},
		l7("web", "",
			Permission{Action: Deny, HTTP: h(HTTPMatch{PathRegex: "/admin(/.*)?", Methods: []string{"DELETE", "PUT"}})},
			Permission{Action: Allow, HTTP: h(HTTPMatch{PathPrefix: "/api/", Header: []HeaderMatch{{Name: "x-tenant", Regex: "acme-[0-9]+"}, {Name: "x-debug", Present: true, Invert: true}}})},
			Permission{Action: Allow, HTTP: h(HTTPMatch{PathExact: "/", Header: []HeaderMatch{{Name: "user-agent", Suffix: "bot", Invert: true}}})}),
		l7("*", "east",
			Permission{Action: Allow, HTTP: h(HTTPMatch{Header: []HeaderMatch{{Name: "x-tenant", Prefix: "acme"}, {Name: "x-version", Exact: "v2"}}})},
			Permission{Action: Deny, HTTP: h(HTTPMatch{Methods: []string{"GET"}})}),
		l4("w.b", "west", "api", Deny),
		l4("*", "", "api", Allow),
		l4("api", "", "*", Deny))
}

// FuzzDecideRequest holds Decide, Explain and the reference to one answer on any request: its
// method, path (query and fragment included), a header, the caller and the default policy.
func FuzzDecideRequest(f *testing.F) {
	s := fuzzSidecar()
	d, err := Compile(s)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("GET", "/api/v1?x=1", "x-tenant", "acme-12", "web", uint8(0), true)
	f.Add("DELETE", "/admin/x#y", "x-debug", "1", "web", uint8(0), false)
	f.Add("PUT", "/", "user-agent", "curl/bot", "wxb", uint8(2), true)
	f.Add("GET", "", "x-version", "v2", "db", uint8(1), false)
	f.Fuzz(func(t *testing.T, method, path, name, value, service string, peer uint8, deny bool) {
		c := Caller{Service: service, Peer: []string{"", "east", "west"}[peer%3]}
		r := Request{Method: method, Path: path, Headers: map[string]string{name: value}}
		acl := ACL{DefaultPolicy: Allow}
		if deny {
			acl.DefaultPolicy = Deny
		}
		dec, err := d.Decide(c, r, acl)
		if err != nil {
			if _, xerr := d.Explain(c, r, acl); xerr == nil || xerr.Error() != err.Error() {
				t.Fatalf("Decide: %v; Explain: %v", err, xerr)
			}
			return
		}
		if problem := compareReference(d, s, c, r, acl); problem != "" {
			t.Fatalf("%+v %+v: %s (%+v)", c, r, problem, dec)
		}
	})
}
