package inventory

// The fields of the Gateway API objects Load reads, as sigs.k8s.io/gateway-api v1.6.0
// declares them (the experimental channel's fields included, which a cluster on the standard
// channel never holds), status included, in schema.go's notation. Every version Load reads
// has these fields (an upstream-tagged test holds each version's Go type to them).
const (
	gwParentRef      = `parentRefs{group kind name namespace port sectionName}`
	gwHeaderModifier = `{add{name value} remove set{name value}}`
	gwPathModifier   = `path{replaceFullPath replacePrefixMatch type}`
	gwMirror         = `requestMirror{backendRef{group kind name namespace port} fraction{denominator numerator} percent}`
	gwGRPCFilter     = `extensionRef{group kind name} requestHeaderModifier` + gwHeaderModifier + ` ` + gwMirror +
		` responseHeaderModifier` + gwHeaderModifier + ` type`
	gwHTTPFilter = `cors{allowCredentials allowHeaders allowMethods allowOrigins exposeHeaders maxAge}
		extensionRef{group kind name}
		externalAuth{backendRef{group kind name namespace port} forwardBody{maxSize} grpc{allowedHeaders}
			http{allowedHeaders allowedResponseHeaders path} protocol}
		requestHeaderModifier` + gwHeaderModifier + ` ` + gwMirror + `
		requestRedirect{hostname ` + gwPathModifier + ` port scheme statusCode}
		responseHeaderModifier` + gwHeaderModifier + ` type urlRewrite{hostname ` + gwPathModifier + `}`
	gwSession     = `sessionPersistence{absoluteTimeout cookieConfig{lifetimeType} sessionName type}`
	gwL4Backend   = `backendRefs{group kind name namespace port weight}`
	gwCondition   = `conditions{lastTransitionTime message observedGeneration reason status type}`
	gwSelector    = `selector{matchExpressions{key operator values} matchLabels}`
	gwRouteStatus = `status{parents{` + gwCondition + ` controllerName parentRef{group kind name namespace port sectionName}}}`
)

var gatewaySchemaText = map[string]string{
	"HTTPRoute": `apiVersion kind metadata{@meta}
		spec{hostnames ` + gwParentRef + `
			rules{backendRefs{filters{` + gwHTTPFilter + `} group kind name namespace port weight}
				filters{` + gwHTTPFilter + `}
				matches{headers{name type value} method path{type value} queryParams{name type value}}
				name retry{attempts backoff codes} ` + gwSession + ` timeouts{backendRequest request}}
			useDefaultGateways} ` + gwRouteStatus,
	"GRPCRoute": `apiVersion kind metadata{@meta}
		spec{hostnames ` + gwParentRef + `
			rules{backendRefs{filters{` + gwGRPCFilter + `} group kind name namespace port weight}
				filters{` + gwGRPCFilter + `}
				matches{headers{name type value} method{method service type}}
				name ` + gwSession + `}
			useDefaultGateways} ` + gwRouteStatus,
	"TCPRoute": `apiVersion kind metadata{@meta}
		spec{` + gwParentRef + ` rules{` + gwL4Backend + ` name} useDefaultGateways} ` + gwRouteStatus,
	"TLSRoute": `apiVersion kind metadata{@meta}
		spec{hostnames ` + gwParentRef + ` rules{` + gwL4Backend + ` name} useDefaultGateways} ` + gwRouteStatus,
	"ReferenceGrant": `apiVersion kind metadata{@meta} spec{from{group kind namespace} to{group kind name}}`,
	"Gateway": `apiVersion kind metadata{@meta}
		spec{addresses{type value} allowedListeners{namespaces{from ` + gwSelector + `}} defaultScope gatewayClassName
			infrastructure{annotations labels parametersRef{group kind name}}
			listeners{allowedRoutes{kinds{group kind} namespaces{from ` + gwSelector + `}} hostname name port protocol
				tls{certificateRefs{group kind name namespace} mode options}}
			tls{backend{clientCertificateRef{group kind name namespace}}
				frontend{default{validation{caCertificateRefs{group kind name namespace} mode}}
					perPort{port tls{validation{caCertificateRefs{group kind name namespace} mode}}}}}}
		status{addresses{type value} attachedListenerSets ` + gwCondition + `
			listeners{attachedRoutes ` + gwCondition + ` name supportedKinds{group kind}}}`,
}
