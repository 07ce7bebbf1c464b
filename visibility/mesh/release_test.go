package mesh

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility"
)

// TestLoadRelease: Load reads the release, compatibilityVersion and flags where the install
// writes them, with the chart's and istioctl's precedence.
func TestLoadRelease(t *testing.T) {
	const iop = "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n"
	for _, tc := range []struct {
		name, in       string
		istio, compat  string
		env            map[string]string
		release        string
		findings       []string
		noFindingsWant bool
	}{
		{name: "IstioOperator spec.tag", in: iop + "  tag: 1.30.3\n  meshConfig: {}\n", istio: "1.30.3", release: "Istio 1.30.3"},
		{name: "components.pilot.tag over spec.tag", in: iop + "  tag: 1.29.6\n  components: {pilot: {tag: 1.30.3-distroless}}\n", istio: "1.30.3"},
		{name: "values.pilot.tag over components.pilot.tag", in: iop + "  components: {pilot: {tag: 1.29.6}}\n  values: {pilot: {tag: '1.30.2'}}\n", istio: "1.30.2"},
		{name: "values.global.tag over spec.tag", in: iop + "  tag: 1.29.6\n  values: {global: {tag: 1.28.10}}\n", istio: "1.28.10"},
		{name: "spec.compatibilityVersion", in: iop + "  tag: 1.31.0\n  compatibilityVersion: 1.29\n", istio: "1.31.0", compat: "1.29",
			release: "Istio 1.31.0, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)"},
		{name: "values.compatibilityVersion over spec's", in: iop + "  tag: 1.30.3\n  compatibilityVersion: 1.28\n  values: {compatibilityVersion: '1.29'}\n", istio: "1.30.3", compat: "1.29"},
		{name: "k8s.env over everything", in: iop + "  tag: 1.30.3\n  values: {pilot: {env: {PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE: 'false'}}}\n  components: {pilot: {k8s: {env: [{name: PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE, value: 'true'}, {name: OTHER, value: x}]}}}\n",
			istio: "1.30.3", env: map[string]string{PickBestServiceNamespace: "true"}, release: "Istio 1.30.3 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=true)"},
		{name: "Helm values: pilot.tag over tag over global.tag", in: "pilot: {tag: 1.30.1}\ntag: 1.29.6\nglobal: {tag: 1.28.10}\nmeshConfig: {}\n", istio: "1.30.1"},
		{name: "Helm values: tag over global.tag", in: "tag: 1.29.6\nglobal: {tag: 1.28.10}\n", istio: "1.29.6"},
		{name: "Helm values: an unquoted version is read as text", in: "global: {tag: 1.30}\ncompatibilityVersion: 1.29\n", istio: "1.30", compat: "1.29"},
		{name: "Helm values under values.meshConfig", in: "values:\n  global: {tag: 1.29.6}\n  meshConfig: {rootNamespace: r}\n", istio: "1.29.6"},
		{name: "a whole image reference wins over the tags", in: "image: gcr.io/istio-release/pilot:1.29.6\ntag: 1.30.3\n", istio: "1.29.6"},
		{name: "an image digest names no release", in: "pilot: {image: 'gcr.io/istio/pilot@sha256:0123'}\ntag: 1.30.3\nmeshConfig: {}\n",
			release:  "Istio 1.31 (none given: the newest release meshscope models)",
			findings: []string{`NOTE ReleaseNotGiven pilot.image: the image tag "sha256:0123" names no release`}},
		{name: "latest names no release", in: "global: {tag: latest}\n", findings: []string{`NOTE ReleaseNotGiven global.tag: the image tag "latest" names no release: meshscope answers for the newest release it models, 1.31`}},
		{name: "pilot.env wins over the profile", in: "tag: 1.30.3\ncompatibilityVersion: '1.29'\npilot: {env: {PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE: true}}\n",
			istio: "1.30.3", compat: "1.29", env: map[string]string{PickBestServiceNamespace: "true"},
			release: "Istio 1.30.3, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=true)"},
		{name: "the profile overrides env", in: "tag: 1.30.3\ncompatibilityVersion: '1.29'\nenv: {PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE: 'true', PILOT_TRACE_SAMPLING: '1'}\n",
			istio: "1.30.3", compat: "1.29", release: "Istio 1.30.3, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)",
			findings: []string{`WARNING IgnoredByRelease env["PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE"]: PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=true is overridden by compatibilityVersion 1.29's profile`}},
		{name: "env without a profile setting the flag", in: "tag: 1.30.3\ncompatibilityVersion: '1.28'\nenv: {AMBIENT_ENABLE_MULTI_NETWORK: true, PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE: 'false'}\n",
			istio: "1.30.3", compat: "1.28", env: map[string]string{AmbientMultiNetwork: "true"},
			release:  "Istio 1.30.3, compatibilityVersion 1.28 (AMBIENT_ENABLE_MULTI_NETWORK=true, PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)",
			findings: []string{`WARNING IgnoredByRelease env["PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE"]`}},
		{name: "a flag the release lacks", in: "tag: 1.29.6\npilot: {env: {PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE: 'false'}}\n",
			istio: "1.29.6", env: map[string]string{PickBestServiceNamespace: "false"},
			findings: []string{`WARNING FlagNotInRelease PilotEnv["PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE"]: Istio 1.29.6 does not have PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE (it came in 1.30)`}},
		{name: "none", in: "meshConfig: {rootNamespace: r}\n", release: "Istio 1.31 (none given: the newest release meshscope models)", noFindingsWant: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Load([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.istio, m.Istio)
			assert.Equal(t, tc.compat, m.CompatibilityVersion)
			assert.Equal(t, tc.env, m.PilotEnv)
			if tc.release != "" {
				assert.Equal(t, tc.release, m.Release().String())
			}
			var got []string
			for _, f := range m.Findings() {
				got = append(got, f.String())
			}
			require.Len(t, got, len(tc.findings), "%q", got)
			for i := range got {
				assert.True(t, strings.HasPrefix(got[i], tc.findings[i]), "%s\nwant prefix %s", got[i], tc.findings[i])
			}
		})
	}
}

