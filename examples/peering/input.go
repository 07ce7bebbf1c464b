package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/peermeta"
)

// entries is what the config entries give: exported-services, resolvers, protocols,
// sameness groups.
type entries struct {
	exports []exports.ConfigEntry
	chain   chain.Entries
}

// The config entry kinds the program reads, in the order it processes them.
var kindOrder = []string{"exported-services", "proxy-defaults", "sameness-group", "service-defaults", "service-resolver"}

// loadConfig reads `consul config read` output — one value, a stream of values, or a JSON
// array, of any of the kinds above, mixed — from a file or every *.json file of a
// directory, in Kind order. want restricts the kinds a file may hold ("" any).
func loadConfig(path, want string, into *entries) error {
	files := []string{path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		files = nil
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return err
		}
		if len(files) == 0 {
			return fmt.Errorf("%s: a directory without .json files", path)
		}
	}
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		errs = append(errs, readEntries(f, data, want, into))
	}
	return errors.Join(errs...)
}

// rawEntry is one config entry of a stream, with where it was.
type rawEntry struct {
	where string
	kind  string
	data  json.RawMessage
}

// jsonValues splits the JSON values of a file, one after another, naming the first that is
// not JSON.
func jsonValues(name string, data []byte) ([]json.RawMessage, error) {
	var out []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: value %d: not JSON: %v", name, n, err)
		}
		out = append(out, v)
	}
}

// readEntries splits a stream of entries by Kind and hands each to its package's strict
// loader, naming the file and value in every problem.
func readEntries(name string, data []byte, want string, into *entries) error {
	var raws []rawEntry
	values, err := jsonValues(name, data)
	if err != nil {
		return err
	}
	for k, v := range values {
		n := k + 1
		items := []json.RawMessage{v}
		list := bytes.HasPrefix(bytes.TrimSpace(v), []byte("["))
		if list {
			if err := json.Unmarshal(v, &items); err != nil {
				return fmt.Errorf("%s: value %d: %v", name, n, err)
			}
		}
		for i, item := range items {
			where := fmt.Sprintf("%s: value %d", name, n)
			if list {
				where = fmt.Sprintf("%s: value %d, [%d]", name, n, i)
			}
			var head struct{ Kind, Name string }
			_ = json.Unmarshal(item, &head) // errors are the strict loader's to report
			kind := strings.ToLower(head.Kind)
			if want != "" && kind == "" {
				kind = want
			}
			if want != "" && kind != want {
				return fmt.Errorf("%s: holds a %q entry; this flag reads %s entries only (-config and -new-config read any kind)", where, head.Kind, want)
			}
			raws = append(raws, rawEntry{where: where + " (" + cmp.Or(head.Kind, "no Kind") + " " + head.Name + ")", kind: kind, data: item})
		}
	}
	if len(raws) == 0 {
		return fmt.Errorf("%s: no config entries: the file is empty", name)
	}
	slices.SortStableFunc(raws, func(a, b rawEntry) int {
		return slices.Index(kindOrder, a.kind) - slices.Index(kindOrder, b.kind)
	})
	var errs []error
	for _, r := range raws {
		errs = append(errs, cli.InFile(r.where, into.add(r)))
	}
	return errors.Join(errs...)
}

// add decodes one entry into its place.
func (e *entries) add(r rawEntry) error {
	switch r.kind {
	case "exported-services":
		got, err := exports.LoadEntries(r.data)
		e.exports = append(e.exports, got...)
		return err
	case "service-resolver":
		got, err := chain.LoadResolvers(r.data)
		e.chain.Resolvers = append(e.chain.Resolvers, got...)
		return err
	case "sameness-group":
		got, err := exports.LoadSamenessGroups(r.data)
		e.chain.SamenessGroups = append(e.chain.SamenessGroups, got...)
		return err
	case "service-defaults":
		// Consul's service-defaults has many fields; only Protocol matters here.
		var sd struct{ Name, Namespace, Partition, Protocol string }
		if err := json.Unmarshal(r.data, &sd); err != nil {
			return fmt.Errorf("not a service-defaults entry: %v", err)
		}
		if sd.Name == "" {
			return &chain.FieldError{Field: "Name", Detail: "must not be empty"}
		}
		if e.chain.Protocols == nil {
			e.chain.Protocols = map[exports.ServiceName]string{}
		}
		e.chain.Protocols[exports.ServiceName{Partition: sd.Partition, Namespace: sd.Namespace, Name: sd.Name}] = sd.Protocol
		return nil
	case "proxy-defaults":
		var pd struct {
			Config map[string]any
		}
		if err := json.Unmarshal(r.data, &pd); err != nil {
			return fmt.Errorf("not a proxy-defaults entry: %v", err)
		}
		if p, ok := pd.Config["protocol"]; ok {
			s, ok := p.(string)
			if !ok {
				return &chain.FieldError{Field: "Config.protocol", Value: p, Detail: fmt.Sprintf("must be a string, got %v", p)}
			}
			e.chain.DefaultProtocol = s
		}
		return nil
	}
	return &chain.FieldError{Field: "Kind", Value: r.kind, Detail: fmt.Sprintf("%q is not one of %s", r.kind, strings.Join(kindOrder, ", "))}
}

