package mesh

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/meshfile"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/visibility"
)

// Load reads the mesh configuration from YAML or JSON in every shape it is kept in — an
// IstioOperator (spec.meshConfig, spec.values.meshConfig), the istio ConfigMap (data.mesh),
// Helm values (meshConfig, values.meshConfig), a whole meshConfig, or a bare
// serviceEntryVisibility block; alone, in a List or a multi-document stream — and returns
// every field meshscope uses, each field as Istio reads it and more strictly: a key given
// twice, a misspelt field name (as written, Istio would ignore it: rootNamespce, or
// serviceEntryVisiblity, which leaves the feature off), a field of serviceEntryVisibility
// written in meshConfig itself, an unknown field inside a field meshscope reads (a selector's
// match_labels, which Istio drops, leaving a selector that matches every namespace), a value
// of the wrong type or an invalid value (see Config.Validate) is an error naming its
// document, its object and its path:
//
//	items[0]: spec.meshConfig.serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)
//
// Every problem is reported at once. A meshConfig's other fields are not judged. Fields
// the input does not set are left empty, which the views read as Istio's defaults (see
// Config); serviceEntryVisibility: null is "not configured", as in Istio. Each field may be
// set in one place only: two places setting one (two meshConfigs in a stream, or
// spec.meshConfig and spec.values.meshConfig) are an error naming both, wrapping
// visibility.ErrDuplicate. Input holding no mesh configuration at all — empty input, only
// objects of other kinds — is an error saying what it holds, wrapping
// visibility.ErrNoMeshConfig.
//
// The release (Istio, CompatibilityVersion, PilotEnv) is read where the install writes it.
// Helm values: the image tag pilot.tag, else tag, else global.tag — or, when the image
// (pilot.image, else image) is a whole reference holding a "/", that reference's tag;
// compatibilityVersion; the flags of env and pilot.env (the chart copies pilot.* over the top
// level after merging the compatibility profile, so a profile overrides a value of env, not
// one of pilot.env: Findings names such a value). An IstioOperator: the same in spec.values,
// then spec.components.pilot.tag, spec.tag and spec.compatibilityVersion beneath them, and
// spec.components.pilot.k8s.env over every other setting of a flag. Versions are read as
// text (1.30 is not 1.3); a tag "1.30.3-distroless" reads as 1.30.3; a tag naming no release
// ("latest", a digest) says nothing, so the newest release is answered for and Findings says
// so. Each is validated as Validate does, the release first: a serviceEntryVisibility block
// is read only by a release that knows it (1.31 on).
//
// A mesh configuration the release's istiod refuses — a field of the wrong JSON type, such
// as defaultServiceExportTo: "." (a string, not a list), or from 1.31 an unknown enum name in
// serviceEntryVisibility — is refused with the problem meshscope finds and Istio's words,
// as jsonpb gives them for the first field it fails on, with what istiod then runs on:
//
//	meshConfig.defaultServiceExportTo: must be a list, got the string "."; Istio 1.30.3 refuses the whole mesh configuration: failed to convert to proto. json: cannot unmarshal string into Go value of type []json.RawMessage; istiod then runs on DefaultMeshConfig (…)
//
// Istio ignores unknown fields (a misspelt key, a nested field of serviceEntryVisibility it
// does not have); meshscope refuses them, deliberately.
func Load(data []byte) (*Config, error) { return LoadFor(data, "", "") }

