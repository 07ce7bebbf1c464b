package inventory

import "strings"

// String spells an applied object as a preview lists it: the file and place it came from,
// the object and what applying it does.
//
//	route.yaml document 2: VirtualService default/reviews replaced
//	ns.yaml: Namespace shop created
func (a Applied) String() string {
	how := "replaced"
	if a.Created {
		how = "created"
	}
	from := a.File
	if a.Where != "" {
		from += " " + a.Where
	}
	return from + ": " + a.Kind + " " + objectName(a.Namespace, a.Name) + " " + how
}

// String spells a refusal on one line: the object and the release's words, their line
// breaks (go-multierror's form) folded into spaces.
//
//	Sidecar shop/narrow: invalid namespace value "~payments" in sidecar
func (r Refusal) String() string {
	return r.Kind + " " + objectName(r.Namespace, r.Name) + ": " + strings.Join(strings.Fields(r.Message), " ")
}

// objectName is "namespace/name", or the name alone for an object without a namespace.
func objectName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
