//go:build upstream

package inventory

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1alpha2 "sigs.k8s.io/gateway-api/apis/v1alpha2"
	gwv1alpha3 "sigs.k8s.io/gateway-api/apis/v1alpha3"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// TestGatewaySchemasMatchUpstream holds the field lists of the Gateway API kinds Load reads
// to sigs.k8s.io/gateway-api's Go types, every version Load reads each kind in (its
// gatewayAPIVersions) by reflection on their JSON names: a field added upstream fails this
// test until the list has it, and so does a version whose fields differ.
func TestGatewaySchemasMatchUpstream(t *testing.T) {
	types := map[string]map[string]reflect.Type{
		"HTTPRoute":      {"v1": reflect.TypeFor[gwv1.HTTPRoute](), "v1beta1": reflect.TypeFor[gwv1beta1.HTTPRoute]()},
		"GRPCRoute":      {"v1": reflect.TypeFor[gwv1.GRPCRoute](), "v1alpha2": reflect.TypeFor[gwv1alpha2.GRPCRoute]()},
		"TCPRoute":       {"v1": reflect.TypeFor[gwv1.TCPRoute](), "v1alpha2": reflect.TypeFor[gwv1alpha2.TCPRoute]()},
		"TLSRoute":       {"v1": reflect.TypeFor[gwv1.TLSRoute](), "v1alpha2": reflect.TypeFor[gwv1alpha2.TLSRoute](), "v1alpha3": reflect.TypeFor[gwv1alpha3.TLSRoute]()},
		"ReferenceGrant": {"v1": reflect.TypeFor[gwv1.ReferenceGrant](), "v1beta1": reflect.TypeFor[gwv1beta1.ReferenceGrant](), "v1alpha2": reflect.TypeFor[gwv1alpha2.ReferenceGrant]()},
		"Gateway":        {"v1": reflect.TypeFor[gwv1.Gateway](), "v1beta1": reflect.TypeFor[gwv1beta1.Gateway]()},
	}
	if len(types) != len(gatewaySchemaText) || len(types) != len(gatewayAPIVersions) {
		t.Fatalf("%d upstream kinds, %d schemas, %d kinds with versions", len(types), len(gatewaySchemaText), len(gatewayAPIVersions))
	}
	for kind, versions := range types {
		if len(versions) != len(gatewayAPIVersions[kind]) {
			t.Errorf("%s: upstream types for %d versions, Load reads %v", kind, len(versions), gatewayAPIVersions[kind])
		}
		got := parseSchema(gatewaySchemaText[kind])
		for _, v := range gatewayAPIVersions[kind] {
			typ, ok := versions[v]
			if !ok {
				t.Errorf("%s %s: no upstream type", kind, v)
				continue
			}
			if d := cmp.Diff(*goSchema(typ), got); d != "" {
				t.Errorf("the fields of %s %s differ from the upstream type's (-upstream +meshscope):\n%s", kind, v, d)
			}
		}
	}
}
