package exportto_test

import (
	"fmt"

	"github.com/meshscope/meshscope/internal/exportto"
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
