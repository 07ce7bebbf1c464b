package inventory

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSpelling(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    interface{ String() string }
		want string
	}{
		{"replaced, from a document", Applied{Kind: "VirtualService", Group: "networking.istio.io", Namespace: "default", Name: "reviews", File: "route.yaml", Where: "document 2"},
			"route.yaml document 2: VirtualService default/reviews replaced"},
		{"created, a file's only object", Applied{Kind: "HTTPRoute", Namespace: "shop", Name: "r", File: "r.yaml", Created: true}, "r.yaml: HTTPRoute shop/r created"},
		{"a Namespace has none", Applied{Kind: "Namespace", Name: "shop", File: "ns.yaml", Where: "document 1: items[0]", Created: true},
			"ns.yaml document 1: items[0]: Namespace shop created"},
		{"a refusal", Refusal{Kind: "Sidecar", Namespace: "shop", Name: "narrow", Message: `invalid namespace value "~payments" in sidecar`},
			`Sidecar shop/narrow: invalid namespace value "~payments" in sidecar`},
		{"a refusal of several problems, on one line", Refusal{Kind: "Sidecar", Namespace: "shop", Name: "narrow",
			Message: "2 errors occurred:\n\t* invalid namespace value \"~a\" in sidecar\n\t* invalid namespace value \"~b\" in sidecar\n\n"},
			`Sidecar shop/narrow: 2 errors occurred: * invalid namespace value "~a" in sidecar * invalid namespace value "~b" in sidecar`},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.v.String()) })
	}
}
