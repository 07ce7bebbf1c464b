// Package mesh reads Istio's mesh configuration once — every meshConfig field meshscope
// uses — for the views built on it (packages visibility/ambient, visibility/sidecar and
// visibility/scope):
//
//	serviceEntryVisibility          visibility.Config: who sees each ServiceEntry
//	rootNamespace                   the mesh-wide default Sidecar's namespace (istio-system)
//	defaultServiceExportTo          exportTo of services that give none (["*"])
//	defaultVirtualServiceExportTo   … of VirtualServices (["*"])
//	defaultDestinationRuleExportTo  … of DestinationRules (Istio applies only ["."])
//	discoverySelectors              which namespaces istiod sees (all)
//	serviceScopeConfigs             which Kubernetes Services a cluster shares (none)
//	serviceSettings                 cluster-local hosts
//	defaultConfig.discoveryAddress  istiod's address, whose host stays cluster-local
//	outboundTrafficPolicy.mode      what a sidecar does with unknown hosts (ALLOW_ANY)
//
// Load reads them from every file the configuration is kept in — an IstioOperator, the
// istio ConfigMap, Helm values, a meshConfig or a bare serviceEntryVisibility block — as
// strictly as visibility.LoadConfig reads the block: for example
//
//	apiVersion: install.istio.io/v1alpha1
//	kind: IstioOperator
//	spec:
//	  meshConfig:
//	    rootNamespace: mesh-root
//	    discoverySelectors:
//	    - matchLabels: {istio-discovery: enabled}
//	    serviceEntryVisibility:
//	      defaultVisibility: NAMESPACE
//
// gives a Config with RootNamespace "mesh-root", one discovery selector and the visibility
// block, every other field empty (Istio's default). A misspelt field name such as
// rootNamespce, which Istio would silently ignore, is an error naming its path, and so is a
// field set in two places. The one Config is then handed to every view:
//
//	m, err := mesh.Load(meshYAML)
//	inv, err := inventory.Load(dumpYAML, "cluster.local")
//	v, err := sidecar.New(m, inv)
//
// A Config built in Go is checked by Validate, which every view calls.
//
// # The Istio release
//
// istiod's answers change between releases, and every answer is for one: Config.Istio
// ("1.28", "1.29", "1.30", "1.31", or a patch such as "1.30.2"; "" for the newest, 1.31),
// Config.CompatibilityVersion and the istiod flags of Config.PilotEnv. Load reads them
// where the install writes them — Helm values' tag (pilot.tag, tag, global.tag, or a whole
// image reference), compatibilityVersion, env and pilot.env; an IstioOperator's spec.values
// likewise, spec.components.pilot.tag, spec.tag, spec.compatibilityVersion and
// spec.components.pilot.k8s.env — and LoadFor takes them from the caller for a file that
// does not say them (the istio ConfigMap never does). Config.Release resolves them into a
// Release: which release is answered for, how it behaves cause by cause (Release.Has: for
// example DestinationNamespace, on from 1.30 unless PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE
// is off, which the compatibilityVersion profiles 1.25–1.29 turn off), and how an output
// names it on its first line:
//
//	Istio 1.30.3, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)
//
// Validate refuses a release meshscope does not model (1.27, 1.32, and 1.28.0, whose ztunnel
// differs from 1.28's), naming those it does; a compatibilityVersion the release ships no
// profile for, in Helm's words ("unknown compatibility version 1.30" on 1.30.3, whose
// profiles are 1.25 to 1.29); a flag value istiod cannot read; and a non-default value of a
// flag that changes an answer meshscope models only for its default
// (ENABLE_ENHANCED_DESTINATIONRULE_MERGE, PILOT_UNIFIED_SIDECAR_SCOPE,
// PILOT_SCOPE_GATEWAY_TO_NAMESPACE). Differences lists the causes two releases differ by:
// what an upgrade between them can change; FormatCauses spells them for a report, each with
// the release it came in.
//
// The release decides what the mesh configuration means. serviceEntryVisibility exists from
// 1.31: istiod 1.28–1.30 drops it without a word, malformed or not, so meshscope reads it
// (Visibility keeps it as written, if it can be read), applies it only from 1.31
// (AppliedVisibility, which the views read), and says so (Findings, IgnoredByRelease). From
// 1.31 a malformed block — a value of the wrong JSON type, an enum name Istio does not have,
// lower case included — makes the whole mesh configuration invalid. A mesh configuration
// istiod refuses is refused in its words, with what istiod runs on instead; every release
// refuses defaultServiceExportTo: "." (a string where a list belongs):
//
//	meshConfig.defaultServiceExportTo: must be a list, got the string "."; Istio 1.30.3 refuses the whole mesh configuration: failed to convert to proto. json: cannot unmarshal string into Go value of type []json.RawMessage; istiod then runs on DefaultMeshConfig (…)
//
// outboundTrafficPolicy replaces istiod's default (ALLOW_ANY) whole, as jsonpb sets a
// message field: {} — a policy without a mode — is REGISTRY_ONLY, the enum's zero value, and
// null keeps the default (Config.OutboundMode). Its mode names the catch-all virtual host of
// every route table a sidecar gets (allow_any, block_all, allow_any_dynamic_dns; a Sidecar's
// own policy wins); ALLOW_ANY_DYNAMIC_DNS exists from 1.31, and an earlier release refuses
// it.
//
// Istio drops a field it does not know (a misspelt key, an unknown field inside
// serviceEntryVisibility); meshscope refuses it, deliberately: as written, it would change
// nothing. The releases' answers to the same configurations, recorded from each release's
// own code, hold Load to these rules (TestMeshConfigAgainstReleases).
package mesh
