package strict

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"a scalar document", "hello\n", nil},
		{"JSON", "{\n  \"a\": [1, -2.5, true, null],\n  \"b\": {\"c\": \"d\\n\"}\n}\n",
			[]any{Fields{{"a", []any{json.Number("1"), json.Number("-2.5"), true, nil}}, {"b", Fields{{"c", "d\n"}}}}}},
		{"compact JSON", `{"a":{"b":[]},"c":0}`, []any{Fields{{"a", Fields{{"b", []any{}}}}, {"c", json.Number("0")}}}},
		{"JSON in a block", "a: {\"b\": 1}\n", []any{Fields{{"a", Fields{{"b", json.Number("1")}}}}}},
		{"JSON with a trailing comma", "[1, 2, ]\n", nil},
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

// FuzzBlock: whatever the block reader reads, it reads as yaml.v3 does — the same values,
// lines and no problems; and never a panic.
func FuzzBlock(f *testing.F) {
	for _, s := range blockSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, ok := parseBlock(data)
		if !ok {
			return
		}
		full, err := parseNodes(data, "")
		if err != nil {
			t.Fatalf("the block reader read %q, yaml.v3 refuses it: %v", data, err)
		}
		if !assert.ObjectsAreEqual(full, docs) {
			t.Fatalf("read %q as\n%#v\nyaml.v3 reads\n%#v", data, docs, full)
		}
	})
}

// TestBlockReaderOnRandomDocuments writes random block documents — nested mappings and
// sequences, compact and indented, with scalars of every kind near the subset's edges — and
// checks that the block reader either gives up or reads each as yaml.v3 does.
func TestBlockReaderOnRandomDocuments(t *testing.T) {
	scalars := []string{"a", "api.example.com", "10.96.0.1", "0", "80", "0777", "1.5", "1e3", "2024-01-02", "true", "False", "null", "~",
		"yes", "no", "on", "1_000", "-1", "+1", ".5", ".inf", "0x1F", "0d8f1a52-1111-4a4a", "\"q\"", "'s'", "'it''s'", "\"a\\\"b\"", "\"\\u00e9\"",
		"{}", "[]", "a b", "a:b", "a #c", "http://x/y", "x,y", "*", "&a x", "!t x", "\"\"", "''", "18446744073709551616", "9223372036854775808"}
	keys := []string{"a", "b", "kubernetes.io/name", "0", "x-y", "_z", "a.b", "true", "null", "80", "f:metadata", `k:{"port":80,"protocol":"TCP"}`,
		".", ".inf", "a#b", "a{b", "a,b", "x]y", "a'b", `a"b`, "a:b", "a!b", "a&b", "a*b", "a|b", "a>b", "a%b", "a@b", "a`b", "a?b", "a:", "a::b"}
	rng := rand.New(rand.NewPCG(1, 2))
	var write func(b *strings.Builder, indent, depth int, compact bool)
	write = func(b *strings.Builder, indent, depth int, inItem bool) {
		pad := strings.Repeat(" ", indent)
		if depth > 3 || rng.IntN(4) == 0 {
			return
		}
		if rng.IntN(2) == 0 { // a mapping
			for i := range 1 + rng.IntN(3) {
				if i > 0 || !inItem {
					b.WriteString(pad)
				}
				b.WriteString(keys[rng.IntN(len(keys))] + ":")
				switch rng.IntN(4) {
				case 0:
					b.WriteString(" " + scalars[rng.IntN(len(scalars))] + "\n")
				case 1:
					b.WriteString(" |" + []string{"", "-"}[rng.IntN(2)] + "\n" + pad + "  line\n" + []string{"", "\n", pad + "  # not a comment\n"}[rng.IntN(3)])
				case 2:
					b.WriteString("\n")
					write(b, indent+2*rng.IntN(2), depth+1, false)
				default:
					b.WriteString("\n")
					write(b, indent+2, depth+1, false)
				}
			}
			return
		}
		for range 1 + rng.IntN(3) { // a sequence
			b.WriteString(pad + "-")
			if rng.IntN(2) == 0 {
				b.WriteString(" " + scalars[rng.IntN(len(scalars))] + "\n")
				continue
			}
			b.WriteString(" ")
			write(b, indent+2, depth+1, true)
			b.WriteString("\n")
		}
	}
	read := 0
	for range 20000 {
		var b strings.Builder
		write(&b, 0, 0, false)
		if readsAsYAMLv3(t, []byte(b.String())) {
			read++
		}
	}
	t.Logf("%d of 20000 documents read by the block reader", read)
	assert.Greater(t, read, 2000)
}

// readsAsYAMLv3 reports whether the block reader reads data, failing t unless it then reads
// it as yaml.v3 does.
func readsAsYAMLv3(t *testing.T, data []byte) bool {
	t.Helper()
	docs, ok := parseBlock(data)
	if !ok {
		return false
	}
	full, err := parseNodes(data, "")
	require.NoError(t, err, "yaml.v3 refuses what the block reader read:\n%s", data)
	require.Equal(t, full, docs, "read differently:\n%s", data)
	return true
}

// TestBlockReaderOnRandomJSON writes random JSON documents, compact and indented, and checks
// that the block reader reads each as yaml.v3 does (or gives up).
func TestBlockReaderOnRandomJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "a", "a b", "x\"y", "tab\there", "line\nbreak", "é", "</script>", "a\\b", "true", "1", "-", "#", "a: b", "{}"}
	nums := []string{"0", "-0", "1", "-17", "1.5", "1e3", "-2.5E-3", "18446744073709551616", "1e400"}
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := rng.IntN(7); {
		case k == 0 && depth < 4:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[strs[rng.IntN(len(strs))]] = gen(depth + 1)
			}
			return m
		case k == 1 && depth < 4:
			var l []any
			for range rng.IntN(4) {
				l = append(l, gen(depth+1))
			}
			return l
		case k == 2:
			return json.Number(nums[rng.IntN(len(nums))])
		case k == 3:
			return rng.IntN(2) == 0
		case k == 4:
			return nil
		}
		return strs[rng.IntN(len(strs))]
	}
	read := 0
	for i := range 5000 {
		v := map[string]any{"kind": "List", "items": []any{gen(0), gen(0)}}
		var data []byte
		var err error
		if i%2 == 0 {
			data, err = json.MarshalIndent(v, "", "    ")
		} else {
			data, err = json.Marshal(v)
		}
		require.NoError(t, err)
		if readsAsYAMLv3(t, data) {
			read++
		}
	}
	t.Logf("%d of 5000 documents read by the block reader", read)
	assert.Greater(t, read, 1000)
}
