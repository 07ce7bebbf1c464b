package strict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"
)

// decoder is one of the readers the benchmarks compare: the strict parsers and, as
// baselines, yaml.v3 and encoding/json decoding into interface values.
type decoder struct {
	name   string
	decode func(data []byte) error
}

var (
	parseYAML    = decoder{"ParseYAML", func(data []byte) error { _, err := ParseYAML(data, ""); return err }}
	parseJSON    = decoder{"ParseJSON", func(data []byte) error { _, err := ParseJSON(data); return err }}
	yamlV3       = decoder{"yaml.v3", func(data []byte) error { var x any; return yaml.Unmarshal(data, &x) }}
	encodingJSON = decoder{"encoding-json", func(data []byte) error { var x any; return json.Unmarshal(data, &x) }}
)

// bench returns the benchmark of d reading data, counting bytes read when perByte.
func (d decoder) bench(data []byte, perByte bool) func(*testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		if perByte {
			b.SetBytes(int64(len(data)))
		}
		for b.Loop() {
			if err := d.decode(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParse reads kubectl's dumps (testdata) with ParseYAML and ParseJSON, beside the
// baselines: yaml.v3 and encoding/json decoding into interface values, which neither keep
// the order of keys nor find a key given twice.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"kubectl-dump.yaml", "kubectl-dump.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		readers := []decoder{parseYAML, yamlV3}
		if filepath.Ext(name) == ".json" {
			readers = append(readers, parseJSON, encodingJSON)
		}
		for _, d := range readers {
			b.Run(name+"/"+d.name, d.bench(data, true))
		}
	}
}

// BenchmarkNestedLists reads n kubectl Lists nested in one another (nestedLists), as YAML
// and as JSON, beside encoding/json decoding them into interface values: at 4x the depth,
// the time should be about 4x.
func BenchmarkNestedLists(b *testing.B) {
	for _, n := range []int{500, 2000} {
		data := []byte(nestedLists(n))
		for _, d := range []decoder{parseYAML, parseJSON, encodingJSON} {
			b.Run(d.name+"/"+strconv.Itoa(n), d.bench(data, false))
		}
	}
}
