package visibility

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/names"
)

// validateExportToTests: exportTo lists and their problems; FuzzValidateExportTo starts from
// them.
var validateExportToTests = []struct {
	name     string
	ns       string
	exportTo []string
	errs     []string
}{
	{"empty", "shop", nil, nil},
	{"all", "shop", []string{"*"}, nil},
	{"none", "shop", []string{"~"}, nil},
	{"own", "shop", []string{"."}, nil},
	{"own and others", "shop", []string{".", "infra", "web"}, nil},
	{"own by name", "shop", []string{"shop"}, nil},
	{"all with others", "shop", []string{"*", "infra"}, []string{`exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource`}},
	{"none with others", "shop", []string{".", "~"}, []string{`exportTo[1]: cannot export service entry to no one (~) and someone`}},
	{"duplicate name", "shop", []string{"infra", "web", "infra"}, []string{`exportTo[2]: duplicate entries in exportTo for entry infra (it repeats exportTo[0], "infra")`}},
	{"dot and own name", "shop", []string{".", "shop"}, []string{`exportTo[1]: duplicate entries in exportTo for entry shop (it repeats exportTo[0], ".")`}},
	{"own name and dot", "shop", []string{"shop", "."}, []string{`exportTo[1]: duplicate entries in exportTo: . and current namespace shop (it repeats exportTo[0], "shop")`}},
	{"bad name", "shop", []string{"Infra", "a.b"}, []string{
		`exportTo[0]: "Infra" is not "*", ".", "~" or a namespace name: must be lower case`,
		`exportTo[1]: only .,*, or a valid DNS 1123 label is allowed as exportTo entry: "a.b" must not contain "." (the label separator)`,
	}},
	{"bad namespace", "", []string{"."}, []string{`namespace: "" must not be empty`}},
	{"several problems", "shop", []string{"*", "~"}, []string{
		`exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource`,
		`exportTo[1]: cannot export service entry to no one (~) and someone`,
	}},
	{"all twice", "shop", []string{"*", "*"}, []string{
		`exportTo[1]: duplicate entries in exportTo for entry * (it repeats exportTo[0], "*")`,
		`exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource`,
	}},
}

func TestValidateExportTo(t *testing.T) {
	tests := validateExportToTests
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateExportTo(tt.ns, tt.exportTo)
			if tt.errs == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, strings.Join(tt.errs, "\n"), err.Error())
		})
	}
}

func TestEffectiveExportTo(t *testing.T) {
	tests := []struct {
		name        string
		declared    []string
		meshDefault []string
		v           Visibility
		apply       bool
		want        []string
	}{
		{"public keeps the list", []string{"infra", "."}, nil, Public, true, []string{"infra", "."}},
		{"unspecified is public", []string{"infra"}, nil, "", true, []string{"infra"}},
		{"empty uses mesh default", nil, []string{".", "infra"}, Public, true, []string{".", "infra"}},
		{"empty mesh default is all", nil, nil, Public, true, []string{"*"}},
		{"namespace narrows all", []string{"*"}, nil, Namespace, true, []string{"."}},
		{"namespace narrows mesh default all", nil, nil, Namespace, true, []string{"."}},
		{"namespace keeps own", []string{"infra", "."}, nil, Namespace, true, []string{"."}},
		{"namespace keeps own by name", []string{"shop", "infra"}, nil, Namespace, true, []string{"."}},
		{"namespace without own is none", []string{"infra"}, nil, Namespace, true, []string{"~"}},
		{"none is none", []string{"*"}, nil, None, true, []string{"~"}},
		{"tilde stays", []string{"~"}, nil, Public, true, []string{"~"}},
		{"tilde stays for namespace", []string{"~"}, nil, Namespace, true, []string{"~"}},
		{"without applyToSidecars nothing changes", []string{"*"}, nil, None, false, []string{"*"}},
		{"without applyToSidecars namespace unchanged", []string{"infra"}, nil, Namespace, false, []string{"infra"}},
		{"without applyToSidecars default applies", nil, []string{"."}, None, false, []string{"."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, EffectiveExportTo(tt.declared, tt.meshDefault, "shop", tt.v, tt.apply))
		})
	}
}

func TestExportedTo(t *testing.T) {
	tests := []struct {
		name      string
		effective []string
		client    string
		want      bool
	}{
		{"all", []string{"*"}, "infra", true},
		{"all to empty client", []string{"*"}, "", true},
		{"none", []string{"~"}, "shop", false},
		{"own to own", []string{"."}, "shop", true},
		{"own to other", []string{"."}, "infra", false},
		{"own to empty client", []string{"."}, "", false},
		{"by name", []string{"infra", "web"}, "web", true},
		{"by name other", []string{"infra"}, "web", false},
		{"own namespace by name", []string{"shop"}, "shop", true},
		{"empty list", nil, "shop", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ExportedTo(tt.effective, "shop", tt.client))
		})
	}
}

