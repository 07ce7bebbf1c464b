package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const utf16Advice = "Windows PowerShell's > writes UTF-16: write the file with | Out-File -Encoding utf8 instead, or convert it (iconv -f UTF-16 -t UTF-8)"

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
		err  string
	}{
		{"object", `{"a": [1, "x", true, null]}`, map[string]any{"a": []any{json.Number("1"), "x", true, nil}}, ""},
		{"MaxUint64 exactly", `{"CreateIndex": 18446744073709551615}`, map[string]any{"CreateIndex": json.Number("18446744073709551615")}, ""},
		{"key given twice", `{"a": {"b": 1, "b": 2}}`, nil, "a.b: given twice"},
		{"key given twice at the top", `{"a": 1, "a": 1}`, nil, "a: given twice"},
		{"key given twice in a list element", `[{"x.y": 1, "x.y": 2}]`, nil, `[0]["x.y"]: given twice`},
		{"data after the value", `{"a": 1} {"b": 2}`, nil, "line 1, column 10: data after the JSON value"},
		{"text after the value", "{}\nnope", nil, "line 2, column 1: data after the JSON value"},
		{"a byte that is not UTF-8", "{\"a\": \xd0}", nil, "not JSON: line 1, column 7: unexpected byte 0xd0"},
		{"truncated", `{"a": [1, 2`, nil, "not JSON: unexpected end of input"},
		{"empty", ``, nil, "no JSON value: the input is empty"},
		{"white space only", " \n\t\r\n", nil, "no JSON value: the input is empty"},
		{"a byte-order mark alone", "\ufeff\n", nil, "no JSON value: the input is empty"},
		{"after a byte-order mark", "\ufeff{\"a\": 1}", map[string]any{"a": json.Number("1")}, ""},
		{"positions after a byte-order mark", "\ufeff{\"a\": \xd0}", nil, "not JSON: line 1, column 7: unexpected byte 0xd0"},
		{"UTF-16, little-endian", "\xff\xfe{\x00}\x00", nil, "not JSON: the input looks like UTF-16 (little-endian, starting with the bytes 0xff 0xfe); it must be UTF-8. " + utf16Advice},
		{"UTF-16, big-endian", "\xfe\xff\x00{\x00}", nil, "not JSON: the input looks like UTF-16 (big-endian, starting with the bytes 0xfe 0xff); it must be UTF-8. " + utf16Advice},
		{"a byte-order mark after the start", " \ufeff{}", nil, "not JSON: line 1, column 2: unexpected byte 0xef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tt.in))
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, plain(got))
		})
	}
}

// plain returns x with every object as a map, as encoding/json decodes one, for comparisons
// with map literals.
func plain(x any) any {
	switch v := x.(type) {
	case Fields:
		m := make(map[string]any, len(v))
		for _, f := range v {
			m[f.Key] = plain(f.Value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = plain(item)
		}
		return out
	}
	return x
}

func TestParseJSONDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	_, err := ParseJSON([]byte(deep))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nested more than 10000 levels deep")
}

