package exportto_test

import (
	"fmt"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/release"
)

// A VirtualService of shop exported to its own namespace and to web.
func ExampleParse() {
	s := exportto.Parse([]string{".", "web"}, "shop")
	fmt.Println(s.To("shop"), s.To("web"), s.To("ops"))
	// Output: true true false
}

// A DestinationRule without an exportTo goes by the mesh's defaultDestinationRuleExportTo:
// one holding "." keeps it in its namespace; any other leaves it exported everywhere.
func ExampleRuleListOf() {
	fmt.Println(exportto.RuleListOf(nil, []string{".", "web"}, false))
	fmt.Println(exportto.RuleListOf(nil, []string{"web"}, false))
	fmt.Println(exportto.ListOf(nil, []string{"web"}))
	// Output:
	// [.]
	// [*]
	// [web]
}

// A mesh default of names alone: before 1.30.3 istiod honours only "." and "*" in it, so
// objects without their own list are exported nowhere; from 1.30.3 to the namespaces named.
func ExampleDefaultList() {
	for _, istio := range []string{"1.30.2", "1.30.3"} {
		list := exportto.DefaultList([]string{"web"}, release.Make(istio, "", nil))
		fmt.Println(istio, list, exportto.Parse(list, "shop").To("web"))
	}
	// Output:
	// 1.30.2 [~] false
	// 1.30.3 [web] true
}
