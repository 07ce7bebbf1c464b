package sni

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
)

// Parse reads an SNI name of the trust domain td and returns the canonical Service, Peered,
// Gateway or Query it names: an empty namespace or partition is returned as "default".
//
// Parse is strict: the name must end in "."+td, its kind label must be one of internal,
// internal-v1, external or query with the number of labels that kind has, every component
// must be valid, and the spelling must be canonical (an internal-v1 name whose partition is
// "default" is rejected: its canonical form is the internal one). Thus
// Parse(n, td).String() == n for every name Parse accepts.
//
// A name made only of valid labels takes one pass that validates as it splits; any other
// input is parsed again, slowly, to say exactly what is wrong.
func Parse(name, td string) (Name, error) {
	if n, ok := parseValid(name, td); ok {
		return n, nil
	}
	return parseSlow(name, td)
}

// parseSlow is Parse step by step, each step with its own error.
func parseSlow(name, td string) (Name, error) {
	if len(name) > MaxLength {
		return nil, problem(ErrTooLong, name, "%q is %d characters long, at most %d are allowed", name, len(name), MaxLength)
	}
	if r := names.Subdomain(td); r != "" {
		return nil, component("TrustDomain", td, r)
	}
	if len(name) < len(td)+1 || name[len(name)-len(td)-1] != '.' || name[len(name)-len(td):] != td {
		return nil, problem(ErrForeignTrustDomain, name, "%q does not end in %q", name, "."+td)
	}
	var ls labels
	if err := splitLabels(&ls, name, name[:len(name)-len(td)-1]); err != nil {
		return nil, err
	}
	k, c := ls.split()
	n, err := nameOf(name, td, k, c)
	if err != nil {
		return nil, err
	}
	if k == kindInternalV1 && c[len(c)-2] == names.Default {
		return nil, problem(ErrMalformed, name, "%q names the default partition with %q; its canonical form uses %q",
			name, kindInternalV1, kindInternal)
	}
	// The trust domain and the length are checked above; only the components remain.
	if err := checkComponents(name, n); err != nil {
		return nil, err
	}
	return n, nil
}

// splitLabels splits rest, the labels of name before its trust domain, into ls.
func splitLabels(ls *labels, name, rest string) error {
	for start, i := 0, 0; i <= len(rest); i++ {
		if i < len(rest) && rest[i] != '.' {
			continue
		}
		if i == start {
			return problem(ErrMalformed, name, "%q has an empty label before the trust domain", name)
		}
		if ls.n == len(ls.l) {
			return problem(ErrMalformed, name, "%q has more labels before the trust domain than any kind of name", name)
		}
		ls.word(rest[start:i]) // checked once the kind says what each label holds
		start = i + 1
	}
	return nil
}

// nameOf returns the name of kind k with components c, canonical.
func nameOf(name, td string, k kind, c []string) (Name, error) {
	// Services, the most common kind, are built in one variable and boxed from it: a
	// composite literal in the return would be built in one temporary and copied to
	// another before boxing.
	s := Service{Partition: names.Default, TrustDomain: td}
	switch k {
	case kindInternal:
		switch len(c) {
		case 3:
			s.Service, s.Namespace, s.Datacenter = c[0], c[1], c[2]
			return s, nil
		case 4:
			s.Subset, s.Service, s.Namespace, s.Datacenter = c[0], c[1], c[2], c[3]
			return s, nil
		case 1:
			return Gateway{Partition: names.Default, Datacenter: c[0], TrustDomain: td}, nil
		}
	case kindInternalV1:
		switch len(c) {
		case 4:
			s.Service, s.Namespace, s.Partition, s.Datacenter = c[0], c[1], c[2], c[3]
			return s, nil
		case 5:
			s.Subset, s.Service, s.Namespace, s.Partition, s.Datacenter = c[0], c[1], c[2], c[3], c[4]
			return s, nil
		case 2:
			return Gateway{Partition: c[0], Datacenter: c[1], TrustDomain: td}, nil
		}
	case kindExternal:
		if len(c) == 4 {
			return Peered{Service: c[0], Namespace: c[1], Partition: c[2], Peer: c[3], TrustDomain: td}, nil
		}
	case kindPeering:
		if len(c) == 2 {
			if c[0] != peeringServerLabel {
				return nil, problem(ErrMalformed, name, "%q: the first label of a peering server name must be %q, got %q", name, peeringServerLabel, c[0])
			}
			return PeeringServer{Datacenter: c[1], TrustDomain: td}, nil
		}
	case kindQuery:
		if len(c) == 3 {
			if c[1] != names.Default {
				return nil, problem(ErrMalformed, name, "%q: the second label of a query name must be %q, got %q", name, names.Default, c[1])
			}
			return Query{Query: c[0], Datacenter: c[2], TrustDomain: td}, nil
		}
	}
	return nil, malformed(name, k, len(c))
}

// checkComponents validates the components of a parsed name.
func checkComponents(name string, n Name) error {
	ls := n.labels()
	if errs := ls.components(); errs != nil {
		return fielderr.In(fmt.Sprintf("SNI name %q", name), errors.Join(errs...))
	}
	return nil
}

func malformed(name string, k kind, n int) error {
	var want string
	switch k {
	case kindInternal:
		want = "3 or 4 (service) or 1 (gateway)"
	case kindInternalV1:
		want = "4 or 5 (service) or 2 (gateway)"
	case kindExternal:
		want = "4 (peered service)"
	case kindQuery:
		want = "3 (prepared query)"
	case kindPeering:
		want = "2 (peering server)"
	default:
		return problem(ErrMalformed, name, "%q: unknown kind %q before the trust domain (want internal, internal-v1, external, query or peering)",
			name, k)
	}
	return problem(ErrMalformed, name, "%q has %s labels before %q, want %s", name, strconv.Itoa(n), k, want)
}

// MustParse is Parse for names known to be valid, such as constants in tests; it panics if
// Parse fails.
func MustParse(name, td string) Name {
	n, err := Parse(name, td)
	if err != nil {
		panic(err)
	}
	return n
}
