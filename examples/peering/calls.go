package main

import (
	"fmt"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/peermeta"
)

// calls returns who may call whom in the cluster holding cfg: the store's sidecars in the
// cluster the inputs describe, and the answers. Without -peerings, an intention naming a peer
// is a usage error: only /v1/peerings says whether its peering exists.
func (r *report) calls(in *inputs, cfg store.Config, x *exports.Exports) (*peermeta.Calls, error) {
	for _, e := range cfg.Intentions {
		for _, s := range e.Sources {
			if s.Peer != "" && in.peerings == nil {
				return nil, usageError{fmt.Sprintf("-peerings is required: the service-intentions entry of %s names peer %q, and only /v1/peerings says whether its peering exists (curl $CONSUL_HTTP_ADDR/v1/peerings)", e.Name, s.Peer)}
			}
		}
	}
	sc, err := cfg.Sidecars(store.Cluster{TrustDomain: in.trustDomain, Datacenter: in.datacenter, Peerings: in.peerings, Protocols: in.protocols})
	if err != nil {
		return nil, err
	}
	return peermeta.NewCalls(in.input(x, cfg, r.exporter("")), sc)
}
