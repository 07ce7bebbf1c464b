package inventory

import (
	"encoding/json"
	"time"
)

// VirtualService is a networking.istio.io VirtualService as far as it decides what a
// sidecar proxy routes and receives: its hosts, where it applies (gateways, exportTo), and
// the destinations of its routes. Hosts and destination hosts are kept as written; a view
// resolves short names (a host without a dot is name.<namespace>.svc.<domain>).
type VirtualService struct {
	Namespace    string    `json:"namespace"`
	Name         string    `json:"name"`
	CreationTime time.Time `json:"creationTime,omitzero"`
	// Hosts are spec.hosts. None marks a delegate: a VirtualService other VirtualServices'
	// routes delegate to, which applies to no host of its own.
	Hosts []string `json:"hosts,omitempty"`
	// Gateways are spec.gateways; none means the mesh (every sidecar), and a list that does
	// not name "mesh" applies to gateways only.
	Gateways []string `json:"gateways,omitempty"`
	// ExportTo is spec.exportTo; empty means the mesh's defaultVirtualServiceExportTo.
	ExportTo []string    `json:"exportTo,omitempty"`
	HTTP     []HTTPRoute `json:"http,omitempty"`
	TLS      []L4Route   `json:"tls,omitempty"`
	TCP      []L4Route   `json:"tcp,omitempty"`
}

// HTTPRoute is one spec.http route: what it matches, and where it sends requests.
type HTTPRoute struct {
	Name  string      `json:"name,omitempty"`
	Match []HTTPMatch `json:"match,omitempty"`
	// Route are route[].destination with their weights, in order.
	Route []Destination `json:"route,omitempty"`
	// Mirror is mirror; Mirrors are mirrors[].destination, in order.
	Mirror  *Destination  `json:"mirror,omitempty"`
	Mirrors []Destination `json:"mirrors,omitempty"`
	// Delegate names the VirtualService whose routes replace this one (its namespace "" is
	// this VirtualService's).
	Delegate *Delegate `json:"delegate,omitempty"`
}

// HTTPMatch is one spec.http[].match condition, as far as a view reads it: which source
// namespace it is for (a route is skipped for proxies of other namespaces), and the fields
// whose conflicts decide whether a delegate's route merges with its root's.
type HTTPMatch struct {
	Name            string                 `json:"name,omitempty"`
	SourceNamespace string                 `json:"sourceNamespace,omitempty"`
	URI             *StringMatch           `json:"uri,omitempty"`
	Scheme          *StringMatch           `json:"scheme,omitempty"`
	Method          *StringMatch           `json:"method,omitempty"`
	Authority       *StringMatch           `json:"authority,omitempty"`
	Headers         map[string]StringMatch `json:"headers,omitempty"`
	WithoutHeaders  map[string]StringMatch `json:"withoutHeaders,omitempty"`
	QueryParams     map[string]StringMatch `json:"queryParams,omitempty"`
	IgnoreURICase   bool                   `json:"ignoreUriCase,omitempty"`
	Port            uint32                 `json:"port,omitempty"`
	SourceLabels    map[string]string      `json:"sourceLabels,omitempty"`
	Gateways        []string               `json:"gateways,omitempty"`
}

// StringMatch is one of exact, prefix or regex (Istio's StringMatch). The zero value is a
// match without a type; Load also reads `exact: ""`, and a uri's `prefix: ""`, which Istio
// accepts, into it, so a view cannot tell those apart from it.
type StringMatch struct {
	Exact  string `json:"exact,omitempty"`
	Prefix string `json:"prefix,omitempty"`
	Regex  string `json:"regex,omitempty"`
}

// Delegate is an HTTP route's delegate: the VirtualService that holds its routes.
type Delegate struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// L4Route is one spec.tls or spec.tcp route: its destinations, with their weights, in
// order.
type L4Route struct {
	Route []Destination `json:"route,omitempty"`
}

// Destination is a route's destination: a host (as written), a subset of it (a
// DestinationRule's), a port (0: none given) and the route's weight.
type Destination struct {
	Host   string `json:"host"`
	Subset string `json:"subset,omitempty"`
	Port   uint32 `json:"port,omitempty"`
	Weight int32  `json:"weight,omitempty"`
}

// DestinationRule is a networking.istio.io DestinationRule as far as it decides what a
// proxy gets for a host: the host (as written), who it applies to (exportTo, workload
// selector), its subsets and its traffic policy.
type DestinationRule struct {
	Namespace    string    `json:"namespace"`
	Name         string    `json:"name"`
	CreationTime time.Time `json:"creationTime,omitzero"`
	Host         string    `json:"host"`
	// ExportTo is spec.exportTo; empty means the mesh's defaultDestinationRuleExportTo.
	ExportTo []string `json:"exportTo,omitempty"`
	// WorkloadSelector is spec.workloadSelector.matchLabels: the rule applies only to the
	// proxies of its namespace carrying all of them. nil means no selector; an empty,
	// non-nil map is a selector without labels (Istio's `workloadSelector: {}`), which
	// still makes the rule one with a selector (its exportTo may name only its namespace).
	WorkloadSelector map[string]string `json:"workloadSelector,omitempty"`
	Subsets          []Subset          `json:"subsets,omitempty"`
	// TrafficPolicy is spec.trafficPolicy as written (JSON), or nil.
	TrafficPolicy json.RawMessage `json:"trafficPolicy,omitempty"`
}

// Subset is one subset of a DestinationRule.
type Subset struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	// TrafficPolicy is the subset's trafficPolicy as written (JSON), or nil.
	TrafficPolicy json.RawMessage `json:"trafficPolicy,omitempty"`
}
