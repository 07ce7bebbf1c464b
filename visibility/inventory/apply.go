package inventory

import (
	"errors"
	"fmt"
	"strings"
	"time"

	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/release"
	"github.com/meshscope/meshscope/internal/strict"
)

// File is a file of Kubernetes objects, as given to kubectl apply -f: its name, which
// messages name, and its contents.
type File struct {
	Name string
	Data []byte
}

// Applied is an object Apply applied.
type Applied struct {
	// Kind, Group, Namespace and Name are the object's identity: its kind, its API group
	// ("" for the core group: apiVersion v1), its namespace (after -n; "" for a Namespace)
	// and its name.
	Kind      string `json:"kind"`
	Group     string `json:"group,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// File names the file the object came from, Where the document and List item in it
	// ("document 2: items[0]"; "" for a file's only object).
	File  string `json:"file"`
	Where string `json:"where,omitempty"`
	// Created: no object of the dump, nor one applied before it, had its identity, so it is
	// created, the youngest object of the cluster; otherwise it replaces that object.
	Created bool `json:"created"`
}

// Apply previews kubectl apply -f of files against the dump base, the output of
// DumpCommand: it returns the dump as the cluster would hold it afterwards (what Load reads,
// as JSON: a List of every object), and the objects it applied, in the order applied. Each
// file is in kubectl's shapes (YAML or JSON, one object or several documents, Lists
// unwrapped); an object is applied as kubectl applies it:
//
//   - Its namespace: an object Load reads (a Namespace excepted, which has none) without
//     metadata.namespace takes namespace, kubectl's -n ("" for kubectl's default, "default").
//     An object naming another namespace than a namespace given is refused in kubectl's
//     words: the namespace from the provided object "shop" does not match the namespace
//     "web". You must pass '--namespace=shop' to perform this operation.
//   - Its identity is its kind, its API group, its namespace and its name: Istio's Gateway
//     (networking.istio.io) and the Gateway API's (gateway.networking.k8s.io) are two kinds,
//     a Sidecar of networking.istio.io/v1 and one of v1beta1 one object.
//   - An object with the identity of one the dump holds (or one applied before it) replaces
//     that object where it stands, keeping what the API server and Istio's controllers keep:
//     its creationTimestamp, its status (a ServiceEntry's allocated addresses for the hosts
//     it still has: Istio's allocator keeps those and drops the others) and, for a
//     Kubernetes Service whose spec gives none, its spec.clusterIP and spec.clusterIPs.
//     Fields an earlier apply or a controller set that the file does not set are gone: an
//     object is replaced whole, as kubectl replace would do, where kubectl apply's merge
//     keeps fields others set.
//   - An object of a new identity is created, with no status and the youngest creation
//     time: one second after the youngest creationTimestamp of the dump (0001-01-01T00:00:01Z
//     for a dump without any), the same for every object created, as kubectl creates a
//     file's objects within a second or so; Istio breaks ties of creation time by name and
//     namespace (a service's by namespace and name), and the views do likewise. What the cluster adds to a new object
//     later — a Service's cluster IP, the addresses Istio allocates a ServiceEntry's hosts —
//     a preview cannot know: it has none, unless the file gives it.
//
// Each object applied is checked as Load checks an object of the dump, and as LoadFor
// checks it for release r (the zero Release: the newest, as Load), each problem naming its
// file, document and item — as the API server's schema and Istio's webhook refuse such an
// object:
//
//	route.yaml: document 2 (HTTPRoute shop/reviews): spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference
//
// So is what kubectl's check of every document's type refuses, in its words — a document
// or List without an apiVersion or a kind (error validating data: apiVersion not set), or
// with an apiVersion that is not a string or not a group/version — and a file without
// objects ("no objects passed to apply"). Objects of other kinds than Load reads are
// applied as written (no view reads them). The objects of base are not judged beyond
// reading them (Load or LoadFor judges the dump); the Inventory Load reads from the dump
// Apply returns is the one it reads from the cluster's dump after the apply. Every problem
// is reported at once.
func Apply(base File, namespace string, r release.Release, files ...File) ([]byte, []Applied, error) {
	defaulted, enforce := namespace, namespace != ""
	if !enforce {
		defaulted = "default"
	}
	o := overlay{index: map[identity]int{}}
	var errs []error
	for _, obj := range kube.Read(base.Data, readsObject).Objects {
		if obj.Err != nil {
			errs = append(errs, fielderr.In(base.Name, obj.Err))
			continue
		}
		if t := createdAt(obj.Fields); t.After(o.youngest) {
			o.youngest = t
		}
		o.index[keyOf(obj)] = len(o.objects)
		o.objects = append(o.objects, obj.Fields)
	}
	created := o.youngest.Add(time.Second).UTC().Format(time.RFC3339)
	var applied []Applied
	for _, f := range files {
		s := kube.Read(f.Data, readsObject)
		if len(s.Objects) == 0 {
			errs = append(errs, fmt.Errorf("%s: no objects passed to apply", f.Name))
		}
		for _, l := range s.Lists {
			if problems := typeProblems(l); len(problems) > 0 {
				errs = append(errs, fielderr.In(f.Name, errors.Join(problems...)))
			}
		}
		for _, obj := range s.Objects {
			obj, problems := checkApplied(obj, defaulted, enforce, r)
			if len(problems) > 0 {
				errs = append(errs, fielderr.In(f.Name, errors.Join(problems...)))
				continue
			}
			applied = append(applied, o.apply(obj, f.Name, created))
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return o.dump(), applied, nil
}

// overlay is a dump's objects as applying changes them: in the dump's order, objects
// created after them; index gives each identity's place.
type overlay struct {
	objects  []strict.Fields
	index    map[identity]int
	youngest time.Time
}

// identity is an object's identity: the API server holds one object of each.
type identity struct{ group, kind, namespace, name string }

// keyOf returns o's identity. The group of a kind Load reads is the one it reads it in
// (a Sidecar without apiVersion is networking.istio.io's, as Load reads it).
func keyOf(o kube.Object) identity {
	ns, name := o.Meta()
	if o.Kind == "Namespace" {
		ns = ""
	}
	return identity{groupOf(o), o.Kind, ns, name}
}

// groupOf returns the API group of o.
func groupOf(o kube.Object) string {
	switch {
	case o.Kind == "ServiceEntry" || (o.Kind == "Sidecar" || o.Kind == "VirtualService" || o.Kind == "DestinationRule") && isIstioNetworking(o):
		return "networking.istio.io"
	case gatewayAPIVersions[o.Kind] != nil && isGatewayAPI(o):
		return GatewayAPIGroup
	}
	v, _ := o.Fields.Value("apiVersion").(string)
	group, _, versioned := strings.Cut(v, "/")
	if !versioned {
		return ""
	}
	return group
}

// checkApplied gives an object of an applied file its namespace, and returns it with its
// problems, as Load (for release r) and kubectl would refuse it, each naming the object.
func checkApplied(o kube.Object, namespace string, enforce bool, r release.Release) (kube.Object, []error) {
	if o.Err == nil {
		if problems := typeProblems(o); len(problems) > 0 {
			return o, problems
		}
	}
	if o.Err == nil && o.Kind != "Namespace" && readsObject(o, func(...string) bool { return false }) {
		meta, _ := o.Fields.Value("metadata").(strict.Fields)
		v := meta.Value("namespace")
		ns, isString := v.(string)
		switch {
		case v != nil && !isString || o.Fields.Value("metadata") != nil && meta == nil:
			// the loader says what is wrong
		case ns == "":
			o.Fields = with(o.Fields, "metadata", with(meta, "namespace", namespace))
		case enforce && ns != namespace:
			return o, []error{fielderr.Newf(objectWhere(o), "metadata.namespace", ns,
				"the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%v' to perform this operation.", ns, namespace, ns)}
		}
	}
	problems, _ := newLoader([]kube.Object{o}, DefaultDomain, r).object(o)
	return o, problems
}

// typeProblems returns what kubectl's check of a document's type refuses in o, an object or
// a List of a file to apply, in its words: it checks every document before reading it,
// under its default --validate, and refuses the file ("error validating data: …").
// An apiVersion that parses but names no version ("" or "/") passes that check, and
// kubectl then finds no API serving the kind in it; that refusal is worded here.
func typeProblems(o kube.Object) []error {
	var problems []error
	v, set := o.Fields.Get("apiVersion")
	s, isString := v.(string)
	switch {
	case !set || v == nil:
		problems = append(problems, fielderr.Newf(o.Where(), "apiVersion", nil, "error validating data: apiVersion not set"))
	case !isString:
		problems = append(problems, fielderr.Newf(o.Where(), "apiVersion", v, "error validating data: apiVersion isn't string type"))
	default:
		if gv, err := k8sschema.ParseGroupVersion(s); err != nil {
			problems = append(problems, fielderr.Newf(o.Where(), "apiVersion", s, "error validating data: %v", err))
		} else if gv.Version == "" && o.Kind != "" {
			problems = append(problems, fielderr.Newf(o.Where(), "apiVersion", s, "names no API version: kubectl finds no API serving kind %q in it", o.Kind))
		}
	}
	if o.Kind == "" {
		problems = append(problems, fielderr.Newf(o.Where(), "kind", nil, "error validating data: kind not set"))
	}
	return problems
}

// apply puts o, of the file named file, into the overlay, replacing the object of its
// identity or created at time created.
func (ov *overlay) apply(o kube.Object, file, created string) Applied {
	k := keyOf(o)
	a := Applied{Kind: k.kind, Group: k.group, Namespace: k.namespace, Name: k.name, File: file, Where: o.Where()}
	fields := without(o.Fields, "status")
	i, found := ov.index[k]
	if !found {
		a.Created = true
		ov.index[k] = len(ov.objects)
		ov.objects = append(ov.objects, with(fields, "metadata", with(metaOf(fields), "creationTimestamp", created)))
		return a
	}
	ov.objects[i] = kept(ov.objects[i], fields, k)
	return a
}

// kept returns the object fields replacing old, with what the cluster keeps of old (see
// Apply).
func kept(old, fields strict.Fields, k identity) strict.Fields {
	meta := without(metaOf(fields), "creationTimestamp")
	if t, ok := metaOf(old).Get("creationTimestamp"); ok {
		meta = with(meta, "creationTimestamp", t)
	}
	fields = with(fields, "metadata", meta)
	if k.kind == "Service" && k.group == "" {
		spec, _ := fields.Value("spec").(strict.Fields)
		oldSpec, _ := old.Value("spec").(strict.Fields)
		if !spec.Has("clusterIP") && !spec.Has("clusterIPs") && (oldSpec.Has("clusterIP") || oldSpec.Has("clusterIPs")) {
			for _, f := range []string{"clusterIP", "clusterIPs"} {
				if v, ok := oldSpec.Get(f); ok {
					spec = with(spec, f, v)
				}
			}
			fields = with(fields, "spec", spec)
		}
	}
	status, ok := old.Get("status")
	if !ok {
		return fields
	}
	if k.kind == "ServiceEntry" {
		status = allocatedFor(status, fields)
	}
	return with(fields, "status", status)
}

// allocatedFor returns a ServiceEntry's status keeping the addresses allocated to the hosts
// of fields' spec (each spelt as spec.hosts spells it), as Istio's allocator does.
func allocatedFor(status any, fields strict.Fields) any {
	st, _ := status.(strict.Fields)
	addrs, ok := st.Value("addresses").([]any)
	if !ok {
		return status
	}
	spec, _ := fields.Value("spec").(strict.Fields)
	hosts, _ := spec.Value("hosts").([]any)
	has := make(map[any]bool, len(hosts))
	for _, h := range hosts {
		has[h] = true
	}
	var keep []any
	for _, a := range addrs {
		if af, _ := a.(strict.Fields); has[af.Value("host")] {
			keep = append(keep, a)
		}
	}
	if keep == nil {
		keep = []any{}
	}
	return with(st, "addresses", keep)
}

// dump writes the overlay's objects as a JSON List.
func (ov *overlay) dump() []byte {
	b := []byte(`{"apiVersion":"v1","kind":"List","items":[`)
	for i, o := range ov.objects {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSON(b, o)
	}
	return append(b, "]}\n"...)
}

// createdAt reads an object's metadata.creationTimestamp; zero when absent or not an RFC 3339
// time.
func createdAt(o strict.Fields) time.Time {
	s, _ := metaOf(o).Value("creationTimestamp").(string)
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// metaOf returns an object's metadata, nil when it has none (or none that is an object).
func metaOf(o strict.Fields) strict.Fields {
	m, _ := o.Value("metadata").(strict.Fields)
	return m
}

// with returns a copy of fs with key set to v: in its place, or last.
func with(fs strict.Fields, key string, v any) strict.Fields {
	out := make(strict.Fields, len(fs), len(fs)+1)
	copy(out, fs)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = v
			return out
		}
	}
	return append(out, strict.Member{Key: key, Value: v})
}

// without returns fs without key (fs itself when it has none).
func without(fs strict.Fields, key string) strict.Fields {
	if !fs.Has(key) {
		return fs
	}
	out := make(strict.Fields, 0, len(fs)-1)
	for _, m := range fs {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return out
}
