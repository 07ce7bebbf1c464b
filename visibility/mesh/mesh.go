package mesh

import (
	"errors"
	"net"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility"
)

// FieldError is the one structured error type of meshscope's packages: every error this
// package returns is a *FieldError or several joined.
type FieldError = fielderr.Error

// Istio's defaults for the fields a Config leaves empty.
const (
	// DefaultRootNamespace is the root namespace when RootNamespace is "".
	DefaultRootNamespace = "istio-system"
	// DefaultDiscoveryAddress is defaultConfig.discoveryAddress when it is "".
	DefaultDiscoveryAddress = "istiod.istio-system.svc:15012"
)

// Config is the part of Istio's meshConfig that decides who sees what: every field
// meshscope uses, read once (Load) and handed to each view. The zero Config (and a nil
// *Config) is Istio's default: serviceEntryVisibility not configured, root namespace
// istio-system, services, VirtualServices and DestinationRules exported to every namespace,
// every namespace discovered, every Kubernetes Service LOCAL, istiod's discovery address
// istiod.istio-system.svc:15012.
//
// json.Unmarshal decodes these fields of a meshConfig as strictly as Load reads them (see
// UnmarshalJSON); a meshConfig's other fields (accessLogFile, …) are unknown to it, which
// Load skips.
type Config struct {
	// Visibility is serviceEntryVisibility; nil when it is not configured (the feature is
	// inert).
	Visibility *visibility.Config `json:"serviceEntryVisibility,omitempty"`
	// RootNamespace is where the mesh-wide default Sidecar (and the rules every namespace
	// may use) live; "" means istio-system.
	RootNamespace string `json:"rootNamespace,omitempty"`
	// DefaultServiceExportTo is the exportTo of every service that declares none; nil means
	// ["*"]. Its entries are those of a ServiceEntry's exportTo, and, as Istio does not
	// validate it, "*" and "~" may stand beside others; releases read a mix differently
	// (DefaultExportToLists): up to 1.30.2 a list holding "." makes such services private to
	// their namespace (even [".", "*"]), else one holding "*" public, else they are not
	// indexed at all (names and "~" are ignored); from 1.30.3 "*" makes them public, else
	// "~" hides them, else "." and every name are honoured.
	DefaultServiceExportTo []string `json:"defaultServiceExportTo,omitempty"`
	// DefaultVirtualServiceExportTo is the exportTo of every VirtualService that declares
	// none; nil means ["*"]. ["~"] hides every VirtualService without an exportTo. It is
	// read as DefaultServiceExportTo is.
	DefaultVirtualServiceExportTo []string `json:"defaultVirtualServiceExportTo,omitempty"`
	// DefaultDestinationRuleExportTo is the exportTo of every DestinationRule that declares
	// none; nil means ["*"]. Istio honours only "." in it: when the list holds "." (["."],
	// or [".", "other"]), such rules stay in their own namespace; otherwise they are exported
	// to every namespace, whatever namespaces the list names.
	DefaultDestinationRuleExportTo []string `json:"defaultDestinationRuleExportTo,omitempty"`
	// DiscoverySelectors, when there are any, limit what istiod sees to the namespaces whose
	// labels match one of them: the Services, ServiceEntries, Sidecars, VirtualServices and
	// DestinationRules of every other namespace do not exist for it — the root namespace's
	// included. An empty selector {} matches every namespace; a namespace without a
	// Namespace object matches none.
	DiscoverySelectors []metav1.LabelSelector `json:"discoverySelectors,omitempty"`
	// ServiceScopeConfigs decide which Kubernetes Services a cluster shares with the other
	// clusters of a multicluster mesh (package visibility/scope).
	ServiceScopeConfigs []ServiceScope `json:"serviceScopeConfigs,omitempty"`
	// ServiceSettings mark hosts cluster-local.
	ServiceSettings []ServiceSetting `json:"serviceSettings,omitempty"`
	// DefaultConfig is the part of meshConfig.defaultConfig meshscope reads.
	DefaultConfig ProxyConfig `json:"defaultConfig,omitzero"`
	// OutboundTrafficPolicy is outboundTrafficPolicy; nil when it is not set (istiod's
	// default, ALLOW_ANY). See OutboundMode.
	OutboundTrafficPolicy *OutboundTrafficPolicy `json:"outboundTrafficPolicy,omitempty"`

	// Istio is the istiod release the answers are for: "1.28", "1.29", "1.30", "1.31", or a
	// patch ("1.30.2"); "" means the newest release meshscope models (1.31). A minor alone
	// answers as the patch its behaviour was recorded from (1.28.10, 1.29.6, 1.30.3, the 1.31
	// build); 1.30.0–1.30.2 lack 1.30.3's default-exportTo and listener-order changes; 1.28.0
	// is not modelled. Load reads it from the install (see Load); a caller may set it.
	Istio string `json:"-"`
	// CompatibilityVersion is the install's compatibilityVersion ("1.25" … "1.30", as the
	// release's profiles allow: 1.25 up to the release before it; "" none). The profiles of
	// 1.25–1.29 turn PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE off on 1.30 and 1.31; no other
	// setting they change alters an answer meshscope gives.
	CompatibilityVersion string `json:"-"`
	// PilotEnv holds istiod's flags (environment variables) as the install sets them, name →
	// value as written, each winning over the compatibilityVersion profile (Load keeps only
	// the flags below, and applies the chart's precedence first). meshscope honours
	// PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE (1.30 on) and AMBIENT_ENABLE_MULTI_NETWORK
	// (package visibility/scope); ENABLE_ENHANCED_DESTINATIONRULE_MERGE,
	// PILOT_UNIFIED_SIDECAR_SCOPE and PILOT_SCOPE_GATEWAY_TO_NAMESPACE change answers it
	// models only for their defaults, so another value is refused. Other variables are not
	// read. nil: none set.
	PilotEnv map[string]string `json:"-"`

	// Notes are what Load found that the release ignores or overrides and the fields above
	// do not hold: an env value a compatibility profile overrides, an image tag that names
	// no release, a serviceEntryVisibility block the release drops unread and meshscope
	// cannot read (its problems said). Findings includes them. They describe the file as
	// loaded, for the release it was loaded for; nil when there are none.
	Notes []visibility.Finding `json:"-"`
}

