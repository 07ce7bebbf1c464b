package mesh

import (
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// OutboundTrafficPolicy is meshConfig.outboundTrafficPolicy: what a sidecar does with a
// request for a host no service of its own has (a Sidecar's outboundTrafficPolicy replaces it
// for the proxies the Sidecar applies to). It names the catch-all virtual host of every route
// table (see package visibility/sidecar, RouteTable).
type OutboundTrafficPolicy struct {
	// Mode is OutboundAllowAny, OutboundRegistryOnly or (Istio 1.31 on)
	// OutboundAllowAnyDynamicDNS. "" — a policy written without a mode, such as {} — is
	// REGISTRY_ONLY, the enum's zero value: istiod replaces its default policy (ALLOW_ANY)
	// with the one written, whole.
	Mode string `json:"mode,omitempty"`
}

// The modes of an outbound traffic policy.
const (
	OutboundAllowAny           = "ALLOW_ANY"
	OutboundRegistryOnly       = "REGISTRY_ONLY"
	OutboundAllowAnyDynamicDNS = "ALLOW_ANY_DYNAMIC_DNS"
)

// outboundModes are the modes release minor knows, in enum order.
func outboundModes(minor int) []string {
	if minor >= 31 {
		return []string{OutboundRegistryOnly, OutboundAllowAny, OutboundAllowAnyDynamicDNS}
	}
	return []string{OutboundRegistryOnly, OutboundAllowAny}
}

// OutboundMode returns the mode of the mesh's outbound traffic policy as istiod applies it:
// ALLOW_ANY without a policy (or for a nil Config), REGISTRY_ONLY for a policy without a
// mode, else its mode.
func (c *Config) OutboundMode() string {
	switch {
	case c == nil || c.OutboundTrafficPolicy == nil:
		return OutboundAllowAny
	case c.OutboundTrafficPolicy.Mode == "":
		return OutboundRegistryOnly
	}
	return c.OutboundTrafficPolicy.Mode
}

// decodeOutbound reads an outboundTrafficPolicy: its mode, an enum name (the numbers 0, 1 and
// 3 jsonpb also takes are read as the names they stand for); its tls settings are accepted
// and not read. nil for null (istiod keeps its default).
func decodeOutbound(d *strict.Decoder, x any, path string) *OutboundTrafficPolicy {
	if x == nil {
		return nil
	}
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	o.Check("mode", "tls")
	p := &OutboundTrafficPolicy{}
	if v, at, ok := o.Get("mode"); ok {
		switch t := v.(type) {
		case string:
			p.Mode = t
			if up := strings.ToUpper(t); up != t && isOutboundMode(up) {
				d.Fail(at, t, "unsupported value %q: enum names are upper case (%q)", t, up)
			}
		case nil:
		default:
			if n, ok := d.Int(v, at, 0, 3); ok {
				if n == 2 {
					d.Fail(at, n, "unsupported value 2: supported values: 0 (REGISTRY_ONLY), 1 (ALLOW_ANY), 3 (ALLOW_ANY_DYNAMIC_DNS)")
				} else {
					p.Mode = [...]string{OutboundRegistryOnly, OutboundAllowAny, "", OutboundAllowAnyDynamicDNS}[n]
				}
			}
		}
	}
	return p
}

func isOutboundMode(m string) bool {
	return m == OutboundRegistryOnly || m == OutboundAllowAny || m == OutboundAllowAnyDynamicDNS
}

// outboundProblems reports what is wrong with the outbound traffic policy p, of the
// meshConfig at root, for release r: a mode r does not have.
func outboundProblems(p *OutboundTrafficPolicy, r Release, root fielderr.Path) []error {
	if p == nil || p.Mode == "" {
		return nil
	}
	modes := outboundModes(r.Minor())
	if slices.Contains(modes, p.Mode) {
		return nil
	}
	detail := "unsupported value " + strconv.Quote(p.Mode) + ": supported values: " + strings.Join(modes, ", ")
	if p.Mode == OutboundAllowAnyDynamicDNS {
		detail = "Istio " + r.Version() + " has no mode ALLOW_ANY_DYNAMIC_DNS (it comes with 1.31)"
	}
	return []error{root.Child("outboundTrafficPolicy").Child("mode").Problem(p.Mode, detail)}
}
