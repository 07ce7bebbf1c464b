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
// or serviceSettings, a value of the wrong type is an error naming its path. From the same
// meshConfig it reads defaultConfig.discoveryAddress, whose host Istio makes cluster-local
// (see ScopeConfig.DiscoveryAddress). It returns nil, nil for a mesh configuration without
// serviceScopeConfigs and serviceSettings (every service LOCAL, whatever the discovery
// address), and an error for input holding no mesh configuration at all. It validates what
// it decodes, so a returned ScopeConfig compiles. For the two fields it reads exactly what
// json.Unmarshal into a ScopeConfig reads.
func LoadScope(data []byte) (*ScopeConfig, error) {
	return loadOne(data, "service scope configuration", func(d meshDoc) (*ScopeConfig, string, error) {
		if d.bare {
			return nil, "", nil // a bare serviceEntryVisibility block holds no scope
		}
		return scopeFromMeshConfig(d.value, d.path)
	})
}

// The field names LoadScope and ScopeConfig.UnmarshalJSON read, camelCase first, then the
// snake_case alias protobuf accepts.
var (
	scopeConfigsName = []string{"serviceScopeConfigs", "service_scope_configs"}
	settingsName     = []string{"serviceSettings", "service_settings"}
	defaultConfName  = []string{"defaultConfig", "default_config"}
	discoveryName    = []string{"discoveryAddress", "discovery_address"}
)

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
	nearMisses(&d, mc, path, scopeConfigsName, settingsName, defaultConfName)
	c := &ScopeConfig{}
	found := decodeScopeFields(&d, o, c)
	if v, p, ok := o.Get(defaultConfName...); ok {
		if pc, ok := d.Object(v, p); ok {
			nearMisses(&d, v, p, discoveryName)
			if v, p, ok := pc.Get(discoveryName...); ok {
				c.DiscoveryAddress = d.String(v, p)
				if r := discoveryProblem(c.DiscoveryAddress); r != "" {
					d.Fail(p, c.DiscoveryAddress, "%q %s", c.DiscoveryAddress, r)
				}
			}
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

// nearMisses reports the keys of the object x (at path) that misspell one of the fields
// named: each a list of spellings, the first canonical. The object has other fields, which
// are not judged.
func nearMisses(d *strict.Decoder, x any, path string, fields ...[]string) {
	for _, k := range sortedFieldNames(x) {
		for _, names := range fields {
			if !slices.Contains(names, k) && strict.Close(k, names[:1]) != "" && !slices.ContainsFunc(fields, func(n []string) bool { return slices.Contains(n, k) }) {
				d.Errorf(path, "unknown field %q (did you mean %q? as written, it is ignored)", k, names[0])
			}
		}
	}
}

// decodeScopeFields decodes serviceScopeConfigs and serviceSettings of the object o into c,
// and reports whether either is present.
func decodeScopeFields(d *strict.Decoder, o strict.Object, c *ScopeConfig) bool {
	found := false
	if v, p, ok := o.Get(scopeConfigsName...); ok {
		found = true
		for i, item := range d.List(v, p) {
			c.ServiceScopeConfigs = append(c.ServiceScopeConfigs, decodeServiceScope(d, item, strict.Index(p, i)))
		}
	}
	if v, p, ok := o.Get(settingsName...); ok {
		found = true
		for i, item := range d.List(v, p) {
			c.ServiceSettings = append(c.ServiceSettings, decodeServiceSetting(d, item, strict.Index(p, i)))
		}
	}
	return found
}

// decodeScopeConfig decodes a ScopeConfig's own JSON object at path: its two fields and
// nothing else.
func decodeScopeConfig(d *strict.Decoder, x any, path string) *ScopeConfig {
	c := &ScopeConfig{}
	o, ok := d.Object(x, path)
	if !ok {
		return c
	}
	o.Check(slices.Concat(scopeConfigsName, settingsName)...)
	decodeScopeFields(d, o, c)
	return c
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

// UnmarshalJSON decodes {serviceScopeConfigs, serviceSettings} as strictly as LoadScope
// reads them from a mesh configuration: camelCase and snake_case field names, the scope
// names LOCAL and GLOBAL and the numbers 0 and 1; an unknown field (with the field it
// resembles), a field given twice, a lower-case scope, another number or a value of the
// wrong type is an error naming its path. Every problem is reported. It does not validate
// selectors or hosts: CompileScope does.
func (c *ScopeConfig) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, decodeScopeConfig)
	if err != nil {
		return err
	}
	*c = *got
	return nil
}

// UnmarshalJSON decodes one serviceScopeConfigs entry as strictly as
// ScopeConfig.UnmarshalJSON does.
func (s *ServiceScope) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, decodeServiceScope)
	if err != nil {
		return err
	}
	*s = got
	return nil
}

// UnmarshalJSON decodes one serviceSettings entry as strictly as ScopeConfig.UnmarshalJSON
// does.
func (s *ServiceSetting) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, decodeServiceSetting)
	if err != nil {
		return err
	}
	*s = got
	return nil
}

// UnmarshalJSON decodes a setting's values as strictly as ScopeConfig.UnmarshalJSON does.
func (s *ServiceSettingValues) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, decodeSettingValues)
	if err != nil {
		return err
	}
	*s = got
	return nil
}

// UnmarshalJSON accepts what Istio's mesh configuration accepts for the scope enum: the
// names LOCAL and GLOBAL and the numbers 0 (LOCAL) and 1 (GLOBAL). A lower-case name,
// another number or another type is an error naming the value.
func (s *Scope) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, decodeScope)
	if err != nil {
		return err
	}
	*s = got
	return nil
}
