package meshfile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// TestReadInstall: where ReadAll finds an install's tag, compatibilityVersion and
// environment, and which setting wins.
func TestReadInstall(t *testing.T) {
	type s = Setting
	for _, tc := range []struct {
		name, in string
		tag      Setting
		compat   Setting
		env      map[string]Setting
	}{
		{name: "Helm values", in: "global: {tag: 1.30.3}\ncompatibilityVersion: 1.29\nmeshConfig: {}\n",
			tag: s{Value: "1.30.3", Path: "global.tag"}, compat: s{Value: "1.29", Path: "compatibilityVersion"}},
		{name: "pilot.tag over tag over global.tag", in: "global: {tag: a}\ntag: b\npilot: {tag: c}\n", tag: s{Value: "c", Path: "pilot.tag"}},
		{name: "an empty tag is unset", in: "global: {tag: a}\ntag: ''\n", tag: s{Value: "a", Path: "global.tag"}},
		{name: "a whole image reference", in: "pilot: {image: 'reg.example/istio/pilot:1.29.6-distroless'}\ntag: b\n", tag: s{Value: "1.29.6-distroless", Path: "pilot.image"}},
		{name: "an image by digest", in: "image: 'reg.example:5000/pilot@sha256:ab'\n", tag: s{Value: "sha256:ab", Path: "image"}},
		{name: "an image name alone", in: "image: pilot-fips\ntag: b\n", tag: s{Value: "b", Path: "tag"}},
		{name: "values.meshConfig", in: "values: {global: {tag: x}, meshConfig: {}}\n", tag: s{Value: "x", Path: "values.global.tag"}},
		{name: "env under pilot.env", in: "env: {A: '1', B: true}\npilot: {env: {A: '2', C: 3}}\n", env: map[string]Setting{
			"A": {Value: "2", Path: `pilot.env["A"]`}, "B": {Value: "true", Path: `env["B"]`, BelowProfile: true}, "C": {Value: "3", Path: `pilot.env["C"]`}}},
		{name: "IstioOperator", in: "kind: IstioOperator\nspec:\n  tag: a\n  compatibilityVersion: '1.28'\n  components: {pilot: {tag: b, k8s: {env: [{name: A, value: k}, {name: D, valueFrom: {fieldRef: {fieldPath: x}}}]}}}\n  values: {pilot: {env: {A: v}}, env: {E: w}}\n",
			tag: s{Value: "b", Path: "spec.components.pilot.tag"}, compat: s{Value: "1.28", Path: "spec.compatibilityVersion"},
			env: map[string]Setting{"A": {Value: "k", Path: "spec.components.pilot.k8s.env[0]"}, "D": {Path: "spec.components.pilot.k8s.env[1]", ValueFrom: true},
				"E": {Value: "w", Path: `spec.values.env["E"]`, BelowProfile: true}}},
		{name: "IstioOperator values over spec", in: "kind: IstioOperator\nspec:\n  tag: a\n  compatibilityVersion: '1.28'\n  values: {global: {tag: c}, compatibilityVersion: '1.27'}\n",
			tag: s{Value: "c", Path: "spec.values.global.tag"}, compat: s{Value: "1.27", Path: "spec.values.compatibilityVersion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, installs, errs := ReadAll([]byte(tc.in))
			require.Empty(t, errs)
			require.Len(t, installs, 1)
			in := installs[0]
			assert.Equal(t, tc.tag, in.Tag)
			assert.Equal(t, tc.compat, in.CompatibilityVersion)
			if tc.env == nil {
				tc.env = map[string]Setting{}
			}
			assert.Equal(t, tc.env, in.Env)
		})
	}
	_, installs, errs := ReadAll([]byte("kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: 'rootNamespace: r'}\n"))
	assert.Empty(t, errs)
	assert.Empty(t, installs, "the istio ConfigMap names no release")
	docs, errs := Read([]byte("global: {tag: [1]}\nmeshConfig: {}\n"))
	assert.Empty(t, errs, "Read does not judge the install")
	assert.Len(t, docs, 1)
}

// TestReadInstallRefuses: a setting of the wrong type is an error naming its path.
func TestReadInstallRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"global: {tag: [1]}\n":                  "global.tag: must be a string, got a list",
		"compatibilityVersion: true\n":          "compatibilityVersion: must be a string, got the boolean true",
		"env: [a]\n":                            "env: must be an object, got a list",
		"pilot: {env: {A: {b: c}}}\n":           `pilot.env["A"]: must be a string, got an object`,
		"kind: List\nitems:\n- {tag: {a: 1}}\n": "items[0]: tag: must be a string, got an object",
		"kind: IstioOperator\nspec: {components: {pilot: {k8s: {env: [{value: x}]}}}}\n":          "spec.components.pilot.k8s.env[0]: an env entry without a name",
		"kind: IstioOperator\nspec: {components: {pilot: {k8s: {env: [{name: A, value: 1}]}}}}\n": "spec.components.pilot.k8s.env[0].value: must be a string, got the number 1",
	} {
		_, _, errs := ReadAll([]byte(in))
		require.Len(t, errs, 1, in)
		assert.Equal(t, want, errs[0].Error(), in)
		var fe *fielderr.Error
		assert.ErrorAs(t, errs[0], &fe)
	}
}

// FuzzReadAll: ReadAll reads what Read reads, never panics, and every setting it finds is
// where its path says, as written.
func FuzzReadAll(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add("kind: IstioOperator\nspec: {tag: 1.30.3, components: {pilot: {tag: x, k8s: {env: [{name: A, value: b}]}}}, values: {pilot: {env: {A: '1'}}}}\n")
	f.Add("pilot: {image: 'a/b:1.2'}\nenv: {X: true}\ncompatibilityVersion: 1.29\n")
	f.Fuzz(func(t *testing.T, in string) {
		docs, installs, errs := ReadAll([]byte(in))
		docs2, errs2 := Read([]byte(in))
		if len(docs) != len(docs2) || len(errs) < len(errs2) {
			t.Fatalf("ReadAll read %d documents and %d problems, Read %d and %d", len(docs), len(errs), len(docs2), len(errs2))
		}
		for _, inst := range installs {
			for _, s := range append([]Setting{inst.Tag, inst.CompatibilityVersion}, valuesOf(inst.Env)...) {
				if !s.Set() || s.ValueFrom || strings.Contains(s.Path, "[") || strings.HasSuffix(s.Path, "image") {
					continue
				}
				var x any = inst.Object.Fields
				for _, k := range strings.Split(s.Path, ".") {
					m, ok := x.(strict.Fields)
					if !ok {
						t.Fatalf("%s: %s is not in the object", inst.Object.Where(), s.Path)
					}
					x = m.Value(k)
				}
				if got := scalarText(x); got != s.Value {
					t.Fatalf("%s: %s holds %q, the setting %q", inst.Object.Where(), s.Path, got, s.Value)
				}
			}
		}
	})
}

func valuesOf(m map[string]Setting) []Setting {
	var out []Setting
	for _, s := range m {
		out = append(out, s)
	}
	return out
}

// scalarText spells a scalar as a setting holds it.
func scalarText(x any) string {
	var d strict.Decoder
	return text(&d, x, "", true)
}
