package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
)

func TestReplay(t *testing.T) {
	for _, tt := range []struct {
		name          string
		before, after string
		want          []string
	}{
		{"nothing changes", `{"Kind":"service-resolver","Name":"a"}`, `{"Kind":"service-resolver","Name":"a"}`, nil},
		{"the order of kinds, whatever the input's",
			`{"Kind":"service-resolver","Name":"gone"}
{"Kind":"service-router","Name":"old","Routes":[]}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"http"}}`,
			`{"Kind":"exported-services","Name":"default","Services":[{"Name":"a","Consumers":[{"Peer":"east"}]}]}
{"Kind":"service-router","Name":"a","Routes":[]}
{"Kind":"service-splitter","Name":"a","Splits":[{"Weight":100}]}
{"Kind":"service-resolver","Name":"a"}
{"Kind":"sameness-group","Name":"g","Members":[{"Peer":"east"}]}
{"Kind":"service-defaults","Name":"a","Protocol":"http"}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"grpc"}}`,
			[]string{
				"proxy-defaults global: accepted",
				"service-defaults default/default/a: accepted",
				"sameness-group g: accepted",
				"service-resolver a: accepted",
				"service-splitter a: accepted",
				"service-router a: accepted",
				"exported-services default: accepted",
				"service-router old (deleted): accepted",
				"service-resolver gone (deleted): accepted",
			}},
		{"a write the server refuses is not stored",
			`{"Kind":"service-resolver","Name":"a","Redirect":{"Service":"b"}}`,
			`{"Kind":"service-resolver","Name":"a","Redirect":{"Service":"b"}}
{"Kind":"service-defaults","Name":"b","Protocol":"http"}`,
			[]string{`service-defaults default/default/b: refused (store): chain default/default/a: discovery chain "a" uses inconsistent protocols; service "b" has "http" which is not "tcp"`}},
		{"a resolver after the resolvers it names",
			``,
			`{"Kind":"service-resolver","Name":"a","Redirect":{"Service":"b"}}
{"Kind":"service-resolver","Name":"b","Redirect":{"Service":"c"}}
{"Kind":"service-resolver","Name":"c","DefaultSubset":"v1","Subsets":{"v1":{}}}`,
			[]string{"service-resolver c: accepted", "service-resolver b: accepted", "service-resolver a: accepted"}},
		{"permissions taken away before the destination becomes tcp, given after it becomes http",
			`{"Kind":"service-defaults","Name":"a","Protocol":"http"}
{"Kind":"service-intentions","Name":"a","Sources":[{"Name":"web","Permissions":[{"Action":"deny","HTTP":{"PathPrefix":"/x"}}]}]}
{"Kind":"service-intentions","Name":"gone","Sources":[{"Name":"web","Action":"deny"}]}`,
			`{"Kind":"service-intentions","Name":"b","Sources":[{"Name":"web","Permissions":[{"Action":"deny","HTTP":{"PathPrefix":"/x"}}]}]}
{"Kind":"service-defaults","Name":"b","Protocol":"grpc"}
{"Kind":"service-defaults","Name":"a","Protocol":"tcp"}
{"Kind":"service-intentions","Name":"a","Sources":[{"Name":"web","Action":"deny"}]}
{"Kind":"mesh","HTTP":{"SanitizeXForwardedClientCert":true}}`,
			[]string{
				"service-intentions gone (deleted): accepted",
				"service-intentions a: accepted",
				"service-defaults default/default/a: accepted",
				"service-defaults default/default/b: accepted",
				"mesh: accepted",
				"service-intentions b: accepted",
			}},
		{"an entry as written and as Consul stores it are one entry",
			`{"Kind":"service-intentions","Name":"*","Sources":[{"Name":"web","Action":"deny"},{"Name":"*","Action":"allow"}]}`,
			`{"Kind":"service-intentions","Name":"*","Sources":[{"Name":"web","Action":"deny","Precedence":6,"Type":"consul"},{"Name":"*","Action":"allow","Precedence":5,"Type":"consul"}],"ModifyIndex":9}`,
			nil},
		{"the default protocol dropped is a write of proxy-defaults",
			`{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"http"}}`, ``,
			[]string{"proxy-defaults global: accepted"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after Config
			require.NoError(t, before.Add("", []byte(tt.before+" []")))
			require.NoError(t, after.Add("", []byte(tt.after+" []")))
			writes, stored, err := Replay(before, after)
			require.NoError(t, err)
			var got []string
			for _, w := range writes {
				got = append(got, w.String())
			}
			assert.Equal(t, tt.want, got)
			again, _, err := Replay(stored, stored)
			require.NoError(t, err)
			assert.Empty(t, again, "what the writes leave replays to nothing")
			for _, w := range writes {
				if !w.Accepted {
					assert.NotContains(t, stored.Entries.Protocols, serviceNamed(w.Name, w.Namespace, w.Partition), "a refused write is not stored")
				}
			}
		})
	}
	var dup Config
	dup.Entries.Resolvers = []chain.ServiceResolver{{Name: "a"}, {Name: "a"}}
	_, _, err := Replay(dup, Config{})
	assert.ErrorContains(t, err, "before: the configuration holds an entry twice: Entries.Resolvers[1] (service-resolver a)")
}
