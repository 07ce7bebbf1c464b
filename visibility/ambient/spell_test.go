package ambient

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/visibility/inventory"
)

func TestAuditClients(t *testing.T) {
	a := Audit{
		Hosts: []AnswerChange{
			{Key: Question{Query: "api.example.com", Clients: []string{"shop"}}},
			{Key: Question{Query: "api.example.com", Clients: []string{"web"}}},
			{Key: Question{Query: "api.example.com", Clients: []string{AllOtherNamespaces}, Except: []string{"payments", "shop"}}},
			{Key: Question{Query: "db.example.com", Clients: []string{AllOtherNamespaces}}},
		},
		Addresses: []AnswerChange{
			{Key: Question{Query: "10.0.0.1", Clients: []string{"payments", "shop"}}},
			{Key: Question{Query: "10.0.0.1", Clients: []string{AllOtherNamespaces}, Except: []string{"platform"}}},
		},
	}
	for _, tt := range []struct {
		name string
		q    Question
		want string
	}{
		{"by name", a.Hosts[0].Key, "shop"},
		{"several by name", a.Addresses[0].Key, "payments, shop"},
		{"every other: the query's other changes and Except, each once, sorted", a.Hosts[2].Key, "every namespace but payments, shop, web"},
		{"every namespace", a.Hosts[3].Key, "every namespace"},
		{"an address's other changes", a.Addresses[1].Key, "every namespace but payments, platform, shop"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, a.Clients(tt.q)) })
	}
}

func TestAnswerGot(t *testing.T) {
	a, b := inventory.ServiceRef{Kind: inventory.ServiceEntry, Namespace: "a", Name: "api"}, inventory.ServiceRef{Kind: inventory.ServiceEntry, Namespace: "b", Name: "api"}
	for _, tt := range []struct {
		name string
		in   Answer
		want string
	}{
		{"a service", Answer{Service: &a}, "ServiceEntry a/api"},
		{"none", Answer{}, "(not in the mesh: upstream DNS / passthrough)"},
		{"left to ztunnel's order", Answer{Undetermined: []inventory.ServiceRef{a, b}}, "one of [ServiceEntry a/api ServiceEntry b/api]: the order ztunnel received them in decides"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.in.Got()) })
	}
}
