//go:build upstream

// This test decodes with the decoder istiod decodes the mesh configuration with
// (golang/protobuf's jsonpb, into istio.io/api's MeshConfig), so it builds with the tag
// upstream (go test -tags upstream ./...), which .ci/run sets.

package mesh

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	//lint:ignore SA1019 the decoder istiod decodes the mesh configuration with
	"github.com/golang/protobuf/jsonpb"
	"github.com/stretchr/testify/require"
	meshconfig "istio.io/api/mesh/v1alpha1"

	"github.com/meshscope/meshscope/internal/strict"
)

// TestRefusalIsIstios holds refusal's words to jsonpb's own, decoding as istiod does
// (unknown fields allowed), for random mesh configurations of the fields meshscope reads,
// each field of the right type or of a wrong one: refusal gives "failed to convert to
// proto. " and jsonpb's error exactly when jsonpb fails, and nothing when it does not.
func TestRefusalIsIstios(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 2026))
	refused := 0
	for range 3000 {
		x := randomMeshConfig(r)
		b, err := json.Marshal(x)
		require.NoError(t, err)
		var mc meshconfig.MeshConfig
		istio := (&jsonpb.Unmarshaler{AllowUnknownFields: true}).Unmarshal(strings.NewReader(string(b)), &mc)
		parsed, err := strict.ParseJSON(b)
		require.NoError(t, err)
		words, _ := refusal(parsed, Release{})
		if istio == nil {
			require.Empty(t, words, "%s", b)
			continue
		}
		refused++
		require.Equal(t, "failed to convert to proto. "+istio.Error(), words, "%s", b)
	}
	t.Logf("%d of 3000 refused, each in Istio's words", refused)
}

// randomMeshConfig returns a meshConfig of the fields meshscope reads, each present or not,
// of its type or, now and then, of another.
func randomMeshConfig(r *rand.Rand) map[string]any {
	out := map[string]any{}
	for _, f := range pbMeshConfig {
		if r.IntN(3) == 0 {
			continue
		}
		name := f.json
		if r.IntN(5) == 0 {
			name = f.proto
		}
		out[name] = randomValue(r, f, 0)
	}
	return out
}

// randomValue is a value for field f: mostly of its type, sometimes of another (one in
// thirty, so that most configurations hold at most a few wrong values).
func randomValue(r *rand.Rand, f pbField, depth int) any {
	if r.IntN(30) == 0 || depth > 4 {
		return []any{"x", 1.5, true, map[string]any{"k": "v"}, []any{"a"}, nil, 3}[r.IntN(7)]
	}
	if f.list {
		one := f
		one.list = false
		var items []any
		for range r.IntN(3) {
			items = append(items, randomValue(r, one, depth+1))
		}
		return items
	}
	switch f.kind {
	case pbBool:
		return r.IntN(2) == 0
	case pbEnum:
		switch r.IntN(4) {
		case 0:
			return r.IntN(4)
		case 1:
			return strings.ToLower(f.values[r.IntN(len(f.values))])
		}
		return f.values[r.IntN(len(f.values))]
	case pbStringMap:
		m := map[string]any{}
		for i := range r.IntN(3) {
			m[string(rune('a'+i))] = "v"
		}
		return m
	case pbMessage:
		m := map[string]any{}
		for _, sub := range f.fields {
			if r.IntN(2) == 0 {
				m[sub.json] = randomValue(r, sub, depth+1)
			}
		}
		return m
	}
	return "s"
}
