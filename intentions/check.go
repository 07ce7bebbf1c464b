package intentions

import "github.com/meshscope/meshscope/internal/fielderr"

// CheckAnswer is what Consul's intention check API (`consul intention check`,
// /v1/connect/intentions/check) answers for a local source and the destination.
type CheckAnswer struct {
	// Allowed is the API's answer: the matched intention's Action — denied whenever it has
	// permissions, whatever the request — or, when none matched, the default: allow with ACLs
	// disabled, else the ACL default policy.
	Allowed bool
	// Intention is the index, in Destination.Intentions, of the matched intention: the first
	// whose source is the caller or "*" in this cluster; -1 when none is.
	Intention int
	// HasPermissions: the matched intention has permissions.
	HasPermissions bool
	// HasExact: the matched intention names both its source and its destination.
	HasExact bool
}

// Check returns the check API's answer for a source service of this cluster calling the
// destination. The API cannot be asked about a peered caller; it reads the intentions to the
// destination or "*" whose source is the service or "*" with no peer, and the first of them in
// Consul's order decides. The answer reads only the sidecar's intentions, not its protocols,
// trust bundles or XFCC setting. It allocates nothing; it fails for a source that is not a
// service name or an ACL whose default policy is neither allow nor deny.
func (d *Destination) Check(source string, acl ACL) (CheckAnswer, error) {
	if err := acl.problem(); err != nil {
		return CheckAnswer{}, err
	}
	if !plainName(source) {
		return CheckAnswer{}, fielderr.Newf("", "Source", source, "must name a service, got %q", source)
	}
	i := d.checkWildcard
	if j, ok := d.checkName[source]; ok && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return CheckAnswer{Allowed: acl.CheckDefault() == Allow, Intention: -1}, nil
	}
	x := &d.list[i]
	return CheckAnswer{
		Allowed:        x.Action == Allow && !x.L7(),
		Intention:      int(i),
		HasPermissions: x.L7(),
		HasExact:       x.SourceName != Wildcard && x.DestinationName != Wildcard,
	}, nil
}

// ParseACL reads acl.default_policy as a person gives it: "" for an agent without ACLs
// (the check API defaults to allow, and so does Envoy, Consul's default policy being allow),
// "allow" or "deny" for one with ACLs enabled and that default policy.
func ParseACL(defaultPolicy string) (ACL, error) {
	switch a := Action(defaultPolicy); a {
	case "":
		return ACL{}, nil
	case Allow, Deny:
		return ACL{Enabled: true, DefaultPolicy: a}, nil
	}
	return ACL{}, fielderr.Newf("acl.default_policy", "", defaultPolicy, "%q is not a default policy: want allow or deny", defaultPolicy)
}
