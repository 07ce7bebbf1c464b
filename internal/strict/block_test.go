package strict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
)

// blockSeeds are inputs in the block reader's subset, and near it.
var blockSeeds = []string{
	"apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    labels:\n      kubernetes.io/metadata.name: ns1\n    name: ns1\n    uid: 0d8f1a52-1111-4a4a-8c8c-000000000001\n  spec:\n    finalizers:\n    - kubernetes\n  status:\n    phase: Active\n",
	"a:\n  annotations:\n    x: |\n      {\"a\": 1}\n  b: |-\n    one\n\n    two\n  c: 'it''s'\n  d: \"tab\\there \\u00e9\"\n",
	"---\na: 1\n---\n\n---\nb: []\nc: {}\n",
	"- - a\n  - b\n- c: 1\n  d: ~\n-\n- e:\n  - f\n",
	"a: 10.96.0.1\nb: 0777\nc: 1e3\nd: 2024-01-02\ne: 1_000\nf: -1\ng: .5\nh: 0x1F\ni: 18446744073709551616\nj: yes\nk: True\n",
	"a: b # comment\n# line\nc: d: e\n",
	"a:\n  b: 1\n  b: 2\n",
	"  a: 1\n  b:\n    - x\n",
	"a: |\n  x\n b: 1\n",
	"a: multi\n  line\n",
	"{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"kind\": \"Namespace\",\n            \"metadata\": {\"labels\": {\"a\": \"b\"}, \"generation\": 1}\n        }\n    ],\n    \"kind\": \"List\"\n}\n",
	"{\"a\":[1,-2.5e3,0,true,false,null,\"x\\u00e9\\n\"],\"b\":{}}",
	"[1, 2, ]\n",
	"a: {\"b\": [1, 2]}\nc: [\"d\"]\n",
	"---\n{\"a\": 1}\n---\n[]\n",
	"metadata:\n  managedFields:\n  - apiVersion: v1\n    fieldsType: FieldsV1\n    fieldsV1:\n      f:metadata:\n        f:labels:\n          .: {}\n          f:app: {}\n      f:spec:\n        f:ports:\n          k:{\"port\":80,\"protocol\":\"TCP\"}:\n            .: {}\n    manager: kubectl\n",
}

// parseBlock reads data with the block reader alone: ok is false when yaml.v3 read any of
// its documents.
func parseBlock(data []byte) ([]Document, bool) {
	docs, full, ok := parseStream(data, "")
	return docs, ok && full == 0
}

func TestBlockReaderTakesKubectlOutput(t *testing.T) {
	// What kubectl prints is read without yaml.v3.
	for _, s := range []string{blockSeeds[0], blockSeeds[1], blockSeeds[2], blockSeeds[3], blockSeeds[7], blockSeeds[len(blockSeeds)-1]} {
		_, ok := parseBlock([]byte(s))
		assert.True(t, ok, "the block reader gave up on:\n%s", s)
	}
}

func TestBlockReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []any // nil: the block reader gives up
	}{
		{"mapping", "a: b\nc: 1\n", []any{Fields{{"a", "b"}, {"c", json.Number("1")}}}},
		{"compact sequence", "a:\n- x\n- y\nb: z\n", []any{Fields{{"a", []any{"x", "y"}}, {"b", "z"}}}},
		{"mapping in a sequence", "- a: 1\n  b: 2\n- c\n", []any{[]any{Fields{{"a", json.Number("1")}, {"b", json.Number("2")}}, "c"}}},
		{"literal, clipped", "a: |\n  x\n  y\n\nb: 1\n", []any{Fields{{"a", "x\ny\n"}, {"b", json.Number("1")}}}},
		{"literal, stripped", "a: |-\n  x\n\n  y\n", []any{Fields{{"a", "x\n\ny"}}}},
		{"quoted", "a: \"q\\\"x\"\nb: 'it''s'\nc: \"\"\n", []any{Fields{{"a", "q\"x"}, {"b", "it's"}, {"c", ""}}}},
		{"types", "a: true\nb: null\nc: ~\nd: 0\ne: 10.0.0.1\nf: api\n", []any{Fields{{"a", true}, {"b", nil}, {"c", nil}, {"d", json.Number("0")}, {"e", "10.0.0.1"}, {"f", "api"}}}},
		{"empty values", "a:\nb: {}\nc: []\n", []any{Fields{{"a", nil}, {"b", Fields{}}, {"c", []any{}}}}},
		{"documents", "a: 1\n---\n---\nb: 2\n", []any{Fields{{"a", json.Number("1")}}, nil, Fields{{"b", json.Number("2")}}}},
		{"comments", "# c\na: 1 # c\n  # c\nb: 2\n", []any{Fields{{"a", json.Number("1")}, {"b", json.Number("2")}}}},
		{"a key given twice", "a: 1\na: 2\n", []any{Fields{{"a", json.Number("1")}}}},
		{"a float", "a: 1.5\n", []any{Fields{{"a", json.Number("1.5")}}}},
		{"octal-looking", "a: 0777\nb: 1\n", []any{Fields{{"a", nil}, {"b", json.Number("1")}}}},
		{"an anchor", "a: &x 1\n", nil},
		{"a flow mapping", "a: {b: 1, c: [x, y z]}\n", []any{Fields{{"a", Fields{{"b", json.Number("1")}, {"c", []any{"x", "y z"}}}}}}},
		{"a multi-line scalar", "a: b\n  c\n\n  d\n", []any{Fields{{"a", "b c\nd"}}}},
		{"a tab", "a:\tb\n", nil},
		{"not ASCII", "a: \xc3\xa9\n", []any{Fields{{"a", "\u00e9"}}}},
		{"a scalar document", "hello\n", []any{"hello"}},
		{"a scalar document over two lines", "hello\nworld\n", nil},
		{"JSON", "{\n  \"a\": [1, -2.5, true, null],\n  \"b\": {\"c\": \"d\\n\"}\n}\n",
			[]any{Fields{{"a", []any{json.Number("1"), json.Number("-2.5"), true, nil}}, {"b", Fields{{"c", "d\n"}}}}}},
		{"compact JSON", `{"a":{"b":[]},"c":0}`, []any{Fields{{"a", Fields{{"b", []any{}}}}, {"c", json.Number("0")}}}},
		{"JSON in a block", "a: {\"b\": 1}\n", []any{Fields{{"a", Fields{{"b", json.Number("1")}}}}}},
		{"a trailing comma", "[1, 2, ]\n", []any{[]any{json.Number("1"), json.Number("2")}}},
		{"a document end", "a: 1\n...\n---\nb: 2\n...\n", []any{Fields{{"a", json.Number("1")}}, Fields{{"b", json.Number("2")}}}},
		{"a bare document after a document end", "a: 1\n...\nb: 2\n", nil},
		{"Envoy's header names", "- name: :authority\n- :path\n- [001:db8::, '::1']\n", []any{[]any{Fields{{"name", ":authority"}}, ":path", []any{"001:db8::", "::1"}}}},
		{"a document marker in a flow", "{\"a\": 1,\n---\n\"b\": 2}\n", nil},
		{"a document marker after a flow's comma", "a: [1,\n...\n2]\n", nil},
		{"JSON with a plain string", "{a: 1}\n", []any{Fields{{"a", json.Number("1")}}}},
		{"JSON key given twice", `{"a": 1, "a": 2}`, []any{Fields{{"a", json.Number("1")}}}},
		{"a very long key", strings.Repeat("k", 1100) + ": 1\n", nil},
		{"a very long JSON key", `{"` + strings.Repeat("k", 1100) + `": 1}`, nil},
		{"CRLF", "a: b\r\nc:\r\n- |\r\n  x\r\n  y\r\n", []any{Fields{{"a", "b"}, {"c", []any{"x\ny\n"}}}}},
		{"folded and kept", "a: >\n  x\n  y\n\n  z\nb: |+\n  k\n\nc: 1\n", []any{Fields{{"a", "x y\nz\n"}, {"b", "k\n\n"}, {"c", json.Number("1")}}}},
		{"a last literal without a line break", "a: |\n  x", []any{Fields{{"a", "x"}}}},
		{"quoted keys", "'f:metadata': 1\n\"x y\": 2\n", []any{Fields{{"f:metadata", json.Number("1")}, {"x y", json.Number("2")}}}},
		{"kubectl's odd scalars", "- .\n- 0b1ad\n- --verbose\n- a, b\n- http://[::1]:8081\n- $HOME\n- 2024-01-02T03:04:05Z\n",
			[]any{[]any{".", "0b1ad", "--verbose", "a, b", "http://[::1]:8081", "$HOME", "2024-01-02T03:04:05Z"}}},
		// "-" then a blank or a line break is a block entry, which yaml.v3 refuses in a flow;
		// before anything else it is a plain scalar.
		{"a dash and a line break in a flow", "{0: [-\n]}\n", nil},
		{"a dash and a blank in a flow", "[a, - b]\n", nil},
		{"a dash before a flow indicator", "[-, -a, --]\n", []any{[]any{"-", "-a", "--"}}},
		// A line of blanks in a plain scalar's lines is an empty line when its first tab is
		// right of the collection; yaml.v3 refuses one further left.
		{"blanks with a tab in a plain scalar", "a: b\n \t\n  c\nd: 1\n \t\n", []any{Fields{{"a", "b\nc"}, {"d", json.Number("1")}}}},
		{"a tab left of a plain scalar's collection", "a: 1\n\t\n", nil},
		{"multi-line quoted", "a: \"x\n  y\"\nb: 'p\n\n  q'\n", []any{Fields{{"a", "x y"}, {"b", "p\nq"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, ok := parseBlock([]byte(tt.in))
			if tt.want == nil {
				assert.False(t, ok, "read as %#v", docs)
				return
			}
			require.True(t, ok)
			var got []any
			for _, d := range docs {
				got = append(got, d.Value)
			}
			assert.Equal(t, tt.want, got)
			full, err := parseNodes([]byte(tt.in), "")
			require.NoError(t, err)
			assert.Equal(t, full, docs, "yaml.v3 reads it differently")
		})
	}
}

// FuzzBlock: ParseYAML reads every input as yaml.v3 does — the same documents, values,
// lines and problems — and never panics. Its seeds are the table above, kubectl's output,
// and random streams of every construct the block reader reads and of those it leaves to
// yaml.v3.
func FuzzBlock(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agrees(t, data)
	})
}

