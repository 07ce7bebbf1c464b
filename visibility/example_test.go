package visibility_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility"
)

const meshConfig = `
apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  meshConfig:
    serviceEntryVisibility:
      defaultVisibility: NAMESPACE
      applyToSidecars: true
      policies:
      - visibility: PUBLIC
        matchingRules:
        - namespaceSelector:
            matchLabels: {team: platform}
      - visibility: NONE
        matchingRules:
        - namespaceSelector:
            matchExpressions: [{key: env, operator: In, values: [sandbox]}]
`

func ExampleLoadConfig() {
	c, err := visibility.LoadConfig([]byte(meshConfig))
	if err != nil {
		panic(err)
	}
	fmt.Println(c.DefaultVisibility, len(c.Policies), c.ApplyToSidecars)

	// A misspelt field is an error, not a selector that matches every namespace.
	_, err = visibility.LoadConfig([]byte(`
serviceEntryVisibility:
  policies:
  - visibility: NONE
    matchingRules:
    - namespaceSelector: {match_labels: {env: sandbox}}
`))
	fmt.Println(err)
	// Output:
	// NAMESPACE 2 true
	// serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)
}

func ExampleResolver_Resolve() {
	c, err := visibility.LoadConfig([]byte(meshConfig))
	if err != nil {
		panic(err)
	}
	r, err := visibility.Compile(c)
	if err != nil {
		panic(err)
	}
	for _, ns := range []labels.Set{
		{"team": "platform"},
		{"team": "shop", "env": "sandbox"},
		{"team": "shop"},
		nil, // a namespace that does not exist
	} {
		fmt.Printf("%-30v %v\n", ns, r.Resolve(ns))
	}
	// Output:
	// team=platform                  PUBLIC (policies[0])
	// env=sandbox,team=shop          NONE (policies[1])
	// team=shop                      NAMESPACE (default)
	//                                NAMESPACE (default)
}

func ExampleResolver_Explain() {
	c, _ := visibility.LoadConfig([]byte(meshConfig))
	r, _ := visibility.Compile(c)
	fmt.Println(r.Explain(labels.Set{"team": "shop", "env": "sandbox"}))
	// Output:
	// policies[0] PUBLIC: no match: matchingRules[0] (team=platform) does not select the namespace
	// policies[1] NONE: matches, decides
	// => NONE by policies[1]
}

func ExampleEffectiveExportTo() {
	// An entry in namespace "shop" exported to everyone, whose visibility is NAMESPACE.
	declared := []string{"*"}
	fmt.Println(visibility.EffectiveExportTo(declared, nil, "shop", visibility.Namespace, true))
	fmt.Println(visibility.EffectiveExportTo(declared, nil, "shop", visibility.Namespace, false))

	// Exported only to "infra": NAMESPACE visibility leaves no one.
	eff := visibility.EffectiveExportTo([]string{"infra"}, nil, "shop", visibility.Namespace, true)
	fmt.Println(eff, visibility.ExportedTo(eff, "shop", "infra"))
	// Output:
	// [.]
	// [*]
	// [~] false
}

func ExampleWaypointBinding() {
	c := visibility.WaypointBinding("shop", "infra", visibility.Namespace)
	fmt.Println(c.Type, c.Status, c.Reason)
	// Output:
	// istio.io/WaypointBound False CrossNamespaceWaypointForbidden
}

func ExampleResolver_Lint() {
	r, err := visibility.Compile(&visibility.Config{
		DefaultVisibility: visibility.Namespace,
		Policies: []visibility.Policy{
			{Visibility: visibility.Public}, // no rules: matches every namespace
			{Visibility: visibility.None},   // so this is never tried
		},
	})
	if err != nil {
		panic(err)
	}
	for _, f := range r.Lint() {
		fmt.Println(f)
	}
	// Output:
	// WARNING Unreachable policies[1]: policies[0] matches every namespace, so this policy is never tried
}

func ExampleResolver_Condition() {
	r, _ := visibility.Compile(&visibility.Config{DefaultVisibility: visibility.Namespace})
	c := r.Condition(r.Resolve(nil))
	fmt.Println(c.Type, c.Status, c.Reason)
	fmt.Println(c.Message)
	// Output:
	// istio.io/VisibilityApplied True Namespace
	// visibility NAMESPACE: no policy matched the namespace, the default applies; only workloads in the entry's own namespace can discover and reach it
}
