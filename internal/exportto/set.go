package exportto

import (
	"iter"
	"slices"

	"github.com/meshscope/meshscope/internal/release"
)

// The special values of an exportTo list.
const (
	All  = "*" // every namespace
	Own  = "." // the object's own namespace
	None = "~" // no namespace
)

// Set is an exportTo list read once for an object of one namespace: it answers whether the
// object is exported to a namespace. A list holding "*" is public; else one holding "~" is
// exported to no namespace; else the object is exported to each namespace the list names,
// "." standing for its own. The zero Set is exported nowhere. A Set keeps the list it was
// read from: do not modify it.
type Set struct {
	namespace           string
	list                []string
	public, hidden, own bool
}

// Parse reads the exportTo list of an object of namespace. It allocates nothing. Results
// for invalid lists (see Problems) are unspecified.
func Parse(list []string, namespace string) Set {
	s := Set{namespace: namespace, list: list}
	for _, e := range list {
		switch e {
		case All:
			s.public = true
		case None:
			s.hidden = true
		case Own:
			s.own = true
		}
	}
	s.hidden = s.hidden && !s.public
	return s
}

// To reports whether the object is exported to namespace n. A namespace of "" is exported
// to only by a public list.
func (s Set) To(n string) bool {
	switch {
	case s.public:
		return true
	case s.hidden || n == "":
		return false
	case s.own && n == s.namespace:
		return true
	}
	return slices.Contains(s.list, n)
}

// Holds reports whether the list holds "*" or names namespace n ("." standing for the
// object's own namespace), whatever else it holds: a "~" beside them does not count. istiod
// checks so, in every release, that a delegate VirtualService is exported to its root's
// namespace.
func (s Set) Holds(n string) bool {
	return s.public || n != "" && (s.own && n == s.namespace || slices.Contains(s.list, n))
}

// ToByName reports whether the list is public or names namespace n: "." does not count for
// n, even when n is the object's own namespace. istiod reads a DestinationRule's list so
// when it looks a rule up in the rules another namespace exports.
func (s Set) ToByName(n string) bool {
	return s.public || !s.hidden && n != "" && slices.Contains(s.list, n)
}

// Public reports whether the object is exported to every namespace.
func (s Set) Public() bool { return s.public }

// Hidden reports whether the object is exported to no namespace ("~").
func (s Set) Hidden() bool { return s.hidden }

// OwnOnly reports whether the object is exported to its own namespace and no other: the
// list is ["."] or its namespace's name.
func (s Set) OwnOnly() bool {
	if s.public || s.hidden || len(s.list) == 0 {
		return false
	}
	for _, e := range s.list {
		if e != Own && e != s.namespace {
			return false
		}
	}
	return true
}

// Namespaces yields each namespace a list that is neither public nor hidden names, once,
// in the order the list names them ("." as the object's own).
func (s Set) Namespaces() iter.Seq[string] {
	return func(yield func(string) bool) {
		if s.public || s.hidden {
			return
		}
		for i, e := range s.list {
			n := Key(e, s.namespace)
			if slices.ContainsFunc(s.list[:i], func(p string) bool { return Key(p, s.namespace) == n }) {
				continue // a repeat, which only the unvalidated annotation may hold
			}
			if !yield(n) {
				return
			}
		}
	}
}

// Key is what an entry of the list of an object of namespace stands for when Istio looks
// for repeats: "." is the namespace itself.
func Key(entry, namespace string) string {
	if entry == Own {
		return namespace
	}
	return entry
}

// Repeat returns the index of the first entry of list that repeats an earlier one ("."
// and the object's namespace by name repeat each other), and the earlier one's.
func Repeat(list []string, namespace string) (at, of int, ok bool) {
	seen := make(map[string]int, len(list))
	for i, e := range list {
		k := Key(e, namespace)
		if j, ok := seen[k]; ok {
			return i, j, true
		}
		seen[k] = i
	}
	return 0, 0, false
}

// ListOf returns the list an object goes by: the list it declares, else the mesh default of
// its kind (defaultServiceExportTo, defaultVirtualServiceExportTo), else ["*"]. The
// returned slice is one of those passed in, or a shared ["*"]: do not modify it.
func ListOf(declared, meshDefault []string) []string {
	switch {
	case len(declared) > 0:
		return declared
	case len(meshDefault) > 0:
		return meshDefault
	}
	return allList
}

// DefaultList returns the list an object that declares none goes by under release r, given
// the mesh default of its kind (defaultServiceExportTo, defaultVirtualServiceExportTo; nil
// or empty: ["*"]). From 1.30.3 (DefaultExportToLists) istiod reads the default as if the
// object declared it, so it is returned as given. Before, istiod honours only "." and "*" in
// it: a default holding "." makes such objects private to their namespace (even [".", "*"]),
// else one holding "*" makes them public, else they are not indexed at all — names and "~"
// are ignored — which is ["~"]. The returned slice is meshDefault or a shared one: do not
// modify it.
func DefaultList(meshDefault []string, r release.Release) []string {
	switch {
	case len(meshDefault) == 0:
		return allList
	case r.Has(release.DefaultExportToLists):
		return meshDefault
	}
	return honoured(meshDefault)
}

// honoured is the list istiod makes of a mesh default before 1.30.3: ["."], ["*"] or ["~"].
func honoured(meshDefault []string) []string {
	switch {
	case slices.Contains(meshDefault, Own):
		return ownList
	case slices.Contains(meshDefault, All):
		return allList
	}
	return noneList
}

// DefaultListsDiffer reports whether the releases before and after 1.30.3
// (DefaultExportToLists) make different lists of meshDefault (see DefaultList).
func DefaultListsDiffer(meshDefault []string) bool {
	return len(meshDefault) > 0 && !slices.Equal(meshDefault, honoured(meshDefault))
}

// RuleListOf returns the list a DestinationRule goes by: ["."] for a rule with a
// workloadSelector (selector), which is exported to its own namespace alone; the list it
// declares; else, when the mesh's defaultDestinationRuleExportTo holds ".", ["."], and for
// any other default ["*"]. The returned slice is declared or a shared one: do not modify
// it.
func RuleListOf(declared, meshDefault []string, selector bool) []string {
	switch {
	case selector:
		return ownList
	case len(declared) > 0:
		return declared
	case slices.Contains(meshDefault, Own):
		return ownList
	}
	return allList
}

var (
	allList  = []string{All}
	ownList  = []string{Own}
	noneList = []string{None}
)

// Narrowing is what a service's visibility (serviceEntryVisibility, with applyToSidecars)
// does to its exportTo list for sidecars and gateways.
type Narrowing uint8

const (
	// Keep (PUBLIC): the list stands.
	Keep Narrowing = iota
	// ToOwn (NAMESPACE): ["."] when the list exports the object to its own namespace ("*",
	// "." or its name), else ["~"].
	ToOwn
	// ToNone (NONE): ["~"].
	ToNone
)

// Narrow returns the list of an object of namespace narrowed by n: list itself when it
// stands (and for ["~"], which stays), else a shared ["."] or ["~"]. Visibility narrows a
// list and never widens it.
func Narrow(list []string, namespace string, n Narrowing) []string {
	switch {
	case n == Keep, slices.Equal(list, noneList):
		return list
	case n == ToOwn && Parse(list, namespace).To(namespace):
		return ownList
	}
	return noneList
}
