package sidecar

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
)

func TestClasses(t *testing.T) {
	v, err := New(nil, &inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil},
		Sidecars: []inventory.Sidecar{
			{Namespace: "shop", Name: "web", WorkloadSelector: map[string]string{"app": "web"}, Egress: []inventory.Egress{{Hosts: []string{"./*"}}}},
			{Namespace: "shop", Name: "all", Egress: []inventory.Egress{{Hosts: []string{"*/*"}}}},
		},
		DestinationRules: []inventory.DestinationRule{
			{Namespace: "shop", Name: "canary", Host: "reviews", WorkloadSelector: map[string]string{"track": "canary"}},
			{Namespace: "shop", Name: "web-v2", Host: "reviews", WorkloadSelector: map[string]string{"app": "api"}},
			{Namespace: "pay", Name: "r", Host: "reviews"},
		},
	})
	require.NoError(t, err)
	var got []string
	for _, c := range v.Classes() {
		got = append(got, c.String())
	}
	assert.Equal(t, []string{"ext", "pay", "shop", "shop with app=api", "shop with app=web", "shop with app=web,track=canary", "shop with track=canary"}, got,
		"every namespace, each selector, and a Sidecar's and a rule's selectors together where a workload can carry both (app=web and app=api cannot)")
}

func TestParseWorkload(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want labels.Set
		err  string
	}{
		{"app=web", labels.Set{"app": "web"}, ""},
		{"app=checkout, version=v1", labels.Set{"app": "checkout", "version": "v1"}, ""},
		{"example.com/team=a", labels.Set{"example.com/team": "a"}, ""},
		{"app=", labels.Set{"app": ""}, ""},
		{"app=a,app=b", nil, `"app=a,app=b": label app given twice (app=a and app=b): a workload has one value per label`},
		{"app!=web", nil, `"app!=web": "app!=web" is a selector's test, not a label`},
		{"app", nil, `"app": "app" is not key=value`},
		{"=web", nil, `"=web": "" is not a label key`},
		{"app=a b", nil, `"app=a b": "a b" is not a label value`},
		{"app=web,,x=y", nil, `"app=web,,x=y": an empty label between commas`},
		{"", nil, `"": an empty label between commas`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseWorkload(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzParseWorkload: what ParseWorkload reads is a set of labels Kubernetes accepts that,
// written back as key=value pairs, reads the same.
func FuzzParseWorkload(f *testing.F) {
	for _, s := range []string{"app=web", "app=checkout, version=v1", "a=b,a=c", "app!=web", "x", "=", "a.b/c=d", ",", "app=web,,x=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseWorkload(s)
		if err != nil {
			return
		}
		var parts []string
		for k, v := range got {
			parts = append(parts, k+"="+v)
		}
		back, err := ParseWorkload(strings.Join(parts, ","))
		require.NoError(t, err, "%q read as %v", s, got)
		require.Equal(t, got, back)
		for k, v := range got {
			require.Equal(t, strings.TrimSpace(k), k)
			require.Equal(t, strings.TrimSpace(v), v)
		}
	})
}
