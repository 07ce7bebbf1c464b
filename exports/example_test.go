package exports_test

import (
	"encoding/json"
	"fmt"

	"github.com/meshscope/meshscope/exports"
)

// entry is an exported-services entry as `consul config read` prints it.
const entry = `{
  "Kind": "exported-services",
  "Name": "default",
  "Services": [
    {"Name": "*", "Namespace": "default", "Consumers": [{"Peer": "east"}, {"Peer": "north"}]},
    {"Name": "db", "Namespace": "default", "Consumers": [{"Peer": "west"}]}
  ]
}`

func compile() *exports.Exports {
	var e exports.ConfigEntry
	if err := json.Unmarshal([]byte(entry), &e); err != nil {
		panic(err)
	}
	x, err := exports.Compile(e)
	if err != nil {
		panic(err)
	}
	return x
}

func ExampleExports_Match() {
	x := compile()
	for _, name := range []string{"web", "db", "consul"} {
		m, ok := x.Match(exports.ServiceName{Name: name})
		if !ok {
			fmt.Printf("%s: not exported\n", name)
			continue
		}
		fmt.Printf("%s: Services[%d] (%s) -> %v\n", name, m.Rule, m.Precedence, x.Peers(exports.ServiceName{Name: name}))
	}
	// Output:
	// web: Services[0] (wildcard name) -> [east north]
	// db: Services[1] (exact) -> [west]
	// consul: not exported
}

func ExampleExports_ForPeer() {
	x := compile()
	catalog := []exports.ServiceName{{Name: "web"}, {Name: "db"}, {Name: "api"}, {Name: "consul"}}
	for _, peer := range []string{"east", "west"} {
		fmt.Println(peer, x.ForPeer(peer, catalog))
	}
	// Output:
	// east [default/default/api default/default/web]
	// west [default/default/db]
}

func ExampleExports_Explain() {
	fmt.Println(compile().Explain(exports.ServiceName{Name: "db"}))
	// Output:
	// default/default/db: Services[1] applies (exact): exported to peer west
	//   Services[0] default/* -> peer east, peer north: less exact: Services[1] (exact) is more exact; consumers are never merged across rules
	//   Services[1] default/db -> peer west: applies: the most exact rule that matches
}

func ExampleDiff() {
	old := compile()
	var e exports.ConfigEntry
	_ = json.Unmarshal([]byte(entry), &e)
	e.Services = e.Services[:1] // drop the db rule
	updated, err := exports.Compile(e)
	if err != nil {
		panic(err)
	}
	for _, c := range exports.Diff(old, updated, []exports.ServiceName{{Name: "db"}, {Name: "web"}}) {
		fmt.Printf("%v: gains %v, loses %v\n", c.Key, c.Gained, c.Lost)
	}
	// Output:
	// peer east: gains [default/default/db], loses []
	// peer north: gains [default/default/db], loses []
	// peer west: gains [], loses [default/default/db]
}

func ExampleConfigEntry_Validate() {
	e := exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "db", Consumers: []exports.Consumer{{Peer: "*"}}},
		{Name: "db", Consumers: []exports.Consumer{{Peer: "West"}}},
	}}
	fmt.Println(e.Validate())
	// Output:
	// Services[0].Consumers[0]: exporting to all peers (wildcard) is not supported
	// Services[1]: duplicate of Services[0]
	// Services[1].Consumers[0]: peer name "West" must be a lowercase DNS label (must be lower case)
}

// A consumer may name a sameness group instead of a partition or peer: the rule then reaches
// every member of the group except the exporting partition itself, and Explain says which
// group each consumer came from.
func ExampleCompileGroups() {
	groups, err := exports.LoadSamenessGroups([]byte(`{
	  "Kind": "sameness-group",
	  "Name": "dr",
	  "Members": [{"Partition": "default"}, {"Partition": "ap2"}, {"Peer": "east"}]
	}`))
	if err != nil {
		panic(err)
	}
	x, err := exports.CompileGroups(groups, exports.ConfigEntry{
		Name: "default",
		Services: []exports.Service{
			{Name: "payments", Consumers: []exports.Consumer{{SamenessGroup: "dr"}, {Peer: "audit"}}},
		},
	})
	if err != nil {
		panic(err)
	}
	svc := exports.ServiceName{Name: "payments"}
	fmt.Println("peers:", x.Peers(svc))
	fmt.Println(x.Explain(svc))
	// Output:
	// peers: [east audit]
	// default/default/payments: Services[0] applies (exact): exported to partition ap2 (sameness group dr), peer east (sameness group dr), peer audit
	//   Services[0] default/payments -> sameness group dr, peer audit: applies: the most exact rule that matches
}
