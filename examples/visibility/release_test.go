package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// TestFirstLineNamesTheRelease: every output names the release it answers for, and the flags
// it runs with, on its first line (in JSON, the release field): the one the mesh file names,
// the flags' over it, or the newest, said.
func TestFirstLineNamesTheRelease(t *testing.T) {
	inv := clitest.Write(t, "inv.yaml", "kind: Namespace\nmetadata: {name: shop}\n")
	operator := clitest.Write(t, "operator.yaml", "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  tag: 1.29.6\n  meshConfig: {rootNamespace: istio-system}\n")
	helm := clitest.Write(t, "values.yaml", "global: {tag: 1.28.10}\ncompatibilityVersion: \"1.25\"\nmeshConfig: {}\n")
	plain := clitest.Write(t, "plain.yaml", "meshConfig: {}\n")
	for _, tt := range []struct {
		name  string
		args  []string
		first string
	}{
		{"the sample: none given, the newest", nil,
			"Istio 1.31 (none given: the newest release meshscope models); mesh sample/mesh.yaml, inventory sample/inventory.yaml"},
		{"the flags", []string{"-istio", "1.30.3", "-compatibility-version", "1.29"},
			"Istio 1.30.3, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false); mesh sample/mesh.yaml, inventory sample/inventory.yaml"},
		{"an IstioOperator's spec.tag", []string{"-mesh", operator, "-inventory", inv}, "Istio 1.29.6; mesh " + operator + ", inventory " + inv},
		{"-istio over the file's tag", []string{"-mesh", operator, "-inventory", inv, "-istio", "1.30"}, "Istio 1.30; mesh " + operator + ", inventory " + inv},
		{"Helm values' global.tag and compatibilityVersion", []string{"-mesh", helm, "-inventory", inv}, "Istio 1.28.10, compatibilityVersion 1.25; mesh " + helm + ", inventory " + inv},
		{"a proposed mesh naming no release runs the current one", []string{"-mesh", operator, "-inventory", inv, "-new-mesh", plain}, "Istio 1.29.6; mesh " + operator + ", inventory " + inv},
		{"an upgrade names both", []string{"-mesh", operator, "-inventory", inv, "-new-istio", "1.31"}, "Istio 1.29.6, proposed Istio 1.31; mesh " + operator + ", inventory " + inv},
		{"-new-mesh's own tag", []string{"-mesh", plain, "-inventory", inv, "-new-mesh", operator},
			"Istio 1.31 (none given: the newest release meshscope models), proposed Istio 1.29.6; mesh " + plain + ", inventory " + inv},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first, _, _ := strings.Cut(clitest.OK(t, run, tt.args...), "\n")
			assert.Equal(t, tt.first, first)

			rep := clitest.JSON[struct{ Release, NewRelease string }](t, run, tt.args...)
			release, _, _ := strings.Cut(tt.first, "; mesh ")
			release, proposed, _ := strings.Cut(release, ", proposed ")
			assert.Equal(t, release, rep.Release)
			if proposed != "" {
				assert.Equal(t, proposed, rep.NewRelease)
			}
		})
	}
}

// TestWhatTheReleaseIgnores: serviceEntryVisibility before 1.31 is a finding, and the
// report says every entry is PUBLIC.
func TestWhatTheReleaseIgnores(t *testing.T) {
	code, out, _ := clitest.Call(run, "-istio", "1.30", "-fail-on", "warning")
	assert.Equal(t, 3, code, "a warning gates")
	assert.Contains(t, clitest.Words(out), "WARNING IgnoredByRelease serviceEntryVisibility: Istio 1.30 does not know serviceEntryVisibility (it came in 1.31)")
	assert.Contains(t, out, "serviceEntryVisibility is configured, but Istio 1.30 ignores it (see LINT): every entry is PUBLIC")
	assert.Contains(t, clitest.Words(out), "platform/github api.github.com 240.240.0.1 PUBLIC default")

	latest := clitest.Write(t, "latest.yaml", "tag: latest\nmeshConfig: {}\n")
	inv := clitest.Write(t, "inv.yaml", "kind: Namespace\nmetadata: {name: shop}\n")
	assert.Contains(t, clitest.Words(clitest.OK(t, run, "-mesh", latest, "-inventory", inv)), `NOTE ReleaseNotGiven tag: the image tag "latest" names no release: meshscope answers for the newest release it models, 1.31`)
}

