package scope

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// settings is what the tables of these tests write, flat: the scope settings of a mesh
// configuration and the cluster domain of the inventory. A nil *settings is no mesh
// configuration at all (New's nil).
type settings struct {
	ServiceScopeConfigs []mesh.ServiceScope
	ServiceSettings     []mesh.ServiceSetting
	DiscoveryAddress    string // meshConfig.defaultConfig.discoveryAddress
	Domain              string // the inventory's cluster domain
}

// mesh returns the mesh configuration of c.
func (c *settings) mesh() *mesh.Config {
	if c == nil {
		return nil
	}
	return &mesh.Config{ServiceScopeConfigs: c.ServiceScopeConfigs, ServiceSettings: c.ServiceSettings,
		DefaultConfig: mesh.ProxyConfig{DiscoveryAddress: c.DiscoveryAddress}}
}

// mustScope builds the Scoper of c over an empty inventory in c's domain.
func mustScope(t testing.TB, c *settings) *Scoper {
	t.Helper()
	var inv *inventory.Inventory
	if c != nil && c.Domain != "" {
		inv = &inventory.Inventory{Domain: c.Domain}
	}
	return mustScopeOver(t, c, inv)
}

// mustScopeOver builds the Scoper of c over inv.
func mustScopeOver(t testing.TB, c *settings, inv *inventory.Inventory) *Scoper {
	t.Helper()
	return mustNew(t, c.mesh(), inv)
}

// mustNew is New, which must succeed.
func mustNew(t testing.TB, m *mesh.Config, inv *inventory.Inventory) *Scoper {
	t.Helper()
	s, err := New(m, inv)
	require.NoError(t, err)
	return s
}

var mustJSON = istiotest.JSON

// kubeService is a Kubernetes Service of namespace ns, with its host in cluster.local.
func kubeService(ns, name string, labels map[string]string) inventory.Service {
	return inventory.Service{Kind: inventory.KubernetesService, Namespace: ns, Name: name,
		Hosts: []string{name + "." + ns + ".svc.cluster.local"}, Labels: labels}
}

// se is a ServiceEntry, which no scope applies to.
func se(ns, name string, hosts ...string) inventory.Service {
	return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: hosts}
}
