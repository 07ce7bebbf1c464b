package peermeta

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/strict"
)

// loadHealth reads one /v1/health/service/<name> output as APIOutput.ReadHealth reads each
// value, and returns the instances.
func loadHealth(data []byte) ([]CheckServiceNode, error) {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return decodeHealth(x)
}

const healthJSON = `[{
  "Node": {"ID": "n1", "Node": "gw-node", "Address": "10.0.0.9", "Datacenter": "dc1", "CreateIndex": 18446744073709551615, "ModifyIndex": 5},
  "Service": {"Kind": "mesh-gateway", "ID": "mesh-gateway", "Service": "mesh-gateway", "Port": 8443, "Address": "10.0.0.9",
              "TaggedAddresses": {"wan": {"Address": "198.51.100.9", "Port": 443}}, "Weights": {"Passing": 1, "Warning": 1}},
  "Checks": [{"Node": "gw-node", "CheckID": "serfHealth", "Name": "Serf Health Status", "Status": "passing", "Type": ""}]
}]`

func TestLoadHealth(t *testing.T) {
	got, err := loadHealth([]byte(healthJSON))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "gw-node", got[0].Node.Node)
	assert.Equal(t, 8443, got[0].Service.Port)
	assert.Equal(t, ServiceAddress{Address: "198.51.100.9", Port: 443}, got[0].Service.TaggedAddresses["wan"])
	assert.Equal(t, StatusPassing, got[0].Checks[0].Status)
	lower, err := loadHealth([]byte(strings.NewReplacer(`"Node": {"ID"`, `"node": {"ID"`, `"Service": {"Kind"`, `"service": {"Kind"`).Replace(healthJSON)))
	require.NoError(t, err, "Node and Service in another case, as encoding/json matches them")
	assert.Equal(t, got, lower)
	none, err := loadHealth([]byte(" [] "))
	require.NoError(t, err, "a service without instances")
	assert.Empty(t, none)
	noChecks, err := loadHealth([]byte(`[{"Node":{"Node":"n"},"Service":{"Service":"s"}}]`))
	require.NoError(t, err, "Checks may be absent")
	assert.Len(t, noChecks, 1)
	bom, err := loadHealth([]byte("\ufeff" + healthJSON))
	require.NoError(t, err, "after a byte-order mark")
	assert.Equal(t, got, bom)
}

// expectHealth ends the message refusing an element that is not an instance.
const expectHealth = "expected /v1/health/service/<name> or /v1/health/connect/<name> output " +
	"(curl $CONSUL_HTTP_ADDR/v1/health/service/mesh-gateway): a list of instances, each with Node, Service and Checks"

func TestLoadHealthRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		err  string
	}{
		{"key given twice", strings.Replace(healthJSON, `"Port": 8443,`, `"Port": 8443, "Port": 8444,`, 1), "[0].Service.Port: given twice"},
		{"a wrong type, without Go type names", strings.Replace(healthJSON, `"Port": 8443`, `"Port": "8443"`, 1), `[0].Service.Port: must be a whole number, got the string "8443"`},
		// Consul's decoder, and encoding/json, match field names in any case: two spellings of
		// one field are one field given twice, not a silent last-wins.
		{"a field given twice under two spellings", strings.Replace(healthJSON, `"Port": 8443,`, `"Port": 8443, "port": 8444,`, 1),
			`[0].Service: field given twice, as "Port" and "port"`},
		{"an element's part given twice under two spellings", strings.Replace(healthJSON, `"Checks": [`, `"checks": [], "Checks": [`, 1),
			`[0]: field given twice, as "Checks" and "checks"`},
		{"a wrong type in a map, named by its key", strings.Replace(healthJSON, `"Port": 443`, `"Port": "443"`, 1),
			`[0].Service.TaggedAddresses["wan"].Port: must be a whole number, got the string "443"`},
		{"a wrong type in a map of strings", strings.Replace(healthJSON, `"Datacenter": "dc1",`, `"Datacenter": "dc1", "Meta": {"env": 1},`, 1),
			`[0].Node.Meta["env"]: must be a string, got the number 1`},
		{"every problem", strings.Replace(healthJSON, `"Port": 8443`, `"Port": true, "Tags": "t"`, 1),
			"[0].Service.Port: must be a whole number, got the boolean true\n[0].Service.Tags: must be a list, got the string \"t\""},
		{"a number out of range", strings.Replace(healthJSON, `"Port": 8443`, `"Port": 1e30`, 1), "[0].Service.Port: must be a whole number, got the number 1e30"},
		{"an integer out of range", strings.Replace(healthJSON, `"Port": 8443`, `"Port": 99999999999999999999`, 1), "[0].Service.Port: the number 99999999999999999999 is out of range for int"},
		// Another endpoint's output is a list too: its elements are not instances.
		{"/v1/internal/ui/services output", `[{"Name":"web","Kind":"","Datacenter":"dc1","Tags":[],"InstanceCount":2,"ChecksPassing":4,"ConnectedWithProxy":true},{"Kind":"mesh-gateway","Name":"mesh-gateway"}]`,
			"[0]: not an instance: no Node and no Service; found an object with Name, Kind, Datacenter, Tags, InstanceCount, ChecksPassing, …, " +
				"which looks like catalog output (/v1/internal/ui/services); " + expectHealth + "\n" +
				"[1]: not an instance: no Node and no Service; found an object with Kind, Name, which looks like catalog output (/v1/internal/ui/services); " + expectHealth},
		{"/v1/catalog/service/<name> output", `[{"ID":"x","Node":"n1","ServiceName":"web","ServiceKind":""}]`,
			"[0].Node: must be an object, got the string \"n1\"\n" +
				"[0]: not an instance: no Service; found an object with ID, Node, ServiceName, ServiceKind, which looks like catalog output (/v1/catalog/service/<name>); " + expectHealth},
		{"an empty object", `[{}]`, "[0]: not an instance: no Node and no Service; found an empty object; " + expectHealth},
		{"null", `[null]`, "[0]: not an instance: no Node and no Service; found null; " + expectHealth},
		{"no Service", `[{"Node":{"Node":"n"},"Checks":[]}]`, "[0]: not an instance: no Service; found an object with Node, Checks; " + expectHealth},
		{"a null Node", strings.Replace(healthJSON, `"Node": {"ID": "n1", "Node": "gw-node", "Address": "10.0.0.9", "Datacenter": "dc1", "CreateIndex": 18446744073709551615, "ModifyIndex": 5}`, `"Node": null`, 1),
			"[0]: not an instance: no Node; found an object with Node, Service, Checks; " + expectHealth},
		{"not a list", `{"Node": {}}`, "(top level): must be a list of instances, as /v1/health/service/<name> returns, got an object"},
		{"empty", "", "no JSON value: the input is empty"},
		{"white space only", " \n", "no JSON value: the input is empty"},
		{"UTF-16", "\xff\xfe[\x00]\x00", "not JSON: the input looks like UTF-16 (little-endian, starting with the bytes 0xff 0xfe); it must be UTF-8. " +
			"Windows PowerShell's > writes UTF-16: write the file with | Out-File -Encoding utf8 instead, or convert it (iconv -f UTF-16 -t UTF-8)"},
		{"data after the list", healthJSON + "\n[]", "line 7, column 1: data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadHealth([]byte(tt.in))
			require.Error(t, err)
			assert.Equal(t, tt.err, err.Error())
		})
	}
}

func FuzzLoadHealth(f *testing.F) {
	f.Add([]byte(healthJSON))
	f.Add([]byte(`[{"Service": {"Port": "x"}}, 1]`))
	f.Add([]byte(`[{"Node":{"Node":"gw","TaggedAddresses":{"wan":"1.2.3.4"},"Meta":{"a":"b"}},"Service":{"Kind":"mesh-gateway","ID":"m","Service":"mesh-gateway","TaggedAddresses":{"wan":{"Address":"1.2.3.4","Port":443}},"Port":8443,"Connect":{"Native":true,"PeerMeta":{"SNI":["x"],"SpiffeID":["y"],"Protocol":"tcp"}},"Proxy":{"DestinationServiceName":"d"}},
	  "Checks":[{"CheckID":"_node_maintenance","Status":"critical"},{"CheckID":"_service_maintenance:m","Status":"passing"},{"CheckID":"c","Status":"bogus"},null]}]`))
	f.Add([]byte(`[{"Service":{"Port":1e3,"Tags":"t"},"Checks":{}},{"Node":[]}] [1]`))
	f.Add([]byte(`[{"Service":{"Port":99999999999999999999}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nodes, err := loadHealth(data)
		if err != nil {
			if strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "json: ") {
				t.Fatalf("a message naming Go types: %v", err)
			}
			return
		}
		for _, n := range nodes {
			flatten(n.Checks, "node", "id", "name")
		}
	})
}
