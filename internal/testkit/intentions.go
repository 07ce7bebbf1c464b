package testkit

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The answers recorded from Consul for service-intentions
// (intentions/testdata/consul-intentions.json; its README says how they were made), read by
// the tests held to them: intentions (decoding, validation, the check API and Envoy's
// decisions on recorded inputs), chain/store (every write, and each sidecar's inputs computed
// from the entries) and peermeta (reachability and decisions for local and peered callers,
// end to end). These are the file's shapes and one reading of each recorded answer, in plain
// values, so that each test compares what its package computes with them.

// Intentions is the whole recording.
type Intentions struct {
	TrustDomain, Datacenter string
	Peers                   map[string]Peer
	Cases                   []IntentionsCase
}

// Peer is what the recording's cluster knows of a peer: its trust bundle and peering.
type Peer struct{ TrustDomain, ExportedPartition, Datacenter string }

// IntentionsCase is one configuration: its entries written in order, Consul's answers to each write,
// and what Consul's code answered of the configuration they left.
type IntentionsCase struct {
	Name    string
	Entries []json.RawMessage
	// ProxyConfig gives some services' sidecar registration its own proxy configuration.
	ProxyConfig map[string]map[string]string
	Writes      []Write
	Services    map[string]Sidecar
	Exports     map[string]Exported
	Checks      []Check
	Requests    []Request
}

// Sidecar is what a destination's sidecar had: its protocols, trust bundles, intentions in
// Consul's order and the RBAC filter built under each default policy ("allow", "deny").
type Sidecar struct {
	ChainProtocol, ProxyProtocol string
	TrustBundles                 []string
	Intentions                   []Intention
	Envoy                        map[string]Filter
}

// Filter is the RBAC filter of a sidecar's public listener.
type Filter struct {
	Filter, Action, ForwardClientCertDetails string
	Policies                                 []string
}

// Intention is an intention as the recording summarises it: its permissions counted.
type Intention struct {
	SourceName, SourcePeer, DestinationName string
	Precedence                              int
	Action                                  string
	Permissions                             int
}

// Exported is what Consul's ExportedServicesForPeer lists for a peer, and the local services
// the chains of those services target.
type Exported struct{ Services, Reaches []string }

// Check is the check API's answer for a source and destination under each default policy
// (ACLs enabled).
type Check struct {
	Source, Destination      string
	Allowed                  map[string]bool
	HasPermissions, HasExact bool
	Matched                  *Intention
}

// Request is a caller's request, how it arrives, Consul's own matcher's pick and Envoy's
// decision under each default policy.
type Request struct {
	Destination  string
	Caller       struct{ Service, Peer, Namespace string }
	Method, Path string
	Headers      map[string]string
	Reachable    bool
	Via          string
	URISAN, XFCC string
	Intention    *Intention
	Envoy        map[string]Envoy
}

// Envoy is Envoy's decision on a request under one default policy.
type Envoy struct {
	Allowed    bool
	Policies   []string
	EnvoyError string
}

// loadIntentions reads the recording once per test binary.
var loadIntentions = sync.OnceValues(func() (*Intentions, error) {
	data, err := os.ReadFile(moduleFile("intentions/testdata/consul-intentions.json"))
	if err != nil {
		return nil, err
	}
	var f Intentions
	return &f, json.Unmarshal(data, &f)
})

// LoadIntentions reads the recording (package intentions' testdata, where it is: the other
// packages' testdata READMEs say so) and checks that it is whole: 500 cases.
func LoadIntentions(t testing.TB) *Intentions {
	t.Helper()
	v, err := loadIntentions()
	require.NoError(t, err)
	require.Len(t, v.Cases, 500)
	return v
}

// moduleFile returns the path of the module's file at rel (a path from the module's root),
// from the test's directory: the module's root is the nearest directory above with a go.mod.
func moduleFile(rel string) string {
	dir := "."
	for range 8 {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		dir = filepath.Join(dir, "..")
	}
	return filepath.Join(dir, rel)
}

// Agrees reports whether a decision — allowed, Envoy's refusal of the rules, the RBAC policy
// that matched ("" when the default decided) — is the recorded one: the policy must be one of
// those that matched, and none matched when the default decided.
func (e Envoy) Agrees(allowed bool, envoyError, policy string) bool {
	return allowed == e.Allowed && envoyError == e.EnvoyError &&
		(policy == "") == (len(e.Policies) == 0) && (policy == "" || slices.Contains(e.Policies, policy))
}

// XFCCURI returns the URI of the first element of the recorded x-forwarded-client-cert
// header, "" when there is none.
func (r Request) XFCCURI() string {
	first, _, _ := strings.Cut(r.XFCC, ",")
	i := strings.LastIndex(first, ";URI=")
	if i < 0 {
		return ""
	}
	return first[i+len(";URI="):]
}

// Protocols returns the protocol each service's sidecar registration gives itself, for those
// whose registration gives one.
func (c IntentionsCase) Protocols() map[string]string {
	out := map[string]string{}
	for svc, config := range c.ProxyConfig {
		if p := config["protocol"]; p != "" {
			out[svc] = p
		}
	}
	return out
}

// PeerNames returns the names of the recording's peers, sorted.
func (f *Intentions) PeerNames() []string { return slices.Sorted(maps.Keys(f.Peers)) }
