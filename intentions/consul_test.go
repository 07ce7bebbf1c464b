package intentions

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/testkit"
)

// summary is how the vectors write an intention.
func summary(x Intention) testkit.Intention {
	return testkit.Intention{SourceName: x.SourceName, SourcePeer: x.SourcePeer, DestinationName: x.DestinationName,
		Precedence: x.Precedence, Action: string(x.Action), Permissions: len(x.Permissions)}
}

// write is how meshscope takes the write of a recorded service-intentions entry up to the
// store: the stage that refuses it ("" when it reaches the store), its error, and the entry.
func write(raw json.RawMessage) (stage, msg string, e ConfigEntry) {
	e, err := Decode(raw)
	if err != nil {
		return "decode", err.Error(), e
	}
	if err := e.Validate(); err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			return "validate", err.Error(), e
		}
		return "validate", fe.Detail, e
	}
	e.Normalize()
	return "", "", e
}

var protocolRefusal = regexp.MustCompile(`^service "([^"]*)" has protocol "([^"]*)", which is incompatible with L7 intentions permissions$`)

// storedEntries replays a case's service-intentions writes up to the store, checking each
// against the recording, and returns the entries Consul stored (the last accepted one per
// name), counting the outcomes.
func storedEntries(t *testing.T, tc testkit.IntentionsCase, counts map[string]int) []ConfigEntry {
	stored := map[string]ConfigEntry{}
	for i, raw := range tc.Entries {
		var head struct{ Kind string }
		require.NoError(t, json.Unmarshal(raw, &head))
		if head.Kind != Kind {
			continue
		}
		w := tc.Writes[i]
		stage, msg, e := write(raw)
		switch {
		case stage != "":
			if w.Stage != stage || w.Error != msg {
				t.Errorf("%s: Entries[%d]: Consul: %s %q; meshscope: %s %q", tc.Name, i, w.Stage, w.Error, stage, msg)
				continue
			}
			counts["write refused at "+stage]++
		case w.Accepted:
			counts["write accepted"]++
			stored[e.Name] = e
		case w.Stage == "store":
			m := protocolRefusal.FindStringSubmatch(w.Error)
			if m == nil || m[1] != e.Name || !e.RequiresHTTP() || e.CheckProtocol(m[2]) == nil || e.CheckProtocol(m[2]).Error() != "Name: "+w.Error {
				t.Errorf("%s: Entries[%d]: Consul refuses at store (%s); meshscope's refusal does not agree", tc.Name, i, w.Error)
				continue
			}
			counts["write refused at store (L7 on a non-HTTP chain)"]++
		default:
			t.Errorf("%s: Entries[%d]: Consul: %s %q; meshscope accepts", tc.Name, i, w.Stage, w.Error)
		}
	}
	return slices.Collect(maps.Values(stored))
}

// sanitizes reports whether the case's stored mesh entry strips the x-forwarded-client-cert
// header (a store's answer; read here from the accepted writes).
func sanitizes(t *testing.T, tc testkit.IntentionsCase) bool {
	on := false
	for i, raw := range tc.Entries {
		var mesh struct {
			Kind string
			HTTP *struct{ SanitizeXForwardedClientCert bool }
		}
		require.NoError(t, json.Unmarshal(raw, &mesh))
		if mesh.Kind == "mesh" && tc.Writes[i].Accepted {
			on = mesh.HTTP != nil && mesh.HTTP.SanitizeXForwardedClientCert
		}
	}
	return on
}

