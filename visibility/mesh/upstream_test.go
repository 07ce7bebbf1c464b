//go:build upstream

// This test compiles istio.io/api, so it builds with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package mesh

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"
	meshconfig "istio.io/api/mesh/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/internal/meshfile"
)

// TestFieldNamesAreIstios holds the meshConfig field names Load reads to the names Istio's
// MeshConfig message declares: each list of spellings is the field's JSON name and its proto
// name, and a file written with either set of names, as Istio's own message names every field
// and sub-field Load reads, loads into the same Config.
func TestFieldNamesAreIstios(t *testing.T) {
	md := (&meshconfig.MeshConfig{}).ProtoReflect().Descriptor()
	field := func(m protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
		fd := m.Fields().ByName(protoreflect.Name(name))
		require.NotNil(t, fd, "%s has no field %s", m.FullName(), name)
		return fd
	}
	for _, spellings := range [][]string{meshfile.ScopeConfigs, meshfile.Settings, meshfile.DefaultConfig, meshfile.RootNamespace,
		meshfile.DefaultExport, meshfile.DefaultVSExport, meshfile.DefaultDRExport, meshfile.DiscoverySelectors} {
		fd := field(md, spellings[1])
		require.Equal(t, []string{fd.JSONName(), string(fd.Name())}, spellings)
	}
	fd := field(field(md, "default_config").Message(), meshfile.DiscoveryAddress[1])
	require.Equal(t, []string{fd.JSONName(), string(fd.Name())}, meshfile.DiscoveryAddress)

	// One file in each spelling, every name taken from Istio's descriptors.
	write := func(proto bool) string {
		n := func(m protoreflect.MessageDescriptor, name string) string {
			if fd := field(m, name); !proto {
				return fd.JSONName()
			}
			return name
		}
		scope := field(md, "service_scope_configs").Message()
		setting := field(md, "service_settings").Message()
		values := field(setting, "settings").Message()
		proxy := field(md, "default_config").Message()
		var b strings.Builder
		fmt.Fprintf(&b, "%s: mesh-root\n", n(md, "root_namespace"))
		fmt.Fprintf(&b, "%s: [.]\n%s: ['~']\n%s: [.]\n", n(md, "default_service_export_to"), n(md, "default_virtual_service_export_to"), n(md, "default_destination_rule_export_to"))
		fmt.Fprintf(&b, "%s: [{matchLabels: {istio: on}}]\n", n(md, "discovery_selectors"))
		fmt.Fprintf(&b, "%s: [{%s: {matchLabels: {shared: 'yes'}}, %s: {matchLabels: {app: x}}, %s: GLOBAL}]\n",
			n(md, "service_scope_configs"), n(scope, "namespace_selector"), n(scope, "services_selector"), n(scope, "scope"))
		fmt.Fprintf(&b, "%s: [{%s: {%s: true}, %s: ['*.secret.svc.cluster.local']}]\n",
			n(md, "service_settings"), n(setting, "settings"), n(values, "cluster_local"), n(setting, "hosts"))
		fmt.Fprintf(&b, "%s: {%s: istiod.mesh-root.svc:15012}\n", n(md, "default_config"), n(proxy, "discovery_address"))
		return b.String()
	}
	want := &Config{
		RootNamespace: "mesh-root", DefaultServiceExportTo: []string{"."}, DefaultVirtualServiceExportTo: []string{"~"}, DefaultDestinationRuleExportTo: []string{"."},
		DiscoverySelectors:  []metav1.LabelSelector{{MatchLabels: map[string]string{"istio": "on"}}},
		ServiceScopeConfigs: []ServiceScope{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"shared": "yes"}}, ServicesSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, Scope: Global}},
		ServiceSettings:     []ServiceSetting{{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.secret.svc.cluster.local"}}},
		DefaultConfig:       ProxyConfig{DiscoveryAddress: "istiod.mesh-root.svc:15012"},
	}
	for _, proto := range []bool{false, true} {
		file := "meshConfig:\n" + indent(write(proto))
		got, err := Load([]byte(file))
		require.NoError(t, err, file)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("proto names %v: Load of\n%s\ndiffers (-want +got):\n%s", proto, file, diff)
		}
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
