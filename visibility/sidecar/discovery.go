package sidecar

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

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

// exportToAnnotation is the annotation that gives a Kubernetes Service its exportTo.
const exportToAnnotation = "networking.istio.io/exportTo"
