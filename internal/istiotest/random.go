package istiotest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Keys, Values and Visibilities are the alphabet random values are drawn from: label keys
// (kubernetes.io/metadata.name, the label Kubernetes gives every namespace, among them),
// label values, and serviceEntryVisibility's visibilities as meshConfig spells them ("" for
// none given).
var (
	Keys         = []string{"team", "env", "trusted", "kubernetes.io/metadata.name"}
	Values       = []string{"a", "b", "c", ""}
	Visibilities = []string{"", "PUBLIC", "NAMESPACE", "NONE", "VISIBILITY_UNSPECIFIED"}
)

// Selector returns a random label selector over Keys and Values: up to two match labels and
// up to two requirements of every operator.
func Selector(r *rand.Rand) *metav1.LabelSelector {
	return SelectorOver(r, Keys, Values)
}

// SelectorOver is Selector over the alphabet keys and values.
func SelectorOver(r *rand.Rand, keys, values []string) *metav1.LabelSelector {
	s := &metav1.LabelSelector{}
	for range r.IntN(3) {
		if s.MatchLabels == nil {
			s.MatchLabels = map[string]string{}
		}
		s.MatchLabels[keys[r.IntN(len(keys))]] = values[r.IntN(len(values))]
	}
	for range r.IntN(3) {
		e := metav1.LabelSelectorRequirement{Key: keys[r.IntN(len(keys))]}
		switch r.IntN(4) {
		case 0, 1:
			e.Operator = []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn}[r.IntN(2)]
			for range 1 + r.IntN(2) {
				e.Values = append(e.Values, values[r.IntN(len(values))])
			}
		case 2:
			e.Operator = metav1.LabelSelectorOpExists
		default:
			e.Operator = metav1.LabelSelectorOpDoesNotExist
		}
		s.MatchExpressions = append(s.MatchExpressions, e)
	}
	return s
}

// Labels returns random namespace labels over Keys and Values; nil one time in ten (a
// namespace without labels).
func Labels(r *rand.Rand) map[string]string {
	if r.IntN(10) == 0 {
		return nil
	}
	return LabelsOver(r, Keys, Values)
}

// LabelsOver returns random labels over the alphabet keys and values: each key, one time in
// two, with a random value. It never returns nil.
func LabelsOver(r *rand.Rand, keys, values []string) map[string]string {
	m := map[string]string{}
	for _, k := range keys {
		if r.IntN(2) == 0 {
			m[k] = values[r.IntN(len(values))]
		}
	}
	return m
}

// VisibilityBlock returns a random serviceEntryVisibility block as meshConfig spells it: a
// default visibility, and up to maxPolicies policies of up to two matching rules each, every
// rule with a Selector. A visibility drawn as "" is left out, as are empty lists.
func VisibilityBlock(r *rand.Rand, maxPolicies int) map[string]any {
	block := map[string]any{}
	put := func(m map[string]any, key, v string) {
		if v != "" {
			m[key] = v
		}
	}
	put(block, "defaultVisibility", Visibilities[r.IntN(len(Visibilities))])
	var policies []any
	for range r.IntN(maxPolicies + 1) {
		p := map[string]any{}
		put(p, "visibility", Visibilities[r.IntN(len(Visibilities))])
		var rules []any
		for range r.IntN(3) {
			rules = append(rules, map[string]any{"namespaceSelector": Selector(r)})
		}
		if rules != nil {
			p["matchingRules"] = rules
		}
		policies = append(policies, p)
	}
	if policies != nil {
		block["policies"] = policies
	}
	return block
}

// Config returns a random serviceEntryVisibility configuration (VisibilityBlock) decoded
// into C, the caller's type of the block (visibility.Config), through its JSON decoding: so
// this package, which the visibility packages' tests import, need not import them. It panics
// if C does not decode the block, which is a mistake in the test that asks.
func Config[C any](r *rand.Rand, maxPolicies int) *C {
	return decodeBlock[C](VisibilityBlock(r, maxPolicies))
}

// ManyPolicies returns a serviceEntryVisibility configuration of n policies for benchmarks,
// decoded into C as Config does: NAMESPACE by default, policy i PUBLIC (even i) or NONE (odd
// i) for the namespaces of team t<i> in env prod or stage, so that a namespace of the last
// team walks every policy.
func ManyPolicies[C any](n int) *C {
	var policies []any
	for i := range n {
		policies = append(policies, map[string]any{"visibility": []string{"PUBLIC", "NONE"}[i%2], "matchingRules": []any{
			map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "t" + strconv.Itoa(i)}}},
			map[string]any{"namespaceSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "env", "operator": "In", "values": []any{"prod", "stage"}}}}},
		}})
	}
	return decodeBlock[C](map[string]any{"defaultVisibility": "NAMESPACE", "policies": policies})
}

// decodeBlock decodes a serviceEntryVisibility block into C, panicking if C does not decode it.
func decodeBlock[C any](block map[string]any) *C {
	raw, err := json.Marshal(block)
	if err != nil {
		panic(err)
	}
	c := new(C)
	if err := json.Unmarshal(raw, c); err != nil {
		panic(fmt.Sprintf("istiotest: %s does not decode: %v", raw, err))
	}
	return c
}

// RepeatingInts returns a random list of keys for a check of repeats: of a length below
// short, or one time in ten below 3,000, its values drawn from a spread of up to twice its
// length, so that a list has few repeats or many.
func RepeatingInts(r *rand.Rand, short int) []int {
	n := r.IntN(short)
	if r.IntN(10) == 0 {
		n = r.IntN(3000)
	}
	keys := make([]int, n)
	spread := 1 + r.IntN(2*n+1)
	for i := range keys {
		keys[i] = r.IntN(spread)
	}
	return keys
}

// Shuffled returns a copy of list in a random order (list itself is left as it is), for a
// test that an answer does not depend on input order.
func Shuffled[T any](r *rand.Rand, list []T) []T {
	out := slices.Clone(list)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// NameLike returns a random string of the characters Kubernetes and Istio names are made of,
// and a few they refuse ("*", "/", " ", "+"): mostly up to 11 characters, one in twenty
// 60 to 259, past every length limit.
func NameLike(r *rand.Rand) string {
	const chars = "aZ09-*._/ +"
	n := r.IntN(12)
	if r.IntN(20) == 0 {
		n = 60 + r.IntN(200)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}
