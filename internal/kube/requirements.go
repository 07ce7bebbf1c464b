package kube

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Requirement is a label selector requirement in a normal form: Equals is In with one value,
// NotEquals is NotIn with one value, values sorted. Implies and Contradict reason about
// conjunctions of them, for lints that find selectors that never match or always match
// less than another.
type Requirement struct {
	Key    string
	Op     selection.Operator
	Values []string // sorted
}

// RequirementsOf returns the requirements of a selector, in normal form.
func RequirementsOf(s labels.Selector) []Requirement {
	rs, _ := s.Requirements()
	out := make([]Requirement, 0, len(rs))
	for _, r := range rs {
		op := r.Operator()
		switch op {
		case selection.Equals, selection.DoubleEquals:
			op = selection.In
		case selection.NotEquals:
			op = selection.NotIn
		}
		vals := r.ValuesUnsorted()
		slices.Sort(vals)
		out = append(out, Requirement{Key: r.Key(), Op: op, Values: vals})
	}
	return out
}

// Implies reports whether every label set satisfying all of have also satisfies all of want,
// comparing requirements one by one: true when each of want follows from one requirement of
// have. A true answer always holds. It is exact for the operators of a LabelSelector (In,
// NotIn, Exists, DoesNotExist) when have puts at most one requirement on each key; otherwise
// an implication that takes several requirements of have on one key together (team in (a, b)
// and team notin (a) imply team=b), or holds only because have matches nothing, is missed.
// Gt and Lt requirements imply nothing and are implied by nothing.
func Implies(have, want []Requirement) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h Requirement) bool { return reqImplies(h, w) }) {
			return false
		}
	}
	return true
}

// reqImplies reports whether a label set satisfying h always satisfies w (same key only):
// whether h and the negation of w can never hold together.
func reqImplies(h, w Requirement) bool {
	not, ok := negation(w)
	return ok && h.Key == w.Key && (excludes(h, not) || excludes(not, h))
}

// negation returns the requirement a label set satisfies exactly when it does not satisfy r
// (In and NotIn, Exists and DoesNotExist swapped); false for Gt and Lt, whose negations no
// operator states.
func negation(r Requirement) (Requirement, bool) {
	switch r.Op {
	case selection.In:
		r.Op = selection.NotIn
	case selection.NotIn:
		r.Op = selection.In
	case selection.Exists:
		r.Op = selection.DoesNotExist
	case selection.DoesNotExist:
		r.Op = selection.Exists
	default:
		return r, false
	}
	return r, true
}

// Contradict reports whether no label set satisfies all of rs, comparing them two by two. A
// true answer always holds. It is exact for the operators of a LabelSelector when no key
// carries more than two requirements; a contradiction that takes three on one key (team in
// (a, b), team notin (a), team notin (b)) is missed. Gt and Lt requirements contradict
// nothing.
func Contradict(rs []Requirement) bool {
	for i, a := range rs {
		for _, b := range rs[i+1:] {
			if a.Key == b.Key && (excludes(a, b) || excludes(b, a)) {
				return true
			}
		}
	}
	return false
}

// excludes reports whether a and b on the same key can never hold together.
func excludes(a, b Requirement) bool {
	switch a.Op {
	case selection.In:
		switch b.Op {
		case selection.In:
			return disjoint(a.Values, b.Values)
		case selection.NotIn:
			return subset(a.Values, b.Values)
		case selection.DoesNotExist:
			return true
		}
	case selection.Exists:
		return b.Op == selection.DoesNotExist
	}
	return false
}

// subset reports whether every value of a is in b (both sorted).
func subset(a, b []string) bool {
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); !ok {
			return false
		}
	}
	return true
}

// disjoint reports whether no value of a is in b (b sorted).
func disjoint(a, b []string) bool {
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); ok {
			return false
		}
	}
	return true
}
