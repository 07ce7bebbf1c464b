package sidecar

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// TestAnswersAreWhatDiffCompares: for every class of proxies of bookinfo with its HTTPRoute,
// Answers is the After of every change a dry run from an empty inventory lists for it.
func TestAnswersAreWhatDiffCompares(t *testing.T) {
	v := bookinfoView(t, true)
	changes := Diff(nil, v)
	require.NotEmpty(t, changes)
	for _, c := range v.Classes() {
		var want []Answer
		for _, ch := range changes {
			if ch.Key.Namespace == c.Namespace && ch.Key.Workload == c.Workload.String() {
				want = append(want, *ch.After)
			}
		}
		assert.Equal(t, want, v.Answers(c.Namespace, c.Workload), c.String())
	}
	// A proxy of another namespace: the route's VirtualService routes only default's proxies
	// (the route's and the service's namespace), so the user's VirtualService routes reviews.
	other := v.Answers("elsewhere", nil)
	require.Len(t, other, 6)
	assert.Equal(t, "default/reviews", other[5].RoutedBy())
}

// TestAnswerSpelling: RoutedBy names the VirtualServices building the host's virtual hosts,
// then each listener answer that builds none; String spells every field Diff compares but the
// rule's policy and selector.
func TestAnswerSpelling(t *testing.T) {
	const route = "default/default~9080~reviews.default.svc.cluster.local"
	svc := Service{Host: "reviews.default.svc.cluster.local", Kind: inventory.KubernetesService, Namespace: "default", Name: "reviews", Ports: []uint32{9080}}
	rule := &Rule{From: []string{"default/reviews", "default/reviews-extra"}, Subsets: []string{"v1", "v2"}}
	for _, tt := range []struct {
		name           string
		answer         *Answer
		routedBy, text string
	}{
		{"not received", nil, "", "(not received)"},
		{"nothing routes it", &Answer{Service: svc}, "", "KubernetesService default/reviews 9080"},
		{"the route table's answer", &Answer{Service: withRoutes(svc, route), VirtualHosts: []VirtualHost{{Name: "reviews.default.svc.cluster.local:9080", VirtualService: route}}},
			route, "KubernetesService default/reviews 9080, routed by " + route},
		{"a listener answer that builds nothing", &Answer{Service: withRoutes(svc, "default/reviews"), VirtualHosts: []VirtualHost{{Name: "reviews.default.svc.cluster.local:9080", VirtualService: route}}},
			route + " (listener: default/reviews)", "KubernetesService default/reviews 9080, routed by " + route + " (listener: default/reviews)"},
		{"one VirtualService on two ports", &Answer{Service: svc, VirtualHosts: []VirtualHost{{Name: "a:80", VirtualService: "default/a"}, {Name: "a:9080", VirtualService: "default/a"}}},
			"default/a", "KubernetesService default/reviews 9080, routed by default/a"},
		{"a destination, without ports, with a rule", &Answer{Service: Service{Kind: inventory.ServiceEntry, Namespace: "ext", Name: "api", AddedBy: "shop/api"}, Rule: rule},
			"", "ServiceEntry ext/api (no ports), destination of shop/api, rule default/reviews+default/reviews-extra [v1,v2]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.answer != nil {
				assert.Equal(t, tt.routedBy, tt.answer.RoutedBy())
			}
			assert.Equal(t, tt.text, tt.answer.String())
		})
	}
	assert.Empty(t, (*Rule)(nil).String())
	assert.Equal(t, "default/reviews", (&Rule{From: []string{"default/reviews"}}).String())
}

func withRoutes(s Service, routes ...string) Service {
	s.Routes = routes
	return s
}

// TestAnswersWithoutRoutes: a view without VirtualServices answers what Proxy lists, with
// the rules, and no virtual hosts.
func TestAnswersWithoutRoutes(t *testing.T) {
	v := bookinfoView(t, false)
	w := labels.Set{"app": "productpage"}
	p := v.Proxy("default", w)
	got := v.Answers("default", w)
	require.Len(t, got, len(p.Services))
	for i, a := range got {
		assert.Equal(t, p.Services[i], a.Service)
		assert.Equal(t, p.Rules[a.Host], a.Rule)
	}
}

func TestChangeString(t *testing.T) {
	api := &Answer{Service: Service{Host: "api.example.com", Kind: inventory.ServiceEntry, Namespace: "ext", Name: "api", Ports: []uint32{443}}}
	for _, tt := range []struct {
		name string
		c    Change
		want string
	}{
		{"gained by a namespace", Change{Key: ProxyHost{Namespace: "shop", Host: "api.example.com"}, After: api},
			"shop api.example.com: (not received) -> ServiceEntry ext/api 443"},
		{"lost by a workload class, with causes", Change{Key: ProxyHost{Namespace: "shop", Workload: "app=web", Host: "api.example.com"}, Before: api,
			Causes: []mesh.Cause{mesh.ListenerOrder, mesh.SidecarExclusions}},
			"shop with app=web api.example.com: ServiceEntry ext/api 443 -> (not received) (causes: ListenerOrder, SidecarExclusions)"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.c.String()) })
	}
}
