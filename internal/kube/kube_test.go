package kube

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// What apimachinery says of a label key's name part and of a label value it refuses.
const (
	namePartRule   = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	labelValueRule = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	labelKeyRule   = "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)

// spell renders each error as its message, followed by its value in brackets when it has
// one; every error must be a FieldError.
func spell(t *testing.T, errs []error) []string {
	t.Helper()
	var out []string
	for _, e := range errs {
		fe, ok := e.(*fielderr.Error)
		require.True(t, ok, "%T is not a FieldError: %v", e, e)
		s := fe.Error()
		if fe.Value != nil {
			s += fmt.Sprintf(" [%v]", fe.Value)
		}
		out = append(out, s)
	}
	return out
}

// decodeSelector parses doc (YAML or JSON) and decodes it as a selector at path.
func decodeSelector(t *testing.T, doc, path string) (*metav1.LabelSelector, []error) {
	t.Helper()
	docs, err := strict.ParseYAML([]byte(doc), "")
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.NoError(t, docs[0].Err)
	var d strict.Decoder
	s := DecodeSelector(&d, docs[0].Value, path)
	return s, d.Errs()
}

func TestDecodeSelector(t *testing.T) {
	in := func(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name string
		in   string
		path string
		want *metav1.LabelSelector
		errs []string
	}{
		{name: "empty selector", in: "{}", want: &metav1.LabelSelector{}},
		{name: "null is no selector", in: "null"},
		{name: "match labels", in: "matchLabels: {team: a, env: prod}", want: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a", "env": "prod"}}},
		{name: "empty match labels", in: "matchLabels: {}", want: &metav1.LabelSelector{}},
		{name: "null fields", in: "{matchLabels: null, matchExpressions: null}", want: &metav1.LabelSelector{}},
		{name: "expressions", in: "matchExpressions:\n- {key: team, operator: In, values: [a, b]}\n- {key: env, operator: DoesNotExist}\n- {key: x, operator: NotIn, values: []}\n",
			want: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("team", "In", "a", "b"), in("env", "DoesNotExist"), in("x", "NotIn")}}},
		{name: "operator kept as written", in: `{"matchExpressions": [{"key": "a", "operator": "in", "values": ["x"]}]}`,
			want: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "in", "x")}}},
		{name: "null expression", in: "matchExpressions: [null]", want: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{}}}},
		{name: "not an object", in: "3", path: "spec.selector", errs: []string{"spec.selector: must be an object, got the number 3 [3]"}},
		{name: "a list at the top level", in: "[]", errs: []string{"(top level): must be an object, got a list [[]]"}},
		{name: "unknown fields", in: "{match_labels: {a: b}, matchlabels: {}, MatchExpressions: [], zzz: 1}", path: "spec.selector",
			want: &metav1.LabelSelector{}, errs: []string{
				`spec.selector: unknown field "MatchExpressions" (did you mean "matchExpressions"?)`,
				`spec.selector: unknown field "match_labels" (did you mean "matchLabels"?)`,
				`spec.selector: unknown field "matchlabels" (did you mean "matchLabels"?)`,
				`spec.selector: unknown field "zzz"`,
			}},
		{name: "label values not strings", in: `{"matchLabels": {"a": 1, "b": "x", "c": null, "d": true}}`, path: "sel",
			want: &metav1.LabelSelector{MatchLabels: map[string]string{"b": "x"}}, errs: []string{
				`sel.matchLabels["a"]: must be a string, got the number 1 [1]`,
				`sel.matchLabels["c"]: must be a string, got null`,
				`sel.matchLabels["d"]: must be a string, got the boolean true [true]`,
			}},
		{name: "match labels not an object", in: "matchLabels: [a]", path: "sel", want: &metav1.LabelSelector{},
			errs: []string{"sel.matchLabels: must be an object, got a list [[a]]"}},
		{name: "expressions not a list", in: "matchExpressions: {key: a}", path: "sel", want: &metav1.LabelSelector{},
			errs: []string{"sel.matchExpressions: must be a list, got an object [[{key a}]]"}},
		{name: "expression not an object", in: "matchExpressions: [team]", path: "sel", want: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{}}},
			errs: []string{`sel.matchExpressions[0]: must be an object, got the string "team" [team]`}},
		{name: "expression fields", in: `{"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]}, {"key": 1, "operator": true, "values": "x", "vals": []}]}`, path: "sel",
			want: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "In", "x"), {}}}, errs: []string{
				`sel.matchExpressions[1]: unknown field "vals" (did you mean "values"?)`,
				"sel.matchExpressions[1].key: must be a string, got the number 1 [1]",
				"sel.matchExpressions[1].operator: must be a string, got the boolean true [true]",
				`sel.matchExpressions[1].values: must be a list, got the string "x" [x]`,
			}},
		{name: "a value not a string", in: "matchExpressions: [{key: a, operator: In, values: [x, 2, y]}]", path: "sel",
			want: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{in("a", "In", "x", "y")}},
			errs: []string{"sel.matchExpressions[0].values[1]: must be a string, got the number 2 [2]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := decodeSelector(t, tt.in, tt.path)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.errs, spell(t, errs))
		})
	}
}

