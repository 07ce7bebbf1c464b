package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/meshscope/meshscope/internal/longtest"
)

// long reports whether the long property runs were asked for (MESHSCOPE_LONG=1).
// agrees checks that ParseYAML's reading of data is yaml.v3's: the same documents,
// values, lines and problems as the full reader's conversion of yaml.v3's nodes, and, when
// the block reader read every document, for every document without problems, the same
// values as yaml.v3 decoding it into interface values itself. It returns how many documents the block reader read and how many
// yaml.v3 did.
func agrees(t testing.TB, data []byte) (block, full int) {
	t.Helper()
	docs, fullDocs, ok := parseStream(data, "")
	want, werr := parseNodes(data, "")
	if !ok {
		// yaml.v3 refused a document on its own (a syntax error, or an alias to an anchor
		// of an earlier document, which it accepts): ParseYAML's answer is then yaml.v3's
		// reading of the whole stream, whatever it is.
		return 0, 0
	}
	require.NoError(t, werr, "yaml.v3 refuses what the reader read:\n%q", data)
	require.Equal(t, want, docs, "read differently from yaml.v3's nodes:\n%q", data)
	// The documents yaml.v3 read went by way of the full reader's conversion, which
	// differs from yaml.v3's own decoding by design (merge keys, keys that are not
	// strings); the block reader's are compared with yaml.v3's decoding.
	generic, ok := yamlGeneric(data)
	if ok && len(generic) == len(docs) && fullDocs == 0 {
		for i, d := range docs {
			if d.Problems == nil && comparable(generic[i]) {
				require.True(t, sameValue(d.Value, generic[i]), "document %d read as\n%#v\nyaml.v3 into any reads\n%#v\nfrom %q", i+1, d.Value, generic[i], data)
			}
		}
	}
	return len(docs) - fullDocs, fullDocs
}

// yamlGeneric decodes each document of data with yaml.v3 into an interface value; ok is
// false if yaml.v3 refuses any (a key given twice, which the reader reports as a problem).
func yamlGeneric(data []byte) ([]any, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []any
	for {
		var x any
		err := dec.Decode(&x)
		if errors.Is(err, io.EOF) {
			return out, true
		}
		if err != nil {
			return nil, false
		}
		out = append(out, x)
	}
}

// comparable reports whether x, as yaml.v3 decodes it into an interface value, can be
// compared with the reader's value: its keys are all strings (yaml.v3 gives a key "80" as
// the number, where meshscope keeps the key's text) and it has no merge keys.
func comparable(x any) bool {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "<<" || !comparable(e) {
				return false
			}
		}
	case map[any]any:
		return false
	case []any:
		for _, e := range v {
			if !comparable(e) {
				return false
			}
		}
	}
	return true
}

// sameValue reports whether the reader's value got is what yaml.v3 decodes into an
// interface value, want: the same objects, lists, strings, booleans and nulls, and numbers
// equal as yaml.v3 reads them (int, uint64 or float64).
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(Fields)
		if !ok || len(g) != len(w) {
			return false
		}
		for _, f := range g {
			if e, ok := w[f.Key]; !ok || !sameValue(f.Value, e) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range g {
			if !sameValue(g[i], w[i]) {
				return false
			}
		}
		return true
	case int:
		n, ok := got.(json.Number)
		return ok && string(n) == strconv.Itoa(w) || ok && n == "-0" && w == 0
	case uint64:
		n, ok := got.(json.Number)
		return ok && string(n) == strconv.FormatUint(w, 10)
	case float64:
		n, ok := got.(json.Number)
		f, err := strconv.ParseFloat(string(n), 64)
		return ok && err == nil && f == w
	case time.Time:
		// meshscope keeps a timestamp's text, as JSON has no times: the text must be the
		// same time.
		s, ok := got.(string)
		var t any
		return ok && yamlTag(s) == tagTimestamp && yaml.Unmarshal([]byte(s), &t) == nil && w.Equal(t.(time.Time))
	}
	return got == want
}

