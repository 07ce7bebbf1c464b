package scope

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// scopeVector is one mesh configuration of testdata/istio-scope.json with the services
// Istio's own code scoped under it (see testdata/README.md).
type scopeVector struct {
	MeshConfig map[string]any               `json:"meshConfig"`
	Domain     string                       `json:"domain"`
	Namespaces map[string]map[string]string `json:"namespaces"`
	Cases      []struct {
		Namespace     string            `json:"namespace"`
		ServiceName   string            `json:"serviceName"`
		ServiceLabels map[string]string `json:"serviceLabels"`
		Host          string            `json:"host"`
		Scope         mesh.Scope        `json:"scope"`
		ClusterLocal  bool              `json:"clusterLocal"`
	} `json:"cases"`
}

// scopeDeliberate names the classes of mesh configuration meshscope refuses on purpose,
// each by the words of its error, and what Istio does with them instead.
var scopeDeliberate = []struct{ class, words string }{
	{"match_labels refused (Istio drops the field: the selector matches everything)", `unknown field "match_labels"`},
	{"an In requirement without values refused (Istio skips the config)", "must be specified when `operator` is 'In' or 'NotIn'"},
	{"a scope number other than 0 and 1 refused (Istio reads it as LOCAL)", "out of range [0, 1]"},
	{"a lower-case scope refused (so does Istio, refusing the whole mesh configuration)", "enum names are upper case"},
}