// TestLoadReleaseRefuses: a release meshscope does not model, a compatibilityVersion the
// release has no profile for, and a flag istiod cannot read or meshscope does not model are
// refused where the install writes them.
func TestLoadReleaseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"1.27", "global: {tag: 1.27.3}\n", []string{`global.tag: Istio "1.27.3" is not a release meshscope models; it models 1.28 (1.28.1 on), 1.29, 1.30 and 1.31`}},
		{"1.32", "kind: IstioOperator\nspec: {tag: 1.32.0}\n", []string{`spec.tag: Istio "1.32.0" is not a release meshscope models`}},
		{"1.28.0", "tag: 1.28.0\n", []string{`tag: Istio "1.28.0" is not modelled: 1.28.0's ztunnel answered a wildcard host`}},
		{"1.3, an unquoted 1.30 read as a number elsewhere", "tag: '1.3'\n", []string{`tag: Istio "1.3" is not a release meshscope models`}},
		{"no profile", "tag: 1.30.3\ncompatibilityVersion: '1.30'\n", []string{`compatibilityVersion: unknown compatibility version 1.30 (Helm's words: Istio 1.30.3 ships profiles for 1.25, 1.26, 1.27, 1.28, 1.29)`}},
		{"no profile on the newest", "compatibilityVersion: '1.24'\n", []string{`compatibilityVersion: unknown compatibility version 1.24`}},
		{"not a boolean", "pilot: {env: {PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE: 'yes'}}\n", []string{`pilot.env["PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE"]: PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE="yes" is not a boolean: istiod would log a warning and use the default, true`}},
		{"not modelled", "env: {PILOT_UNIFIED_SIDECAR_SCOPE: 'false'}\n", []string{`env["PILOT_UNIFIED_SIDECAR_SCOPE"]: PILOT_UNIFIED_SIDECAR_SCOPE="false": meshscope does not model PILOT_UNIFIED_SIDECAR_SCOPE`}},
		{"misspelt", "pilot: {env: {PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPAC: 'false'}}\n", []string{`pilot.env["PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPAC"]: unknown variable "PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPAC" (did you mean "PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE"?`}},
		{"valueFrom", "kind: IstioOperator\nspec: {components: {pilot: {k8s: {env: [{name: AMBIENT_ENABLE_MULTI_NETWORK, valueFrom: {configMapKeyRef: {name: x, key: y}}}]}}}}\n",
			[]string{`spec.components.pilot.k8s.env[0]: AMBIENT_ENABLE_MULTI_NETWORK is set from valueFrom, which meshscope cannot read`}},
		{"a tag of the wrong type", "global: {tag: [1]}\n", []string{`global.tag: must be a string, got a list`}},
		{"two installs", "tag: 1.30.3\n---\nkind: IstioOperator\nspec: {tag: 1.30.3}\n", []string{`document 2: spec.tag: a second istiod image tag; the first is at document 1: tag`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.in))
			requireLines(t, err, tc.want)
		})
	}
	_, err := Load([]byte("tag: 1.30.3\n---\nglobal: {tag: 1.29.6}\n"))
	assert.ErrorIs(t, err, visibility.ErrDuplicate)
}