// TestReleaseFlagsRefused: a release meshscope does not model is refused naming those it
// does (status 2: no input makes it right); a compatibilityVersion the file's release has no
// profile for is status 1.
func TestReleaseFlagsRefused(t *testing.T) {
	clitest.Refused(t, run, nil, []clitest.Refusal{
		{Name: "a release not modelled", Args: []string{"-istio", "1.27"}, Code: 2, Msg: `visibility: -istio 1.27: Istio: Istio "1.27" is not a release meshscope models; it models 1.28 (1.28.1 on), 1.29, 1.30 and 1.31`},
		{Name: "not a release", Args: []string{"-new-istio", "latest"}, Code: 2, Msg: `visibility: -new-istio latest: Istio: Istio "latest" is not a release: want 1.MINOR or 1.MINOR.PATCH`},
		{Name: "a compatibilityVersion the release has no profile for", Args: []string{"-istio", "1.30", "-compatibility-version", "1.30"}, Code: 2,
			Msg: "CompatibilityVersion: unknown compatibility version 1.30 (Helm's words: Istio 1.30 ships profiles for 1.25, 1.26, 1.27, 1.28, 1.29)"},
		{Name: "one the file's release has none for", Args: []string{"-compatibility-version", "1.31"}, Code: 1,
			Msg: "visibility: sample/mesh.yaml: CompatibilityVersion: unknown compatibility version 1.31 (Helm's words: Istio 1.31 ships profiles for 1.25"},
		{Name: "an empty -istio", Args: []string{"-istio", ""}, Code: 2, Msg: "-istio given an empty value"},
	})
}

// narrowInventory holds a Sidecar excluding a namespace: valid from 1.31, refused before.
const narrowInventory = `kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- {apiVersion: v1, kind: Namespace, metadata: {name: payments}}
- apiVersion: v1
  kind: Service
  metadata: {name: ledger, namespace: payments, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec: {clusterIP: 10.0.0.1, ports: [{port: 80}]}
- apiVersion: networking.istio.io/v1
  kind: Sidecar
  metadata: {name: narrow, namespace: shop}
  spec: {egress: [{hosts: ["*/*", "~payments/*"]}]}
`

// TestReleaseRefusesObjects: an object the release's webhook refuses is refused as other
// invalid input is, in the release's words, naming the file, the item and the field.
func TestReleaseRefusesObjects(t *testing.T) {
	mesh := clitest.Write(t, "mesh.yaml", "meshConfig: {}\n")
	inv := clitest.Write(t, "inv.yaml", narrowInventory)
	code, out, errOut := clitest.Call(run, "-mesh", mesh, "-inventory", inv, "-istio", "1.30.3")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "visibility: "+inv+`: items[3] (Sidecar shop/narrow): spec.egress[0].hosts[1]: Istio 1.30.3 refuses the Sidecar: invalid namespace value "~payments" in sidecar `+
		`(a namespace after "~" excludes from 1.31 on; before, only "~/host", the literal namespace "~", is accepted)`+"\n", errOut)
	code, _, errOut = clitest.Call(run, "-mesh", mesh, "-inventory", inv)
	assert.Equal(t, 0, code, "1.31 excludes: %s", errOut)
}