// meshConfigAs writes a mesh configuration in one of the shapes mesh.Load reads, chosen by
// k (istiotest.MeshFileAs).
func meshConfigAs(t *testing.T, mc map[string]any, k int) []byte {
	t.Helper()
	b, err := istiotest.MeshFileAs(mc, k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestScopeAgainstIstio holds Scoper to the answers Istio's own code gave
// (testdata/istio-scope.json): for every case, the scope serviceScopeConfigs give
// (Explain's Config), whether the host is cluster-local, and whether the service is shared —
// GLOBAL and not cluster-local (Scope). Each mesh configuration goes through mesh.Load in
// one of the shapes it reads, and New with an inventory in the case's cluster domain; a
// namespace absent from the case's namespaces is one Istio does not know. Only the classes
// of scopeDeliberate may differ, and the test counts them.
func TestScopeAgainstIstio(t *testing.T) {
	vectors := readScopeVectors(t)
	agree, cases := 0, 0
	deliberate := map[string]int{}
	for i, v := range vectors {
		data := meshConfigAs(t, v.MeshConfig, i)
		m, err := mesh.Load(data)
		if err != nil {
			k := slices.IndexFunc(scopeDeliberate, func(d struct{ class, words string }) bool { return strings.Contains(err.Error(), d.words) })
			if k < 0 {
				t.Fatalf("configuration %d: mesh.Load refused %s: %v", i, data, err)
			}
			deliberate[scopeDeliberate[k].class] += len(v.Cases)
			continue
		}
		s, err := New(m, &inventory.Inventory{Domain: v.Domain})
		if err != nil {
			t.Fatalf("configuration %d: mesh.Load gave a configuration New refuses: %v", i, err)
		}
		for j, tc := range v.Cases {
			cases++
			var ns labels.Labels
			if l, ok := v.Namespaces[tc.Namespace]; ok {
				ns = labels.Set(l)
			}
			e := s.Explain(ns, labels.Set(tc.ServiceLabels), tc.Host)
			scope := mesh.Local
			if e.Config >= 0 {
				scope = mesh.Global
			}
			shared := tc.Scope == mesh.Global && !tc.ClusterLocal
			got := s.Scope(ns, labels.Set(tc.ServiceLabels), tc.Host)
			if scope != tc.Scope || e.ClusterLocal != tc.ClusterLocal || (got == mesh.Global) != shared || e.Scope != got {
				t.Errorf("configuration %d case %d (%s/%s, host %s, in %s): Istio says scope %s, cluster-local %t, shared %t; meshscope %s, %t, %t (%s)\n%s",
					i, j, tc.Namespace, tc.ServiceName, tc.Host, data, tc.Scope, tc.ClusterLocal, shared, scope, e.ClusterLocal, got == mesh.Global, e.Reason, data)
				continue
			}
			agree++
		}
	}
	var summary []string
	for _, d := range scopeDeliberate {
		summary = append(summary, fmt.Sprintf("%s: %d", d.class, deliberate[d.class]))
	}
	t.Logf("%d of %d cases agree with Istio (%d configurations); cases of configurations meshscope refuses on purpose: %s",
		agree, cases, len(vectors), strings.Join(summary, "; "))
	if agree == 0 {
		t.Fatal("no case was compared")
	}
}

// readScopeVectors reads testdata/istio-scope.json.
func readScopeVectors(t *testing.T) []scopeVector {
	t.Helper()
	b, err := os.ReadFile("testdata/istio-scope.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []scopeVector
	if err := json.Unmarshal(b, &vectors); err != nil {
		t.Fatal(err)
	}
	return vectors
}

// TestServicesAgainstIstio holds Services to the same answers, read as an inventory: for
// each configuration, the cases whose host is the one Istio gives the Service
// (<name>.<namespace>.svc.<domain>) become the Kubernetes Services of an inventory with the
// configuration's namespaces — the first case of each namespace and name, as a cluster has
// one Service of a name — and each must be GLOBAL exactly when Istio shares it.
func TestServicesAgainstIstio(t *testing.T) {
	agree, shared := 0, 0
	for i, v := range readScopeVectors(t) {
		m, err := mesh.Load(meshConfigAs(t, v.MeshConfig, i))
		if err != nil {
			continue // a class of scopeDeliberate, which TestScopeAgainstIstio counts
		}
		inv := &inventory.Inventory{Domain: v.Domain, Namespaces: v.Namespaces}
		want := map[inventory.ServiceRef]mesh.Scope{}
		for _, tc := range v.Cases {
			ref := inventory.ServiceRef{Kind: inventory.KubernetesService, Namespace: tc.Namespace, Name: tc.ServiceName}
			if _, dup := want[ref]; dup || tc.Host != tc.ServiceName+"."+tc.Namespace+".svc."+v.Domain {
				continue
			}
			want[ref] = mesh.Local
			if tc.Scope == mesh.Global && !tc.ClusterLocal {
				want[ref] = mesh.Global
			}
			inv.Services = append(inv.Services, inventory.Service{Kind: inventory.KubernetesService, Namespace: tc.Namespace, Name: tc.ServiceName,
				Hosts: []string{tc.Host}, Labels: tc.ServiceLabels})
		}
		s, err := New(m, inv)
		if err != nil {
			t.Fatalf("configuration %d: %v", i, err)
		}
		got := s.Services()
		if len(got) != len(want) {
			t.Fatalf("configuration %d: %d services, want %d", i, len(got), len(want))
		}
		for _, sc := range got {
			if sc.Scope != want[sc.Service] {
				t.Errorf("configuration %d: %s (%s) is %s; Istio says %s", i, sc.Service, sc.Host, sc.Scope, want[sc.Service])
				continue
			}
			agree++
			if sc.Scope == mesh.Global {
				shared++
			}
		}
	}
	t.Logf("%d services agree with Istio, %d of them shared", agree, shared)
	if agree == 0 || shared == 0 {
		t.Fatal("no shared service was compared")
	}
}

// TestScopeDeliberateClasses: each class of scopeDeliberate is what mesh.Load says of such a
// configuration, so that TestScopeAgainstIstio would count one rather than fail.
func TestScopeDeliberateClasses(t *testing.T) {
	for i, in := range []string{
		"serviceScopeConfigs: [{namespaceSelector: {match_labels: {a: b}}, scope: GLOBAL}]\n",
		"serviceScopeConfigs: [{namespaceSelector: {matchExpressions: [{key: a, operator: In}]}, scope: GLOBAL}]\n",
		"serviceScopeConfigs: [{scope: 2}]\n",
		"serviceScopeConfigs: [{scope: global}]\n",
	} {
		_, err := mesh.Load([]byte(in))
		if err == nil || !strings.Contains(err.Error(), scopeDeliberate[i].words) {
			t.Errorf("%s: mesh.Load says %v, not %q", scopeDeliberate[i].class, err, scopeDeliberate[i].words)
		}
	}
}
