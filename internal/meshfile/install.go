package meshfile

import (
	"encoding/json"
	"strings"

	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// Install is what an install object says about the istiod it deploys — its image tag, its
// compatibilityVersion and the environment it gives istiod — each setting with the path it
// is written at, found where the istiod chart and istioctl read them:
//
//   - Helm values (a document without a kind, or its values object when the mesh
//     configuration is under values.meshConfig): the image tag is pilot.tag, else tag, else
//     global.tag (the chart copies pilot.* over the top level: image
//     "<hub>/pilot:<tag | default global.tag>"), unless the image (pilot.image, else image)
//     is a whole reference holding a "/", whose own tag (or digest) is then the one used;
//     compatibilityVersion is compatibilityVersion; the environment is env, and pilot.env
//     over it.
//   - An IstioOperator: its spec.values as Helm values, with spec.components.pilot.tag
//     beneath spec.values.pilot.tag and spec.tag beneath spec.values.global.tag (istioctl
//     writes them there and merges the values over them), spec.compatibilityVersion beneath
//     spec.values.compatibilityVersion, and spec.components.pilot.k8s.env over the whole
//     environment (istioctl patches the container with it).
type Install struct {
	// Object is the install object.
	Object kube.Object
	// Tag is the image tag istiod runs (or the digest of a whole image reference).
	Tag Setting
	// CompatibilityVersion selects a compatibility profile of the chart.
	CompatibilityVersion Setting
	// Env is istiod's environment as the install sets it, by variable name.
	Env map[string]Setting
}

// Setting is one value an install sets, as written (a number as its text), and where.
type Setting struct {
	Value string
	// Path is where it is written in the object; "" when the install does not set it.
	Path string
	// BelowProfile marks an env value that a compatibility profile setting the same
	// variable overrides: a value in the top-level env, which the chart overwrites with the
	// profile's pilot.env when it copies pilot.* over the top level.
	BelowProfile bool
	// ValueFrom marks a k8s.env entry set from valueFrom: its value is not in the file.
	ValueFrom bool
}

// Set reports whether the install sets the value.
func (s Setting) Set() bool { return s.Path != "" }

// readInstall returns what the object o says about the istiod it deploys, and whether it
// says anything, reporting wrong types into d.
func readInstall(d *strict.Decoder, o kube.Object) (Install, bool) {
	in := Install{Object: o, Env: map[string]Setting{}}
	switch o.Kind {
	case "IstioOperator":
		spec, _ := o.Fields.Value("spec").(strict.Fields)
		if spec == nil {
			return in, false
		}
		values, _ := spec.Value("values").(strict.Fields)
		in.helmValues(d, values, "spec.values", func(name string) (any, string) {
			switch name {
			case "pilot.tag":
				return dig(spec, "components", "pilot", "tag"), "spec.components.pilot.tag"
			case "global.tag":
				return spec.Value("tag"), "spec.tag"
			case "compatibilityVersion":
				return spec.Value("compatibilityVersion"), "spec.compatibilityVersion"
			}
			return nil, ""
		})
		if env := dig(spec, "components", "pilot", "k8s", "env"); env != nil {
			in.k8sEnv(d, env, "spec.components.pilot.k8s.env")
		}
	case "":
		values, at := o.Fields, ""
		if !o.Fields.Has("meshConfig") {
			if v, ok := o.Fields.Value("values").(strict.Fields); ok && v.Has("meshConfig") {
				values, at = v, "values"
			}
		}
		in.helmValues(d, values, at, func(string) (any, string) { return nil, "" })
	default:
		return in, false
	}
	return in, in.Tag.Set() || in.CompatibilityVersion.Set() || len(in.Env) > 0
}

// helmValues reads the Helm values v at path into in; beneath gives, for "pilot.tag",
// "global.tag" and "compatibilityVersion", a value an IstioOperator writes beneath the
// values' own (nil when none) and its path.
func (in *Install) helmValues(d *strict.Decoder, v strict.Fields, path string, beneath func(name string) (any, string)) {
	first := func(candidates ...func() (any, string)) Setting {
		for _, c := range candidates {
			if x, p := c(); x != nil && x != "" { // the chart's default: "" is unset
				return Setting{Value: text(d, x, p, false), Path: p}
			}
		}
		return Setting{}
	}
	at := func(keys ...string) func() (any, string) {
		return func() (any, string) { return dig(v, keys...), strict.Child(path, strings.Join(keys, ".")) }
	}
	under := func(name string) func() (any, string) { return func() (any, string) { return beneath(name) } }
	image := first(at("pilot", "image"), at("image"))
	if strings.Contains(image.Value, "/") {
		image.Value = imageTag(image.Value)
		in.Tag = image
	} else {
		in.Tag = first(at("pilot", "tag"), under("pilot.tag"), at("tag"), at("global", "tag"), under("global.tag"))
	}
	in.CompatibilityVersion = first(at("compatibilityVersion"), under("compatibilityVersion"))
	in.env(d, dig(v, "env"), strict.Child(path, "env"), true)
	in.env(d, dig(v, "pilot", "env"), strict.Child(path, "pilot.env"), false)
}

// env reads an env object of Helm values (variable → value) at path into in.Env, over what
// it holds; belowProfile marks the top-level env.
func (in *Install) env(d *strict.Decoder, x any, path string, belowProfile bool) {
	o, ok := object(d, x, path)
	if !ok {
		return
	}
	for _, m := range o {
		p := strict.Key(path, m.Key)
		if m.Value == nil {
			continue
		}
		in.Env[m.Key] = Setting{Value: text(d, m.Value, p, true), Path: p, BelowProfile: belowProfile}
	}
}

// k8sEnv reads an IstioOperator component's k8s.env, a list of Kubernetes EnvVars, at path
// into in.Env, over what it holds.
func (in *Install) k8sEnv(d *strict.Decoder, x any, path string) {
	for i, item := range d.List(x, path) {
		p := strict.Index(path, i)
		o, ok := object(d, item, p)
		if !ok {
			continue
		}
		name := d.String(o.Value("name"), strict.Child(p, "name"))
		if name == "" {
			d.Errorf(p, "an env entry without a name")
			continue
		}
		s := Setting{Path: p}
		if v := o.Value("value"); v != nil {
			s.Value = d.String(v, strict.Child(p, "value"))
		} else if o.Has("valueFrom") {
			s.ValueFrom = true
		}
		in.Env[name] = s
	}
}

// object returns x, at path, as an object, reporting into d what else it is; nil is absent.
func object(d *strict.Decoder, x any, path string) (strict.Fields, bool) {
	o, ok := x.(strict.Fields)
	if !ok && x != nil {
		d.Fail(path, x, "must be an object, got %s", strict.Describe(x))
	}
	return o, ok
}

// imageTag returns the tag of a whole image reference ("gcr.io/istio/pilot:1.30.3" →
// "1.30.3"), or its digest ("…/pilot@sha256:…" → "sha256:…"), or "" when it has neither.
func imageTag(ref string) string {
	if _, digest, ok := strings.Cut(ref, "@"); ok {
		return digest
	}
	last := ref[strings.LastIndex(ref, "/")+1:]
	if _, tag, ok := strings.Cut(last, ":"); ok {
		return tag
	}
	return ""
}

// dig returns the value at keys under o, nil where absent or not an object.
func dig(o strict.Fields, keys ...string) any {
	var x any = o
	for _, k := range keys {
		m, ok := x.(strict.Fields)
		if !ok {
			return nil
		}
		x = m.Value(k)
	}
	return x
}

// text returns a scalar as written: a string, a number's text (1.30 stays "1.30"), and, if
// bools, a boolean's; anything else is a problem reported into d.
func text(d *strict.Decoder, x any, path string, bools bool) string {
	switch t := x.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	case bool:
		if bools {
			if t {
				return "true"
			}
			return "false"
		}
	}
	d.Fail(path, x, "must be a string, got %s", strict.Describe(x))
	return ""
}