// fuzzSeeds are inputs that reach the readers' interesting paths.
func fuzzSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, s := range blockSeeds {
		out = append(out, []byte(s))
	}
	for _, name := range []string{"kubectl-dump.yaml", "kubectl-dump.json", "handwritten.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(tb, err)
		out = append(out, data[:min(len(data), 6000)])
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 100 {
		out = append(out, []byte(randomStream(rng)))
	}
	return out
}

// TestBlockReaderReadsKubectlDumps: what kubectl prints, YAML or JSON, and what people write
// (testdata/handwritten.yaml: Helm values, the istio ConfigMap, an IstioOperator), with LF or
// CRLF line ends, is read by the block reader alone, and as yaml.v3 reads it.
func TestBlockReaderReadsKubectlDumps(t *testing.T) {
	for _, name := range []string{"kubectl-dump.yaml", "kubectl-dump.json", "handwritten.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		for _, in := range [][]byte{data, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))} {
			block, full := agrees(t, in)
			assert.Equal(t, strings.Count(string(data), "\n---\n")+1, block, name)
			assert.Zero(t, full, name)
		}
	}
}

// TestBlockReaderReadsNestedLists: Lists nested deep, JSON or block YAML, are read by the
// block reader, as yaml.v3 reads them.
func TestBlockReaderReadsNestedLists(t *testing.T) {
	depths := []int{10, 200}
	if longtest.Long() {
		depths = append(depths, 400, 1500) // agrees() reads each with yaml.v3 too, twice
	}
	for _, depth := range depths {
		var js, y strings.Builder
		for i := range depth {
			fmt.Fprintf(&js, `{"kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": "ns%d", "annotations": {"d": "é"}}}, `, i)
			pad := strings.Repeat("  ", i)
			fmt.Fprintf(&y, "%skind: List\n%sitems:\n%s- kind: Namespace\n%s  metadata: {name: ns%d}\n%s-", pad, pad, pad, pad, i, pad)
			if i < depth-1 {
				y.WriteString("\n")
			}
		}
		js.WriteString(`{}` + strings.Repeat("]}", depth))
		y.WriteString(" {}\n")
		for _, data := range []string{js.String(), y.String()} {
			block, full := agrees(t, []byte(data))
			assert.Equal(t, 1, block, "depth %d", depth)
			assert.Zero(t, full, "depth %d", depth)
		}
	}
}