func TestSelectorProblems(t *testing.T) {
	tests := []struct {
		name string
		s    *metav1.LabelSelector
		path fielderr.Path
		want []string
	}{
		{name: "nil", s: nil},
		{name: "empty", s: &metav1.LabelSelector{}, path: fielderr.Root(fielderr.Object).Child("sel")},
		{name: "valid", s: &metav1.LabelSelector{
			MatchLabels: map[string]string{"team": "a", "kubernetes.io/metadata.name": "shop", "empty": ""},
			MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", ""}},
				{Key: "x", Operator: metav1.LabelSelectorOpDoesNotExist},
			}}},
		{name: "match labels, at the root", s: &metav1.LabelSelector{MatchLabels: map[string]string{"a b": "x", "z": "bad value", "ok": ""}}, want: []string{
			`matchLabels: Invalid value: "a b": ` + namePartRule + " [a b]",
			`matchLabels: Invalid value: "bad value": ` + labelValueRule + " [bad value]",
		}},
		{name: "expressions, under a path", path: fielderr.Root(fielderr.Object).Child("spec").Child("selector"), s: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "a", Operator: metav1.LabelSelectorOpIn},
			{Key: "b", Operator: metav1.LabelSelectorOpExists, Values: []string{"x"}},
			{Key: "", Operator: "Foo"},
			{Key: "c", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"-x-"}},
			{Key: "d", Operator: "Gt", Values: []string{"1"}},
		}}, want: []string{
			"spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn' []",
			"spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist' []",
			`spec.selector.matchExpressions[2].key: Invalid value: "": name part must be non-empty []`,
			`spec.selector.matchExpressions[2].key: Invalid value: "": ` + namePartRule + " []",
			`spec.selector.matchExpressions[2].operator: Invalid value: "Foo": not a valid selector operator [Foo]`,
			`spec.selector.matchExpressions[3].values[0]: Invalid value: "-x-": ` + labelValueRule + " [-x-]",
			`spec.selector.matchExpressions[4].operator: Invalid value: "Gt": not a valid selector operator [Gt]`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			got := SelectorProblems(tt.s, func() fielderr.Path { asked = true; return tt.path })
			assert.Equal(t, tt.want, spell(t, asErrors(got)))
			assert.Equal(t, tt.want != nil, asked, "the path is built for a problem only")
		})
	}
}

// TestSelectorProblemsOrder: the problems of many invalid match labels come in one order,
// however the map is walked.
func TestSelectorProblemsOrder(t *testing.T) {
	s := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := range 20 {
		s.MatchLabels[fmt.Sprintf("bad key %d", i)] = fmt.Sprintf("bad value %d", i)
	}
	first := spell(t, asErrors(SelectorProblems(s, objectRoot)))
	require.Len(t, first, 40)
	assert.IsNonDecreasing(t, first)
	for range 20 {
		require.Equal(t, first, spell(t, asErrors(SelectorProblems(s, objectRoot))))
	}
}

// asErrors returns the problems as errors.
func asErrors(list []*fielderr.Error) []error {
	var errs []error
	for _, e := range list {
		errs = append(errs, e)
	}
	return errs
}

