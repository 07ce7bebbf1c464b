package inventory

import (
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// The fields of the objects Load reads, as their real APIs define them (core/v1
// Namespace and Service; networking.istio.io/v1 ServiceEntry, Sidecar, VirtualService and
// DestinationRule as their CRDs serve them, status included), every field whether meshscope uses it or not, so that a
// field the API does not have — a misspelling such as host for hosts — is an error rather
// than a field silently ignored. A test holds these lists to the upstream Go types.
//
// The notation: names separated by spaces; name{...} is an object (or a list of objects)
// with those fields; a name without braces holds any value (a scalar, a map whose keys are
// the user's, or free-form data); @name stands for a fragment below.
var schemaFragments = map[string]string{
	"meta": `annotations creationTimestamp deletionGracePeriodSeconds deletionTimestamp finalizers generateName
		generation labels managedFields{apiVersion fieldsType fieldsV1 manager operation subresource time} name namespace
		ownerReferences{apiVersion blockOwnerDeletion controller kind name uid} resourceVersion selfLink uid`,
	"istioConditions": `conditions{lastProbeTime lastTransitionTime message observedGeneration reason status type}
		observedGeneration validationMessages{documentationUrl level type{code name}}`,
	"pool": `http{h2UpgradePolicy http1MaxPendingRequests http2KeepAlive{interval timeout} http2MaxRequests idleTimeout
		maxConcurrentStreams maxRequestsPerConnection maxRetries useClientProtocol}
		tcp{connectTimeout idleTimeout maxConnectionDuration maxConnections tcpKeepalive{interval probes time}}`,
	"sidecarPort": `name number protocol targetPort`,
	"destination": `host port{number} subset`,
	"stringMatch": `exact prefix regex`,
	"headerOps":   `request{add remove set} response{add remove set}`,
	"httpRoute": `corsPolicy{allowCredentials allowHeaders allowMethods allowOrigin allowOrigins{@stringMatch} exposeHeaders maxAge
			unmatchedPreflights}
		delegate{name namespace} directResponse{body{bytes string} status}
		fault{abort{grpcStatus http2Error httpStatus percentage{value}} delay{exponentialDelay fixedDelay percent percentage{value}}}
		headers{@headerOps}
		match{authority{@stringMatch} gateways headers ignoreUriCase method{@stringMatch} name port queryParams
			scheme{@stringMatch} sourceLabels sourceNamespace statPrefix uri{@stringMatch} withoutHeaders}
		mirror{@destination} mirrorPercent mirrorPercentage{value} mirrors{destination{@destination} percentage{value}} name
		redirect{authority derivePort port prefixRewrite redirectCode scheme uri}
		retries{attempts backoff perTryTimeout retryIgnorePreviousHosts retryOn retryRemoteLocalities}
		rewrite{authority uri uriRegexRewrite{match rewrite}}
		route{destination{@destination} headers{@headerOps} weight} timeout`,
	"loadBalancer": `backendUtilization{errorUtilizationPenaltyPercent metricNamesForComputingUtilization weightExpirationPeriod
			weightStabilizationPeriod weightUpdatePeriod}
		consistentHash{httpCookie{attributes{name value} name path ttl} httpHeaderName httpQueryParameterName
			maglev{tableSize} minimumRingSize ringHash{minimumRingSize} useSourceIp}
		localityLbSetting{distribute{from to} enabled failover{from to} failoverPriority} simple
		warmup{aggression duration minimumPercent} warmupDurationSecs
		zoneAwareLbSetting{enabled failover{from to} failoverPriority minClusterSize}`,
	"outlierDetection": `baseEjectionTime consecutive5xxErrors consecutiveErrors consecutiveGatewayErrors
		consecutiveLocalOriginFailures failurePercentageThreshold interval maxEjectionPercent minHealthPercent
		outlierDetectionHttpErrorCodes splitExternalLocalOriginErrors`,
	"clientTLS": `caCertCredentialName caCertificates caCrl clientCertificate credentialName insecureSkipVerify mode
		privateKey sni subjectAltNames`,
	"trafficPolicy": `connectionPool{@pool} loadBalancer{@loadBalancer} outlierDetection{@outlierDetection}
		portLevelSettings{connectionPool{@pool} loadBalancer{@loadBalancer} outlierDetection{@outlierDetection} port{number}
			tls{@clientTLS}}
		proxyProtocol{version} retryBudget{budgetInterval minRetryConcurrency percent} tls{@clientTLS}
		tunnel{protocol targetHost targetPort}`,
}

var schemaText = map[string]string{
	"Namespace": `apiVersion kind metadata{@meta} spec{finalizers}
		status{conditions{lastTransitionTime message reason status type} phase}`,
	"Service": `apiVersion kind metadata{@meta}
		spec{allocateLoadBalancerNodePorts clusterIP clusterIPs externalIPs externalName externalTrafficPolicy
			healthCheckNodePort internalTrafficPolicy ipFamilies ipFamilyPolicy loadBalancerClass loadBalancerIP
			loadBalancerSourceRanges ports{appProtocol name nodePort port protocol targetPort} publishNotReadyAddresses
			selector sessionAffinity sessionAffinityConfig{clientIP{timeoutSeconds}} trafficDistribution type}
		status{conditions{lastTransitionTime message observedGeneration reason status type}
			loadBalancer{ingress{hostname ip ipMode ports{error port protocol}}}}`,
	"ServiceEntry": `apiVersion kind metadata{@meta}
		spec{addresses endpoints{address labels locality network ports serviceAccount weight} exportTo hosts location
			ports{name number protocol targetPort} resolution subjectAltNames workloadSelector{labels}}
		status{addresses{host value} @istioConditions}`,
	"Sidecar": `apiVersion kind metadata{@meta}
		spec{egress{bind captureMode hosts port{@sidecarPort}} inboundConnectionPool{@pool}
			ingress{bind captureMode connectionPool{@pool} defaultEndpoint port{@sidecarPort}
				tls{alpnProtocols caCertCredentialName caCertificates caCrl cipherSuites credentialName credentialNames
					ecdhCurves httpsRedirect insecureSkipVerify maxProtocolVersion minProtocolVersion mode privateKey
					serverCertificate subjectAltNames tlsCertificates{caCertificates privateKey serverCertificate}
					verifyCertificateHash verifyCertificateSpki}}
			outboundTrafficPolicy{egressProxy{host port{number} subset} mode} workloadSelector{labels}}
		status{@istioConditions}`,
	"VirtualService": `apiVersion kind metadata{@meta}
		spec{exportTo gateways hosts http{@httpRoute}
			tcp{match{destinationSubnets gateways port sourceLabels sourceNamespace sourceSubnet}
				route{destination{@destination} weight}}
			tls{match{destinationSubnets gateways port sniHosts sourceLabels sourceNamespace}
				route{destination{@destination} weight}}}
		status{@istioConditions}`,
	"DestinationRule": `apiVersion kind metadata{@meta}
		spec{exportTo host subsets{labels name trafficPolicy{@trafficPolicy}} trafficPolicy{@trafficPolicy}
			workloadSelector{matchLabels}}
		status{@istioConditions}`,
}

// schema is the shape of a JSON object: its fields, each with the shape of its value (nil:
// any value).
type schema map[string]*schema

// objectSchema is a schema ready to check objects with: its fields' names, sorted.
type objectSchema struct {
	names  []string
	fields map[string]*objectSchema // nil: any value
}

// inventorySchemas are the schemas of the kinds Load reads, by kind.
var inventorySchemas = func() map[string]*objectSchema {
	out := make(map[string]*objectSchema, len(schemaText)+len(gatewaySchemaText))
	for _, texts := range []map[string]string{schemaText, gatewaySchemaText} {
		for kind, text := range texts {
			s := parseSchema(text)
			out[kind] = compileSchema(&s)
		}
	}
	return out
}()

// parseSchema reads the notation above; it panics on text that is not (the text is the
// package's own, and a test reads it).
func parseSchema(text string) schema {
	for strings.Contains(text, "@") {
		i := strings.Index(text, "@")
		j := i + 1
		for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z') {
			j++
		}
		frag, ok := schemaFragments[text[i+1:j]]
		if !ok {
			panic("schema: unknown fragment " + text[i:j])
		}
		text = text[:i] + frag + text[j:]
	}
	s, rest := parseFields(text)
	if strings.TrimSpace(rest) != "" {
		panic("schema: unbalanced braces before " + rest)
	}
	return s
}