// requireLines requires err to be one problem a line, each starting as want's.
func requireLines(t *testing.T, err error, want []string) {
	t.Helper()
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, len(want), "%v", err)
	for i := range lines {
		assert.True(t, strings.HasPrefix(lines[i], want[i]), "%s\nwant prefix %s", lines[i], want[i])
	}
}

// TestReleaseVisibility: before 1.31 serviceEntryVisibility is dropped unread — well-formed
// or not, Load accepts it, the views get none (AppliedVisibility) and Findings says so;
// from 1.31 a malformed block refuses the whole file, in Istio's words.
func TestReleaseVisibility(t *testing.T) {
	wellFormed := "meshConfig:\n  serviceEntryVisibility: {defaultVisibility: NAMESPACE}\n"
	malformed := "meshConfig:\n  serviceEntryVisibility: {defaultVisibility: private, applyToSidecars: yes, hostnameSuffix: x}\n"

	m, err := LoadFor([]byte(wellFormed), "1.30", "")
	require.NoError(t, err)
	assert.Equal(t, &visibility.Config{DefaultVisibility: visibility.Namespace}, m.Visibility, "kept as written")
	assert.Nil(t, m.AppliedVisibility(), "1.30 does not apply it")
	require.Len(t, m.Findings(), 1)
	f := m.Findings()[0]
	assert.Equal(t, IgnoredByRelease, f.Code)
	assert.Equal(t, "serviceEntryVisibility", f.Path)
	assert.Contains(t, f.Message, `Istio 1.30 does not know serviceEntryVisibility (it came in 1.31): istiod drops it without a word`)
	assert.Contains(t, f.Message, `"unknown field \"serviceEntryVisibility\" in istio.mesh.v1alpha1.MeshConfig"`)

	m.Istio = "1.31"
	assert.Equal(t, m.Visibility, m.AppliedVisibility(), "the same Config as 1.31")
	assert.Empty(t, m.Findings())

	m, err = LoadFor([]byte(malformed), "1.29.6", "")
	require.NoError(t, err, "1.29 drops it unread")
	assert.Nil(t, m.Visibility)
	require.Len(t, m.Findings(), 1)
	msg := m.Findings()[0].Message
	assert.Contains(t, msg, `as written the block is malformed (meshConfig.serviceEntryVisibility: unknown field "hostnameSuffix"; meshConfig.serviceEntryVisibility.defaultVisibility: unsupported value "private"`)
	assert.Contains(t, msg, `, and Istio 1.31 refuses the whole mesh configuration: failed to convert to proto. unknown value "\"private\"" for enum istio.mesh.v1alpha1.ServiceEntryVisibility.Visibility`)
	assert.Equal(t, "meshConfig.serviceEntryVisibility", m.Findings()[0].Path)
	_, err = LoadFor([]byte(malformed), "1.31", "")
	require.Error(t, err, "the same file as 1.31")
	assert.Contains(t, err.Error(), `unsupported value "private"`)

	_, err = Load([]byte(malformed))
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 3, "%v", err)
	assert.Contains(t, lines[0], `unknown field "hostnameSuffix"`, "meshscope's own strictness: Istio 1.31 drops unknown nested fields")
	assert.Contains(t, lines[1], `defaultVisibility: unsupported value "private"`)
	assert.Contains(t, lines[1], `Istio 1.31 refuses the whole mesh configuration: failed to convert to proto. unknown value "\"private\"" for enum istio.mesh.v1alpha1.ServiceEntryVisibility.Visibility`)
	assert.Contains(t, lines[2], `applyToSidecars: must be a boolean, got the string "yes"`)

	_, err = Load([]byte("meshConfig:\n  serviceEntryVisibility: {hostnameSuffix: x}\n"))
	require.Error(t, err, "deliberately stricter than Istio, which drops the field")
	assert.NotContains(t, err.Error(), "refuses the whole mesh configuration", "Istio accepts it: no words of Istio's")
}

