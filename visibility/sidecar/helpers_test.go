package sidecar

import (
	"math/rand/v2"
	"time"

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
