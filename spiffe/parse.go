package spiffe

import (
	"strconv"

	"github.com/meshscope/meshscope/internal/names"
)

// Parse reads a SPIFFE ID and returns the Service, MeshGateway, Agent, Server, Workload or
// Signing it names. Parse follows the SPIFFE ID grammar strictly (see the package
// documentation) and accepts only the canonical spelling, so Parse(s).String() == s for
// every s it accepts.
func Parse(uri string) (Identity, error) {
	if len(uri) > MaxLength {
		return nil, problem(ErrTooLong, uri, "%d bytes, at most %d are allowed", len(uri), MaxLength)
	}
	if len(uri) < len(scheme) || uri[:len(scheme)] != scheme {
		return nil, malformed(uri, `must start with "spiffe://" (in lower case)`)
	}
	rest := uri[len(scheme):]
	end := 0
	for end < len(rest) && class[rest[end]]&inTrustDomain != 0 {
		end++
	}
	var p path
	p.td = rest[:end]
	if p.td == "" {
		return nil, malformed(uri, "has no trust domain")
	}
	if len(p.td) > MaxTrustDomainLength {
		return nil, problem(ErrTooLong, uri, "%q: the trust domain is %d bytes long, at most %d are allowed", uri, len(p.td), MaxTrustDomainLength)
	}
	rest = rest[end:]
	if rest != "" && rest[0] != '/' {
		return nil, malformed(uri, trustDomainStop(rest[0]))
	}
	if rest == "" {
		return Signing{TrustDomain: p.td}, nil
	}
	// rest is "/seg/seg/...": read each segment.
	for start, i := 1, 1; i <= len(rest); i++ {
		if i < len(rest) && rest[i] != '/' {
			if c := rest[i]; class[c]&inSegment == 0 {
				return nil, malformed(uri, "path must not contain "+describe(c)+pathStop(c))
			}
			continue
		}
		seg := rest[start:i]
		switch seg {
		case "":
			if i == len(rest) {
				return nil, malformed(uri, "must not end with \"/\"")
			}
			return nil, malformed(uri, "must not have an empty path segment")
		case ".", "..":
			return nil, malformed(uri, "must not have a dot segment "+strconv.Quote(seg))
		}
		if p.n == len(p.seg) {
			return nil, unknown(uri)
		}
		p.word(seg)
		start = i + 1
	}
	return match(uri, &p)
}

// match maps the segments to one of the five schemas.
func match(uri string, p *path) (Identity, error) {
	s := p.seg[:p.n]
	partition := names.Default
	if len(s) >= 2 && s[0] == "ap" {
		if s[1] == names.Default {
			return nil, problem(ErrUnknownSchema, uri, "%q: the default partition is written without /ap/default", uri)
		}
		partition, s = s[1], s[2:]
	}
	consul := partition == names.Default // Server and Workload IDs carry no partition
	switch {
	case len(s) == 6 && s[0] == "ns" && s[2] == "dc" && s[4] == "svc":
		return Service{TrustDomain: p.td, Partition: partition, Namespace: s[1], Datacenter: s[3], Service: s[5]}, nil
	case len(s) == 4 && s[0] == "gateway" && s[1] == "mesh" && s[2] == "dc":
		return MeshGateway{TrustDomain: p.td, Partition: partition, Datacenter: s[3]}, nil
	case len(s) == 6 && s[0] == "agent" && s[1] == "client" && s[2] == "dc" && s[4] == "id":
		return Agent{TrustDomain: p.td, Partition: partition, Datacenter: s[3], Agent: s[5]}, nil
	case consul && len(s) == 4 && s[0] == "agent" && s[1] == "server" && s[2] == "dc":
		return Server{TrustDomain: p.td, Datacenter: s[3]}, nil
	case consul && len(s) == 4 && s[0] == "ns" && s[2] == "sa":
		return Workload{TrustDomain: p.td, Namespace: s[1], ServiceAccount: s[3]}, nil
	}
	return nil, unknown(uri)
}

func malformed(uri, reason string) error {
	return problem(ErrMalformed, uri, "%q %s", uri, reason)
}

func unknown(uri string) error {
	return problem(ErrUnknownSchema, uri, "%q: the path is none of /ns/…/dc/…/svc/…, /gateway/mesh/dc/…, "+
		"/agent/client/dc/…/id/…, /agent/server/dc/… (each optionally after /ap/<partition>, servers excepted) "+
		"or /ns/…/sa/…", uri)
}

// trustDomainStop explains the character that ended the trust domain.
func trustDomainStop(c byte) string {
	switch c {
	case ':':
		return "must not have a port"
	case '@':
		return "must not have user info"
	case '?':
		return "must not have a query"
	case '#':
		return "must not have a fragment"
	}
	return "trust domain must not contain " + describe(c) + " (allowed: a-z, 0-9, \".\", \"-\" and \"_\")"
}

func pathStop(c byte) string {
	switch c {
	case '?':
		return ": IDs have no query"
	case '#':
		return ": IDs have no fragment"
	case '%':
		return ": IDs are never percent-encoded"
	}
	return ""
}

// MustParse is Parse for IDs known to be valid, such as constants in tests; it panics if Parse
// fails.
func MustParse(uri string) Identity {
	id, err := Parse(uri)
	if err != nil {
		panic(err)
	}
	return id
}