// TestUpgradeDryRun: two releases of one dump — the causes they differ by, what each refuses
// (left out of its view, not refused), and what that changes for the sidecars.
func TestUpgradeDryRun(t *testing.T) {
	meshFile := clitest.Write(t, "mesh.yaml", "meshConfig: {}\n")
	inv := clitest.Write(t, "inv.yaml", narrowInventory)
	upgrade := []string{"-mesh", meshFile, "-inventory", inv, "-istio", "1.30.3", "-new-istio", "1.31"}
	out := clitest.OK(t, run, upgrade...)
	clitest.ContainsWords(t, out,
		"Istio 1.30.3, proposed Istio 1.31; mesh "+meshFile+", inventory "+inv,
		"DRY RUN (nothing is applied) of the proposed Istio 1.31; mesh "+meshFile+", inventory "+inv,
		"UPGRADE: Istio 1.30.3 -> Istio 1.31",
		"the releases differ by (each may change what a proxy or ztunnel gets): SidecarExclusions (from 1.31.0), ServiceEntryVisibility (from 1.31.0), ExactHostListeners (from 1.31.0)",
		`refused by Istio 1.30.3, left out of its view: Sidecar shop/narrow: invalid namespace value "~payments" in sidecar`,
		"AUDIT (ztunnel, over the current inventory)", // 1.30 and 1.31 give ztunnel its view alike
		// Each change names the causes behind it: 1.30.3 refuses the Sidecar, so shop's
		// proxies import */* there.
		"SIDECAR AUDIT (sidecars, gateways, the status of routes) shop ledger.payments.svc.cluster.local: KubernetesService payments/ledger 80 -> (not received) (causes: SidecarExclusions)")
	assert.NotContains(t, out, "does not answer per release", "the sidecar view answers per release: no note says otherwise")

	rep := clitest.JSON[report](t, run, upgrade...)
	require.NotNil(t, rep.Upgrade)
	assert.Equal(t, []mesh.Cause{mesh.SidecarExclusions, mesh.ServiceEntryVisibility, mesh.ExactHostListeners}, rep.Upgrade.Causes)
	require.Len(t, rep.Upgrade.Refused, 1)
	assert.Equal(t, "Istio 1.30.3", rep.Upgrade.Refused[0].Release)
	assert.Equal(t, `invalid namespace value "~payments" in sidecar`, rep.Upgrade.Refused[0].Message)
	require.Len(t, rep.SidecarAudit, 1)
	assert.Equal(t, []mesh.Cause{mesh.SidecarExclusions}, rep.SidecarAudit[0].Causes)

	// Releases whose ztunnels answer otherwise are not compared for ztunnel, and say so.
	out = clitest.OK(t, run, "-mesh", meshFile, "-inventory", inv, "-istio", "1.29", "-new-istio", "1.31")
	assert.Contains(t, clitest.Words(out), "ztunnel's answers are not compared: Istio 1.31 gives ztunnel its view otherwise than Istio 1.29 does (ZtunnelRankedAddress)")
	assert.NotContains(t, out, "\nAUDIT")
	assert.Contains(t, clitest.Words(out), "DestinationNamespace (from 1.30.0), DefaultExportToLists (from 1.30.3), ListenerOrder (from 1.30.3)")
}

// TestHelpSaysHowTheReleaseIsFound: -h says where the release is read, what sets it, and
// what is answered for when nothing does.
func TestHelpSaysHowTheReleaseIsFound(t *testing.T) {
	clitest.ContainsWords(t, clitest.OK(t, run, "-h"),
		"Every answer is one Istio release's, named on the first line: -istio and -compatibility-version, else the one -mesh names "+
			"(an IstioOperator's spec.tag, spec.components.pilot.tag, spec.compatibilityVersion, pilot env; Helm values' tag, global.tag, "+
			"compatibilityVersion, pilot.env; the istio ConfigMap names none), else the newest meshscope models (1.31), said.",
		"-new-istio and -new-compatibility-version dry-run an upgrade",
		"-apply previews kubectl apply -f against -inventory, as kubectl would apply it (-namespace for its -n)",
		"each change names its causes",
		inventory.DumpCommand+" > inventory.yaml",
		`ROUTED BY: per HTTP port, the first of the listener's that claims the host — one made from Gateway API routes named as istiod names it, ns/ns~port~host`)
}
