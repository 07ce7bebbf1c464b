package visibility

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/meshscope/meshscope/internal/strict"
)

// ExportToAnnotation is the annotation that gives a Kubernetes Service its exportTo, as a
// comma-separated list.
const ExportToAnnotation = "networking.istio.io/exportTo"

// object is the part of a Kubernetes object an inventory needs.
type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
		CreationTimestamp string            `json:"creationTimestamp"`
	} `json:"metadata"`
	Spec  json.RawMessage   `json:"spec"`
	Items []json.RawMessage `json:"items"`
}

// LoadInventory reads namespaces, ServiceEntries and Services from Kubernetes YAML or JSON —
// the output of `kubectl get namespaces,serviceentries,services -A -o yaml` (a List), single
// objects, or several documents separated by "---". Objects of other kinds are skipped.
//
// A Namespace contributes its labels (with kubernetes.io/metadata.name added when the dump
// lacks it, as the API server sets it). A ServiceEntry contributes spec.hosts,
// spec.addresses and spec.exportTo. A Service contributes the host
// <name>.<namespace>.svc.<clusterDomain> ("" means cluster.local), its cluster IPs, and the
// exportTo of its networking.istio.io/exportTo annotation. Every problem is reported, naming
// the document or item and the object: `items[3] (ServiceEntry shop/payments): …`. The
// values themselves are validated by NewIndex.
func LoadInventory(data []byte, clusterDomain string) (Inventory, error) {
	if clusterDomain == "" {
		clusterDomain = "cluster.local"
	}
	inv := Inventory{Namespaces: map[string]map[string]string{}}
	var errs []error
	docs := splitDocuments(data)
	for d, doc := range docs {
		where := ""
		if len(docs) > 1 {
			where = fmt.Sprintf("document %d", d+1)
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			errs = append(errs, prefixed(where, fmt.Errorf("not YAML or JSON: %w", err)))
			continue
		}
		errs = append(errs, inv.addObject(j, where, clusterDomain)...)
	}
	if len(errs) > 0 {
		return Inventory{}, errors.Join(errs...)
	}
	return inv, nil
}

func prefixed(where string, err error) error {
	if where == "" {
		return err
	}
	return fmt.Errorf("%s: %w", where, err)
}

func (inv *Inventory) addObject(j []byte, where, clusterDomain string) []error {
	if string(j) == "null" {
		return nil
	}
	var o object
	if err := json.Unmarshal(j, &o); err != nil {
		return []error{prefixed(where, fmt.Errorf("not a Kubernetes object: %w", err))}
	}
	id := fmt.Sprintf("%s %s/%s", o.Kind, o.Metadata.Namespace, o.Metadata.Name)
	fail := func(format string, args ...any) []error {
		msg := fmt.Sprintf(format, args...)
		if where == "" {
			return []error{fmt.Errorf("%s: %s", id, msg)}
		}
		return []error{fmt.Errorf("%s (%s): %s", where, id, msg)}
	}
	switch o.Kind {
	case "List", "NamespaceList", "ServiceEntryList", "ServiceList":
		var errs []error
		for i, item := range o.Items {
			errs = append(errs, inv.addObject(item, strings.TrimPrefix(where+": items["+fmt.Sprint(i)+"]", ": "), clusterDomain)...)
		}
		return errs
	case "Namespace":
		if o.Metadata.Name == "" {
			return fail("metadata.name: must not be empty")
		}
		ls := map[string]string{}
		for k, v := range o.Metadata.Labels {
			ls[k] = v
		}
		if _, ok := ls[NamespaceNameLabel]; !ok {
			ls[NamespaceNameLabel] = o.Metadata.Name
		}
		inv.Namespaces[o.Metadata.Name] = ls
		return nil
	case "ServiceEntry", "Service":
	default:
		return nil
	}
	if o.Kind == "Service" && !strings.HasPrefix(o.APIVersion, "v1") {
		return nil // a Service of another API group
	}
	if o.Metadata.Namespace == "" || o.Metadata.Name == "" {
		return fail("metadata.namespace and metadata.name must be set (dump with -A so that objects carry their namespace)")
	}
	s := Service{Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
	if ts := o.Metadata.CreationTimestamp; ts != "" {
		t, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			return fail("metadata.creationTimestamp: %q is not an RFC 3339 time", ts)
		}
		s.CreationTime = t
	}
	var spec map[string]any
	if len(o.Spec) > 0 {
		if err := json.Unmarshal(o.Spec, &spec); err != nil {
			return fail("spec: must be an object")
		}
	}
	var d strict.Decoder
	strs := func(field string) []string { return d.Strings(spec[field], "spec."+field) }
	if o.Kind == "ServiceEntry" {
		s.Kind, s.Hosts, s.Addresses, s.ExportTo = ServiceEntry, strs("hosts"), strs("addresses"), strs("exportTo")
	} else {
		s.Kind = KubernetesService
		s.Hosts = []string{s.Name + "." + s.Namespace + ".svc." + clusterDomain}
		ips := strs("clusterIPs")
		if ip := d.String(spec["clusterIP"], "spec.clusterIP"); len(ips) == 0 && ip != "" {
			ips = []string{ip}
		}
		for _, ip := range ips {
			if ip != "" && ip != "None" {
				s.Addresses = append(s.Addresses, ip)
			}
		}
		if v, ok := o.Metadata.Annotations[ExportToAnnotation]; ok {
			for _, e := range strings.Split(v, ",") {
				s.ExportTo = append(s.ExportTo, strings.TrimSpace(e))
			}
		}
	}
	if err := d.Err(); err != nil {
		return fail("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	inv.Services = append(inv.Services, s)
	return nil
}
