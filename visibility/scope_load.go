package visibility

import (
	"errors"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"
)

// LoadScope reads the service scope configuration from every shape LoadConfig reads (an
// IstioOperator, the istio ConfigMap, Helm values, a meshConfig; alone, in a List or a
// stream), as strictly: an unknown field, a key given twice, a misspelt serviceScopeConfigs
// or serviceSettings, a value of the wrong type is an error naming its path. It returns nil,
// nil for a mesh configuration with neither field (every service LOCAL), and an error for
// input holding no mesh configuration at all. It validates what it decodes, so a returned
// ScopeConfig compiles.
func LoadScope(data []byte) (*ScopeConfig, error) {
	return loadOne(data, "service scope configuration", func(d meshDoc) (*ScopeConfig, string, error) {
		if d.bare {
			return nil, "", nil // a bare serviceEntryVisibility block holds no scope
		}
		return scopeFromMeshConfig(d.value, d.path)
	})
}

// scopeFromMeshConfig extracts the scope fields from a meshConfig object at path.
func scopeFromMeshConfig(mc any, path string) (*ScopeConfig, string, error) {
	if mc == nil {
		return nil, "", nil
	}
	var d strict.Decoder
	o, ok := d.Object(mc, path)
	if !ok {
		return nil, "", d.Err()
	}
	for _, k := range sortedFieldNames(mc) {
		for _, want := range []string{scopeConfigsName[0], settingsName[0]} {
			if k != want && !slices.Contains(scopeConfigsName, k) && !slices.Contains(settingsName, k) && strict.Close(k, []string{want}) != "" {
				d.Errorf(path, "unknown field %q (did you mean %q? as written, it is ignored)", k, want)
			}
		}
	}
	c := &ScopeConfig{}
	found := false
	if v, p, ok := o.Get(scopeConfigsName...); ok {
		found = true
		for i, item := range d.List(v, p) {
			c.ServiceScopeConfigs = append(c.ServiceScopeConfigs, decodeServiceScope(&d, item, strict.Index(p, i)))
		}
	}
	if v, p, ok := o.Get(settingsName...); ok {
		found = true
		for i, item := range d.List(v, p) {
			c.ServiceSettings = append(c.ServiceSettings, decodeServiceSetting(&d, item, strict.Index(p, i)))
		}
	}
	if err := d.Err(); err != nil {
		return nil, "", err
	}
	if !found {
		return nil, "", nil
	}
	if errs := c.problems(pathOf(path)); len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	return c, strict.Display(path), nil
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
		s.NamespaceSelector = decodeSelector(d, v, p)
	}
	if v, p, ok := o.Get(svc...); ok {
		s.ServicesSelector = decodeSelector(d, v, p)
	}
	if v, p, ok := o.Get("scope"); ok {
		s.Scope = decodeScope(d, v, p)
	}
	return s
}

// decodeScope accepts the enum names LOCAL and GLOBAL and the numbers 0 and 1.
func decodeScope(d *strict.Decoder, x any, path string) Scope {
	switch t := x.(type) {
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
		if so, ok := d.Object(v, p); ok {
			cl := []string{"clusterLocal", "cluster_local"}
			so.Check(cl...)
			if v, p, ok := so.Get(cl...); ok {
				s.Settings.ClusterLocal = d.Bool(v, p)
			}
		}
	}
	if v, p, ok := o.Get("hosts"); ok {
		s.Hosts = d.Strings(v, p)
	}
	return s
}

var (
	scopeConfigsName = []string{"serviceScopeConfigs", "service_scope_configs"}
	settingsName     = []string{"serviceSettings", "service_settings"}
)