// parseFields reads names up to an unmatched "}" or the end, returning what follows.
func parseFields(text string) (schema, string) {
	s := schema{}
	for {
		text = strings.TrimLeft(text, " \t\n")
		if text == "" || text[0] == '}' {
			return s, text
		}
		end := strings.IndexAny(text, " \t\n{}")
		if end < 0 {
			end = len(text)
		}
		name := text[:end]
		text = text[end:]
		if _, dup := s[name]; dup {
			panic("schema: " + name + " given twice")
		}
		if strings.HasPrefix(text, "{") {
			sub, rest := parseFields(text[1:])
			if !strings.HasPrefix(rest, "}") {
				panic("schema: " + name + "{ is not closed")
			}
			s[name], text = &sub, rest[1:]
			continue
		}
		s[name] = nil
	}
}

func compileSchema(s *schema) *objectSchema {
	if s == nil {
		return nil
	}
	o := &objectSchema{fields: make(map[string]*objectSchema, len(*s))}
	for name, sub := range *s {
		o.names = append(o.names, name)
		o.fields[name] = compileSchema(sub)
	}
	slices.Sort(o.names)
	return o
}

// schemaWalker checks objects against their schemas. It keeps the path to the value being
// checked as a stack of fields and indexes, spelt out only for a problem, and makes a decoder
// only when it finds one: the walk over a kubectl dump allocates nothing for the objects
// that are fine. One walker serves a whole stream.
type schemaWalker struct {
	d    *strict.Decoder
	segs []pathSeg
}

