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
	selective bool            // there are discovery selectors; without, every namespace is discovered
	in        map[string]bool // with selectors: the namespaces with a Namespace object one of them matches
}

// newDiscovery compiles the mesh's discovery selectors, which Validate accepted, and
// matches them once against the labels of each namespace of nsLabels (a namespace without
// a Namespace object matches no selector).
func newDiscovery(m *mesh.Config, nsLabels map[string]map[string]string) discovery {
	if m == nil || len(m.DiscoverySelectors) == 0 {
		return discovery{}
	}
	var selectors []labels.Selector
	for i := range m.DiscoverySelectors {
		s, err := metav1.LabelSelectorAsSelector(&m.DiscoverySelectors[i])
		if err != nil {
			continue // Validate refused it
		}
		selectors = append(selectors, s)
	}
	if len(selectors) == 0 {
		return discovery{}
	}
	d := discovery{selective: true, in: make(map[string]bool, len(nsLabels))}
	for ns, ls := range nsLabels {
		for _, s := range selectors {
			if s.Matches(labels.Set(ls)) {
				d.in[ns] = true
				break
			}
		}
	}
	return d
}

// discovered reports whether namespace is discovered.
func (d discovery) discovered(namespace string) bool {
	return !d.selective || d.in[namespace]
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
