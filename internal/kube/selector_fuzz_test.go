package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// FuzzDecodeSelector decodes any YAML or JSON document as a selector, and holds what it
// decodes to encoding/json's reading of the same document, to its own reading of the
// selector written back as JSON, and to apimachinery: a selector SelectorProblems passes is
// one LabelSelectorAsSelector converts. Every problem is a FieldError at or under the path.
func FuzzDecodeSelector(f *testing.F) {
	for _, s := range []string{
		"{}",
		"null",
		"matchLabels: {team: platform}\n",
		"matchLabels:\n  kubernetes.io/metadata.name: shop\n  env: \"\"\nmatchExpressions:\n- key: tier\n  operator: In\n  values: [web, api]\n- key: legacy\n  operator: DoesNotExist\n",
		`{"matchExpressions":[{"key":"env","operator":"NotIn","values":["dev","test"]},{"key":"team","operator":"Exists"}]}`,
		"matchExpressions:\n- {key: a, operator: In}\n- {key: b, operator: Exists, values: [x]}\n- {key: \"\", operator: Foo}\n",
		"matchLabels: {\"a b\": x, z: bad value}\n",
		"match_labels: {team: a}\nMatchExpressions: []\n",
		"matchLabels: {a: 1, b: null}\nmatchExpressions: [3, null, {key: 1, values: x}]\n",
		"matchExpressions: [{key: a, operator: In, values: [x, 2]}]\n",
		"base: &b {team: a}\nmatchLabels: *b\n",
		"matchLabels:\n  <<: {team: a}\n  env: prod\n",
		"[]",
		"3",
	} {
		f.Add(s)
	}
	const root = "spec.selector"
	f.Fuzz(func(t *testing.T, in string) {
		docs, err := strict.ParseYAML([]byte(in), "")
		if err != nil || len(docs) != 1 || docs[0].Problems != nil {
			return
		}
		x := docs[0].Value
		var d strict.Decoder
		s := DecodeSelector(&d, x, root)
		errs := d.Errs()
		for _, e := range errs {
			var fe *fielderr.Error
			if !errors.As(e, &fe) || fe != e {
				t.Fatalf("%T is not a FieldError: %v", e, e)
			}
			if fe.Where != "" || !strings.HasPrefix(fe.Field, root) {
				t.Fatalf("problem %q is not under %s", e, root)
			}
			if fe.Detail == "" {
				t.Fatalf("problem without a detail: %#v", fe)
			}
		}
		switch x.(type) {
		case nil:
			if s != nil || errs != nil {
				t.Fatalf("null gave %v, %v", s, errs)
			}
			return
		case strict.Fields:
			if s == nil {
				t.Fatal("an object gave no selector")
			}
		default:
			if s != nil || len(errs) != 1 || errs[0].Error() != root+": must be an object, got "+strict.Describe(x) {
				t.Fatalf("%s gave %v, %v", strict.Describe(x), s, errs)
			}
			return
		}
		if len(errs) > 0 {
			return
		}

		// encoding/json reads the accepted document to the same selector.
		raw, err := json.Marshal(x)
		if err != nil {
			t.Fatalf("marshal %v: %v", x, err)
		}
		var ref metav1.LabelSelector
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ref); err != nil {
			t.Fatalf("encoding/json refuses what DecodeSelector accepts, %s: %v", raw, err)
		}
		if diff := cmp.Diff(&ref, s, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: encoding/json and DecodeSelector disagree (-json +strict):\n%s", raw, diff)
		}

		// The selector written as JSON reads back as itself, exactly.
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := strict.ParseJSON(out)
		if err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		var d2 strict.Decoder
		again := DecodeSelector(&d2, back, root)
		if err := d2.Err(); err != nil {
			t.Fatalf("%s reads back with problems: %v", out, err)
		}
		if diff := cmp.Diff(s, again); diff != "" {
			t.Fatalf("%s does not read back as itself (-first +again):\n%s", out, diff)
		}

		// Validation: sorted, the same every time, and enough for apimachinery.
		problems := SelectorProblems(s, func() fielderr.Path { return fielderr.Dotted(root) })
		texts := make([]string, len(problems))
		for i, p := range problems {
			texts[i] = p.Error()
			if !strings.HasPrefix(texts[i], root+".") {
				t.Fatalf("problem %q is not under %s", texts[i], root)
			}
		}
		if !slices.IsSorted(texts) {
			t.Fatalf("problems not sorted: %q", texts)
		}
		for i, p := range SelectorProblems(s, func() fielderr.Path { return fielderr.Dotted(root) }) {
			if p.Error() != texts[i] {
				t.Fatalf("problems change between calls: %q, then %q", texts[i], p.Error())
			}
		}
		if _, err := metav1.LabelSelectorAsSelector(s); len(problems) == 0 && err != nil {
			t.Fatalf("%s passes SelectorProblems but apimachinery refuses it: %v", out, err)
		}
	})
}