// Pieces of the YAML kubectl, Helm and people write, and of what only the full reader reads.
var (
	randomScalars = []string{
		"a", "api.example.com", "10.96.0.1", "0", "80", "-1", "+1", "0777", "010", "1.5", "1e3", "-2.5E-3", ".5", "1.", "1e400", "18446744073709551616",
		"9223372036854775808", "2024-01-02", "2024-01-02T03:04:05Z", "2024-1-2 3:04:05", "1234-5", "true", "False", "TRUE", "null", "Null", "~", "yes", "no", "on",
		"1_000", "0x1F", "0X1f", "0o17", "0b101", "-0b1", "0b1ad2c3f-aaaa-4bbb-8ccc-000000000001", "0e5d2c3f-aaaa-4bbb-8ccc-000000000001", "0x", "12ab", "1e",
		"0d8f1a52-1111-4a4a-8c8c-000000000001", ".", "..", ".inf", "-.inf", ".nan", ".git", "-", "--verbose", "-x", "$HOME", "$", "a, b", "x,y", "[a]", "a[0]",
		"{b}", "a}", "http://[::1]:8081", "http://x/y?q=1#f", "a:b", "a::b", "a b", "a  b", "a\tb", "a #c", "a#c", "a:", "@a", "`a", "%a", "?a", "|", ">", "é", "Grüß Gott", "支付服务", "😀", "a\u00a0b", "\"q\"", "'s'", "'it''s'", "\"a\\\"b\"", "\"\\u00e9\\t\\x41\\U0001F600\"",
		"\"\\/\"", "\"\\ud83d\"", "\"\\N\\_\\L\\P\"", "\"\"", "''", "\"a # b\"", "'a: b'", "[]", "{}", "[a, b]", "[IPv6, IPv4]", "[1, 2.5, x y, 'q', \"d\"]",
		"{a: 1, b: [x]}", "{\"a\": 1, \"b\": null}", "[a, [b, {c: d}]]", "{a: 1, a: 2}", "[a: b]", "{a}", "[a,]", "[ a , b ]", "{a: }", "[http://x, 'y']",
		"[0777, 1.5]", "{'f:a': 1}", "[ \"x\" ,1 ]", "{a: b, c: {d: [1, 2]}}",
	}
	randomKeys = []string{
		"a", "b", "kubernetes.io/name", "0", "80", "x-y", "_z", "a.b", "true", "null", "~", "f:metadata", `k:{"port":80,"protocol":"TCP"}`, ".", ".inf",
		"a#b", "a{b", "a,b", "x]y", "a'b", `a"b`, "a:b", "a!b", "a&b", "a*b", "a|b", "a>b", "a%b", "a@b", "a`b", "a?b", "a:", "a::b", "my key", "a\tb",
		"'f:spec'", "\"quoted key\"", "'it''s'", "\"\\u00e9\"", "''", "\"\"", "é", "Ключ", "-a", "$x", "0x10", "1.5",
	}
)

// randomFullOnly are scalars and keys only the full reader reads, which make the block
// reader hand their document to yaml.v3.
var randomFullOnly = []string{"*a", "&a x", "!t x", "!!str 1", "<<", "? a", "! x"}

// randomDocument writes a random document of block YAML, the constructs above nested in
// mappings and sequences, compact and indented, with comments and blank lines between.
func randomDocument(rng *rand.Rand) string {
	var b strings.Builder
	var write func(indent, depth int, inItem bool)
	pick := func(l []string) string {
		if rng.IntN(40) == 0 {
			return randomFullOnly[rng.IntN(len(randomFullOnly))]
		}
		return l[rng.IntN(len(l))]
	}
	write = func(indent, depth int, inItem bool) {
		pad := strings.Repeat(" ", indent)
		if depth > 3 || rng.IntN(5) == 0 {
			if inItem {
				b.WriteString(pick(randomScalars) + "\n")
			}
			return
		}
		if rng.IntN(2) == 0 { // a mapping
			for i := range 1 + rng.IntN(4) {
				if i > 0 || !inItem {
					b.WriteString(pad)
				}
				b.WriteString(pick(randomKeys) + ":")
				switch rng.IntN(9) {
				case 0, 1:
					b.WriteString(" " + pick(randomScalars) + "\n")
				case 2: // a block scalar
					b.WriteString(" " + pick([]string{"|", "|-", "|+", ">", ">-", ">+", "|2", ">1-", "|-2"}) + pick([]string{"", "", " # c"}) + "\n")
					for range rng.IntN(4) {
						b.WriteString(pick([]string{pad + "  line", pad + "   more", "", pad + "  ", pad + "  # not a comment", pad + "  \tx", pad + "    deeper", pad + "  a: b"}) + "\n")
					}
				case 3: // a scalar over several lines
					b.WriteString(" " + pick([]string{"x", "\"x", "'x", "x y"}) + "\n")
					for range 1 + rng.IntN(3) {
						b.WriteString(pick([]string{pad + "  more", "", pad + " y", pad + "  z\"", pad + "  w'", pad + "  # c", pad + "  a: b", pad + "  - i"}) + "\n")
					}
				case 4:
					b.WriteString(pick([]string{" # c", "", "  "}) + "\n")
					write(indent+2*rng.IntN(2), depth+1, false)
				case 5:
					b.WriteString("\n" + pick([]string{"", "\n", pad + "# c\n"}))
					write(indent+1+rng.IntN(3), depth+1, false)
				default:
					b.WriteString("\n")
					write(indent+2, depth+1, false)
				}
			}
			return
		}
		for i := range 1 + rng.IntN(3) { // a sequence
			if i > 0 || !inItem {
				b.WriteString(pad)
			}
			b.WriteString("-")
			switch rng.IntN(4) {
			case 0:
				b.WriteString(" " + pick(randomScalars) + "\n")
			case 1:
				b.WriteString("\n")
				write(indent+2, depth+1, false)
			default:
				b.WriteString(" ")
				write(indent+2, depth+1, true)
			}
		}
	}
	write(rng.IntN(2), 0, false)
	return b.String()
}

