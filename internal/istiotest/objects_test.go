package istiotest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKeep: Keep and Without filter every kind of object by its key, leave the namespaces and
// the mesh configuration, and leave the case they are called on as it was.
func TestKeep(t *testing.T) {
	o := Objects{ID: 1, Namespaces: map[string]map[string]string{"shop": nil}, MeshConfig: map[string]any{"rootNamespace": "r"},
		ServiceEntries:     []ServiceEntry{{Name: "a", Namespace: "shop"}, {Name: "b", Namespace: "shop"}},
		KubernetesServices: []KubernetesService{{Name: "a", Namespace: "shop"}},
		Sidecars:           []Sidecar{{Name: "a", Namespace: "shop"}},
		VirtualServices:    []VirtualService{{Name: "a", Namespace: "shop"}},
		DestinationRules:   []DestinationRule{{Name: "a", Namespace: "shop"}},
		Routes:             []GatewayObject{{Kind: "HTTPRoute", Name: "a", Namespace: "shop"}, {Kind: "TCPRoute", Name: "a", Namespace: "shop"}},
		ReferenceGrants:    []GatewayObject{{Name: "a", Namespace: "shop"}},
		Gateways:           []GatewayObject{{Name: "a", Namespace: "shop"}},
	}
	one := o.Keep(func(k ObjectKey) bool { return k == ObjectKey{"TCPRoute", "shop", "a"} })
	assert.Equal(t, Objects{ID: 1, Namespaces: o.Namespaces, MeshConfig: o.MeshConfig, ServiceEntries: []ServiceEntry{}, KubernetesServices: []KubernetesService{},
		Sidecars: []Sidecar{}, VirtualServices: []VirtualService{}, DestinationRules: []DestinationRule{}, Routes: o.Routes[1:],
		ReferenceGrants: []GatewayObject{}, Gateways: []GatewayObject{}}, one)
	rest := o.Without(map[ObjectKey]bool{{"ServiceEntry", "shop", "a"}: true, {"Service", "shop", "a"}: true, {"Gateway", "shop", "a"}: true})
	assert.Equal(t, o.ServiceEntries[1:], rest.ServiceEntries)
	assert.Empty(t, rest.KubernetesServices)
	assert.Empty(t, rest.Gateways)
	assert.Equal(t, o.Sidecars, rest.Sidecars)
	assert.Len(t, o.ServiceEntries, 2, "the case is left as it was")
	assert.Len(t, o.Items(), 11, "a namespace and ten objects")
}