// sidecars compiles the sidecar of every recorded service from the recorded inputs (protocols
// and trust bundles, a store's answers) and the intentions of the stored entries, checking that
// those are the recorded list.
func sidecars(t *testing.T, v *testkit.Intentions, tc testkit.IntentionsCase, counts map[string]int) map[string]*Destination {
	stored := storedEntries(t, tc, counts)
	peers := map[string]Peer{}
	for name, p := range v.Peers {
		peers[name] = Peer{TrustDomain: p.TrustDomain, Partition: p.ExportedPartition, Datacenter: p.Datacenter}
	}
	out := map[string]*Destination{}
	for _, svc := range slices.Sorted(maps.Keys(tc.Services)) {
		rec := tc.Services[svc]
		list := ForDestination(svc, stored)
		got := make([]testkit.Intention, len(list))
		for i, x := range list {
			got[i] = summary(x)
		}
		if !slices.Equal(got, rec.Intentions) {
			t.Errorf("%s: %s: sidecar's intentions:\n got %v\nwant %v", tc.Name, svc, got, rec.Intentions)
			continue
		}
		counts["sidecar's intentions in Consul's order"]++
		d, err := Compile(Sidecar{Service: svc, TrustDomain: v.TrustDomain, Datacenter: v.Datacenter, Intentions: list,
			Protocol: rec.ProxyProtocol, ChainProtocol: rec.ChainProtocol, TrustBundles: rec.TrustBundles,
			SanitizeXFCC: sanitizes(t, tc), Peers: peers})
		if err != nil {
			t.Errorf("%s: %s: Compile: %v", tc.Name, svc, err)
			continue
		}
		out[svc] = d
		for def, env := range rec.Envoy {
			if wantHTTP := env.Filter == "envoy.filters.http.rbac"; d.http != wantHTTP {
				t.Errorf("%s: %s: HTTP filter %v, Consul's %s", tc.Name, svc, d.http, env.Filter)
			}
			if want := env.ForwardClientCertDetails == "APPEND_FORWARD"; d.forwardXFCC != want {
				t.Errorf("%s: %s: forwards the x-forwarded-client-cert header: %v, Consul's %q", tc.Name, svc, d.forwardXFCC, env.ForwardClientCertDetails)
			}
			if got := d.Policies(Action(def)); !slices.Equal(got, env.Policies) {
				t.Errorf("%s: %s: default %s: policies %v, Consul's %v", tc.Name, svc, def, got, env.Policies)
				continue
			}
			counts["sidecar's RBAC policies under a default"]++
		}
	}
	return out
}

