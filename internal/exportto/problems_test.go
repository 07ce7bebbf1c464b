package exportto

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/names"
)

// specExportTo is the path of an object's spec.exportTo.
func specExportTo() fielderr.Path {
	return fielderr.Root(fielderr.Object).Child("spec").Child("exportTo")
}

// TestProblems: each rule's problems, as Problems names them.
func TestProblems(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
		list []string
		errs []string
	}{
		// A VirtualService's or a DestinationRule's list: "~" is refused, repeats are Istio's.
		{"config: none", Config, []string{"~"}, []string{`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`}},
		{"config: none twice", Config, []string{"~", "~"}, []string{
			`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`,
			`spec.exportTo[1]: exportTo ~ (none) is not allowed for Istio configuration objects`,
		}},
		{"config: none with own", Config, []string{".", "~"}, []string{`spec.exportTo[1]: exportTo ~ (none) is not allowed for Istio configuration objects`}},
		{"config: own and others", Config, []string{".", "infra"}, nil},
		{"config: all", Config, []string{"*"}, nil},
		{"config: all with own", Config, []string{".", "*"}, []string{`spec.exportTo[1]: cannot have both public (*) and non-public exportTo values for a resource`}},
		{"config: own by name twice", Config, []string{".", "shop"}, []string{`spec.exportTo[1]: duplicate entries in exportTo for entry shop (it repeats spec.exportTo[0], ".")`}},
		{"config: not a label", Config, []string{"a_b"}, []string{`spec.exportTo[0]: only .,*, or a valid DNS 1123 label is allowed as exportTo entry: "a_b" must not contain '_' (allowed: a-z, 0-9 and "-")`}},
		// A DestinationRule with a workloadSelector: its own namespace only.
		{"selector: own", SelectorRule, []string{"."}, nil},
		{"selector: own by name", SelectorRule, []string{"shop"}, nil},
		{"selector: empty", SelectorRule, nil, nil},
		{"selector: beyond", SelectorRule, []string{"nowhere", "infra"}, []string{`spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace`}},
		{"selector: all", SelectorRule, []string{"*"}, []string{`spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace`}},
		{"selector: own and another", SelectorRule, []string{".", "infra"}, []string{`spec.exportTo: destination rule with workload selector cannot have multiple entries in exportTo`}},
		{"selector: none", SelectorRule, []string{"~"}, []string{`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`}},
		// A ServiceEntry's list: "~" alone.
		{"entry: none twice", Entry, []string{"~", "~"}, []string{
			`spec.exportTo[1]: duplicate entries in exportTo for entry ~ (it repeats spec.exportTo[0], "~")`,
			`spec.exportTo[0]: cannot export service entry to no one (~) and someone`,
		}},
		// The lists Istio does not validate keep meshscope's words.
		{"annotation: repeats accepted", Annotation, []string{".", "shop", "shop"}, nil},
		{"annotation: all with others", Annotation, []string{"*", "."}, []string{`spec.exportTo[0]: "*" must be the only value`}},
		{"mesh: dot twice", Mesh, []string{".", "."}, []string{`spec.exportTo[1]: "." repeats spec.exportTo[0] (".")`}},
		{"mesh: dot and a name", Mesh, []string{".", "shop"}, nil},
		{"mesh: all beside others, as Istio reads it", Mesh, []string{".", "*", "shop"}, nil},
		{"mesh: none beside others, read release by release", Mesh, []string{".", "~"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Problems(specExportTo, "shop", tt.list, tt.rule) {
				got = append(got, p.Error())
			}
			assert.Equal(t, tt.errs, got)
		})
	}
}