func TestParseJSONStream(t *testing.T) {
	got, err := ParseJSONStream([]byte(`{"a": 1}` + "\n" + `[{"b": 2}]`))
	require.NoError(t, err)
	assert.Equal(t, []any{map[string]any{"a": json.Number("1")}, []any{map[string]any{"b": json.Number("2")}}}, plain(got))

	_, err = ParseJSONStream([]byte(`{"a": 1} {"a": 1, "a": 2} {"b": 1, "b": 1}`))
	require.Error(t, err)
	assert.Equal(t, "value 2: a: given twice\nvalue 3: b: given twice", err.Error())

	_, err = ParseJSONStream([]byte(`{"a": 1, "a": 2}`))
	require.Error(t, err)
	assert.Equal(t, "a: given twice", err.Error(), "one value needs no position")

	_, err = ParseJSONStream([]byte(`{"a": 1} }`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "data after the JSON value")

	_, err = ParseJSONStream([]byte("  \n"))
	require.EqualError(t, err, "no JSON value: the input is empty")

	_, err = ParseJSONStream([]byte("\xff\xfe{\x00}\x00\n\x00{\x00}\x00"))
	require.EqualError(t, err, "not JSON: the input looks like UTF-16 (little-endian, starting with the bytes 0xff 0xfe); it must be UTF-8. "+utf16Advice)
}

func TestParseYAML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []any
		err  string
	}{
		{"scalars", "a: 1\nb: 1.5\nc: true\nd: ~\ne: yes\nf: '01'\ng: 2026-03-01T10:00:00Z\nh: 0x1F\ni: 1_000\n",
			[]any{map[string]any{"a": json.Number("1"), "b": json.Number("1.5"), "c": true, "d": nil, "e": "yes", "f": "01",
				"g": "2026-03-01T10:00:00Z", "h": json.Number("31"), "i": json.Number("1000")}}, ""},
		{"MaxUint64 and beyond stay exact", "a: 18446744073709551615\nb: 18446744073709551616\n",
			[]any{map[string]any{"a": json.Number("18446744073709551615"), "b": json.Number("18446744073709551616")}}, ""},
		{"documents, separators with content, empty ones", "--- {a: 1}\n---\n--- [x]\n",
			[]any{map[string]any{"a": json.Number("1")}, nil, []any{"x"}}, ""},
		{"directive", "%YAML 1.2\n---\na: b\n", []any{map[string]any{"a": "b"}}, ""},
		{"aliases and merge keys", "x: &x {p: 1, q: 2}\ny:\n  <<: *x\n  q: 3\n",
			[]any{map[string]any{"x": map[string]any{"p": json.Number("1"), "q": json.Number("2")}, "y": map[string]any{"p": json.Number("1"), "q": json.Number("3")}}}, ""},
		{"key given twice", "a:\n  b: 1\n  b: 2\n", nil, "a.b: given twice (lines 2 and 3)"},
		{"octal-looking", "a: 0777\n", nil, "a: 0777 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it"},
		{"infinity", "a: .inf\n", nil, "a: .inf is not a finite number"},
		{"unsupported tag", "a: !custom x\n", nil, `a: line 1: unsupported YAML tag "!custom"`},
		{"key not a scalar", "? [a]\n: 1\n", nil, "(top level): line 1: a key must be a string, got a list"},
		// UTF-16 is not refused here as ParseJSON refuses it: yaml.v3, which gets any stream
		// the block reader does not read, decodes it after its byte-order mark.
		{"UTF-16 with a byte-order mark", "\xff\xfea\x00:\x00 \x001\x00\n\x00", []any{map[string]any{"a": json.Number("1")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := ParseYAML([]byte(tt.in), "")
			require.NoError(t, err)
			var got []any
			var errs []string
			for _, d := range docs {
				got = append(got, d.Value)
				if d.Err != nil {
					errs = append(errs, d.Err.Error())
				}
			}
			if tt.err != "" {
				assert.Equal(t, tt.err, strings.Join(errs, "\n"))
				return
			}
			assert.Empty(t, errs)
			assert.Equal(t, tt.want, plain(got))
		})
	}
}

func TestParseYAMLAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	docs, err := ParseYAML([]byte(b.String()), "")
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.Error(t, docs[0].Err)
	assert.Contains(t, docs[0].Err.Error(), "aliases expand to more values than the input can hold")
}

func TestParseYAMLSyntaxError(t *testing.T) {
	docs, err := ParseYAML([]byte("a: 1\n---\nb: [c\n"), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "document 2: not YAML or JSON: line ")
	assert.Contains(t, err.Error(), "did not find expected ',' or ']'")
	require.Len(t, docs, 1, "the documents before the error are returned")
}

