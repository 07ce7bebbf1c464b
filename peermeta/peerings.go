package peermeta

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// LoadPeerings reads the cluster's peerings from /v1/peerings output (a list of peerings, as
// `curl $CONSUL_HTTP_ADDR/v1/peerings` prints it) into what the store's sidecars read
// (store.Peering): each peering's Name and State (one marked for deletion, DeletedAt,
// counts as DELETING), and the peer's partition and datacenter (Remote.Partition,
// Remote.Datacenter). The peer's trust domain is the one its servers' name says
// (PeerServerName, "server.<datacenter>.peering.<trust domain>"), which only the dialing
// side of a peering has; trustDomains gives it for the others, by peering name (a peer's
// TrustDomain of its /v1/connect/ca/roots). A peering whose trust domain neither says has
// none: its callers cannot be named. The output is read strictly, but fields meshscope does
// not use are not judged; a peering of a partition other than default, a trust domain given
// for a peering the output does not list or that says another, are errors. The list is not
// nil, even when the output lists no peering.
func LoadPeerings(data []byte, trustDomains map[string]string) ([]store.Peering, error) {
	x, err := strict.ParseJSON(data)
	if err != nil {
		return nil, err
	}
	list, ok := x.([]any)
	if !ok {
		return nil, &FieldError{Field: "(top level)", Value: x, Detail: "must be a list of peerings, as /v1/peerings returns, got " + strict.Describe(x)}
	}
	d := &strict.Decoder{}
	out := []store.Peering{}
	for i, item := range list {
		if o, ok := d.Object(item, strict.Index("", i)); ok {
			out = append(out, readPeering(d, o, trustDomains))
		}
	}
	errs := d.Errs()
	for _, name := range slices.Sorted(maps.Keys(trustDomains)) {
		if !slices.ContainsFunc(out, func(p store.Peering) bool { return p.Name == name }) {
			errs = append(errs, &FieldError{Field: "trust domains", Value: name, Detail: fmt.Sprintf("a trust domain for peering %q, which the output does not list", name)})
		}
		if why := names.Subdomain(trustDomains[name]); why != "" {
			errs = append(errs, &FieldError{Field: strict.Key("trust domains", name), Value: trustDomains[name], Detail: fmt.Sprintf("%q %s", trustDomains[name], why)})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// readPeering reads one element of /v1/peerings.
func readPeering(d *strict.Decoder, o strict.Object, trustDomains map[string]string) store.Peering {
	var p store.Peering
	var partition, deletedAt, server string
	o.String(&p.Name, "Name")
	o.String(&p.State, "State")
	o.String(&partition, "Partition")
	o.String(&deletedAt, "DeletedAt")
	o.String(&server, "PeerServerName")
	if v, path, ok := o.Get("Remote"); ok {
		if r, ok := d.Object(v, path); ok {
			r.String(&p.Peer.Partition, "Partition")
			r.String(&p.Peer.Datacenter, "Datacenter")
		}
	}
	at := o.Path()
	if p.Name == "" {
		d.Fail(strict.Child(at, "Name"), p.Name, "a peering has a name")
	}
	if partition != "" && partition != "default" {
		d.Fail(strict.Child(at, "Partition"), partition, "a peering of partition %q: meshscope models the default partition's peerings only", partition)
	}
	if deletedAt != "" && !strings.HasPrefix(deletedAt, "0001-01-01T00:00:00") && !strings.HasPrefix(deletedAt, "1970-01-01T00:00:00") {
		p.State = "DELETING"
	}
	if rest, ok := strings.CutPrefix(server, "server."); ok {
		if dc, td, ok := strings.Cut(rest, ".peering."); ok {
			p.Peer.TrustDomain = td
			if p.Peer.Datacenter == "" {
				p.Peer.Datacenter = dc
			}
		}
	} else if server != "" {
		d.Fail(strict.Child(at, "PeerServerName"), server, "%q is not a peering server name, server.<datacenter>.peering.<trust domain>", server)
	}
	if td, ok := trustDomains[p.Name]; ok {
		if p.Peer.TrustDomain != "" && p.Peer.TrustDomain != td {
			d.Fail(strict.Child(at, "PeerServerName"), server, "peering %q: its server name says trust domain %q; %q was given", p.Name, p.Peer.TrustDomain, td)
		}
		p.Peer.TrustDomain = td
	}
	return p
}