// TestAgainstConsul replays every recorded case: each service-intentions write through Decode,
// Validate and Normalize (a refusal at decode or validate must be Consul's, in its exact words;
// a store refusal must come from an entry RequiresHTTP says the store checks, in
// ProtocolError's words), each sidecar's intentions and RBAC policies, every check-API answer,
// and every request's Envoy decision and explanation under both default policies.
func TestAgainstConsul(t *testing.T) {
	v := testkit.LoadIntentions(t)
	counts := map[string]int{}
	for _, tc := range v.Cases {
		dests := sidecars(t, v, tc, counts)
		for i, c := range tc.Checks {
			d := dests[c.Destination]
			if d == nil {
				t.Errorf("%s: Checks[%d]: no sidecar for %q", tc.Name, i, c.Destination)
				continue
			}
			for def, want := range c.Allowed {
				got, err := d.Check(c.Source, ACL{Enabled: true, DefaultPolicy: Action(def)})
				require.NoError(t, err)
				var matched *testkit.Intention
				if got.Intention >= 0 {
					s := summary(d.Intentions()[got.Intention])
					matched = &s
				}
				if got.Allowed != want || got.HasPermissions != c.HasPermissions || got.HasExact != c.HasExact || !equalPtr(matched, c.Matched) {
					t.Errorf("%s: Checks[%d] (%s → %s, default %s): got %+v %v, Consul's allowed %v %+v %v", tc.Name, i, c.Source, c.Destination, def, got, matched, want, c, c.Matched)
					continue
				}
				counts["check API answer, default "+def]++
			}
		}
		for i, r := range tc.Requests {
			d := dests[r.Destination]
			if d == nil {
				t.Errorf("%s: Requests[%d]: no sidecar for %q", tc.Name, i, r.Destination)
				continue
			}
			caller := Caller{Service: r.Caller.Service, Peer: r.Caller.Peer, Namespace: r.Caller.Namespace}
			req := Request{Method: r.Method, Path: r.Path, Headers: r.Headers}
			for def, want := range r.Envoy {
				got, err := d.Decide(caller, req, ACL{DefaultPolicy: Action(def)})
				if err != nil {
					t.Errorf("%s: Requests[%d]: %v", tc.Name, i, err)
					continue
				}
				if !want.Agrees(got.Allowed, got.EnvoyError, got.Policy) {
					t.Errorf("%s: Requests[%d] (%+v → %s %s %s, default %s): got %+v, Envoy's %+v", tc.Name, i, r.Caller, r.Destination, r.Method, r.Path, def, got, want)
					continue
				}
				counts["Envoy decision, default "+def]++
				x, err := d.Explain(caller, req, ACL{DefaultPolicy: Action(def)})
				require.NoError(t, err)
				if problem := compareExplanation(x, got, r, want.Policies); problem != "" {
					t.Errorf("%s: Requests[%d] (%+v → %s, default %s): %s", tc.Name, i, r.Caller, r.Destination, def, problem)
					continue
				}
				counts["explanation: policies, arrival, Consul's pick, default "+def]++
				if problem := compareStandings(d, x); problem != "" {
					t.Errorf("%s: Requests[%d] (%+v → %s, default %s): %s", tc.Name, i, r.Caller, r.Destination, def, problem)
				}
				for _, n := range x.Notes {
					counts["explanation's note: "+n.Reason.String()]++
				}
			}
		}
	}
	testkit.LogCounts(t, counts)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// compareExplanation compares an explanation with Decide's decision and the recording: the
// policies matched, how the caller arrives (its certificate and the header's first URI) and
// Consul's own matcher's pick.
func compareExplanation(x Explanation, dec Decision, r testkit.Request, policies []string) string {
	var pick *testkit.Intention
	if x.Precedent >= 0 {
		s := summary(x.Intentions[x.Precedent])
		pick = &s
	}
	xfcc := r.XFCCURI()
	switch {
	case x.Decision != dec:
		return fmt.Sprintf("Explain's decision %+v, Decide's %+v", x.Decision, dec)
	case !slices.Equal(x.Policies, policies):
		return fmt.Sprintf("policies matched %v, Envoy's %v", x.Policies, policies)
	case x.Arrival.String() != r.Via || x.Certificate != r.URISAN || x.XFCC != xfcc:
		return fmt.Sprintf("arrives %s %s %q, recorded %s %s %q", x.Arrival, x.Certificate, x.XFCC, r.Via, r.URISAN, xfcc)
	case !equalPtr(pick, r.Intention):
		return fmt.Sprintf("Consul's matcher picks %v, recorded %v", pick, r.Intention)
	}
	return unexplained(x)
}

// unexplained says where an explanation's decision differs from the most precedent
// intention's answer or the check API's without a note saying why.
func unexplained(x Explanation) string {
	has := func(rs ...Reason) bool {
		return slices.ContainsFunc(x.Notes, func(n Note) bool { return slices.Contains(rs, n.Reason) })
	}
	switch {
	case x.Decision.EnvoyError != "":
		if !has(ReasonEnvoyError) {
			return "Envoy refuses the rules, without a note"
		}
	case x.PrecedentAllowed != x.Decision.Allowed && !has(ReasonNoTrustBundle, ReasonStrippedHeader, ReasonPresentation,
		ReasonNamespace, ReasonPrecedence, ReasonNetworkL7, ReasonRegexName):
		return fmt.Sprintf("the most precedent intention (%d) answers %v, Envoy %v, without a note: %v", x.Precedent, x.PrecedentAllowed, x.Decision.Allowed, x.Notes)
	case x.Check != nil && x.Check.Allowed != x.Decision.Allowed && !has(ReasonPermissionsCheck, ReasonACLDefault, ReasonPrecedence, ReasonNetworkL7, ReasonRegexName):
		return fmt.Sprintf("the check API answers %v, Envoy %v, without a note: %v", x.Check.Allowed, x.Decision.Allowed, x.Notes)
	case x.Check == nil && !has(ReasonNoCheck):
		return "a caller the check API cannot be asked about, without a note"
	}
	return ""
}

// compareStandings: what Standings says of an intention whatever the request is what it does
// with this one, when its source names the caller (in namespace default).
func compareStandings(d *Destination, x Explanation) string {
	if x.Caller.Namespace != "" && x.Caller.Namespace != "default" {
		return ""
	}
	for i, s := range d.Standings() {
		step := x.Steps[i]
		named := d.names(i, &x.Caller)
		switch {
		case s.Outcome == 0 && named && step.Outcome >= NotPresented:
			return fmt.Sprintf("Intentions[%d] can apply, says Standings, but %s", i, step.Outcome)
		case s.Outcome != 0 && named && (step.Outcome != s.Outcome || step.Reason != s.Reason):
			return fmt.Sprintf("Intentions[%d] %s (%s), says Standings, but %s (%s)", i, s.Outcome, s.Reason, step.Outcome, step.Reason)
		}
	}
	return ""
}
