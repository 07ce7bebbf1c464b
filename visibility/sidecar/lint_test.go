package sidecar

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

func TestSidecarLint(t *testing.T) {
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	nss := map[string]map[string]string{"shop": {visibility.NamespaceNameLabel: "shop"}, "ext": {visibility.NamespaceNameLabel: "ext"}, "istio-system": {visibility.NamespaceNameLabel: "istio-system"}}
	se := func(ns, name, host string, min int, exportTo ...string) inventory.Service {
		return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: []string{host}, CreationTime: at(min), ExportTo: exportTo, Ports: []uint32{80}}
	}
	for _, tc := range []struct {
		name     string
		mesh     *mesh.Config
		services []inventory.Service
		sidecars []inventory.Sidecar
		want     []Finding
	}{
		{"~/* beside imports", nil, nil, []inventory.Sidecar{{Namespace: "shop", Name: "s", Egress: []inventory.Egress{{Hosts: []string{"*/*", "~/*"}}}}},
			[]Finding{report.New("Sidecar shop/s egress[0].hosts[0]", ImportExcluded, `"~/*" beside imports empties the listener: it excludes every host of every namespace, and an exclusion beats any import; hosts[1] never imports anything`)}},
		{"an exclusion covering an import", nil, nil, []inventory.Sidecar{{Namespace: "shop", Name: "s", Egress: []inventory.Egress{{Hosts: []string{"ext/api.example.com", "~ext/*.example.com", "ext/*.corp"}}}}},
			[]Finding{report.New("Sidecar shop/s egress[0].hosts[0]", ImportExcluded, `"~ext/*.example.com" excludes every host "ext/api.example.com" imports (an exclusion beats any import); hosts[1] never imports anything`)}},
		{"an exact import shadowed by an older hidden service", nil,
			[]inventory.Service{se("ext", "old", "api.example.com", 1, "."), se("ext", "new", "api.example.com", 2, "*")},
			[]inventory.Sidecar{{Namespace: "shop", Name: "s", Egress: []inventory.Egress{{Hosts: []string{"ext/api.example.com"}}}}},
			[]Finding{report.New("Sidecar shop/s egress[0].hosts[0]", ExactImportShadowed, `every import of the listener is an exact host, so for "ext/api.example.com" it looks only at the oldest service of api.example.com in its namespace, ServiceEntry ext/old, which is not exported to shop; ServiceEntry ext/new, which is, is never considered`)}},
		{"the root default's exact import of \".\", shadowed in each namespace by that namespace's services", nil,
			[]inventory.Service{se("ext", "old", "api.example.com", 1, "~"), se("ext", "new", "api.example.com", 2, "*"),
				se("shop", "old", "api.example.com", 1, "~"), se("shop", "new", "api.example.com", 2, "*")},
			[]inventory.Sidecar{{Namespace: "istio-system", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"./api.example.com"}}}}},
			[]Finding{
				report.New("Sidecar istio-system/default egress[0].hosts[0]", ExactImportShadowed, `every import of the listener is an exact host, so for "./api.example.com" it looks only at the oldest service of api.example.com in its namespace, ServiceEntry ext/old, which is not exported to ext; ServiceEntry ext/new, which is, is never considered`),
				report.New("Sidecar istio-system/default egress[0].hosts[0]", ExactImportShadowed, `every import of the listener is an exact host, so for "./api.example.com" it looks only at the oldest service of api.example.com in its namespace, ServiceEntry shop/old, which is not exported to shop; ServiceEntry shop/new, which is, is never considered`),
			}},
		{"a root Sidecar with a selector", nil, nil, []inventory.Sidecar{{Namespace: "istio-system", Name: "r", WorkloadSelector: map[string]string{"app": "x"}}},
			[]Finding{report.New("Sidecar istio-system/r", RootSidecarWithSelector, "a Sidecar of the root namespace istio-system with a workloadSelector applies only to proxies of istio-system; the mesh-wide default is the root namespace's oldest Sidecar without one")}},
		{"the root Sidecar not discovered", &mesh.Config{DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{visibility.NamespaceNameLabel: "shop"}}}}, nil,
			[]inventory.Sidecar{{Namespace: "istio-system", Name: "default"}},
			[]Finding{report.New("Sidecar istio-system/default", RootSidecarNotDiscovered, "no discoverySelector matches the root namespace istio-system, so istiod does not see this Sidecar: it is no namespace's default, and proxies without a Sidecar of their own import */*")}},
		{"a Sidecar that never applies", nil, nil, []inventory.Sidecar{
			{Namespace: "shop", Name: "old", CreationTime: at(1)}, {Namespace: "shop", Name: "young", CreationTime: at(2)},
			{Namespace: "shop", Name: "web", CreationTime: at(3), WorkloadSelector: map[string]string{"app": "web"}},
			{Namespace: "shop", Name: "web-v1", CreationTime: at(4), WorkloadSelector: map[string]string{"app": "web", "version": "v1"}}},
			[]Finding{
				report.New("Sidecar shop/web-v1", SidecarNeverApplies, "shop/web applies to every workload this Sidecar would (Istio takes the oldest that applies, those with a workloadSelector first), so this one never applies"),
				report.New("Sidecar shop/young", SidecarNeverApplies, "shop/old applies to every workload this Sidecar would (Istio takes the oldest that applies, those with a workloadSelector first), so this one never applies"),
			}},
		{"a creation-time tie", nil, []inventory.Service{se("ext", "b", "api.example.com", 1), se("ext", "a", "api.example.com", 1)}, nil,
			[]Finding{report.New("ServiceEntry ext/b", CreationTimeTie, "ServiceEntry ext/a claims api.example.com too, with the same creation time: which one Istio takes as the oldest depends on the order it lists them in (meshscope takes ServiceEntry ext/a, the first by name)")}},
		{"a misspelt rootNamespace: the inventory's near miss named", &mesh.Config{RootNamespace: "istio-sytem"}, nil,
			[]inventory.Sidecar{{Namespace: "istio-system", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"./*"}}}}},
			[]Finding{report.New("rootNamespace", RootNamespaceUnknown, `the root namespace "istio-sytem" is not a namespace of the inventory, which holds Sidecars: none of them is the mesh-wide default, and a proxy without a Sidecar of its own imports */*; did you mean "istio-system", whose Sidecar istio-system/default would then be the default?`)}},
		{"a rootNamespace the inventory lacks, near nothing", &mesh.Config{RootNamespace: "mesh-root"}, nil,
			[]inventory.Sidecar{{Namespace: "shop", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"./*"}}}}},
			[]Finding{report.New("rootNamespace", RootNamespaceUnknown, `the root namespace "mesh-root" is not a namespace of the inventory, which holds Sidecars: none of them is the mesh-wide default, and a proxy without a Sidecar of its own imports */*`)}},
		{"a rootNamespace the inventory lacks, without Sidecars: nothing to say", &mesh.Config{RootNamespace: "istio-sytem"}, nil, nil, []Finding{}},
		{"a rootNamespace known only by its Sidecar", &mesh.Config{RootNamespace: "mesh-root"}, nil,
			[]inventory.Sidecar{{Namespace: "mesh-root", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"./*"}}}}}, []Finding{}},
		{"an annotation repeat", nil, []inventory.Service{{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, ExportTo: []string{".", "shop"}}}, nil,
			[]Finding{report.New("KubernetesService shop/web", ExportToAnnotationRepeats, `the networking.istio.io/exportTo annotation gives "shop" twice; Istio reads it as a set, so the repeat changes nothing`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(tc.mesh, &inventory.Inventory{Namespaces: nss, Services: tc.services, Sidecars: tc.sidecars})
			require.NoError(t, err)
			assert.Equal(t, tc.want, v.Lint())
		})
	}
}