// referenceProblems is Istio's validation of an exportTo list, transcribed as
// plainly as it reads, with a map for its set, plus meshscope's refusal of upper case: the
// reference Problems is held to for the rules Istio validates.
func referenceProblems(field, namespace string, list []string, rule Rule) []string {
	istioLabel := regexp.MustCompile(`^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`)
	var out []string
	set := map[string]int{}
	at := func(i int) string { return field + "[" + strconv.Itoa(i) + "]" }
	for i, v := range list {
		key := v
		if v == "." {
			key = namespace
		}
		if j, ok := set[key]; ok {
			if key != v {
				out = append(out, fmt.Sprintf("%s: duplicate entries in exportTo: . and current namespace %s (it repeats %s, %q)", at(i), namespace, at(j), list[j]))
			} else {
				out = append(out, fmt.Sprintf("%s: duplicate entries in exportTo for entry %s (it repeats %s, %q)", at(i), v, at(j), list[j]))
			}
			continue
		}
		if rule == Entry && v == "~" {
			set[key] = i
			continue
		}
		switch {
		case key == "." || key == "*":
		case key == "~":
			out = append(out, at(i)+": exportTo ~ (none) is not allowed for Istio configuration objects")
			continue
		case !istioLabel.MatchString(key) || len(key) > 63:
			out = append(out, fmt.Sprintf("%s: only .,*, or a valid DNS 1123 label is allowed as exportTo entry: %q %s", at(i), v, names.Label(v)))
			continue
		case strings.ToLower(key) != key:
			out = append(out, fmt.Sprintf("%s: %q is not \"*\", \".\", \"~\" or a namespace name: %s", at(i), v, names.Label(v)))
		}
		set[key] = i
	}
	if rule == SelectorRule && len(set) > 0 {
		if _, own := set[namespace]; !own {
			out = append(out, field+": destination rule with workload selector cannot have exportTo beyond current namespace")
		} else if len(set) > 1 {
			out = append(out, field+": destination rule with workload selector cannot have multiple entries in exportTo")
		}
	}
	if j, ok := set["*"]; ok && len(list) > 1 {
		out = append(out, at(j)+": cannot have both public (*) and non-public exportTo values for a resource")
	}
	if j, ok := set["~"]; ok && len(list) > 1 {
		out = append(out, at(j)+": cannot export service entry to no one (~) and someone")
	}
	return out
}

// TestProblemsMatchReference holds Problems to the reference on random
// lists, short and longer than the set it keeps in place.
func TestProblemsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	values := []string{".", "*", "~", "shop", "infra", "web", "Shop", "a.b", "", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"}
	for range longtest.N(1000, 20000) {
		list := make([]string, r.IntN(20))
		for i := range list {
			list[i] = values[r.IntN(len(values))]
		}
		for _, rule := range []Rule{Entry, Config, SelectorRule} {
			var got []string
			for _, p := range Problems(func() fielderr.Path { return fielderr.Root(fielderr.Object).Child("f") }, "shop", list, rule) {
				got = append(got, p.Error())
			}
			require.Equal(t, referenceProblems("f", "shop", list, rule), got, "rule %d, list %q", rule, list)
		}
	}
}

// TestProblemsAllocateNothingWhenValid: the lists objects carry cost nothing to
// check.
func TestProblemsAllocateNothingWhenValid(t *testing.T) {
	for _, list := range [][]string{nil, {"."}, {"*"}, {".", "infra", "web"}} {
		for _, rule := range []Rule{Entry, Config, Annotation} {
			assert.Zero(t, testing.AllocsPerRun(100, func() { Problems(specExportTo, "shop", list, rule) }), "%q", list)
		}
	}
}

// namesList is a valid exportTo list of n namespace names.
func namesList(n int) []string {
	list := make([]string, n)
	for i := range list {
		list[i] = "ns-" + strconv.Itoa(i)
	}
	return list
}

// TestProblemsLinear: a long list (past the entries entrySet holds in place) costs linear
// time: at 4x the entries, at most 4x the allocations and bytes.
func TestProblemsLinear(t *testing.T) {
	work := func(n int) (allocs, bytes float64) {
		list := namesList(n)
		return growth.Allocated(func() { Problems(specExportTo, "shop", list, Entry) })
	}
	sa, sb := work(1000)
	la, lb := work(4000)
	assert.LessOrEqual(t, la, 4*sa+1, "allocations at 1,000 entries: %v, at 4,000: %v", sa, la)
	assert.LessOrEqual(t, lb, 4.5*sb, "bytes at 1,000 entries: %v, at 4,000: %v", sb, lb)
}

var problemsSink int

// BenchmarkProblems: the lists objects carry (one to eight entries). (Its entrySet, a map,
// allocates nothing for them; a second path that kept up to 16 entries in an array was
// 1.23x, 1.5x and 1.08x as fast at 1, 3 and 8 entries, which did not earn it its place.)
func BenchmarkProblems(b *testing.B) {
	for _, n := range []int{1, 3, 8} {
		list := namesList(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				problemsSink += len(Problems(specExportTo, "shop", list, Entry))
			}
		})
	}
}