// ProxyConfig is the part of meshConfig.defaultConfig meshscope reads.
type ProxyConfig struct {
	// DiscoveryAddress is istiod's address (host:port), whose host Istio makes
	// cluster-local; "" means istiod.istio-system.svc:15012.
	DiscoveryAddress string `json:"discoveryAddress,omitempty"`
}

// Root returns the root namespace: RootNamespace, or istio-system when it is "" (or c is
// nil).
func (c *Config) Root() string {
	if c == nil || c.RootNamespace == "" {
		return DefaultRootNamespace
	}
	return c.RootNamespace
}

// Discovery returns istiod's discovery address: DefaultConfig.DiscoveryAddress, or
// istiod.istio-system.svc:15012 when it is "" (or c is nil).
func (c *Config) Discovery() string {
	if c == nil || c.DefaultConfig.DiscoveryAddress == "" {
		return DefaultDiscoveryAddress
	}
	return c.DefaultConfig.DiscoveryAddress
}

// Validate reports every problem in c, each with its path as a meshConfig spells it:
// serviceEntryVisibility's (see visibility.Config.Validate; from 1.31 only: before, istiod
// drops the block unread, which Findings says), a root namespace that is not a namespace
// name, an invalid default exportTo (the form of a ServiceEntry's exportTo), an invalid
// discovery selector or scope selector, an unknown scope, a serviceSettings host Istio
// refuses (a DNS name whose first label may be a wildcard label, or "*" alone), a discovery
// address that is not host:port, and an outbound traffic mode the release does not have; and the release settings' (the fields Istio,
// CompatibilityVersion and PilotEnv, or where Load read them): a release meshscope does not
// model or a malformed one, naming the releases it models; a compatibilityVersion the
// release has no profile for (Helm's "unknown compatibility version"); a flag value istiod
// cannot read as a boolean, or a value meshscope does not model (see PilotEnv). A nil Config
// is valid.
func (c *Config) Validate() error { return errors.Join(c.problems(fielderr.Root(fielderr.Object))...) }

