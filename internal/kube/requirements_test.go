package kube

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/meshscope/meshscope/internal/longtest"
)

// parseReqs reads a selector in kubectl's syntax into requirements; "" is no requirement.
func parseReqs(t testing.TB, s string) []Requirement {
	t.Helper()
	sel, err := labels.Parse(s)
	require.NoError(t, err, s)
	return RequirementsOf(sel)
}

func TestRequirementsOf(t *testing.T) {
	req := func(key string, op selection.Operator, values ...string) Requirement {
		if values == nil {
			values = []string{}
		}
		return Requirement{Key: key, Op: op, Values: values}
	}
	tests := []struct {
		in   string
		want []Requirement
	}{
		{"", []Requirement{}},
		{"team=a", []Requirement{req("team", selection.In, "a")}},
		{"team==a", []Requirement{req("team", selection.In, "a")}},
		{"team!=a", []Requirement{req("team", selection.NotIn, "a")}},
		{"team in (c, a, b)", []Requirement{req("team", selection.In, "a", "b", "c")}},
		{"team notin (b, a)", []Requirement{req("team", selection.NotIn, "a", "b")}},
		{"team", []Requirement{req("team", selection.Exists)}},
		{"!team", []Requirement{req("team", selection.DoesNotExist)}},
		{"n>3,n<9", []Requirement{req("n", selection.GreaterThan, "3"), req("n", selection.LessThan, "9")}},
		// Sorted by key, as apimachinery sorts them.
		{"z=1,a in (y, x),m", []Requirement{req("a", selection.In, "x", "y"), req("m", selection.Exists), req("z", selection.In, "1")}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, parseReqs(t, tt.in))
		})
	}

	// From a LabelSelector, as the resolver and the scope builder convert them.
	sel, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{
		MatchLabels: map[string]string{"team": "a"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"test", "dev"}},
			{Key: "x", Operator: metav1.LabelSelectorOpExists},
		},
	})
	require.NoError(t, err)
	assert.Equal(t, []Requirement{req("env", selection.NotIn, "dev", "test"), req("team", selection.In, "a"), req("x", selection.Exists)}, RequirementsOf(sel))
	assert.Empty(t, RequirementsOf(labels.Everything()))
}

func TestImplies(t *testing.T) {
	tests := []struct {
		have, want string
		implies    bool
	}{
		{"", "", true},
		{"team=a", "", true},
		{"", "team=a", false},
		{"team=a", "team=a", true},
		{"team=a,env=prod", "team=a", true},
		{"team=a", "team=a,env=prod", false},
		{"team=a", "team in (a, b)", true},
		{"team in (a, b)", "team=a", false},
		{"team=a", "team", true},
		{"team in (a, b)", "team", true},
		{"team", "team", true},
		{"team notin (a)", "team", false},
		{"!team", "team", false},
		{"team=a", "team!=b", true},
		{"team in (a, b)", "team notin (b, c)", false},
		{"team notin (a, b)", "team!=a", true},
		{"team!=a", "team notin (a, b)", false},
		{"!team", "team notin (a, b)", true},
		{"team", "team!=a", false},
		{"!team", "!team", true},
		{"team!=a", "!team", false},
		{"team=a", "!team", false},
		{"env=a", "team=a", false},
		{"env=a", "!team", false},
		{"n>3", "n>3", false},
		{"n>3", "n", false},
	}
	for _, tt := range tests {
		t.Run(tt.have+" => "+tt.want, func(t *testing.T) {
			have, want := parseReqs(t, tt.have), parseReqs(t, tt.want)
			assert.Equal(t, tt.implies, Implies(have, want))
			if tt.implies {
				assert.True(t, refImplies(have, want), "the reference refutes it")
			}
		})
	}
}

func TestContradict(t *testing.T) {
	tests := []struct {
		in         string
		contradict bool
	}{
		{"", false},
		{"team=a", false},
		{"team=a,team=b", true},
		{"team=a,env=b", false},
		{"team in (a, b),team in (b, c)", false},
		{"team in (a, b),team notin (a, b)", true},
		{"team in (a, b),team notin (a)", false},
		{"team=a,!team", true},
		{"team,!team", true},
		{"team,team notin (a)", false},
		{"!team,team notin (a)", false},
		{"team notin (a),team notin (b)", false},
		{"team=a,env=b,!env", true},
		{"n>3,n<2", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			rs := parseReqs(t, tt.in)
			assert.Equal(t, tt.contradict, Contradict(rs))
			if tt.contradict {
				assert.True(t, refContradict(rs), "the reference refutes it")
			}
		})
	}
}

// The reference: label sets enumerated over a small alphabet, each matched with
// apimachinery's own selector. Besides the values requirements name, every key may take a
// value none names, so that a requirement cannot seem to hold only for want of values.
var (
	refKeys   = []string{"team", "env", "n"}
	refValues = []string{"a", "b", "", "1"} // what requirements name
	refFresh  = "zz"                        // what none names
)

// refLabelSets returns every label set over refKeys, each key absent or one of refValues or
// refFresh.
func refLabelSets() []labels.Set {
	choices := append([]string{"(absent)"}, append(slices.Clone(refValues), refFresh)...)
	sets := []labels.Set{{}}
	for _, k := range refKeys {
		var next []labels.Set
		for _, s := range sets {
			for _, v := range choices {
				c := labels.Set{}
				for kk, vv := range s {
					c[kk] = vv
				}
				if v != "(absent)" {
					c[k] = v
				}
				next = append(next, c)
			}
		}
		sets = next
	}
	return sets
}

var allLabelSets = refLabelSets()

