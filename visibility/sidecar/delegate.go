package sidecar

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// mergeMatches merges a root route's matches with a delegate route's, as istiod merges a
// delegate into its root: with either empty, the other stands; otherwise each delegate match
// merges with every root match it does not conflict with, and the route is dropped (ok
// false) when one of the delegate's matches conflicts with every root match, or none merges.
func mergeMatches(root, delegate []inventory.HTTPMatch) ([]inventory.HTTPMatch, bool) {
	if len(root) == 0 {
		return delegate, true
	}
	if len(delegate) == 0 {
		return root, true
	}
	var out []inventory.HTTPMatch
	for i := range delegate {
		found := false
		for j := range root {
			if matchesConflict(&root[j], &delegate[i]) {
				continue
			}
			out = append(out, mergeMatch(&root[j], &delegate[i]))
			found = true
		}
		if !found {
			return nil, false
		}
	}
	return out, len(out) > 0
}

// mergeMatch is a delegate's match with what it leaves unset taken from the root's (the
// fields a view reads: source namespace, and the ones whose conflicts decide a merge).
func mergeMatch(root, leaf *inventory.HTTPMatch) inventory.HTTPMatch {
	out := *leaf
	switch {
	case out.Name == "":
		out.Name = root.Name
	case root.Name != "":
		out.Name = root.Name + "-" + out.Name
	}
	out.URI = cmp.Or(out.URI, root.URI)
	out.Scheme = cmp.Or(out.Scheme, root.Scheme)
	out.Method = cmp.Or(out.Method, root.Method)
	out.Authority = cmp.Or(out.Authority, root.Authority)
	out.Headers = mergeMaps(root.Headers, leaf.Headers)
	out.WithoutHeaders = mergeMaps(root.WithoutHeaders, leaf.WithoutHeaders)
	out.QueryParams = mergeMaps(root.QueryParams, leaf.QueryParams)
	out.SourceLabels = mergeMaps(root.SourceLabels, leaf.SourceLabels)
	out.Port = cmp.Or(out.Port, root.Port)
	out.SourceNamespace = cmp.Or(out.SourceNamespace, root.SourceNamespace)
	if len(out.Gateways) == 0 {
		out.Gateways = root.Gateways
	}
	return out
}

// mergeMaps returns a copy of a with b's entries over it; nil when both are empty.
func mergeMaps[V any](a, b map[string]V) map[string]V {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = make(map[string]V, len(b))
	}
	maps.Copy(out, b)
	return out
}

// matchesConflict reports whether a delegate's match (leaf) asks for what its root's match
// excludes, as istiod decides it: a string match that is not a narrowing of the root's,
// another ignoreUriCase, another port, another source namespace than the root names, a
// source label of another value, or gateways the root does not list.
func matchesConflict(root, leaf *inventory.HTTPMatch) bool {
	for _, p := range [][2]*inventory.StringMatch{{root.URI, leaf.URI}, {root.Scheme, leaf.Scheme}, {root.Method, leaf.Method}, {root.Authority, leaf.Authority}} {
		if stringMatchConflict(p[0], p[1]) {
			return true
		}
	}
	for _, m := range [][2]map[string]inventory.StringMatch{{root.Headers, leaf.Headers}, {root.WithoutHeaders, leaf.WithoutHeaders}, {root.QueryParams, leaf.QueryParams}} {
		for _, k := range slices.Sorted(maps.Keys(m[1])) {
			l := m[1][k]
			if r, ok := m[0][k]; ok && stringMatchConflict(&r, &l) {
				return true
			}
		}
	}
	switch {
	case root.IgnoreURICase != leaf.IgnoreURICase,
		root.Port > 0 && leaf.Port > 0 && root.Port != leaf.Port,
		root.SourceNamespace != "" && leaf.SourceNamespace != root.SourceNamespace:
		return true
	}
	for k, l := range leaf.SourceLabels {
		if r, ok := root.SourceLabels[k]; ok && r != l {
			return true
		}
	}
	if len(root.Gateways) > 0 && len(leaf.Gateways) > 0 {
		if len(root.Gateways) < len(leaf.Gateways) {
			return true
		}
		for _, g := range leaf.Gateways {
			if !slices.Contains(root.Gateways, g) {
				return true
			}
		}
	}
	return false
}

// stringMatchConflict reports whether a delegate's string match is not a narrowing of its
// root's: a regex beside any other match; exact under exact, equal only; exact or prefix
// under a prefix, starting with it. Absent on either side: no conflict; a root match that
// sets nothing conflicts with any.
func stringMatchConflict(root, leaf *inventory.StringMatch) bool {
	if root == nil || leaf == nil {
		return false
	}
	if root.Regex != "" && (leaf.Regex != "" || leaf.Prefix != "" || leaf.Exact != "") {
		return true
	}
	if leaf.Regex != "" && (root.Regex != "" || root.Prefix != "" || root.Exact != "") {
		return true
	}
	if root.Exact != "" {
		return leaf.Prefix != "" || leaf.Exact != root.Exact
	}
	if root.Prefix != "" {
		if leaf.Prefix != "" {
			return !strings.HasPrefix(leaf.Prefix, root.Prefix)
		}
		if leaf.Exact != "" {
			return !strings.HasPrefix(leaf.Exact, root.Prefix)
		}
	}
	return true
}
