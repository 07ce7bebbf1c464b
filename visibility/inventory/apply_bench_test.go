package inventory

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"

	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/internal/release"
)

// applyFile is what the Apply benchmarks and growth test apply: one object replacing one of
// the dump's, one created.
var applyFile = File{"change.yaml", []byte(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: se1, namespace: ns1}
spec: {hosts: [api1.example.com], resolution: DNS}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: new, namespace: ns1}
spec: {hosts: [api1.example.com], http: [{route: [{destination: {host: api1.example.com}}]}]}
`)}

// BenchmarkApply: a 12.5 MB dump, YAML and JSON, with a file applied to it, beside the Load
// of the dump every preview makes anyway, and beside the naive overlay: a generic decode of
// the dump (yaml.v3 into interface values) written back as JSON.
func BenchmarkApply(b *testing.B) {
	y, js := bigDump()
	apply := func(d []byte) error {
		_, _, err := Apply(File{"dump", d}, "", release.Release{}, applyFile)
		return err
	}
	b.Run("yaml/Apply", func(b *testing.B) { benchmarkDump(b, y, apply) })
	b.Run("yaml/Load", func(b *testing.B) { benchmarkDump(b, y, loadDump) })
	b.Run("yaml/yaml.v3+encoding-json", func(b *testing.B) {
		benchmarkDump(b, y, func(d []byte) error {
			var x map[string]any
			if err := yaml.Unmarshal(d, &x); err != nil {
				return err
			}
			_, err := json.Marshal(x)
			return err
		})
	})
	b.Run("json/Apply", func(b *testing.B) { benchmarkDump(b, js, apply) })
	b.Run("json/Load", func(b *testing.B) { benchmarkDump(b, js, loadDump) })
}

// TestApplyGrowsLinearly: Apply over 4 times the objects allocates at most 4.5 times as
// often and as much.
func TestApplyGrowsLinearly(t *testing.T) {
	work := func(n int) (float64, float64) {
		data := kubectlDump(n)
		return growth.Allocated(func() {
			_, _, err := Apply(File{"dump", data}, "", release.Release{}, applyFile)
			require.NoError(t, err)
		})
	}
	sa, sb := work(100)
	la, lb := work(400)
	t.Logf("100 objects: %v allocations, %v bytes; 400: %v, %v", sa, sb, la, lb)
	assert.Less(t, la/sa, 4.5, "allocations")
	assert.Less(t, lb/sb, 4.5, "bytes")
}