// refSelector builds apimachinery's selector of rs.
func refSelector(rs []Requirement) labels.Selector {
	sel := labels.NewSelector()
	for _, r := range rs {
		req, err := labels.NewRequirement(r.Key, r.Op, r.Values)
		if err != nil {
			panic(fmt.Sprintf("%+v: %v", r, err))
		}
		sel = sel.Add(*req)
	}
	return sel
}

// refImplies reports whether every enumerated label set that have matches, want matches:
// whether none matches have and not want.
func refImplies(have, want []Requirement) bool {
	h, w := refSelector(have), refSelector(want)
	return !slices.ContainsFunc(allLabelSets, func(ls labels.Set) bool { return h.Matches(ls) && !w.Matches(ls) })
}

// refContradict reports whether no enumerated label set matches rs.
func refContradict(rs []Requirement) bool {
	sel := refSelector(rs)
	return !slices.ContainsFunc(allLabelSets, func(ls labels.Set) bool { return sel.Matches(ls) })
}

// randomSelector makes a selector of up to four requirements over the reference's alphabet,
// of every operator apimachinery parses; labelSelectorOps limits them to those a
// LabelSelector has.
func randomSelector(r *rand.Rand, labelSelectorOps bool) labels.Selector {
	ops := []selection.Operator{selection.In, selection.NotIn, selection.Exists, selection.DoesNotExist,
		selection.Equals, selection.DoubleEquals, selection.NotEquals, selection.GreaterThan, selection.LessThan}
	if labelSelectorOps {
		ops = ops[:4]
	}
	sel := labels.NewSelector()
	for range r.IntN(5) {
		key := refKeys[r.IntN(len(refKeys))]
		op := ops[r.IntN(len(ops))]
		var values []string
		switch op {
		case selection.In, selection.NotIn:
			for range 1 + r.IntN(3) {
				values = append(values, refValues[r.IntN(len(refValues))])
			}
		case selection.Equals, selection.DoubleEquals, selection.NotEquals:
			values = []string{refValues[r.IntN(len(refValues))]}
		case selection.GreaterThan, selection.LessThan:
			values = []string{[]string{"0", "1", "2"}[r.IntN(3)]}
		}
		req, err := labels.NewRequirement(key, op, values)
		if err != nil {
			panic(err)
		}
		sel = sel.Add(*req)
	}
	return sel
}

// perKey returns the most requirements rs puts on one key.
func perKey(rs []Requirement) int {
	n := map[string]int{}
	for _, r := range rs {
		n[r.Key]++
	}
	most := 0
	for _, c := range n {
		most = max(most, c)
	}
	return most
}

// TestRequirementsAgainstReference holds RequirementsOf, Implies and Contradict to the
// enumerated reference on random selectors. RequirementsOf's normal form matches what the
// selector matches. Implies and Contradict are sound: an implication or a contradiction they
// report holds for every label set. They compare requirements one or two at a time, so they
// may miss what only several requirements on one key say together; where that cannot
// happen, in selectors of a LabelSelector's operators with at most one requirement per key
// in have (Implies) or two per key (Contradict), they are exact.
func TestRequirementsAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var implied, contradictions, missed int
	n := longtest.N(2000, 50000)
	for i := range n {
		exactOps := i%2 == 0
		hs, ws := randomSelector(r, exactOps), randomSelector(r, exactOps)
		have, want := RequirementsOf(hs), RequirementsOf(ws)
		for _, rs := range [][]Requirement{have, want} {
			for _, q := range rs {
				require.True(t, slices.IsSorted(q.Values), "%+v", q)
				require.NotContains(t, []selection.Operator{selection.Equals, selection.DoubleEquals, selection.NotEquals}, q.Op)
			}
		}
		normal := refSelector(have)
		for _, ls := range allLabelSets {
			if hs.Matches(ls) != normal.Matches(ls) {
				t.Fatalf("%s on %v: the normal form %+v matches otherwise", hs, ls, have)
			}
		}

		both := slices.Concat(have, want)
		for _, c := range []struct {
			call     string
			got, ref bool
			exact    bool   // the answer must be the reference's
			unsound  string // what a true answer the reference refutes means
			trues    *int   // the count of true answers
		}{
			{"Implies", Implies(have, want), refImplies(have, want), exactOps && perKey(have) <= 1, "a label set matches the first and not the second", &implied},
			{"Contradict", Contradict(both), refContradict(both), exactOps && perKey(both) <= 2, "a label set matches both", &contradictions},
		} {
			if c.got && !c.ref {
				t.Fatalf("%s(%s, %s) is true, but %s", c.call, hs, ws, c.unsound)
			}
			if c.exact && c.got != c.ref {
				t.Fatalf("%s(%s, %s) = %v, the reference says %v", c.call, hs, ws, c.got, c.ref)
			}
			if c.ref && !c.got {
				missed++
			}
			if c.got {
				*c.trues++
			}
		}
	}
	refuted := n - implied
	// The random selectors must reach both answers often enough to test them.
	assert.Greater(t, implied, n/10)
	assert.Greater(t, refuted, n/10)
	assert.Greater(t, contradictions, n/10)
	t.Logf("implied %d, not implied %d, contradictions %d; %d true answers missed where not exact", implied, refuted, contradictions, missed)
}

// TestReferenceAlphabet: the enumeration is what it says, so that the reference is right.
func TestReferenceAlphabet(t *testing.T) {
	choices := len(refValues) + 2
	want := 1
	for range refKeys {
		want *= choices
	}
	require.Len(t, allLabelSets, want)
	seen := map[string]bool{}
	for _, ls := range allLabelSets {
		seen[ls.String()] = true
	}
	assert.Len(t, seen, want, "label sets repeat")
	assert.NotContains(t, refValues, refFresh)
	assert.False(t, strings.Contains(strings.Join(refKeys, ""), refFresh))
}
