package mesh

import (
	"errors"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// FuzzLoadRelease: Load never panics; what it returns validates, names its release, and its
// findings are placed; what it refuses is refused with FieldErrors.
func FuzzLoadRelease(f *testing.F) {
	for _, s := range []string{
		"meshConfig: {defaultServiceExportTo: '.', serviceEntryVisibility: {applyToSidecars: yes}}\ntag: 1.30.3\n",
		"kind: IstioOperator\nspec: {tag: 1.29.6, compatibilityVersion: '1.28', meshConfig: {serviceEntryVisibility: {defaultVisibility: PRIVATE}}, values: {pilot: {env: {PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE: 'false'}}}}\n",
		"global: {tag: latest}\nenv: {AMBIENT_ENABLE_MULTI_NETWORK: '1'}\ncompatibilityVersion: 1.29\nmeshConfig: {rootNamespace: r}\n",
		"pilot: {image: 'a/pilot@sha256:0'}\nmeshConfig: {discoverySelectors: [{matchLabels: {a: 1}}]}\n",
		"kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: 'serviceEntryVisibility: {policies: [{visibility: public}]}'}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := Load([]byte(in))
		if err != nil {
			for _, e := range fielderr.Split(err) {
				var fe *FieldError
				if !errors.As(e, &fe) {
					t.Fatalf("%T %q is not a FieldError", e, e)
				}
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Load returned a Config Validate refuses: %v", err)
		}
		if r := m.Release(); !strings.HasPrefix(r.String(), "Istio 1.") || r.Version() != m.Istio && m.Istio != "" {
			t.Fatalf("release %q of Istio %q", r, m.Istio)
		}
		for _, f := range m.Findings() {
			if f.Path == "" || f.Message == "" {
				t.Fatalf("finding %+v", f)
			}
		}
		if m.AppliedVisibility() != nil && !m.Release().Has(ServiceEntryVisibility) {
			t.Fatalf("%s applies serviceEntryVisibility", m.Release())
		}
	})
}