// loadCatalog reads /v1/catalog/services output: service names to their tags.
func loadCatalog(name string, data []byte, partition, namespace string) ([]exports.ServiceName, error) {
	var m map[string][]string
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not /v1/catalog/services output (an object of service names to tags): %v", name, err)
	}
	out := make([]exports.ServiceName, 0, len(m))
	for _, s := range slices.Sorted(maps.Keys(m)) {
		out = append(out, exports.ServiceName{Partition: partition, Namespace: namespace, Name: s})
	}
	return out, nil
}

// health is what /v1/health/service/<name> outputs give: mesh gateway instances, and the
// services with a connect-enabled instance (a sidecar proxy for them, or connect-native).
type health struct {
	gateways []peermeta.CheckServiceNode
	connect  []exports.ServiceName
}

// loadHealth reads one file of /v1/health/service/<name> output — an array, or several one
// after another — sorting instances into gateways and connect services.
func loadHealth(name string, data []byte, into *health) error {
	values, err := jsonValues(name, data)
	if err != nil {
		return err
	}
	var errs []error
	for k, v := range values {
		nodes, err := peermeta.LoadHealth(v)
		if err != nil {
			errs = append(errs, cli.InFile(fmt.Sprintf("%s: value %d", name, k+1), err))
			continue
		}
		for _, node := range nodes {
			s := node.Service
			switch {
			case s == nil:
			case s.Kind == "mesh-gateway":
				into.gateways = append(into.gateways, node)
			case s.Kind == peermeta.KindConnectProxy && s.Proxy != nil && s.Proxy.DestinationServiceName != "":
				into.connect = append(into.connect, exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: s.Proxy.DestinationServiceName})
			case s.Connect != nil && s.Connect.Native:
				into.connect = append(into.connect, exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: s.Service})
			}
		}
	}
	return errors.Join(errs...)
}

// loadGatewayServices reads /v1/catalog/gateway-services/<terminating-gateway> output: the
// services behind a terminating gateway, which are connect services.
func loadGatewayServices(name string, data []byte) ([]exports.ServiceName, error) {
	var links []struct {
		Service     struct{ Name, Namespace, Partition string }
		GatewayKind string
	}
	if err := json.Unmarshal(data, &links); err != nil {
		return nil, fmt.Errorf("%s: not /v1/catalog/gateway-services output: %v", name, err)
	}
	var out []exports.ServiceName
	for i, l := range links {
		if l.GatewayKind != "terminating-gateway" {
			return nil, fmt.Errorf("%s: [%d]: GatewayKind %q: only a terminating gateway's services are connect services", name, i, l.GatewayKind)
		}
		out = append(out, exports.ServiceName{Partition: l.Service.Partition, Namespace: l.Service.Namespace, Name: l.Service.Name})
	}
	return out, nil
}

// loadTrustDomain reads /v1/connect/ca/roots output for the cluster's trust domain.
func loadTrustDomain(name string, data []byte) (string, error) {
	var roots struct{ TrustDomain string }
	if err := json.Unmarshal(data, &roots); err != nil {
		return "", fmt.Errorf("%s: not /v1/connect/ca/roots output: %v", name, err)
	}
	if roots.TrustDomain == "" {
		return "", fmt.Errorf("%s: TrustDomain: missing; is this /v1/connect/ca/roots output?", name)
	}
	return roots.TrustDomain, nil
}

// proposal is the after side of a dry run: the inputs with the proposed entries in place,
// and their compiled exports.
type proposal struct {
	inputs
	x *exports.Exports
}

// proposed reads the -new-* files and returns the after side, or nil when there are none.
// Everything but the config entries (catalog, health, trust domain) is the same on both sides.
func (o options) proposed(in inputs) (*proposal, error) {
	var p entries
	var errs []error
	n := 0
	for _, f := range []struct {
		paths files
		kind  string
	}{{o.newConfig, ""}, {o.newExports, "exported-services"}, {o.newResolvers, "service-resolver"}} {
		for _, path := range f.paths {
			n++
			errs = append(errs, loadConfig(path, f.kind, &p))
		}
	}
	if n == 0 {
		return nil, nil
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	after := proposal{inputs: in}
	after.entries = in.entries.replaced(p)
	x, err := exports.CompileGroups(after.entries.chain.SamenessGroups, after.entries.exports...)
	if err != nil {
		return nil, cli.InFile("proposed exported-services", err)
	}
	if _, err := chain.NewCompiler(after.entries.chain); err != nil {
		return nil, cli.InFile("proposed service-resolver", err)
	}
	after.x = x
	return &after, nil
}
