package sidecar

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// withVisibility returns a copy of m (nil: the defaults) with serviceEntryVisibility c.
func withVisibility(m *mesh.Config, c *visibility.Config) *mesh.Config {
	out := &mesh.Config{}
	if m != nil {
		*out = *m
	}
	out.Visibility = c
	return out
}

// se is a ServiceEntry of hosts, age hours after t0.
func se(ns, name string, age int, hosts []string) inventory.Service {
	return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: hosts, CreationTime: t0.Add(time.Duration(age) * time.Hour)}
}

// sidecarList is a kubectl List with Sidecars, for the fuzzer's seed.
const sidecarList = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
- apiVersion: networking.istio.io/v1
  kind: Sidecar
  metadata: {name: default, namespace: shop, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec:
    egress:
    - port: {number: 8080, protocol: HTTP, name: http}
      hosts: ["./*"]
    - hosts: ["./*", "istio-system/*", "~/*.internal.example.com"]
- apiVersion: networking.istio.io/v1beta1
  kind: Sidecar
  metadata: {name: web, namespace: shop}
  spec:
    workloadSelector: {labels: {app: web}}
    egress: [{hosts: ["*/api.example.com"]}]
- apiVersion: networking.istio.io/v1alpha3
  kind: Sidecar
  metadata: {name: all, namespace: shop}
  spec:
    workloadSelector: {}
    ingress: [{port: {number: 9080, protocol: HTTP, name: http}, defaultEndpoint: "127.0.0.1:8080"}]
- apiVersion: example.com/v1
  kind: Sidecar
  metadata: {name: other, namespace: shop}
  spec: {anything: goes}
`

// proxyDiff compares a view with the reference's, part by part: the first part that
// differs ("" when none) and how.
func proxyDiff(want, got Proxy) (part, diff string) {
	if reflect.DeepEqual(want, got) {
		return "", ""
	}
	for _, p := range []struct {
		part string
		a, b any
	}{
		{"Sidecar", want.Sidecar, got.Sidecar},
		{"Listeners", want.Listeners, got.Listeners},
		{"Services", bare(want.Services), bare(got.Services)},
		{"Services' AddedBy and Routes", want.Services, got.Services},
		{"Rules", want.Rules, got.Rules},
		{"Notes", want.Notes, got.Notes},
		{"Proxy", want, got},
	} {
		if d := cmp.Diff(p.a, p.b); d != "" {
			return p.part, "(-reference +view)\n" + d
		}
	}
	return "Proxy", fmt.Sprintf("not deeply equal:\n%#v\n%#v", want, got)
}

// gatewayDiff compares a gateway's view with the reference's, and its notes with where the
// default sidecar scope of its namespace would give it something else.
func gatewayDiff(ref refSidecarView, ns string, w map[string]string, got Proxy) (part, diff string) {
	notes := got.Notes
	got.Notes = nil
	if part, diff := proxyDiff(ref.gateway(ns, w), got); part != "" {
		return part, diff
	}
	differs := ref.gatewayDiffers(ns, got)
	switch {
	case len(differs) == 0 && len(notes) > 0:
		return "Notes", fmt.Sprintf("the notes %v, where a sidecar scoped first changes nothing or cannot be scoped first", notes)
	case len(differs) > 0 && (len(notes) != 1 || notes[0].Code != GatewayScopeOrderDependent):
		return "Notes", fmt.Sprintf("the notes %v, where a sidecar scoped first changes %v", notes, differs)
	}
	for _, h := range differs {
		if !strings.Contains(notes[0].Message, h) {
			return "Notes", fmt.Sprintf("the note %q does not name %s, which a sidecar scoped first changes", notes[0].Message, h)
		}
	}
	return "", ""
}

// requireProxy holds a sidecar's view to the reference's.
func requireProxy(t *testing.T, want, got Proxy, msg string, args ...any) {
	t.Helper()
	if part, diff := proxyDiff(want, got); part != "" {
		t.Fatalf("%s: %s differ from the reference's: %s", fmt.Sprintf(msg, args...), part, diff)
	}
}

// requireGateway holds a gateway's view to the reference's, its notes included.
func requireGateway(t *testing.T, ref refSidecarView, ns string, w map[string]string, got Proxy, msg string, args ...any) {
	t.Helper()
	if part, diff := gatewayDiff(ref, ns, w, got); part != "" {
		t.Fatalf("%s: %s differ from the reference's: %s", fmt.Sprintf(msg, args...), part, diff)
	}
}