// problems reports c's problems, their paths under root (the meshConfig's), each built for a
// problem only.
func (c *Config) problems(root fielderr.Path) []error {
	if c == nil {
		return nil
	}
	errs := c.releaseProblems(nil)
	if c.Release().Has(ServiceEntryVisibility) {
		if err := c.Visibility.Validate(); err != nil {
			errs = append(errs, fielderr.Split(fielderr.Under(root.Child("serviceEntryVisibility").String(), err))...)
		}
	}
	if c.RootNamespace != "" {
		if r := names.Label(c.RootNamespace); r != "" {
			errs = append(errs, root.Child("rootNamespace").Problem(c.RootNamespace, strconv.Quote(c.RootNamespace)+" "+r))
		}
	}
	for _, f := range []struct {
		name string
		list []string
	}{{"defaultServiceExportTo", c.DefaultServiceExportTo}, {"defaultVirtualServiceExportTo", c.DefaultVirtualServiceExportTo}, {"defaultDestinationRuleExportTo", c.DefaultDestinationRuleExportTo}} {
		for _, e := range exportto.Problems(func() fielderr.Path { return root.Child(f.name) }, "", f.list, exportto.Mesh) {
			errs = append(errs, e)
		}
	}
	for i := range c.DiscoverySelectors {
		errs = appendProblems(errs, kube.SelectorProblems(&c.DiscoverySelectors[i], func() fielderr.Path { return root.Child("discoverySelectors").Index(i) }))
	}
	errs = append(errs, c.scopeProblems(root)...)
	errs = append(errs, outboundProblems(c.OutboundTrafficPolicy, c.Release(), root)...)
	if a := c.DefaultConfig.DiscoveryAddress; a != "" {
		if r := discoveryProblem(a); r != "" {
			errs = append(errs, root.Child("defaultConfig").Child("discoveryAddress").Problem(a, strconv.Quote(a)+" "+r))
		}
	}
	return errs
}

// appendProblems appends the problems to errs.
func appendProblems(errs []error, problems []*FieldError) []error {
	for _, e := range problems {
		errs = append(errs, e)
	}
	return errs
}

// scopeProblems reports the problems of the scope settings, under root.
func (c *Config) scopeProblems(root fielderr.Path) []error {
	var errs []error
	for i, s := range c.ServiceScopeConfigs {
		scope := func() fielderr.Path { return root.Child("serviceScopeConfigs").Index(i) }
		if s.NamespaceSelector != nil {
			errs = appendProblems(errs, kube.SelectorProblems(s.NamespaceSelector, func() fielderr.Path { return scope().Child("namespaceSelector") }))
		}
		if s.ServicesSelector != nil {
			errs = appendProblems(errs, kube.SelectorProblems(s.ServicesSelector, func() fielderr.Path { return scope().Child("servicesSelector") }))
		}
		if s.Scope != "" && s.Scope != Local && s.Scope != Global {
			errs = append(errs, kube.FromField(field.NotSupported(scope().Child("scope").FieldPath(), string(s.Scope), []string{string(Local), string(Global)})))
		}
	}
	for i, s := range c.ServiceSettings {
		for j, h := range s.Hosts {
			for _, r := range hosts.Problems(h, hosts.ServiceSettingsHosts) {
				errs = append(errs, root.Child("serviceSettings").Index(i).Child("hosts").Index(j).Problem(h, r))
			}
		}
	}
	return errs
}

// discoveryProblem says why a discoveryAddress is not one Istio accepts: host:port, the port
// a number from 1 to 65535, the host a DNS name or an IP.
func discoveryProblem(a string) string {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return "is not host:port"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "has port " + strconv.Quote(port) + ", not a number from 1 to 65535"
	}
	if net.ParseIP(host) == nil && hosts.FQDNProblem(host) != "" {
		return "has host " + strconv.Quote(host) + ", neither a DNS name nor an IP"
	}
	return ""
}