// TestValidateRelease: a Config built in Go names its release fields by their Go names.
func TestValidateRelease(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want []string
	}{
		{Config{Istio: "1.30"}, nil},
		{Config{Istio: "1.31.1", CompatibilityVersion: "1.30", PilotEnv: map[string]string{AmbientMultiNetwork: "1", "PILOT_TRACE_SAMPLING": "100"}}, nil},
		{Config{Istio: "v1.30"}, []string{`Istio: Istio "v1.30" is not a release: want 1.MINOR or 1.MINOR.PATCH`}},
		{Config{Istio: "1.27"}, []string{`Istio: Istio "1.27" is not a release meshscope models`}},
		{Config{Istio: "1.29", CompatibilityVersion: "1.29"}, []string{`CompatibilityVersion: unknown compatibility version 1.29 (Helm's words: Istio 1.29 ships profiles for 1.25, 1.26, 1.27, 1.28)`}},
		{Config{CompatibilityVersion: "1.29.1"}, []string{`CompatibilityVersion: unknown compatibility version 1.29.1`}},
		{Config{PilotEnv: map[string]string{ScopeGatewayToNamespace: "true", EnhancedDestinationRuleMerge: "maybe"}}, []string{
			`PilotEnv["ENABLE_ENHANCED_DESTINATIONRULE_MERGE"]: ENABLE_ENHANCED_DESTINATIONRULE_MERGE="maybe" is not a boolean`,
			`PilotEnv["PILOT_SCOPE_GATEWAY_TO_NAMESPACE"]: PILOT_SCOPE_GATEWAY_TO_NAMESPACE="true": meshscope does not model`,
		}},
	} {
		err := tc.c.Validate()
		if tc.want == nil {
			assert.NoError(t, err, "%+v", tc.c)
			continue
		}
		requireLines(t, err, tc.want)
		var fe *FieldError
		assert.True(t, errors.As(err, &fe))
	}
	c := Config{Istio: "1.29", PilotEnv: map[string]string{PickBestServiceNamespace: "true"}}
	require.NoError(t, c.Validate())
	require.Len(t, c.Findings(), 1)
	assert.Equal(t, `WARNING FlagNotInRelease PilotEnv["PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE"]: Istio 1.29 does not have PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE (it came in 1.30): istiod ignores it, and meshscope answers as the release does without it`,
		c.Findings()[0].String())
	assert.False(t, c.Release().Has(DestinationNamespace))
	assert.Equal(t, Release{}, (*Config)(nil).Release())
	c = Config{Istio: "1.30", PilotEnv: map[string]string{AmbientMultiNetwork: "true"}}
	require.NoError(t, json.Unmarshal([]byte(`{"rootNamespace": "r"}`), &c))
	assert.Equal(t, Config{RootNamespace: "r", Istio: "1.30", PilotEnv: map[string]string{AmbientMultiNetwork: "true"}}, c, "json.Unmarshal keeps the release settings")
	assert.Nil(t, (*Config)(nil).AppliedVisibility())
	assert.Nil(t, (*Config)(nil).Findings())
	assert.Equal(t, []Cause{DefaultExportToLists, ListenerOrder, SidecarExclusions, ServiceEntryVisibility, ExactHostListeners},
		Differences((&Config{Istio: "1.30.2"}).Release(), (&Config{}).Release()))
}

func TestFormatCauses(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []Cause
		want string
	}{
		{"none", nil, ""},
		{"one", []Cause{SidecarExclusions}, "SidecarExclusions (from 1.31.0)"},
		{"as given, each with its release", []Cause{ListenerOrder, DestinationNamespace, ZtunnelCIDRs},
			"ListenerOrder (from 1.30.3), DestinationNamespace (from 1.30.0), ZtunnelCIDRs (from 1.30.0)"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, FormatCauses(tt.in)) })
	}
}
