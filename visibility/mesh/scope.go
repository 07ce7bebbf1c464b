package mesh

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// Scope says whether a Kubernetes Service is shared with the other clusters of a
// multicluster mesh (Global) or stays in its own cluster (Local).
type Scope string

// The scopes. The zero value "" means Local.
const (
	Local  Scope = "LOCAL"
	Global Scope = "GLOBAL"
)

// ServiceScope (an entry of meshConfig.serviceScopeConfigs) makes the services its
// selectors both match GLOBAL, when Scope is GLOBAL. An absent or empty selector matches
// everything. A LOCAL config never changes anything: LOCAL is the default, and it never
// overrides a GLOBAL match.
//
// Istio reads serviceScopeConfigs only when istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true
// (off by default); without it every service is LOCAL whatever the configuration says.
// Config.PilotEnv holds the flag when the install sets it (package visibility/scope honours
// it).
type ServiceScope struct {
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	ServicesSelector  *metav1.LabelSelector `json:"servicesSelector,omitempty"`
	Scope             Scope                 `json:"scope,omitempty"`
}

// ServiceSetting (an entry of meshConfig.serviceSettings) marks its Hosts cluster-local or
// not. A host is exact, or a wildcard: "*" then what the hosts it matches end with
// (*.shop.svc.cluster.local, *-canary.example.com, or "*" alone, every host). Hosts match
// exactly as written, without folding case or dropping a trailing dot, as in Istio.
type ServiceSetting struct {
	Settings ServiceSettingValues `json:"settings"`
	Hosts    []string             `json:"hosts,omitempty"`
}

// ServiceSettingValues are the settings of a ServiceSetting.
type ServiceSettingValues struct {
	ClusterLocal bool `json:"clusterLocal,omitempty"`
}

func decodeServiceScope(d *strict.Decoder, x any, path string) ServiceScope {
	var s ServiceScope
	o, ok := d.Object(x, path)
	if !ok {
		return s
	}
	ns := []string{"namespaceSelector", "namespace_selector"}
	svc := []string{"servicesSelector", "services_selector"}
	o.Check(append(append([]string{"scope"}, ns...), svc...)...)
	if v, p, ok := o.Get(ns...); ok {
		s.NamespaceSelector = kube.DecodeSelector(d, v, p)
	}
	if v, p, ok := o.Get(svc...); ok {
		s.ServicesSelector = kube.DecodeSelector(d, v, p)
	}
	if v, p, ok := o.Get("scope"); ok {
		s.Scope = decodeScope(d, v, p)
	}
	return s
}

// decodeScope accepts the enum names LOCAL and GLOBAL and the numbers 0 and 1.
func decodeScope(d *strict.Decoder, x any, path string) Scope {
	switch t := x.(type) {
	case nil:
		return ""
	case string:
		if t == string(Local) || t == string(Global) {
			return Scope(t)
		}
		if up := strings.ToUpper(t); up == string(Local) || up == string(Global) {
			d.Fail(path, t, "unsupported value %q: enum names are upper case (%q)", t, up)
			return ""
		}
		d.Fail(path, t, "unsupported value %q: supported values: %q, %q", t, Local, Global)
		return ""
	default:
		if n, ok := d.Int(x, path, 0, 1); ok {
			return [...]Scope{Local, Global}[n]
		}
		return ""
	}
}

func decodeServiceSetting(d *strict.Decoder, x any, path string) ServiceSetting {
	var s ServiceSetting
	o, ok := d.Object(x, path)
	if !ok {
		return s
	}
	o.Check("settings", "hosts")
	if v, p, ok := o.Get("settings"); ok {
		s.Settings = decodeSettingValues(d, v, p)
	}
	if v, p, ok := o.Get("hosts"); ok {
		s.Hosts = d.Strings(v, p)
	}
	return s
}

func decodeSettingValues(d *strict.Decoder, x any, path string) ServiceSettingValues {
	var s ServiceSettingValues
	if so, ok := d.Object(x, path); ok {
		cl := []string{"clusterLocal", "cluster_local"}
		so.Check(cl...)
		if v, p, ok := so.Get(cl...); ok {
			s.ClusterLocal = d.Bool(v, p)
		}
	}
	return s
}

// UnmarshalJSON decodes one serviceScopeConfigs entry as strictly as Load reads it:
// camelCase and snake_case field names, the scope names LOCAL and GLOBAL and the numbers 0
// and 1; an unknown field (with the field it resembles), a field given twice, a lower-case
// scope, another number or a value of the wrong type is an error naming its path. It does
// not validate selectors: Config.Validate does.
func (s *ServiceScope) UnmarshalJSON(b []byte) error {
	return unmarshalStrict(s, b, decodeServiceScope)
}

// UnmarshalJSON decodes one serviceSettings entry as strictly as Load reads it.
func (s *ServiceSetting) UnmarshalJSON(b []byte) error {
	return unmarshalStrict(s, b, decodeServiceSetting)
}

// UnmarshalJSON decodes a setting's values as strictly as Load reads them.
func (s *ServiceSettingValues) UnmarshalJSON(b []byte) error {
	return unmarshalStrict(s, b, decodeSettingValues)
}

// UnmarshalJSON accepts what Istio's mesh configuration accepts for the scope enum: the
// names LOCAL and GLOBAL and the numbers 0 (LOCAL) and 1 (GLOBAL). A lower-case name,
// another number or another type is an error naming the value.
func (s *Scope) UnmarshalJSON(b []byte) error {
	return unmarshalStrict(s, b, decodeScope)
}

// unmarshalStrict is the body of the UnmarshalJSON methods above: it stores in dst what
// decode reads from b (field names as written, not folded), leaving dst as it was when b
// has a problem.
func unmarshalStrict[T any](dst *T, b []byte, decode func(d *strict.Decoder, x any, path string) T) error {
	got, err := strict.Unmarshal(b, false, decode)
	if err != nil {
		return err
	}
	*dst = got
	return nil
}