func TestLabelProblems(t *testing.T) {
	labels := fielderr.Root(fielderr.Object).Child("spec").Child("workloadSelector").Child("labels")
	selector := fielderr.Root(fielderr.GoValue).Child("selector")
	tests := []struct {
		path fielderr.Path
		ls   map[string]string
		want []string
	}{
		{labels, nil, nil},
		{selector, map[string]string{"app": "web", "example.com/tier": "", "v": "1.2_3-x"}, nil},
		{selector, map[string]string{"a/b/c": "x"}, []string{`Selector: Invalid value: "a/b/c": ` + labelKeyRule + " [a/b/c]"}},
		{labels, map[string]string{"k": "v v"}, []string{`spec.workloadSelector.labels: Invalid value: "v v": ` + labelValueRule + " [v v]"}},
		{fielderr.Root(fielderr.GoValue).Child("workloadSelector"), map[string]string{"": "x"}, []string{
			`WorkloadSelector: Invalid value: "": name part must be non-empty []`,
			`WorkloadSelector: Invalid value: "": ` + namePartRule + " []",
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.ls), func(t *testing.T) {
			asked := false
			assert.Equal(t, tt.want, spell(t, asErrors(LabelProblems(func() fielderr.Path { asked = true; return tt.path }, tt.ls))))
			assert.Equal(t, tt.want != nil, asked, "the path is built for a problem only")
		})
	}
}

func TestFromField(t *testing.T) {
	p := field.NewPath("policies").Index(1).Child("visibility")
	tests := []struct {
		in    *field.Error
		value any
		want  string
	}{
		{field.Required(p, "a rule needs a selector"), "", "policies[1].visibility: Required value: a rule needs a selector"},
		{field.Invalid(p, "public", `enum names are upper case ("PUBLIC")`), "public", `policies[1].visibility: Invalid value: "public": enum names are upper case ("PUBLIC")`},
		{field.Invalid(p, 3, "too big"), 3, "policies[1].visibility: Invalid value: 3: too big"},
		{field.NotSupported(p, "X", []string{"PUBLIC", "NONE"}), "X", `policies[1].visibility: Unsupported value: "X": supported values: "PUBLIC", "NONE"`},
		{field.Forbidden(p, "not here"), "", "policies[1].visibility: Forbidden: not here"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := FromField(tt.in)
			assert.Equal(t, "policies[1].visibility", got.Field)
			assert.Empty(t, got.Where)
			assert.Equal(t, tt.value, got.Value)
			assert.Equal(t, tt.in.ErrorBody(), got.Detail)
			assert.NoError(t, got.Err)
			assert.Equal(t, tt.want, got.Error())
			assert.Equal(t, tt.in.Error(), got.Error(), "the same text as apimachinery's")
		})
	}
}

// TestValidLabelsMatchesApimachinery: the one-pass check accepts exactly the labels
// apimachinery's ValidateLabels finds no problem with, on random keys and values.
func TestValidLabelsMatchesApimachinery(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	const common, odd = "aZ9b", "-_./ A"
	word := func() string {
		n := r.IntN(8)
		if r.IntN(10) == 0 {
			n = 55 + r.IntN(20)
		}
		if r.IntN(20) == 0 {
			n = 240 + r.IntN(30)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = common[r.IntN(len(common))]
			if r.IntN(8) == 0 {
				b[i] = odd[r.IntN(len(odd))]
			}
		}
		return string(b)
	}
	valid := 0
	for range 20000 {
		ls := map[string]string{word(): word()}
		if r.IntN(2) == 0 {
			ls[word()+"/"+word()] = word()
		}
		want := len(metavalidation.ValidateLabels(ls, nil)) == 0
		require.Equal(t, want, validLabels(ls), "%q", ls)
		if want {
			valid++
		}
	}
	assert.Greater(t, valid, 2000, "valid labels among the random ones")
	assert.Less(t, valid, 18000, "invalid labels among the random ones")
}

// FuzzValidLabels holds the one-pass label check to apimachinery's ValidateLabels.
func FuzzValidLabels(f *testing.F) {
	for _, kv := range [][2]string{{"app", "web"}, {"example.com/tier", ""}, {"a/b/c", "x"}, {"k", "v v"}, {"", "x"}, {"A.b/c", "d"}, {"a-/b", "c"}} {
		f.Add(kv[0], kv[1])
	}
	f.Fuzz(func(t *testing.T, k, v string) {
		ls := map[string]string{k: v}
		if want := len(metavalidation.ValidateLabels(ls, nil)) == 0; want != validLabels(ls) {
			t.Fatalf("%q: apimachinery accepts it: %v", ls, want)
		}
	})
}

// objectRoot is the root of an object.
func objectRoot() fielderr.Path { return fielderr.Root(fielderr.Object) }
