//go:build upstream

// The tests that hold meshscope to the real API modules' types compile those modules, which
// takes longer than the rest of the suite: they build with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package inventory

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	istiometa "istio.io/api/meta/v1alpha1"
	networking "istio.io/api/networking/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The upstream types each inventory kind is held to: the Kubernetes objects as k8s.io/api
// declares them, the Istio objects as the CRDs serve istio.io/api's messages (apiVersion,
// kind, metadata, and the spec and status messages). Istio serves one schema under v1,
// v1beta1 and v1alpha3, so the v1 messages stand for all three.
func upstreamSchemas() map[string]schema {
	istio := func(spec, status proto.Message) schema {
		return schema{"apiVersion": nil, "kind": nil, "metadata": goSchema(reflect.TypeFor[metav1.ObjectMeta]()),
			"spec": protoSchema(spec.ProtoReflect().Descriptor()), "status": protoSchema(status.ProtoReflect().Descriptor())}
	}
	return map[string]schema{
		"Namespace":       *goSchema(reflect.TypeFor[corev1.Namespace]()),
		"Service":         *goSchema(reflect.TypeFor[corev1.Service]()),
		"ServiceEntry":    istio(&networking.ServiceEntry{}, &networking.ServiceEntryStatus{}),
		"Sidecar":         istio(&networking.Sidecar{}, &istiometa.IstioStatus{}),
		"VirtualService":  istio(&networking.VirtualService{}, &istiometa.IstioStatus{}),
		"DestinationRule": istio(&networking.DestinationRule{}, &istiometa.IstioStatus{}),
	}
}

// Types that decode themselves from a scalar (or hold free-form data): any value.
var scalarTypes = []reflect.Type{reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime](), reflect.TypeFor[metav1.FieldsV1]()}

// goSchema is the JSON shape of a Kubernetes Go type: its fields by JSON tag (embedded
// inline structs merged), nil for a scalar, a map or a type that decodes itself.
func goSchema(t reflect.Type) *schema {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || slices.Contains(scalarTypes, t) || t.PkgPath() == "k8s.io/apimachinery/pkg/util/intstr" || t.PkgPath() == "k8s.io/apimachinery/pkg/api/resource" {
		return nil
	}
	s := schema{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" || strings.Contains(opts, "inline") {
			if sub := goSchema(f.Type); sub != nil {
				for k, v := range *sub {
					s[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		s[name] = goSchema(f.Type)
	}
	return &s
}

// protoSchema is the JSON shape of a protobuf message as a CRD serves it: its fields by
// JSON name, nil for a scalar, an enum, a map or a well-known type (which JSON spells as a
// scalar or free-form value).
func protoSchema(m protoreflect.MessageDescriptor) *schema {
	if strings.HasPrefix(string(m.FullName()), "google.protobuf.") {
		return nil
	}
	s := schema{}
	fs := m.Fields()
	for i := range fs.Len() {
		f := fs.Get(i)
		var sub *schema
		if f.Kind() == protoreflect.MessageKind && !f.IsMap() {
			sub = protoSchema(f.Message())
		}
		s[f.JSONName()] = sub
	}
	return &s
}

// TestInventorySchemasMatchUpstream holds the field lists Load checks objects
// against to the real API types (k8s.io/api core/v1; istio.io/api networking/v1 and the
// status messages its CRDs serve), by reflection on their JSON names: a field added
// upstream fails this test until the list has it.
func TestInventorySchemasMatchUpstream(t *testing.T) {
	up := upstreamSchemas()
	require.Len(t, schemaText, len(up))
	for kind, want := range up {
		t.Run(kind, func(t *testing.T) {
			got := parseSchema(schemaText[kind])
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("the fields of %s differ from the upstream type's (-upstream +meshscope):\n%s", kind, d)
			}
		})
	}
}
