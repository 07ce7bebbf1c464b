package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// appliedFile replaces testdata/inventory.yaml's Sidecar shop/default and creates a
// VirtualService, neither with a namespace.
const appliedFile = `apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {name: default}
spec: {egress: [{hosts: ["./*"]}]}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: mirror}
spec: {hosts: [api.github.com], http: [{route: [{destination: {host: api.github.com}}]}]}
`

// TestApplyIsTheMergedDump: -apply reports what -new-inventory reports for the dump the
// cluster would hold afterwards, written by hand, and names what it applied.
func TestApplyIsTheMergedDump(t *testing.T) {
	file := write(t, "change.yaml", appliedFile)
	base, err := os.ReadFile("testdata/inventory.yaml")
	require.NoError(t, err)
	merged := strings.Replace(string(base), `    - hosts: ["./*", "platform/*"]`, `    - hosts: ["./*"]`, 1) + `- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: mirror, namespace: shop, creationTimestamp: "2026-03-05T08:30:01Z"}
  spec: {hosts: [api.github.com], http: [{route: [{destination: {host: api.github.com}}]}]}
`
	require.NotEqual(t, string(base), merged)
	own := []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory.yaml"}
	code, applied, errOut := runArgs(t, append(own, "-apply", file, "-namespace", "shop")...)
	require.Equal(t, 0, code, errOut)
	code, proposed, errOut := runArgs(t, append(own, "-new-inventory", write(t, "merged.yaml", merged))...)
	require.Equal(t, 0, code, errOut)
	const head = "\nSIDECAR AUDIT (sidecars, gateways, the status of routes)\n"
	_, appliedAudit, _ := strings.Cut(applied, head)
	_, proposedAudit, _ := strings.Cut(proposed, head)
	appliedRows := strings.TrimPrefix(strings.TrimPrefix(appliedAudit, "  applied "+file+" document 1: Sidecar shop/default replaced\n"),
		"  applied "+file+" document 2: VirtualService shop/mirror created\n")
	assert.Equal(t, proposedAudit, appliedRows)
	assert.Contains(t, appliedRows, "platform/github") // something changed
	assert.Contains(t, applied, "\nDRY RUN (nothing is applied) of the proposed Istio 1.31 (none given: the newest release meshscope models); mesh testdata/mesh.yaml, inventory testdata/inventory.yaml + "+file+"\n")
	assert.Contains(t, applied, head+"  applied "+file+" document 1: Sidecar shop/default replaced\n"+
		"  applied "+file+" document 2: VirtualService shop/mirror created\n")

	code, out, errOut := runArgs(t, append(own, "-apply", file, "-namespace", "shop", "-o", "json")...)
	require.Equal(t, 0, code, errOut)
	var rep report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, []inventory.Applied{
		{Kind: "Sidecar", Group: "networking.istio.io", Namespace: "shop", Name: "default", File: file, Where: "document 1"},
		{Kind: "VirtualService", Group: "networking.istio.io", Namespace: "shop", Name: "mirror", File: file, Where: "document 2", Created: true},
	}, rep.Applied)
	assert.Equal(t, "testdata/inventory.yaml + "+file, rep.NewInventory)
}

// TestApplyRefuses: what kubectl, the API server or the release's webhook refuses in a file
// to apply is refused, naming the file and document; flags that do not go together are
// usage errors.
func TestApplyRefuses(t *testing.T) {
	own := []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory.yaml"}
	bad := write(t, "bad.yaml", appliedFile+"---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x}\nspec: {host: [a]}\n")
	other := write(t, "other.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x, namespace: platform}\nspec: {hosts: [a], http: [{route: [{destination: {host: a}}]}]}\n")
	narrow := write(t, "narrow.yaml", "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: narrow}\nspec: {egress: [{hosts: ['~platform/*']}]}\n")
	for _, tt := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"a problem in a document", []string{"-apply", bad}, 1, "visibility: " + bad + `: document 3 (VirtualService default/x): spec: unknown field "host" (did you mean "hosts"?)`},
		{"another namespace than -namespace", []string{"-apply", other, "-namespace", "shop"}, 1, "visibility: " + other +
			`: VirtualService platform/x: metadata.namespace: the namespace from the provided object "platform" does not match the namespace "shop". You must pass '--namespace=platform' to perform this operation.`},
		{"what the release's webhook refuses", []string{"-apply", narrow, "-namespace", "shop", "-istio", "1.30.3"}, 1, "visibility: " + narrow +
			`: Sidecar shop/narrow: spec.egress[0].hosts[0]: Istio 1.30.3 refuses the Sidecar: invalid namespace value "~platform" in sidecar`},
		{"a missing file", []string{"-apply", "testdata/no-such.yaml"}, 1, "no-such.yaml"},
		{"an empty -apply", []string{"-apply", ""}, 2, "-apply given an empty value"},
		{"-apply and -new-inventory", []string{"-apply", other, "-new-inventory", other}, 2, "-apply and -new-inventory each give the proposed inventory: give one"},
		{"-namespace without -apply", []string{"-namespace", "shop"}, 2, "-namespace needs -apply"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runArgs(t, append(own, tt.args...)...)
			assert.Equal(t, tt.code, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.msg)
		})
	}
	code, out, errOut := runArgs(t, append(own, "-apply", narrow, "-namespace", "shop", "-istio", "1.30.3", "-new-istio", "1.31")...)
	require.Equal(t, 0, code, "an upgrade's dry run applies it to the release that accepts it: %s", errOut)
	assert.Contains(t, out, "applied "+narrow+": Sidecar shop/narrow created")
}
