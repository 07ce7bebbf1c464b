package inventory

import "strings"

// The protocols Istio gives a service's ports (Service.Protocols), as it names them.
const (
	ProtocolHTTP      = "HTTP"
	ProtocolHTTP2     = "HTTP2"
	ProtocolHTTPProxy = "HTTP_PROXY"
	ProtocolGRPC      = "GRPC"
	ProtocolGRPCWeb   = "GRPC-Web"
	ProtocolHTTPS     = "HTTPS"
	ProtocolTLS       = "TLS"
	ProtocolTCP       = "TCP"
	ProtocolUDP       = "UDP"
	ProtocolMongo     = "Mongo"
	ProtocolRedis     = "Redis"
	ProtocolMySQL     = "MySQL"
)

// protocols are Istio's protocol names by the lower-cased name it reads them from.
var protocols = map[string]string{
	"http": ProtocolHTTP, "http2": ProtocolHTTP2, "http_proxy": ProtocolHTTPProxy, "grpc": ProtocolGRPC,
	"grpc-web": ProtocolGRPCWeb, "https": ProtocolHTTPS, "tls": ProtocolTLS, "tcp": ProtocolTCP, "udp": ProtocolUDP,
	"mongo": ProtocolMongo, "redis": ProtocolRedis, "mysql": ProtocolMySQL,
}

// ParseProtocol reads a protocol name as Istio does, without case: "http" is HTTP; "" for a
// name it does not recognise (a port it sniffs).
func ParseProtocol(name string) string { return protocols[strings.ToLower(name)] }

// Protocol returns the protocol Istio gives the service's port ("" sniffed: see
// Service.Protocols); false when the service does not declare the port.
func (s *Service) Protocol(port uint32) (string, bool) {
	for i, p := range s.Ports {
		if p == port {
			if i < len(s.Protocols) {
				return s.Protocols[i], true
			}
			return "", true
		}
	}
	return "", false
}

// The ports on which Istio takes an unrecognised protocol of a Kubernetes Service's port as
// TCP rather than sniffing it: SMTP, DNS, MySQL, MongoDB.
var wellKnownPorts = map[uint32]bool{25: true, 53: true, 3306: true, 27017: true}

// kubernetesProtocol is the protocol Istio gives a Kubernetes Service's port: UDP for a UDP
// port (l4, spec.ports[].protocol); else appProtocol (its kubernetes.io/h2c, ws and wss
// names too), else the port's name, read up to its first "-" (grpc-web whole); TCP for one
// it does not recognise on a well-known port.
func kubernetesProtocol(port uint32, name, l4 string, appProtocol *string) string {
	if l4 == "UDP" {
		return ProtocolUDP
	}
	if appProtocol != nil {
		name = *appProtocol
		switch name {
		case "kubernetes.io/h2c":
			return ProtocolHTTP2
		case "kubernetes.io/ws":
			return ProtocolHTTP
		case "kubernetes.io/wss":
			return ProtocolHTTPS
		}
	}
	if len(name) >= len("grpc-web") && strings.EqualFold(name[:len("grpc-web")], "grpc-web") {
		return ProtocolGRPCWeb
	}
	if i := strings.IndexByte(name, '-'); i >= 0 {
		name = name[:i]
	}
	p := ParseProtocol(name)
	if p == "" && wellKnownPorts[port] {
		return ProtocolTCP
	}
	return p
}
