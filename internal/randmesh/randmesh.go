// Package randmesh makes random serviceEntryVisibility configurations, label selectors and
// namespace labels for the property tests of meshscope's Istio packages, from a small
// alphabet of keys and values so that selectors and labels often meet.
package randmesh

import (
	"math/rand/v2"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/visibility"
)

// Keys, Values and Visibilities are the alphabet random values are drawn from.
var (
	Keys         = []string{"team", "env", "trusted", visibility.NamespaceNameLabel}
	Values       = []string{"a", "b", "c", ""}
	Visibilities = []visibility.Visibility{"", visibility.Public, visibility.Namespace, visibility.None, visibility.Unspecified}
)

// Selector returns a random label selector: match labels and requirements of every
// operator.
func Selector(r *rand.Rand) *metav1.LabelSelector {
	s := &metav1.LabelSelector{}
	for range r.IntN(3) {
		if s.MatchLabels == nil {
			s.MatchLabels = map[string]string{}
		}
		s.MatchLabels[Keys[r.IntN(len(Keys))]] = Values[r.IntN(len(Values))]
	}
	for range r.IntN(3) {
		e := metav1.LabelSelectorRequirement{Key: Keys[r.IntN(len(Keys))]}
		switch r.IntN(4) {
		case 0, 1:
			e.Operator = []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn}[r.IntN(2)]
			for range 1 + r.IntN(2) {
				e.Values = append(e.Values, Values[r.IntN(len(Values))])
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

// Config returns a random configuration of up to maxPolicies policies, each of up to two
// rules.
func Config(r *rand.Rand, maxPolicies int) *visibility.Config {
	c := &visibility.Config{DefaultVisibility: Visibilities[r.IntN(len(Visibilities))]}
	for range r.IntN(maxPolicies + 1) {
		p := visibility.Policy{Visibility: Visibilities[r.IntN(len(Visibilities))]}
		for range r.IntN(3) {
			p.MatchingRules = append(p.MatchingRules, visibility.MatchingRule{NamespaceSelector: Selector(r)})
		}
		c.Policies = append(c.Policies, p)
	}
	return c
}

// Labels returns random namespace labels; nil one time in ten (a namespace without labels).
func Labels(r *rand.Rand) map[string]string {
	if r.IntN(10) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, k := range Keys {
		if r.IntN(2) == 0 {
			m[k] = Values[r.IntN(len(Values))]
		}
	}
	return m
}
