package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/peermeta"
)

// inputs is everything read: the configuration, what Consul's API outputs say about the
// services, and the cluster's names.
type inputs struct {
	config       store.Config
	api          peermeta.Input // the catalog, kinds, connect services and gateways
	trustDomain  string
	datacenter   string
	catalogGiven bool
	peerings     []store.Peering   // nil when -peerings is not given
	protocols    map[string]string // the sidecar registrations' own protocols
}

// kindsFrom is what an UnknownKind finding tells the user to give a service's kind with.
const kindsFrom = "-catalog output of /v1/internal/ui/services (curl $CONSUL_HTTP_ADDR/v1/internal/ui/services), which says every service's kind, " +
	"or -health output of its instances (/v1/health/service/<name>)"

// input returns the replication input for one peer.
func (in *inputs) input(x *exports.Exports, cfg store.Config, exp peermeta.Exporter) peermeta.Input {
	r := in.api
	r.Exporter, r.Exports, r.Entries, r.Intentions, r.KindsFrom = exp, x, cfg.Entries, cfg.Intentions, kindsFrom
	return r
}

// readFile reads a file, or the sample's file of that name.
func (o options) readFile(path string) ([]byte, string, error) {
	if o.sample {
		return cli.ReadFile(sample, "", path)
	}
	data, err := os.ReadFile(path)
	return data, path, err
}

// read reads every input the flags name, or the sample when they name none, reporting every
// problem.
func (o options) read() (*inputs, error) {
	if o.sample {
		o.config, o.catalog, o.peerings = files{"config.json"}, files{"catalog.json"}, "peerings.json"
		o.health, o.caRoots, o.datacenter = files{"health-mesh-gateway.json", "health-connect.json"}, "ca-roots.json", "dc1"
	}
	in := &inputs{trustDomain: o.trustDomain, datacenter: o.datacenter, catalogGiven: len(o.catalog) > 0}
	var errs []error
	if o.caRoots != "" && o.trustDomain != "" {
		errs = append(errs, usageError{"-ca-roots and -trust-domain both given: give one"})
	} else if o.caRoots != "" {
		data, name, err := o.readFile(o.caRoots)
		if err == nil {
			if in.trustDomain, err = peermeta.LoadTrustDomain(data); err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
		}
		errs = append(errs, err)
	}
	for _, p := range o.config {
		errs = append(errs, o.loadConfig(p, &in.config))
	}
	var api peermeta.APIOutput
	for _, f := range []struct {
		paths files
		read  func(name string, data []byte) error
	}{
		{o.catalog, func(name string, data []byte) error { return api.ReadCatalog(name, data, o.partition, o.namespace) }},
		{o.health, api.ReadHealth},
		{o.gatewayServices, api.ReadGatewayServices},
	} {
		for _, p := range f.paths {
			data, name, err := o.readFile(p)
			if err == nil {
				err = f.read(name, data)
			}
			errs = append(errs, err)
		}
	}
	errs = append(errs, o.readPeerings(in))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	in.api = api.Input()
	protocols, err := api.Protocols()
	in.protocols = protocols
	return in, err
}

// readPeerings reads -peerings, with the trust domains -peer-trust-domain gives.
func (o options) readPeerings(in *inputs) error {
	tds := map[string]string{}
	for _, f := range o.peerTrustDomains {
		name, td, ok := strings.Cut(f, "=")
		if !ok || o.peerings == "" {
			return usageError{fmt.Sprintf("-peer-trust-domain %q: want NAME=TRUST-DOMAIN, with -peerings", f)}
		}
		tds[name] = td
	}
	if o.peerings == "" {
		return nil
	}
	data, name, err := o.readFile(o.peerings)
	if err == nil {
		in.peerings, err = peermeta.LoadPeerings(data, tds) // not nil: given
	}
	return fielderr.In(name, err)
}

// loadConfig reads `consul config read` output from a file or every .json file of a
// directory.
func (o options) loadConfig(path string, into *store.Config) error {
	if o.sample {
		data, name, err := o.readFile(path)
		return errors.Join(err, into.Add(name, data))
	}
	var errs []error
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (p == path || strings.HasSuffix(p, ".json")) {
			data, err := os.ReadFile(p)
			errs = append(errs, cmp.Or(err, into.Add(p, data)))
		}
		return err
	})
	if err == nil && len(errs) == 0 {
		err = fmt.Errorf("%s: a directory without .json files", path)
	}
	return errors.Join(append(errs, err)...)
}