// LoadFor is Load for the release istio and the compatibilityVersion the caller names (""
// for what the file says, if anything): for a file that does not say them (the istio
// ConfigMap never does), or for a dry run asking another release what it makes of the same
// file. What the caller names wins over what the file says. The release decides what a
// file may hold: a serviceEntryVisibility block is no problem for a release before 1.31,
// even malformed (istiod drops it unread; Config.Findings says so).
func LoadFor(data []byte, istio, compatibilityVersion string) (*Config, error) {
	docs, installs, errs := meshfile.ReadAll(data)
	c := &Config{}
	claims := meshfile.Claims{}
	st := &loadState{}
	errs = append(errs, c.takeInstalls(installs, claims, st)...)
	if istio != "" {
		c.Istio, st.istio = istio, settingAt{}
		st.notes = slices.DeleteFunc(st.notes, func(f visibility.Finding) bool { return f.Code == ReleaseNotGiven })
	}
	if compatibilityVersion != "" {
		c.CompatibilityVersion, st.compat = compatibilityVersion, settingAt{}
	}
	c.applyProfile(st)
	errs = append(errs, c.releaseProblems(st)...)
	r := c.Release()
	for _, d := range docs {
		part, set, err := decodeDoc(d, r, st)
		if err != nil {
			errs = append(errs, fielderr.In(d.Where(), err))
			continue
		}
		for _, f := range set {
			if err := claims.Claim(d, f.name, f.path); err != nil {
				errs = append(errs, err)
				continue
			}
			f.copy(c, part)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	c.Notes = st.notes
	return c, nil
}

// setField is a field a document sets: its name in messages, its path, and how to take it.
type setField struct {
	name, path string
	copy       func(dst, src *Config)
}

// decodeDoc decodes the fields a mesh configuration document sets, and validates them,
// reporting every problem, for release r: a serviceEntryVisibility block r does not know
// (before 1.31) is no problem even when malformed — istiod drops it unread — and is
// noted instead (st). When the document has problems, the last says
// how r's istiod refuses it, in its words, where meshscope can tell.
func decodeDoc(d meshfile.Doc, r Release, st *loadState) (*Config, []setField, error) {
	c := &Config{}
	var set []setField
	block, bp, found, err := meshfile.Block(d)
	errs := fielderr.Split(err)
	if found && err == nil {
		var berr error
		c.Visibility, berr = decodeBlock(block, bp)
		switch {
		case r.Has(ServiceEntryVisibility):
			errs = append(errs, fielderr.Split(berr)...)
		case berr != nil:
			words, _ := refusal(d.Value, Release{})
			st.notes = append(st.notes, ignoredVisibility(r, strict.At(d.Where())+strict.Display(bp), berr.Error(), words))
		}
		if c.Visibility != nil {
			set = append(set, setField{"serviceEntryVisibility configuration", strict.Display(bp), func(dst, src *Config) { dst.Visibility = src.Visibility }})
		}
	}
	if !d.Bare && d.Value != nil {
		var dec strict.Decoder
		if o, ok := dec.Object(d.Value, d.Path); ok {
			meshfile.NearMisses(&dec, d.Value, d.Path, meshfile.ScopeConfigs, meshfile.Settings, meshfile.DefaultConfig, meshfile.RootNamespace,
				meshfile.DefaultExport, meshfile.DefaultVSExport, meshfile.DefaultDRExport, meshfile.DiscoverySelectors, meshfile.OutboundPolicy)
			set = append(set, decodeFields(&dec, o, c, false)...)
		}
		errs = append(errs, dec.Errs()...)
		if dec.Err() == nil {
			rest := *c
			rest.Visibility = nil // validated with its own paths
			// validated for the release r (rest's release settings are no document's)
			rest.OutboundTrafficPolicy = nil
			root := fielderr.Dotted(d.Path)
			errs = append(errs, rest.problems(root)...)
			errs = append(errs, outboundProblems(c.OutboundTrafficPolicy, r, root)...)
		}
		if len(errs) > 0 {
			if words, at := refusal(d.Value, r); words != "" {
				errs = withRefusal(errs, strict.Child(d.Path, at), "Istio "+r.Version()+" refuses the whole mesh configuration: "+words+"; istiod then runs on "+defaultMeshConfig)
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return c, set, nil
}

// decodeBlock decodes a serviceEntryVisibility block at path with visibility.Config's own
// strict decoder, and validates it; nil for a null block (not configured).
func decodeBlock(block any, path string) (*visibility.Config, error) {
	if block == nil {
		return nil, nil
	}
	b, err := json.Marshal(block)
	if err != nil {
		return nil, &FieldError{Field: strict.Display(path), Detail: err.Error()}
	}
	v := &visibility.Config{}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fielderr.Under(path, err)
	}
	if err := v.Validate(); err != nil {
		return nil, fielderr.Under(path, err)
	}
	return v, nil
}

// decodeFields decodes the fields of the meshConfig object o besides
// serviceEntryVisibility into c, and returns those it sets. Strict, every field of
// defaultConfig but discoveryAddress is unknown too (Load skips them).
func decodeFields(d *strict.Decoder, o strict.Object, c *Config, strictDefault bool) []setField {
	var set []setField
	take := func(name, path string, copy func(dst, src *Config)) {
		set = append(set, setField{name, path, copy})
	}
	if v, p, ok := o.Get(meshfile.RootNamespace...); ok {
		c.RootNamespace = d.String(v, p)
		take("rootNamespace", p, func(dst, src *Config) { dst.RootNamespace = src.RootNamespace })
	}
	// The mesh defaults of exportTo, a list of strings each: the field's names (camelCase
	// first) and where it goes.
	for _, f := range []struct {
		names []string
		field func(*Config) *[]string
	}{
		{meshfile.DefaultExport, func(c *Config) *[]string { return &c.DefaultServiceExportTo }},
		{meshfile.DefaultVSExport, func(c *Config) *[]string { return &c.DefaultVirtualServiceExportTo }},
		{meshfile.DefaultDRExport, func(c *Config) *[]string { return &c.DefaultDestinationRuleExportTo }},
	} {
		if v, p, ok := o.Get(f.names...); ok {
			*f.field(c) = d.Strings(v, p)
			take(f.names[0], p, func(dst, src *Config) { *f.field(dst) = *f.field(src) })
		}
	}
	if v, p, ok := o.Get(meshfile.DiscoverySelectors...); ok {
		for i, item := range d.List(v, p) {
			at := strict.Index(p, i)
			if item == nil {
				d.Errorf(at, "a discovery selector may not be null")
				continue
			}
			if s := kube.DecodeSelector(d, item, at); s != nil {
				c.DiscoverySelectors = append(c.DiscoverySelectors, *s)
			}
		}
		take("discoverySelectors", p, func(dst, src *Config) { dst.DiscoverySelectors = src.DiscoverySelectors })
	}
	if v, p, ok := o.Get(meshfile.ScopeConfigs...); ok {
		for i, item := range d.List(v, p) {
			c.ServiceScopeConfigs = append(c.ServiceScopeConfigs, decodeServiceScope(d, item, strict.Index(p, i)))
		}
		take("serviceScopeConfigs", p, func(dst, src *Config) { dst.ServiceScopeConfigs = src.ServiceScopeConfigs })
	}
	if v, p, ok := o.Get(meshfile.Settings...); ok {
		for i, item := range d.List(v, p) {
			c.ServiceSettings = append(c.ServiceSettings, decodeServiceSetting(d, item, strict.Index(p, i)))
		}
		take("serviceSettings", p, func(dst, src *Config) { dst.ServiceSettings = src.ServiceSettings })
	}
	if v, p, ok := o.Get(meshfile.OutboundPolicy...); ok {
		c.OutboundTrafficPolicy = decodeOutbound(d, v, p)
		take("outboundTrafficPolicy", p, func(dst, src *Config) { dst.OutboundTrafficPolicy = src.OutboundTrafficPolicy })
	}
	if v, p, ok := o.Get(meshfile.DefaultConfig...); ok {
		if pc, ok := d.Object(v, p); ok {
			if strictDefault {
				pc.Check(meshfile.DiscoveryAddress...)
			} else {
				meshfile.NearMisses(d, v, p, meshfile.DiscoveryAddress)
			}
			if v, p, ok := pc.Get(meshfile.DiscoveryAddress...); ok {
				c.DefaultConfig.DiscoveryAddress = d.String(v, p)
				take("defaultConfig.discoveryAddress", p, func(dst, src *Config) { dst.DefaultConfig = src.DefaultConfig })
			}
		}
	}
	return set
}

// UnmarshalJSON decodes a Config strictly — a meshConfig holding only the fields meshscope
// reads, in camelCase or snake_case: an unknown field (with a "did you mean" hint), a field
// given twice, a value of the wrong type is an error naming its path; serviceEntryVisibility
// is decoded by visibility.Config's UnmarshalJSON and validated. It does not validate the
// other fields; see Validate. The release settings (Istio, CompatibilityVersion, PilotEnv),
// which no meshConfig holds, are left as they were.
func (c *Config) UnmarshalJSON(b []byte) error {
	var block any
	blockPath := ""
	got, err := strict.Unmarshal(b, false, func(d *strict.Decoder, x any, path string) *Config {
		c := &Config{}
		o, ok := d.Object(x, path)
		if !ok {
			return c
		}
		o.Check(slices.Concat(meshfile.BlockName, meshfile.RootNamespace, meshfile.DefaultExport, meshfile.DefaultVSExport, meshfile.DefaultDRExport,
			meshfile.DiscoverySelectors, meshfile.ScopeConfigs, meshfile.Settings, meshfile.DefaultConfig, meshfile.OutboundPolicy)...)
		block, blockPath, _ = o.Get(meshfile.BlockName...)
		decodeFields(d, o, c, true)
		return c
	})
	if err != nil {
		return err
	}
	if got.Visibility, err = decodeBlock(block, blockPath); err != nil {
		return err
	}
	// The release settings are no meshConfig fields: they stay as they were.
	got.Istio, got.CompatibilityVersion, got.PilotEnv = c.Istio, c.CompatibilityVersion, c.PilotEnv
	*c = *got
	return nil
}