// exportToLists returns every non-empty list without repeats drawn from values, in every
// order.
func exportToLists(values []string) [][]string {
	var out [][]string
	var rec func(cur []string, used []bool)
	rec = func(cur []string, used []bool) {
		if len(cur) > 0 {
			out = append(out, append([]string(nil), cur...))
		}
		for i, v := range values {
			if !used[i] {
				used[i] = true
				rec(append(cur, v), used)
				used[i] = false
			}
		}
	}
	rec(nil, make([]bool, len(values)))
	return out
}

// TestVisibilityOnlyNarrows checks exhaustively, over every valid exportTo list drawn from
// {*, ., ~, own, two others}, every visibility, applyToSidecars on and off and several
// clients, that the effective scope is exactly exportTo ∩ visibility when applyToSidecars is
// on, exactly exportTo when off, and so never wider.
func TestVisibilityOnlyNarrows(t *testing.T) {
	const ns = "shop"
	clients := []string{ns, "infra", "web", "other", ""}
	allowed := func(v Visibility, client string) bool {
		switch v.effective() {
		case None:
			return false
		case Namespace:
			return client == ns
		}
		return true
	}
	valid, checked := 0, 0
	for _, list := range exportToLists([]string{"*", ".", "~", ns, "infra", "web"}) {
		if ValidateExportTo(ns, list) != nil {
			continue
		}
		valid++
		for _, v := range []Visibility{Public, Namespace, None} {
			for _, apply := range []bool{false, true} {
				eff := EffectiveExportTo(list, nil, ns, v, apply)
				require.Equal(t, eff, EffectiveExportTo(nil, list, ns, v, apply), "the mesh default stands in for an empty list")
				require.NoError(t, ValidateExportTo(ns, eff), "effective list of %v must be valid", list)
				for _, c := range clients {
					declared := ExportedTo(list, ns, c)
					got := ExportedTo(eff, ns, c)
					want := declared
					if apply {
						want = declared && allowed(v, c)
					}
					require.Equal(t, want, got, "exportTo %v, %s, applyToSidecars %v, client %q: effective %v", list, v, apply, c, eff)
					if got && !declared {
						t.Fatalf("visibility widened exportTo %v to %v for client %q", list, eff, c)
					}
					checked++
				}
			}
		}
	}
	// "*" and "~" alone, and the 64 ordered lists from {., shop, infra, web} less the 38 that
	// hold both "." and "shop".
	assert.Equal(t, 2+64-38, valid)
	assert.Equal(t, valid*3*2*len(clients), checked)
}

func FuzzValidateExportTo(f *testing.F) {
	f.Add("shop", "*")
	f.Add("shop", ".,infra")
	f.Add("shop", "shop,.")
	f.Add("shop", "~,*")
	for _, tt := range validateExportToTests {
		f.Add(tt.ns, strings.Join(tt.exportTo, ","))
	}
	f.Fuzz(func(t *testing.T, ns, joined string) {
		var list []string
		if joined != "" {
			list = strings.Split(joined, ",")
		}
		if ValidateExportTo(ns, list) != nil || len(list) > 100 {
			return // the checks below are quadratic in the list's length
		}
		for _, v := range []Visibility{Public, Namespace, None} {
			eff := EffectiveExportTo(list, nil, ns, v, true)
			if err := ValidateExportTo(ns, eff); err != nil {
				t.Fatalf("effective list %v of %v is invalid: %v", eff, list, err)
			}
			for _, c := range append([]string{ns, ""}, list...) {
				if ExportedTo(eff, ns, c) && !ExportedTo(EffectiveExportTo(list, nil, ns, v, false), ns, c) {
					t.Fatalf("%s widened %v to %v for %q", v, list, eff, c)
				}
			}
		}
	})
}