type pathSeg struct {
	key   string // the field's name; "" for a list element
	index int
}

func (w *schemaWalker) path() string {
	p := ""
	for _, s := range w.segs {
		if s.key == "" {
			p = strict.Index(p, s.index)
		} else {
			p = strict.Child(p, s.key)
		}
	}
	return p
}

// walk reports every field of x (at the walker's path) that its schema does not have, with
// the field it most resembles, and walks into the objects and lists of objects the schema
// describes. Values of the wrong type are left to the reader of the field.
func (w *schemaWalker) walk(x any, s *objectSchema) {
	switch t := x.(type) {
	case strict.Fields:
		for _, f := range t {
			if _, ok := s.fields[f.Key]; !ok {
				if w.d == nil {
					w.d = &strict.Decoder{}
				}
				o, _ := w.d.Object(t, w.path())
				o.Check(s.names...)
				if len(s.names) == 1 && s.names[0] == "labels" && !has(t, "labels") {
					// Labels written straight under workloadSelector, or as a label selector's
					// matchLabels: say what the object holds.
					w.d.Errorf(w.path(), "a workloadSelector holds the workload's labels under labels (workloadSelector: {labels: {app: web}}); it is not a label selector")
				}
				if len(s.names) == 1 && s.names[0] == "matchLabels" && !has(t, "matchLabels") {
					// A DestinationRule's selector, written as a Sidecar's or with the labels
					// straight under it.
					w.d.Errorf(w.path(), "a DestinationRule's workloadSelector holds the workload's labels under matchLabels (workloadSelector: {matchLabels: {app: web}})")
				}
				break
			}
		}
		for _, f := range t {
			if sub := s.fields[f.Key]; sub != nil && f.Value != nil {
				w.segs = append(w.segs, pathSeg{key: f.Key})
				w.walk(f.Value, sub)
				w.segs = w.segs[:len(w.segs)-1]
			}
		}
	case []any:
		for i, item := range t {
			if _, isObj := item.(strict.Fields); isObj {
				w.segs = append(w.segs, pathSeg{index: i})
				w.walk(item, s)
				w.segs = w.segs[:len(w.segs)-1]
			}
		}
	}
}

// problems reports the fields of an object of a kind Load reads that its API does
// not have.
func (w *schemaWalker) problems(o kube.Object) []error {
	w.segs = w.segs[:0]
	w.walk(o.Fields, inventorySchemas[o.Kind])
	if w.d == nil {
		return nil
	}
	errs := fielderr.Split(w.d.Err())
	w.d = nil
	return errs
}

// has reports whether the object has the field key.
func has(o strict.Fields, key string) bool {
	_, ok := o.Get(key)
	return ok
}
