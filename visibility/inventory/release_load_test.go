package inventory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/release"
)

// TestLoadFor: a release's refusals are refused as Load refuses the other problems — with
// them, in document order, each naming the document, item, object and field — and they are
// ValidateFor's, word for word.
func TestLoadFor(t *testing.T) {
	const narrow = `- apiVersion: networking.istio.io/v1
  kind: Sidecar
  metadata: {name: narrow, namespace: shop}
  spec: {egress: [{hosts: ["*/*", "~payments/*", "~/x.example.com", "~*/*.internal"]}]}
`
	const badRoute = `- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: bad, namespace: shop}
  spec: {hosts: [r]}
`
	dump := "kind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}\n" + narrow + badRoute
	const detail = ` (a namespace after "~" excludes from 1.31 on; before, only "~/host", the literal namespace "~", is accepted)`
	tests := []struct {
		istio string
		want  []string
	}{
		{"1.30.3", []string{
			`items[1] (Sidecar shop/narrow): spec.egress[0].hosts[1]: Istio 1.30.3 refuses the Sidecar: invalid namespace value "~payments" in sidecar` + detail,
			`items[1] (Sidecar shop/narrow): spec.egress[0].hosts[3]: Istio 1.30.3 refuses the Sidecar: invalid namespace value "~*" in sidecar` + detail,
			`items[2] (VirtualService shop/bad): spec: http, tcp or tls must be provided in virtual service`,
		}},
		{"1.28", []string{
			`items[1] (Sidecar shop/narrow): spec.egress[0].hosts[1]: Istio 1.28 refuses the Sidecar: invalid namespace value "~payments" in sidecar` + detail,
			`items[1] (Sidecar shop/narrow): spec.egress[0].hosts[3]: Istio 1.28 refuses the Sidecar: invalid namespace value "~*" in sidecar` + detail,
			`items[2] (VirtualService shop/bad): spec: http, tcp or tls must be provided in virtual service`,
		}},
		{"1.31", []string{`items[2] (VirtualService shop/bad): spec: http, tcp or tls must be provided in virtual service`}},
		{"", []string{`items[2] (VirtualService shop/bad): spec: http, tcp or tls must be provided in virtual service`}},
	}
	for _, tt := range tests {
		t.Run(tt.istio, func(t *testing.T) {
			_, err := LoadFor([]byte(dump), "", release.Make(tt.istio, "", nil))
			got := istiotest.ErrorTexts(err)
			assert.Equal(t, tt.want, got)
		})
	}

	valid := "kind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}\n" + narrow
	want, err := Load([]byte(valid), "")
	require.NoError(t, err)
	for _, istio := range []string{"1.28", "1.29", "1.30", "1.30.3", "1.31"} {
		r := release.Make(istio, "", nil)
		got, err := LoadFor([]byte(valid), "", r)
		refused := want.ValidateFor(r)
		if len(refused) == 0 {
			require.NoError(t, err, istio)
			assert.Equal(t, want, got, "%s: LoadFor is Load when the release refuses nothing more", istio)
			continue
		}
		problems := fielderr.Split(err)
		require.Len(t, problems, len(refused[0].Problems), istio)
		for i, p := range problems {
			fe, goValue := p.(*FieldError), refused[0].Problems[i].(*FieldError)
			assert.Equal(t, goValue.Detail, fe.Detail, "%s: ValidateFor's words", istio)
			assert.Equal(t, goValue.Value, fe.Value)
		}
	}
}
