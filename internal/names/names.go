// Package names holds the name checks that several meshscope packages share: lowercase
// RFC 1123 labels and subdomains (SNI components, peer and subset names, namespaces), DNS
// labels as Istio's validation reads them (either case), and
// the few fixed names they spell alike (the default partition, the wildcard, the kinds of
// Consul's discovery-chain config entries).
//
// The checks are byte loops rather than regular expressions because they sit on parse paths
// that run per request; the tests and a fuzzer hold them against k8s.io/apimachinery's
// validation, which is the reference for what a lowercase RFC 1123 label is. One deliberate
// difference: a subdomain's labels are limited to 63 characters here, as RFC 1123 and DNS
// require, where apimachinery's subdomain check only limits the whole name.
package names

import (
	"strconv"
	"strings"
	"unsafe"
)

// MaxLabel is the longest DNS label, MaxSubdomain the longest DNS name (RFC 1123).
const (
	MaxLabel     = 63
	MaxSubdomain = 253
)

// Label reports why s is not a lowercase RFC 1123 label (1 to 63 of a-z, 0-9 and '-',
// starting and ending with a letter or digit). It returns "" when s is one, without
// allocating.
func Label(s string) string { return label(s, false) }

// Datacenter is Label, but also allows '_' inside the label, as Consul datacenter names do.
func Datacenter(s string) string { return label(s, true) }

// IsLabel reports whether s is a lowercase RFC 1123 label.
func IsLabel(s string) bool { return Label(s) == "" }

// IstioLabel reports whether s is a DNS label as Istio's validation reads one: 1 to 63
// letters, digits and '-', starting and ending with a letter or digit. Unlike Label it
// admits upper-case letters.
func IstioLabel(s string) bool { return len(s) <= MaxLabel && IstioLabelChars(s) }

// IstioLabelChars is IstioLabel without the limit on length, for the labels of a name whose
// length Istio checks as a whole: a non-empty run of letters (either case), digits and '-',
// with no '-' at either end.
func IstioLabelChars(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

// Character classes of the label alphabet.
const (
	classAlnum = 1 << iota
	classDash
	classUnderscore
)

var class = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classAlnum
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classAlnum
	}
	t['-'] = classDash
	t['_'] = classUnderscore
	return t
}()

// LabelByte reports whether c may appear in a label: a-z, 0-9 or '-'.
func LabelByte(c byte) bool { return class[c]&(classAlnum|classDash) != 0 }

// LabelEnd reports whether c may start or end a label: a-z or 0-9.
func LabelEnd(c byte) bool { return class[c] == classAlnum }

func label(s string, underscore bool) string {
	if s == "" {
		return "must not be empty"
	}
	if len(s) > MaxLabel {
		return "must be at most " + strconv.Itoa(MaxLabel) + " characters long, has " + strconv.Itoa(len(s))
	}
	allowed := uint8(classAlnum | classDash)
	if underscore {
		allowed |= classUnderscore
	}
	for i := 0; i < len(s); i++ {
		if class[s[i]]&allowed == 0 {
			return badChar(s[i], underscore)
		}
	}
	if class[s[0]] != classAlnum || class[s[len(s)-1]] != classAlnum {
		return "must start and end with a lower-case letter or a digit"
	}
	return ""
}

func badChar(c byte, underscore bool) string {
	allowed := `a-z, 0-9 and "-"`
	if underscore {
		allowed = `a-z, 0-9, "-" and "_"`
	}
	switch {
	case 'A' <= c && c <= 'Z':
		return "must be lower case"
	case c == '.':
		return `must not contain "." (the label separator)`
	case c == '/':
		return `must not contain "/" (the path separator)`
	}
	return "must not contain " + strconv.QuoteRune(rune(c)) + " (allowed: " + allowed + ")"
}

// Subdomain reports why s is not a lowercase RFC 1123 subdomain: at most 253 characters of
// dot-separated labels as Label describes them. It returns "" when s is one.
func Subdomain(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if len(s) > MaxSubdomain {
		return "must be at most " + strconv.Itoa(MaxSubdomain) + " characters long, has " + strconv.Itoa(len(s))
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if class[s[i]]&(classAlnum|classDash) == 0 {
				break // label below names the character
			}
			continue
		}
		if i == start {
			return "must not have an empty label (a leading, trailing or doubled \".\")"
		}
		if class[s[start]] != classAlnum || class[s[i-1]] != classAlnum || i-start > MaxLabel {
			break
		}
		start = i + 1
	}
	if start > len(s) {
		return ""
	}
	// Name the first bad label with Label's reason.
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return "must not have an empty label (a leading, trailing or doubled \".\")"
		}
		if r := label(part, false); r != "" {
			return "label " + strconv.Quote(part) + " " + r
		}
	}
	return ""
}

// String returns b's bytes as a string without copying. The caller must not modify b
// afterwards; the name builders use it to build a name with exactly one allocation.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Default is the name of the default partition and namespace, which an empty one means.
const Default = "default"

// Wildcard stands for "every" in a name field: every service, namespace or namespace to
// export to.
const Wildcard = "*"

// The Kind of each of Consul's discovery-chain config entries, as Consul spells it: package
// chain decodes and validates these entries, package peermeta reads and writes them by kind.
const (
	KindServiceResolver = "service-resolver"
	KindServiceRouter   = "service-router"
	KindServiceSplitter = "service-splitter"
)

// OrDefault returns s, or Default when s is empty.
func OrDefault(s string) string {
	if s == "" {
		return Default
	}
	return s
}
