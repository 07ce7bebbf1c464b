package mesh

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"
)

// How istiod refuses a mesh configuration, in its words. istiod decodes the meshConfig with
// golang/protobuf's jsonpb into its MeshConfig message (pkg/config/mesh ApplyMeshConfig):
// the first field, in the message's field order, whose JSON value does not decode stops it
// with an error of encoding/json's or jsonpb's, which ApplyMeshConfig prefixes with "failed
// to convert to proto." — in every release 1.28 to 1.31 alike, serviceEntryVisibility (1.31
// on) aside. istiod then runs on DefaultMeshConfig (at start; later, on the last mesh
// configuration it accepted). Unknown fields are dropped (a strict decode that fails on them
// is logged at debug level only). refusal rebuilds that first error for the fields meshscope
// reads; a field meshscope does not read is not judged, so the words are Istio's when the
// refused field is one meshscope reads.

// pbKind is the kind of a protobuf field, as jsonpb decodes it.
type pbKind int

const (
	pbString pbKind = iota
	pbBool
	pbEnum
	pbMessage
	pbStringMap // map<string, string>
)

// pbField is a field of the MeshConfig message meshscope reads: its JSON and proto names,
// kind, whether repeated, and its enum's full name and values or its message's fields.
type pbField struct {
	json, proto string
	kind        pbKind
	list        bool
	enum        string
	values      []string
	fields      []pbField
}

var (
	pbSelector = []pbField{
		{json: "matchLabels", proto: "matchLabels", kind: pbStringMap},
		{json: "matchExpressions", proto: "matchExpressions", kind: pbMessage, list: true, fields: []pbField{
			{json: "key", proto: "key"}, {json: "operator", proto: "operator"}, {json: "values", proto: "values", list: true},
		}},
	}
	pbVisibility = []string{"VISIBILITY_UNSPECIFIED", "NONE", "NAMESPACE", "PUBLIC"}
	// pbMeshConfig are the MeshConfig fields meshscope reads, in the message's field order
	// (istio.io/api mesh/v1alpha1, the order jsonpb decodes them in).
	pbMeshConfig = []pbField{
		{json: "defaultConfig", proto: "default_config", kind: pbMessage, fields: []pbField{{json: "discoveryAddress", proto: "discovery_address"}}},
		pbOutbound(31),
		{json: "defaultServiceExportTo", proto: "default_service_export_to", list: true},
		{json: "defaultVirtualServiceExportTo", proto: "default_virtual_service_export_to", list: true},
		{json: "defaultDestinationRuleExportTo", proto: "default_destination_rule_export_to", list: true},
		{json: "rootNamespace", proto: "root_namespace"},
		{json: "serviceSettings", proto: "service_settings", kind: pbMessage, list: true, fields: []pbField{
			{json: "settings", proto: "settings", kind: pbMessage, fields: []pbField{{json: "clusterLocal", proto: "cluster_local", kind: pbBool}}},
			{json: "hosts", proto: "hosts", list: true},
		}},
		{json: "serviceScopeConfigs", proto: "service_scope_configs", kind: pbMessage, list: true, fields: []pbField{
			{json: "namespaceSelector", proto: "namespace_selector", kind: pbMessage, fields: pbSelector},
			{json: "servicesSelector", proto: "services_selector", kind: pbMessage, fields: pbSelector},
			{json: "scope", proto: "scope", kind: pbEnum, enum: "istio.mesh.v1alpha1.MeshConfig.ServiceScopeConfigs.Scope", values: []string{"LOCAL", "GLOBAL"}},
		}},
		{json: "discoverySelectors", proto: "discovery_selectors", kind: pbMessage, list: true, fields: pbSelector},
		{json: "serviceEntryVisibility", proto: "service_entry_visibility", kind: pbMessage, fields: []pbField{
			{json: "defaultVisibility", proto: "default_visibility", kind: pbEnum, enum: "istio.mesh.v1alpha1.ServiceEntryVisibility.Visibility", values: pbVisibility},
			{json: "applyToSidecars", proto: "apply_to_sidecars", kind: pbBool},
			{json: "policies", proto: "policies", kind: pbMessage, list: true, fields: []pbField{
				{json: "visibility", proto: "visibility", kind: pbEnum, enum: "istio.mesh.v1alpha1.ServiceEntryVisibility.Visibility", values: pbVisibility},
				{json: "matchingRules", proto: "matching_rules", kind: pbMessage, list: true, fields: []pbField{
					{json: "namespaceSelector", proto: "namespace_selector", kind: pbMessage, fields: pbSelector},
				}},
			}},
		}},
	}
)

// refusal returns the words istiod of release r refuses the meshConfig x with — "failed to
// convert to proto. " and the first decoding error, as jsonpb meets it — or "" when it
// decodes every field meshscope reads. A release before 1.31 does not know
// serviceEntryVisibility, so never refuses it.
func refusal(x any, r Release) (words, path string) {
	fields := pbMeshConfig
	if !r.Has(ServiceEntryVisibility) {
		fields = fields[:len(fields)-1]
	}
	if r.Minor() < 31 {
		fields = slices.Clone(fields)
		fields[1] = pbOutbound(r.Minor())
	}
	if err, at := pbMessageError(x, fields, ""); err != "" {
		return "failed to convert to proto. " + err, at
	}
	return "", ""
}

