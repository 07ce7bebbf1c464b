package visibility

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