// TestExportToProblems: each rule's problems, as ExportToProblems names them.
func TestExportToProblems(t *testing.T) {
	tests := []struct {
		name string
		rule ExportToRule
		list []string
		errs []string
	}{
		// A VirtualService's or a DestinationRule's list: "~" is refused, repeats are Istio's.
		{"config: none", ConfigExportTo, []string{"~"}, []string{`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`}},
		{"config: none twice", ConfigExportTo, []string{"~", "~"}, []string{
			`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`,
			`spec.exportTo[1]: exportTo ~ (none) is not allowed for Istio configuration objects`,
		}},
		{"config: none with own", ConfigExportTo, []string{".", "~"}, []string{`spec.exportTo[1]: exportTo ~ (none) is not allowed for Istio configuration objects`}},
		{"config: own and others", ConfigExportTo, []string{".", "infra"}, nil},
		{"config: all", ConfigExportTo, []string{"*"}, nil},
		{"config: all with own", ConfigExportTo, []string{".", "*"}, []string{`spec.exportTo[1]: cannot have both public (*) and non-public exportTo values for a resource`}},
		{"config: own by name twice", ConfigExportTo, []string{".", "shop"}, []string{`spec.exportTo[1]: duplicate entries in exportTo for entry shop (it repeats spec.exportTo[0], ".")`}},
		{"config: not a label", ConfigExportTo, []string{"a_b"}, []string{`spec.exportTo[0]: only .,*, or a valid DNS 1123 label is allowed as exportTo entry: "a_b" must not contain '_' (allowed: a-z, 0-9 and "-")`}},
		// A DestinationRule with a workloadSelector: its own namespace only.
		{"selector: own", SelectorRuleExportTo, []string{"."}, nil},
		{"selector: own by name", SelectorRuleExportTo, []string{"shop"}, nil},
		{"selector: empty", SelectorRuleExportTo, nil, nil},
		{"selector: beyond", SelectorRuleExportTo, []string{"nowhere", "infra"}, []string{`spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace`}},
		{"selector: all", SelectorRuleExportTo, []string{"*"}, []string{`spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace`}},
		{"selector: own and another", SelectorRuleExportTo, []string{".", "infra"}, []string{`spec.exportTo: destination rule with workload selector cannot have multiple entries in exportTo`}},
		{"selector: none", SelectorRuleExportTo, []string{"~"}, []string{`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`}},
		// A ServiceEntry's list: "~" alone.
		{"entry: none twice", EntryExportTo, []string{"~", "~"}, []string{
			`spec.exportTo[1]: duplicate entries in exportTo for entry ~ (it repeats spec.exportTo[0], "~")`,
			`spec.exportTo[0]: cannot export service entry to no one (~) and someone`,
		}},
		// The lists Istio does not validate keep meshscope's words.
		{"annotation: repeats accepted", AnnotationExportTo, []string{".", "shop", "shop"}, nil},
		{"annotation: all with others", AnnotationExportTo, []string{"*", "."}, []string{`spec.exportTo[0]: "*" must be the only value`}},
		{"mesh: dot twice", MeshExportTo, []string{".", "."}, []string{`spec.exportTo[1]: "." repeats spec.exportTo[0] (".")`}},
		{"mesh: dot and a name", MeshExportTo, []string{".", "shop"}, nil},
		{"mesh: all beside others, as Istio reads it", MeshExportTo, []string{".", "*", "shop"}, nil},
		{"mesh: none beside others, not yet read release by release", MeshExportTo, []string{".", "~"}, []string{`spec.exportTo[1]: "~" must be the only value`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range ExportToProblems("spec.exportTo", "shop", tt.list, tt.rule) {
				got = append(got, p.Error())
			}
			assert.Equal(t, tt.errs, got)
		})
	}
}

// referenceExportToProblems is Istio's validation of an exportTo list, transcribed as
// plainly as it reads, with a map for its set, plus meshscope's refusal of upper case: the
// reference ExportToProblems is held to for the rules Istio validates.
func referenceExportToProblems(field, namespace string, list []string, rule ExportToRule) []string {
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
		if rule == EntryExportTo && v == "~" {
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
	if rule == SelectorRuleExportTo && len(set) > 0 {
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

// TestExportToProblemsMatchReference holds ExportToProblems to the reference on random
// lists, short and longer than the set it keeps in place.
func TestExportToProblemsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	values := []string{".", "*", "~", "shop", "infra", "web", "Shop", "a.b", "", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"}
	for range longtest.N(1000, 20000) {
		list := make([]string, r.IntN(20))
		for i := range list {
			list[i] = values[r.IntN(len(values))]
		}
		for _, rule := range []ExportToRule{EntryExportTo, ConfigExportTo, SelectorRuleExportTo} {
			var got []string
			for _, p := range ExportToProblems("f", "shop", list, rule) {
				got = append(got, p.Error())
			}
			require.Equal(t, referenceExportToProblems("f", "shop", list, rule), got, "rule %d, list %q", rule, list)
		}
	}
}

// TestExportToProblemsAllocateNothingWhenValid: the lists objects carry cost nothing to
// check.
func TestExportToProblemsAllocateNothingWhenValid(t *testing.T) {
	for _, list := range [][]string{nil, {"."}, {"*"}, {".", "infra", "web"}} {
		for _, rule := range []ExportToRule{EntryExportTo, ConfigExportTo, AnnotationExportTo} {
			assert.Zero(t, testing.AllocsPerRun(100, func() { ExportToProblems("spec.exportTo", "shop", list, rule) }), "%q", list)
		}
	}
}