// randomStream is one to three random documents, now and then with the stream's odd
// forms: separators with comments, CRLF line ends, no final line break, a byte-order mark,
// a directive, tabs.
func randomStream(rng *rand.Rand) string {
	var b strings.Builder
	for i := range 1 + rng.IntN(3) {
		if i > 0 || rng.IntN(8) == 0 {
			b.WriteString([]string{"---\n", "--- # c\n", "---\n\n", "%YAML 1.2\n---\n", "...\n---\n"}[rng.IntN(5)])
		}
		if rng.IntN(6) == 0 {
			b.WriteString(randomJSON(rng))
			continue
		}
		b.WriteString(randomDocument(rng))
	}
	s := b.String()
	switch rng.IntN(12) {
	case 0:
		s = strings.ReplaceAll(s, "\n", "\r\n")
	case 1:
		s = strings.TrimSuffix(s, "\n")
	case 2:
		s = "\ufeff" + s
	case 3:
		s = strings.Replace(s, "  ", "\t", 1)
	case 4:
		s = strings.Replace(s, "a", "\r", 1)
	}
	return s
}

// randomJSON is a random JSON document, compact or indented.
func randomJSON(rng *rand.Rand) string {
	strs := []string{"", "a", "a b", "x\"y", "tab\there", "line\nbreak", "é", "😀", "</script>", "a\\b", "true", "1", "-", "#", "a: b", "{}", "\u2028", "\x7f", "\u0085"}
	nums := []string{"0", "-0", "1", "-17", "1.5", "1e3", "-2.5E-3", "18446744073709551616", "1e400", "0.1e-400"}
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
			l := []any{}
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
	v := map[string]any{"kind": "List", "items": []any{gen(0), gen(0)}}
	var data []byte
	switch rng.IntN(3) {
	case 0:
		data, _ = json.MarshalIndent(v, "", "    ")
	case 1:
		data, _ = json.Marshal(v)
	default:
		data, _ = json.MarshalIndent(v, "", "\t")
	}
	return string(data) + "\n"
}

// TestBlockReaderOnRandomDocuments writes random streams of the constructs people write
// and of those only the full reader reads, and checks that ParseYAML reads each as yaml.v3
// does, every time; most documents must be read by the block reader. MESHSCOPE_LONG=1 runs
// many more.
func TestBlockReaderOnRandomDocuments(t *testing.T) {
	n := longtest.N(3000, 1000000)
	rng := rand.New(rand.NewPCG(1, 2))
	block, full := 0, 0
	for range n {
		b, f := agrees(t, []byte(randomStream(rng)))
		block, full = block+b, full+f
	}
	t.Logf("%d documents read by the block reader, %d by yaml.v3", block, full)
	require.Greater(t, block, full)
}

// TestBlockReaderOnRandomJSON writes random JSON documents, compact and indented, and
// checks that ParseYAML reads each as yaml.v3 does, and — unless it holds what YAML reads
// otherwise than JSON (a line break other than \n, a control character) — without yaml.v3.
func TestBlockReaderOnRandomJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := longtest.N(1000, 200000)
	for range n {
		data := []byte(randomJSON(rng))
		_, full := agrees(t, data)
		if !strings.ContainsAny(string(data), "\u2028\x7f\u0085") {
			require.Zero(t, full, "yaml.v3 read %q", data)
		}
	}
}

func ExampleParseYAML() {
	docs, err := ParseYAML([]byte("kind: List\nitems:\n- {a: 0400}\n- b: x\n  b: y\n"), "")
	if err != nil {
		panic(err)
	}
	for _, p := range docs[0].Problems {
		fmt.Println(p.Path, p.Err)
	}
	// Output:
	// [.items [0] .a] items[0].a: 0400 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it
	// [.items [1] .b] items[1].b: given twice (lines 4 and 5)
}
