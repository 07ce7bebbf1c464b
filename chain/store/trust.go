package store

import (
	"fmt"
	"maps"
	"slices"

	"github.com/meshscope/meshscope/exports"
)

// trustBundles returns the peers whose trust bundle Consul gives the sidecar of dest, sorted:
// of every service whose chain targets dest (sources), the peers its most exact
// exported-services rule names (peersOf), when the peering is active and its trust bundle
// was received. Consul's union of rules, which decides what a peer receives, does not count
// here: a service exported to east by a "*" rule and to west by its own rule trusts west only.
func (s *Sidecars) trustBundles(dest exports.ServiceName) ([]string, error) {
	sources, err := s.sources(dest)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, src := range sources {
		for _, p := range s.st.peersOf(src) {
			if peering, ok := s.Peering(p); ok && peering.bundled() {
				set[p] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// sources returns the services whose chain targets dest, as Consul lists them for a
// sidecar's trust bundles: of dest and every service whose resolver, router or splitter names
// one of them (Consul's link index, followed to its end), those whose chain, compiled in the
// cluster's datacenter, has a target of dest's name and namespace — a peer's target too, and
// in the partition of the chain's service whatever the target's, as Consul's code compares
// them. A chain that does not compile is an error: Consul's agent then has no answer.
func (s *Sidecars) sources(dest exports.ServiceName) ([]exports.ServiceName, error) {
	seen := map[exports.ServiceName]bool{dest: true}
	queue := []exports.ServiceName{dest}
	for i := 0; i < len(queue); i++ {
		for _, k := range slices.SortedFunc(maps.Keys(s.st.naming[queue[i]]), compareKeys) {
			if !seen[k.name] {
				seen[k.name] = true
				queue = append(queue, k.name)
			}
		}
	}
	var out []exports.ServiceName
	for _, sn := range queue {
		c, err := s.compile(sn)
		if err != nil {
			return nil, fmt.Errorf("the trust bundles of %s's sidecar: the chain of %s, which names it, does not compile: %w", dest.Short(), sn.Short(), err)
		}
		for _, t := range c.Targets {
			got := exports.ServiceName{Partition: sn.Partition, Namespace: t.Service.Namespace, Name: t.Service.Name}.Canonical()
			if got == dest {
				out = append(out, sn)
				break
			}
		}
	}
	slices.SortFunc(out, exports.ServiceName.Compare)
	return out, nil
}

// peersOf returns the peers the most exact rule of the exported-services entry of s's
// partition names, in rule order, as Consul reads the entry for trust bundles: s's own name
// in its namespace, else "*" in its namespace, else the rule of namespace "*" (Consul's code
// counts any rule of namespace "*" as the last, and of several rules of one kind the last; a
// valid entry has neither a named rule of namespace "*" nor two of a kind). Partition and
// sameness-group consumers give none.
func (st *Store) peersOf(s exports.ServiceName) []string {
	e := st.live(key{kindExportedServices, partitionNamed(s.Partition, "", "")})
	if e == nil {
		return nil
	}
	rules := e.export().Services
	exact, wildcardName, wildcardNamespace := -1, -1, -1
	for i, r := range rules {
		ns := exports.ServiceName{Namespace: r.Namespace}.Canonical().Namespace
		switch {
		case r.Namespace == exports.Wildcard:
			wildcardNamespace = i
		case r.Name == exports.Wildcard && ns == s.Namespace:
			wildcardName = i
		case r.Name == s.Name && ns == s.Namespace:
			exact = i
		}
	}
	rule := exact
	if rule < 0 {
		rule = wildcardName
	}
	if rule < 0 {
		rule = wildcardNamespace
	}
	if rule < 0 {
		return nil
	}
	var out []string
	for _, c := range rules[rule].Consumers {
		if c.Peer != "" {
			out = append(out, c.Peer)
		}
	}
	return out
}
