package strict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"
)

// BenchmarkParse reads kubectl's dumps (testdata) with ParseYAML and ParseJSON, beside the
// baselines: yaml.v3 and encoding/json decoding into interface values, which neither keep
// the order of keys nor find a key given twice.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"kubectl-dump.yaml", "kubectl-dump.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/ParseYAML", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseYAML(data, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/yaml.v3", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var x any
				if err := yaml.Unmarshal(data, &x); err != nil {
					b.Fatal(err)
				}
			}
		})
		if filepath.Ext(name) != ".json" {
			continue
		}
		b.Run(name+"/ParseJSON", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var x any
				if err := json.Unmarshal(data, &x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNestedLists reads n kubectl Lists nested in one another (nestedLists), as YAML
// and as JSON, beside encoding/json decoding them into interface values: at 4x the depth,
// the time should be about 4x.
func BenchmarkNestedLists(b *testing.B) {
	for _, n := range []int{500, 2000} {
		data := []byte(nestedLists(n))
		b.Run("ParseYAML/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseYAML(data, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("ParseJSON/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encoding-json/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var x any
				if err := json.Unmarshal(data, &x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
