package intentions

import (
	"bytes"
	"strings"
)

// dotEqual reports whether s matches pattern as Consul's RBAC rules read a name written into
// a regular expression: every byte stands for itself except '.', which matches any character
// but a newline. Both are ASCII (Validate and the caller's checks see to it), so a character is
// a byte.
func dotEqual(pattern string, s []byte) bool {
	if len(pattern) != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := pattern[i]; c != s[i] && (c != '.' || s[i] == '\n') {
			return false
		}
	}
	return true
}

// anySegment reports whether s matches [^/]+ to its end.
func anySegment(s []byte) bool { return len(s) > 0 && bytes.IndexByte(s, '/') < 0 }

// svcSep separates a service identity's datacenter from its name.
const svcSep = "/svc/"

// sourceName matches uri against a group's pattern up to the name — prefix, [^/]+, "/svc/" —
// and returns the rest, the part the source's name must match.
func sourceName(prefix string, uri []byte) ([]byte, bool) {
	if len(uri) < len(prefix) || !dotEqual(prefix, uri[:len(prefix)]) {
		return nil, false
	}
	rest := uri[len(prefix):]
	i := bytes.IndexByte(rest, '/')
	if i <= 0 || !bytes.HasPrefix(rest[i:], []byte(svcSep)) {
		return nil, false
	}
	return rest[i+len(svcSep):], true
}

// nameMatches reports whether the rest of an identity (sourceName's) matches a source name
// pattern ("" for "*").
func nameMatches(name string, rest []byte) bool {
	if name == "" {
		return anySegment(rest)
	}
	return dotEqual(name, rest)
}

// presented is how the caller appears to the destination's RBAC filter: the URI SAN of the
// certificate the connection presents, and the URI of the first element of the
// x-forwarded-client-cert header (nil when the filter sees no such header).
type presented struct {
	cert, xfcc []byte
	// gateway: cert is the local mesh gateway's (matches its pattern).
	gateway bool
}

// uri is the identity a group's sources are matched on: the certificate's, or, for a group
// matched on the header, the header's behind the mesh gateway's certificate (nil: none).
func (g *group) uri(p *presented) []byte {
	if !g.xfcc {
		return p.cert
	}
	if !p.gateway {
		return nil
	}
	return p.xfcc
}

// httpRequest is a request as the HTTP filter's matchers read it.
type httpRequest struct {
	method, path, fullPath string // path: without its query or fragment
	headers                map[string]string
}

func newHTTPRequest(r *Request) httpRequest {
	path := r.Path
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	return httpRequest{method: r.Method, path: path, fullPath: r.Path, headers: r.Headers}
}

// header returns the value of a request header (a lower-case name), and whether the request
// has it; ":method" and ":path" are the request's method and path.
func (r *httpRequest) header(name string) (string, bool) {
	switch name {
	case ":method":
		return r.method, r.method != ""
	case ":path":
		return r.fullPath, r.fullPath != ""
	}
	v, ok := r.headers[name]
	return v, ok
}

// matches reports whether a permission fits the request: its path, every header and one of its
// methods.
func (p *permission) matches(r *httpRequest) bool {
	if !p.path.matches(r.path) {
		return false
	}
	for i := range p.headers {
		if !p.headers[i].matches(r) {
			return false
		}
	}
	if len(p.methods) == 0 {
		return true
	}
	for _, m := range p.methods {
		if m == r.method {
			return true
		}
	}
	return false
}

func (m *pathMatch) matches(path string) bool {
	switch m.kind {
	case matchExact:
		return path == m.value
	case matchPrefix:
		return strings.HasPrefix(path, m.value)
	case matchRegex:
		return m.re != nil && m.re.MatchString(path)
	}
	return true
}

// matches reports whether a header matcher fits the request. A header the request lacks fits
// nothing, inverted or not, except an inverted Present.
func (m *headerMatch) matches(r *httpRequest) bool {
	v, ok := r.header(m.name)
	if m.kind == matchPresent {
		return ok != m.invert
	}
	if !ok {
		return false
	}
	var fit bool
	switch m.kind {
	case matchExact:
		fit = v == m.value
	case matchPrefix:
		fit = strings.HasPrefix(v, m.value)
	case matchSuffix:
		fit = strings.HasSuffix(v, m.value)
	case matchRegex:
		if m.re == nil {
			return false // Envoy refuses it where it is read (Decision.EnvoyError)
		}
		fit = m.re.MatchString(v)
	}
	return fit != m.invert
}

// firstPermission returns the index of the first permission of k that fits the request, -1
// when none does.
func (k *kept) firstPermission(r *httpRequest) int {
	for i := range k.perms {
		if k.perms[i].matches(r) {
			return i
		}
	}
	return -1
}