func TestParseYAMLRoot(t *testing.T) {
	docs, err := ParseYAML([]byte("a: 1\na: 2\n"), "data.mesh")
	require.NoError(t, err)
	assert.EqualError(t, docs[0].Err, "data.mesh.a: given twice (lines 1 and 2)")
}

func TestDecoderNumbers(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want uint64
		err  string
	}{
		{"zero", json.Number("0"), 0, ""},
		{"MaxUint64", json.Number("18446744073709551615"), 18446744073709551615, ""},
		{"2^64", json.Number("18446744073709551616"), 0, "N: the number 18446744073709551616 is out of range [0, 18446744073709551615]"},
		{"negative", json.Number("-1"), 0, "N: must be a non-negative whole number, got the number -1"},
		{"exponent", json.Number("1e3"), 0, "N: must be a non-negative whole number, got the number 1e3"},
		{"string", "7", 0, `N: must be a non-negative whole number, got the string "7"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Decoder
			got := d.Uint(tt.in, "N")
			assert.Equal(t, tt.want, got)
			if tt.err == "" {
				assert.NoError(t, d.Err())
			} else {
				assert.EqualError(t, d.Err(), tt.err)
			}
		})
	}
	var d Decoder
	_, ok := d.Int(json.Number("5"), "I", 0, 3)
	assert.False(t, ok)
	assert.EqualError(t, d.Err(), "I: the number 5 is out of range [0, 3]")
}

func TestDecodeEntries(t *testing.T) {
	decode := func(d *Decoder, x any, path string) string {
		o, ok := d.Object(x, path)
		if !ok {
			return ""
		}
		o.Check("Name")
		var s string
		o.String(&s, "Name")
		return s
	}
	got, err := DecodeEntries([]byte(`{"Name": "a"} [{"Name": "b"}, {"Name": "c"}]`), true, decode, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, got)

	_, err = DecodeEntries([]byte(`{"Name": "a", "Nmae": 1} [{"Name": "b"}, {"Name": 2}]`), true, decode, nil)
	require.Error(t, err)
	assert.Equal(t, "value 1: (top level): unknown field \"Nmae\"\nvalue 2: [1].Name: must be a string, got the number 2", err.Error())

	_, err = DecodeEntries([]byte(`[{"Name": 2}]`), true, decode, nil)
	require.EqualError(t, err, "[0].Name: must be a string, got the number 2")

	// Validation runs on what decoded cleanly, its problems under the element's path.
	validate := func(s string) error {
		if s == "" {
			return errors.New("Name: is required")
		}
		return nil
	}
	_, err = DecodeEntries([]byte(`[{"Name": "a"}, {}, {"Name": 2}]`), true, decode, validate)
	require.EqualError(t, err, "[1]: Name: is required\n[2].Name: must be a string, got the number 2")
}

// FuzzParseJSON holds ParseJSON against encoding/json, the literal reference: on valid JSON,
// perhaps after a byte-order mark (which encoding/json refuses and ParseJSON skips),
// it agrees value for value unless a key is given twice, which it refuses.
//
// It also holds ParseYAML's reading of JSON to yaml.v3's, and checks that the block reader
// reads any JSON yaml.v3 reads without handing it to yaml.v3 — but for what YAML reads
// otherwise than JSON (control characters and line breaks other than \n and \r\n, \/ and
// surrogate escapes) and keys too long for YAML.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x", true, null]}`, `{"a": 1, "a": 2}`, `[{"b": {"c": 18446744073709551616}}]`, `"x" 1`, "{\"\xd0\": 1}",
		`{"a":"\/"}`, `["\ud83d\ude00"]`, `{"é":"😀","x":[1e400,-0,0.5E-3]}`, "{\r\n\t\"a\": 1\r\n}", `"top"`, `-12.5`, `[]`, `{"k:{\"port\":80}":{".":{}}}`} {
		f.Add([]byte(s))
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for range 50 {
		f.Add([]byte(randomJSON(rng)))
	}
	f.Add([]byte(`{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Service", "metadata": {"annotations": {"description": "Zahlungsdienst für Überweisungen — 支付服务"}, "managedFields": [{"fieldsV1": {"f:spec": {"k:{\"port\":80}": {".": {}}}}}], "uid": "0b1ad2c3-aaaa-4bbb-8ccc-000000000001"}, "spec": {"exportTo": ["."], "ports": [{"port": 80}]}}]}`))
	f.Add([]byte("\ufeff{\"a\": [1]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		js := bytes.TrimPrefix(data, []byte("\ufeff")) // a byte-order mark at the start changes nothing
		if json.Valid(js) {
			_, full := agrees(t, data)
			if full > 0 && plainJSON(data) {
				if _, err := parseNodes(data, ""); err == nil {
					t.Fatalf("yaml.v3 read the JSON %q", data)
				}
			}
		}
		got, err := ParseJSON(data)
		if !json.Valid(js) {
			if err == nil {
				t.Fatalf("accepted invalid JSON %q", data)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		var want any
		if derr := dec.Decode(&want); derr != nil {
			return // nested too deep for encoding/json
		}
		if err != nil {
			if !strings.Contains(err.Error(), "given twice") && !strings.Contains(err.Error(), "nested more than") {
				t.Fatalf("refused valid JSON %q: %v", data, err)
			}
			return
		}
		if !assert.ObjectsAreEqual(want, plain(got)) {
			t.Fatalf("ParseJSON(%q) = %#v, encoding/json says %#v", data, got, want)
		}
	})
}

// plainJSON reports whether the JSON data holds nothing YAML reads otherwise: every
// character is one the block reader reads, there is no \/ or surrogate escape, no string
// is longer than a YAML key may be, it nests less deeply than the block reader goes, and no
// tab follows a top-level scalar.
func plainJSON(data []byte) bool {
	if scanOdd(data, 0) < len(data) || bytes.Contains(data, []byte(`\/`)) || bytes.Contains(bytes.ToLower(data), []byte(`\ud`)) {
		return false
	}
	depth, run := 0, 0
	for _, c := range data {
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		}
		if run++; c == '"' {
			run = 0
		}
		if depth >= maxBlockDepth || run > maxKey-10 {
			return false
		}
	}
	trimmed := bytes.TrimLeft(data, " \n")
	if len(trimmed) == 0 || trimmed[0] == '\t' {
		return false
	}
	// A tab after a top-level scalar (a raw tab in JSON is always white space): whether
	// yaml.v3 reads it depends on its scanner's state (after a plain scalar's line break it
	// does, after a comment line it does not), so the block reader leaves that document to
	// yaml.v3, which answers.
	return trimmed[0] == '{' || trimmed[0] == '[' || bytes.IndexByte(data, '\t') < 0
}

// FuzzParseYAML: never a panic, every value is one of the generic types, and a document
// without problems survives a JSON round trip unchanged.
func FuzzParseYAML(f *testing.F) {
	for _, s := range []string{"a: 1\n---\nb: [x, y]\n", "--- {a: &x 1, b: *x}\n", "%YAML 1.2\n---\na: 0x10\n", "a: {b: 1, b: 2}\n", "<<: {a: 1}\n"} {
		f.Add([]byte(s))
	}
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := ParseYAML(data, "")
		for _, d := range docs {
			if d.Err != nil {
				continue
			}
			b, err := json.Marshal(d.Value)
			if err != nil {
				t.Fatalf("a value JSON cannot hold: %#v: %v", d.Value, err)
			}
			back, err := ParseJSON(b)
			if err != nil {
				t.Fatalf("round trip of %s: %v", b, err)
			}
			if !assert.ObjectsAreEqual(d.Value, back) {
				t.Fatalf("round trip changed %#v into %#v", d.Value, back)
			}
		}
	})
}
