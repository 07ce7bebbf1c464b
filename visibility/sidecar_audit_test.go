package visibility

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDiffSidecars(t *testing.T) {
	nss := map[string]map[string]string{"shop": {NamespaceNameLabel: "shop", "team": "a"}, "ext": {NamespaceNameLabel: "ext"}}
	svcs := []Service{
		{Kind: ServiceEntry, Namespace: "ext", Name: "api", Hosts: []string{"api.example.com"}, Ports: []uint32{443}, CreationTime: t0},
		{Kind: ServiceEntry, Namespace: "shop", Name: "api", Hosts: []string{"api.example.com"}, Ports: []uint32{80}, CreationTime: t0, ExportTo: []string{"."}},
		{Kind: KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Ports: []uint32{8080}},
	}
	view := func(m *MeshScope, scs ...Sidecar) *SidecarView {
		v, err := NewSidecarView(nil, m, Inventory{Namespaces: nss, Services: svcs, Sidecars: scs})
		require.NoError(t, err)
		return v
	}
	cur := view(nil)
	assert.Empty(t, DiffSidecars(cur, cur), "no change, no difference")

	// shop's web workloads get a Sidecar importing only ext's hosts.
	web := Sidecar{Namespace: "shop", Name: "web", WorkloadSelector: map[string]string{"app": "web"}, Egress: []SidecarEgress{{Hosts: []string{"ext/*"}}}}
	shopAPI := &SidecarService{Host: "api.example.com", Kind: ServiceEntry, Namespace: "shop", Name: "api", Ports: []uint32{80}}
	extAPI := &SidecarService{Host: "api.example.com", Kind: ServiceEntry, Namespace: "ext", Name: "api", Ports: []uint32{443}}
	webSvc := &SidecarService{Host: "web.shop.svc.cluster.local", Kind: KubernetesService, Namespace: "shop", Name: "web", Ports: []uint32{8080}}
	assert.Equal(t, []SidecarChange{
		{Key: ProxyHost{Namespace: "shop", Workload: "app=web", Host: "api.example.com"}, Before: shopAPI, After: extAPI, Gained: []uint32{443}, Lost: []uint32{80}},
		{Key: ProxyHost{Namespace: "shop", Workload: "app=web", Host: "web.shop.svc.cluster.local"}, Before: webSvc, Lost: []uint32{8080}},
	}, DiffSidecars(cur, view(nil, web)))

	// Discovery selectors that leave ext out: its service and its proxies' view of it go.
	only := &MeshScope{DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"team": "a"}}}}
	assert.Equal(t, []SidecarChange{
		{Key: ProxyHost{Namespace: "ext", Host: "api.example.com"}, Before: extAPI, Lost: []uint32{443}},
	}, DiffSidecars(cur, view(only)))

	// A mesh default exportTo of ".": ext's entry (exportTo unset) is no longer shop's
	// business, and shop's web Service no longer reaches ext.
	dot := &MeshScope{DefaultServiceExportTo: []string{"."}}
	assert.Equal(t, []SidecarChange{
		{Key: ProxyHost{Namespace: "ext", Host: "web.shop.svc.cluster.local"}, Before: webSvc, Lost: []uint32{8080}},
	}, DiffSidecars(cur, view(dot)))
}
