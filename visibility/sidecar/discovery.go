package sidecar

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// discovery decides which namespaces istiod discovers (meshConfig.discoverySelectors).
type discovery struct {
	selectors []labels.Selector // none: every namespace
}

// newDiscovery compiles the mesh's discovery selectors, which Validate accepted.
func newDiscovery(m *mesh.Config) discovery {
	if m == nil || len(m.DiscoverySelectors) == 0 {
		return discovery{}
	}
	var d discovery
	for i := range m.DiscoverySelectors {
		s, err := metav1.LabelSelectorAsSelector(&m.DiscoverySelectors[i])
		if err != nil {
			continue // Validate refused it
		}
		d.selectors = append(d.selectors, s)
	}
	return d
}

// discovered reports whether a namespace with these labels (known: it has a Namespace
// object) is discovered: a namespace without one matches no selector.
func (d discovery) discovered(nsLabels map[string]string, known bool) bool {
	if len(d.selectors) == 0 {
		return true
	}
	if !known {
		return false
	}
	for _, s := range d.selectors {
		if s.Matches(labels.Set(nsLabels)) {
			return true
		}
	}
	return false
}

// egressHost is one parsed entry of an egress listener's hosts.
type egressHost struct {
	namespace string // a name, "." or "*"
	host      string
	exclude   bool
}

// parseEgressHost splits "ns/host" ("~ns/host" for an exclusion; "~/host" is every
// namespace). The inventory validated it.
func parseEgressHost(s string) egressHost {
	ns, h, _ := strings.Cut(s, "/")
	e := egressHost{namespace: ns, host: h}
	if rest, ok := strings.CutPrefix(ns, "~"); ok {
		e.exclude, e.namespace = true, rest
		if rest == "" {
			e.namespace = names.Wildcard
		}
	}
	return e
}

// matchesPort reports whether the listener filters services by its port: it has one, and
// its protocol is not HTTP_PROXY (an outbound HTTP proxy imports services whatever their
// ports).
func matchesPort(e *inventory.Egress) bool {
	return e.Port != 0 && !strings.EqualFold(e.Protocol, "HTTP_PROXY")
}

// exportToAnnotation is the annotation that gives a Kubernetes Service its exportTo.
const exportToAnnotation = "networking.istio.io/exportTo"