// pbOutbound is MeshConfig's outboundTrafficPolicy as release minor decodes it.
func pbOutbound(minor int) pbField {
	return pbField{json: "outboundTrafficPolicy", proto: "outbound_traffic_policy", kind: pbMessage, fields: []pbField{
		{json: "mode", proto: "mode", kind: pbEnum, enum: "istio.mesh.v1alpha1.MeshConfig.OutboundTrafficPolicy.Mode", values: outboundModes(minor)},
	}}
}

// pbMessageError is the error jsonpb meets decoding x, at path, as a message of fields, and
// the path of the value it fails on.
func pbMessageError(x any, fields []pbField, path string) (string, string) {
	o, ok := x.(strict.Fields)
	if !ok {
		if x == nil {
			return "", ""
		}
		return typeError(x, "map[string]json.RawMessage"), path
	}
	for _, f := range fields {
		// jsonpb takes the field under its proto name, then under its JSON name, which wins.
		name := f.json
		v, ok := o.Get(f.json)
		if !ok {
			name = f.proto
			v, ok = o.Get(f.proto)
		}
		if !ok || v == nil {
			continue
		}
		if err, at := pbValueError(v, f, strict.Child(path, name)); err != "" {
			return err, at
		}
	}
	return "", ""
}

// pbValueError is the error jsonpb meets decoding x, at path, as field f's value, and the
// path of the value it fails on.
func pbValueError(x any, f pbField, path string) (string, string) {
	if f.list {
		items, ok := x.([]any)
		if !ok {
			return typeError(x, "[]json.RawMessage"), path
		}
		one := f
		one.list = false
		for i, item := range items {
			if item == nil {
				continue // null decodes to the zero value
			}
			if err, at := pbValueError(item, one, strict.Index(path, i)); err != "" {
				return err, at
			}
		}
		return "", ""
	}
	switch f.kind {
	case pbBool:
		if _, ok := x.(bool); !ok {
			return typeError(x, "bool"), path
		}
	case pbString:
		if _, ok := x.(string); !ok {
			return typeError(x, "string"), path
		}
	case pbStringMap:
		o, ok := x.(strict.Fields)
		if !ok {
			return typeError(x, "map[string]json.RawMessage"), path
		}
		for _, m := range o { // Go's map order in Istio: the first in document order here
			if _, ok := m.Value.(string); !ok && m.Value != nil {
				return typeError(m.Value, "string"), strict.Key(path, m.Key)
			}
		}
	case pbEnum:
		return enumError(x, f), path
	case pbMessage:
		return pbMessageError(x, f.fields, path)
	}
	return "", ""
}

// enumError is the error jsonpb meets decoding x as enum field f: a name it does not have
// (lower case included), or a JSON value that is no int32.
func enumError(x any, f pbField) string {
	switch t := x.(type) {
	case string:
		for _, v := range f.values {
			if v == t {
				return ""
			}
		}
		quoted, _ := json.Marshal(t)
		return "unknown value " + strconv.Quote(string(quoted)) + " for enum " + f.enum
	case json.Number:
		if _, err := strconv.ParseInt(string(t), 10, 32); err != nil {
			return "json: cannot unmarshal number " + string(t) + " into Go value of type protoreflect.EnumNumber"
		}
		return ""
	}
	return typeError(x, "protoreflect.EnumNumber")
}

// typeError is encoding/json's error for the JSON value x decoded into goType.
func typeError(x any, goType string) string {
	kind := "object"
	switch x.(type) {
	case string:
		kind = "string"
	case json.Number:
		kind = "number"
	case bool:
		kind = "bool"
	case []any:
		kind = "array"
	}
	return "json: cannot unmarshal " + kind + " into Go value of type " + goType
}

// defaultMeshConfig says what istiod runs on when it refuses a mesh configuration, as far
// as meshscope reads it.
const defaultMeshConfig = `DefaultMeshConfig (at start; later, on the last one it accepted): every default exportTo ["*"], rootNamespace istio-system, no discoverySelectors, no serviceEntryVisibility`

// withRefusal puts how istiod refuses the document, words, at the end of the problem errs
// holds at path (or above it, or, failing both, the first): one problem a line, however
// Istio words it.
func withRefusal(errs []error, path, words string) []error {
	pick := -1
	for i, err := range errs {
		var fe *FieldError
		if !errors.As(err, &fe) {
			continue
		}
		if fe.Field == path || pick < 0 && (strings.HasPrefix(path, fe.Field+".") || strings.HasPrefix(path, fe.Field+"[")) {
			pick = i
			if fe.Field == path {
				break
			}
		}
	}
	if pick < 0 {
		pick = 0
	}
	var fe *FieldError
	if errors.As(errs[pick], &fe) {
		cp := *fe
		cp.Detail += "; " + words
		errs[pick] = &cp
		return errs
	}
	errs[pick] = fmt.Errorf("%w; %s", errs[pick], words)
	return errs
}
